"""Topology files in the formats other tools write, and networkx graphs, read as topologies.

- :mod:`~supermesh.topologies.formats.read`: :func:`read_topology`, the one place that picks a
  reader by ``format=``, by the file's extension or by its first words.
- :mod:`~supermesh.topologies.formats.graphml`, :mod:`~supermesh.topologies.formats.dot` and
  :mod:`~supermesh.topologies.formats.anynet`: one reader per format (the JSON reader is
  :mod:`supermesh.topologies.io`); :mod:`~supermesh.topologies.formats.lexer` splits DOT into
  tokens for the DOT reader.
- :mod:`~supermesh.topologies.formats.convert`: :func:`from_networkx` (any networkx graph as a
  topology), reading labels and values with :mod:`~supermesh.topologies.formats.labels` and
  positions with :mod:`~supermesh.topologies.formats.placement`.
- :mod:`~supermesh.topologies.formats.accept`: :func:`as_topology`, which the public API applies
  to a graph it is given.
"""

from supermesh._lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "INPUT_FORMATS": "supermesh.topologies.formats.read",
    "format_of": "supermesh.topologies.formats.read",
    "read_topology": "supermesh.topologies.formats.read",
    "read_graphml": "supermesh.topologies.formats.graphml",
    "graphml_graph": "supermesh.topologies.formats.graphml",
    "graphml_topology": "supermesh.topologies.formats.graphml",
    "read_dot": "supermesh.topologies.formats.dot",
    "dot_graph": "supermesh.topologies.formats.dot",
    "dot_topology": "supermesh.topologies.formats.dot",
    "read_anynet": "supermesh.topologies.formats.anynet",
    "anynet_topology": "supermesh.topologies.formats.anynet",
    "from_networkx": "supermesh.topologies.formats.convert",
    "as_topology": "supermesh.topologies.formats.accept",
    "is_topology": "supermesh.topologies.formats.accept",
    "topology_input": "supermesh.topologies.formats.accept",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = sorted(_EXPORTS)

"""Independent checkers of trees, certificates and schedule tables, and deadlock analysis.

Nothing here calls the code it checks (:mod:`supermesh.trees` algorithms, :mod:`supermesh.sim`):
every check recounts from the topology and the claimed objects, so a user can trust a schedule
without trusting the solver that made it. Checkers return a list of
:class:`~supermesh.verify.findings.Finding` (empty means valid).

- :mod:`~supermesh.verify.files`: :func:`check_file`, any file the tool writes, by its
  ``format`` field (what ``supermesh verify`` runs); the tree and schedule formats are
  ``file`` modules of their subpackages, and what they share (the :class:`FileReport`, the
  topology a file names) is :mod:`~supermesh.verify.documents`.
- :mod:`~supermesh.verify.trees`: trees, packings, certificates, weighted rates.
- :mod:`~supermesh.verify.schedule`: schedule tables (links, FIFO steps, data flow, ranges).
- :mod:`~supermesh.verify.deadlock`: deadlock freedom of tables and tree schedules.
- :mod:`~supermesh.verify.findings`: the :class:`Finding` every checker returns.

Imports (enforced by ``tests/test_layout.py``): verify reads only the data types of the other
engines (:mod:`supermesh.topologies`, :mod:`supermesh.trees.model`,
:mod:`supermesh.trees.oriented`, :mod:`supermesh.trees.schedule.model`), never an algorithm of
:mod:`supermesh.trees` or :mod:`supermesh.sim`.

Examples
--------
>>> from supermesh.topologies import build
>>> from supermesh.trees.model import Tree
>>> from supermesh.verify import check_tree
>>> G = build("mesh:2x2")
>>> [f.code for f in check_tree(G, Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0)), 3), direction="out")]
['height-mismatch']
"""

from supermesh._lazy import lazy_exports
from supermesh.verify import deadlock, proof, schedule, topology, trees

# public name -> module defining it (imported on first use): what verify's own modules define,
# then every name the rooms list (each room's map is the one place its names are written)
_EXPORTS: dict[str, str] = {
    "check_document": "supermesh.verify.files",
    "check_file": "supermesh.verify.files",
    "FileReport": "supermesh.verify.documents",
    "Claim": "supermesh.verify.claims",
    "check_sweep_file": "supermesh.verify.sweep",
    "check_sweep_rows": "supermesh.verify.sweep",
    "Finding": "supermesh.verify.findings",
    "errors": "supermesh.verify.findings",
    "format_finding": "supermesh.verify.findings",
}
for _room in (topology, trees, schedule, deadlock, proof):
    _EXPORTS |= {name: _room._EXPORTS[name] for name in _room.__all__}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = list(_EXPORTS)

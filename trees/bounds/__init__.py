"""Bounds with proof: how many trees fit, how low they can be, how fast a collective can run.

Everything here answers "what is possible?" and comes with the object that proves it, so that
:mod:`supermesh.verify` can recount it:

- :mod:`~supermesh.trees.bounds.counts`: Edmonds' branching theorem for given roots
  (:func:`check_roots`, :func:`max_trees_from_root`), answered with a violated cut;
  :mod:`~supermesh.trees.bounds.free`: Frank's theorem for free roots (:func:`max_trees_free`),
  answered with a violated subpartition.
  Their flow engine, small-value max-flows by short path searches, is
  :mod:`supermesh.topologies.connectivity` (the arc connectivity of the metrics uses it too).
- :mod:`~supermesh.trees.bounds.frank`: free roots by Frank's and Cai's theorems.
- :mod:`~supermesh.trees.bounds.heights`: BFS distances, eccentricities and the height lower
  bound, on the direction-free *working network* every packing algorithm builds on.
- :mod:`~supermesh.trees.bounds.throughput`: the exact ForestColl cut bound on ReduceScatter /
  AllGather throughput, with its bottleneck cut.
- :mod:`~supermesh.trees.bounds.allreduce`: the AllReduce bound of any algorithm, from the
  transfers each element needs between the parts of a partition (every node its own part: the
  volume bound).
- :mod:`~supermesh.trees.bounds.explain`: each certificate as the sentence a person can check
  (what ``supermesh bound`` and ``supermesh trees`` print).

Why the height and throughput bounds live here and not beside their packers: a bound is a proof
about the topology, used by several rooms (packing, roots, throughput, prove, the simulator) and
never the other way round. This room uses only the shared data types of :mod:`supermesh.trees`.
"""

from supermesh._lazy import lazy_exports

# public name -> module defining it (imported on first use)
_EXPORTS: dict[str, str] = {
    # tree counts (Edmonds, Frank)
    "CountBound": "supermesh.trees.bounds.counts",
    "RootsBound": "supermesh.trees.bounds.counts",
    "check_roots": "supermesh.trees.bounds.counts",
    "edmonds_deficit": "supermesh.trees.bounds.counts",
    "in_degree_upper_bound": "supermesh.trees.bounds.free",
    "max_trees_free": "supermesh.trees.bounds.free",
    "most_distinct_roots": "supermesh.trees.bounds.free",
    "max_trees_from_root": "supermesh.trees.bounds.counts",
    "decide_free": "supermesh.trees.bounds.frank",
    # heights and the working network
    "WorkingNetwork": "supermesh.trees.bounds.heights",
    "working_network": "supermesh.trees.bounds.heights",
    "check_direction": "supermesh.trees.bounds.heights",
    "resolve_span": "supermesh.trees.bounds.heights",
    "bfs_distances": "supermesh.trees.bounds.heights",
    "eccentricities": "supermesh.trees.bounds.heights",
    "root_eccentricities": "supermesh.trees.bounds.heights",
    "tree_depths": "supermesh.trees.bounds.heights",
    "height_lower_bound": "supermesh.trees.bounds.heights",
    # AllReduce: transfers between the parts of a partition
    "partition_bound": "supermesh.trees.bounds.allreduce",
    "volume_bound": "supermesh.trees.bounds.allreduce",
    # certificates in words
    "allreduce_proof": "supermesh.trees.bounds.explain",
    "count_proof": "supermesh.trees.bounds.explain",
    "cut_proof": "supermesh.trees.bounds.explain",
    "node_set": "supermesh.trees.bounds.explain",
    "packing_proof": "supermesh.trees.bounds.explain",
    "roots_proof": "supermesh.trees.bounds.explain",
    # throughput (the ForestColl cut bound)
    "COLLECTIVES": "supermesh.trees.bounds.throughput",
    "RateBound": "supermesh.trees.bounds.throughput",
    "exact_fraction": "supermesh.trees.bounds.throughput",
    "throughput_bound": "supermesh.trees.bounds.throughput",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = list(_EXPORTS)

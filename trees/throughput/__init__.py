"""Throughput-optimal ReduceScatter / AllGather: weighted trees at the cut bound, lowest heights.

- :mod:`~supermesh.trees.throughput.pack`: :func:`pack_throughput`, the entry point.
- :mod:`~supermesh.trees.throughput.construct`: closed-form packings at the cut bound for the
  mesh (:mod:`~supermesh.trees.throughput.dimension`, XY / YX trees) and SMBi
  (:mod:`~supermesh.trees.throughput.combs`, four arc-disjoint trees per root), on the grid
  facts of :mod:`~supermesh.trees.throughput.grid`; no solver, any size. Even SMAlter from 8x8:
  the combs with the border repaired by CP-SAT (:mod:`~supermesh.trees.throughput.alter`).
- :mod:`~supermesh.trees.throughput.rings`: arc-disjoint directed Hamiltonian cycles (CP-SAT), one
  tree per cycle and rank: at the cut bound on every even mesh, SMBi and SMAlter up to 10x10,
  with tall trees but a one-round schedule that never waits.
- :mod:`~supermesh.trees.throughput.lp`: column generation; the master LP in GLOP
  (:mod:`~supermesh.trees.throughput.master`) over the indexed network and its symmetry orbits
  (:mod:`~supermesh.trees.throughput.model`, :mod:`~supermesh.topologies.symmetry`);
  pricing is a cheapest spanning tree of bounded height
  (:mod:`~supermesh.trees.throughput.pricing`).
- :mod:`~supermesh.trees.throughput.exact`: exact rational shares from the LP's floats, and the
  proof that a height cap is minimal.
- :mod:`~supermesh.trees.throughput.parts`, :mod:`~supermesh.trees.throughput.polish`: equal-part
  packings (``K`` trees per rank), by price-and-dive and CP-SAT.
- :mod:`~supermesh.trees.throughput.free_roots`: the largest fractional packing with free roots
  (column generation, Edmonds pricing), the rate of an AllReduce whose parts float.
- :mod:`~supermesh.trees.throughput.undirected`: the fastest AllReduce over trees, spanning
  trees of the undirected network whose reduce and broadcast overlap on opposite arcs (column
  generation, Kruskal pricing), with the partition that proves it optimal.
- :mod:`~supermesh.trees.throughput.rates`: the exact rate a weighted packing reaches, and
  :func:`choose_parts` (how many parts a size wants).

The bound itself (:func:`~supermesh.trees.bounds.throughput.throughput_bound`) lives in
:mod:`supermesh.trees.bounds`, since the simulator and the drawings need it without the packer.
This room uses :mod:`supermesh.trees.bounds` and the shared data types, never packing or roots.
"""

from supermesh._lazy import lazy_exports

# public name -> module defining it (imported on first use: OR-Tools loads slowly)
_EXPORTS: dict[str, str] = {
    "pack_throughput": "supermesh.trees.throughput.pack",
    "memoised_packing": "supermesh.trees.throughput.pack",
    "packing_rate": "supermesh.trees.throughput.rates",
    "rate_view": "supermesh.trees.throughput.rates",
    "root_shares": "supermesh.trees.throughput.rates",
    "choose_parts": "supermesh.trees.throughput.rates",
    "estimated_load": "supermesh.trees.throughput.rates",
    "column_generation": "supermesh.trees.throughput.lp",
    "Network": "supermesh.trees.throughput.model",
    "Progress": "supermesh.trees.throughput.model",
    "exact_shares": "supermesh.trees.throughput.exact",
    "FreeRoots": "supermesh.trees.throughput.free_roots",
    "free_root_packing": "supermesh.trees.throughput.free_roots",
    "constructed_packing": "supermesh.trees.throughput.construct",
    "construction_parts": "supermesh.trees.throughput.construct",
    "RINGS_UP_TO": "supermesh.trees.throughput.rings",
    "hamiltonian_rings": "supermesh.trees.throughput.rings",
    "ring_packing": "supermesh.trees.throughput.rings",
    "UndirectedPacking": "supermesh.trees.throughput.undirected",
    "undirected_packing": "supermesh.trees.throughput.undirected",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = list(_EXPORTS)

"""Independent checkers of trees, certificates and schedule tables, and deadlock analysis.

Nothing here calls the code it checks (:mod:`supermesh.trees` algorithms, :mod:`supermesh.sim`):
every check recounts from the topology and the claimed objects, so a user can trust a schedule
without trusting the solver that made it. Checkers return a list of
:class:`~supermesh.verify.findings.Finding` (empty means valid).

Examples
--------
>>> from supermesh.topologies import build
>>> from supermesh.trees.model import Tree
>>> from supermesh.verify import check_tree
>>> G = build("mesh:2x2")
>>> [f.code for f in check_tree(G, Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0)), 3), direction="out")]
['height-mismatch']
"""

from supermesh.verify.certificates import (
    check_certificate,
    check_edmonds_certificate,
    check_frank_certificate,
    check_height_claim,
    crossing_arcs,
    eccentricity,
)
from supermesh.verify.deadlock import (
    DeadlockReport,
    check_deadlock,
    dependency_graph,
    fifo_model,
    fifo_orders,
    wait_for_graph,
)
from supermesh.verify.fifo import FifoModel, Transfer, table_model
from supermesh.verify.files import FileReport, check_document, check_file
from supermesh.verify.findings import Finding, errors, format_finding
from supermesh.verify.rates import (
    RateReport,
    check_weighted_packing,
    is_weighted_packing,
    rate_report,
)
from supermesh.verify.schedule import check_schedule
from supermesh.verify.tree_schedule import TreeSchedule, transfers, tree_model
from supermesh.verify.trees import (
    check_disjoint,
    check_packing,
    check_rates,
    check_tree,
    span_nodes,
)

__all__ = [
    "DeadlockReport",
    "FifoModel",
    "FileReport",
    "Finding",
    "RateReport",
    "Transfer",
    "TreeSchedule",
    "check_certificate",
    "check_deadlock",
    "check_disjoint",
    "check_document",
    "check_edmonds_certificate",
    "check_file",
    "check_frank_certificate",
    "check_height_claim",
    "check_packing",
    "check_rates",
    "check_schedule",
    "check_tree",
    "check_weighted_packing",
    "crossing_arcs",
    "dependency_graph",
    "eccentricity",
    "errors",
    "fifo_model",
    "fifo_orders",
    "format_finding",
    "is_weighted_packing",
    "rate_report",
    "span_nodes",
    "table_model",
    "transfers",
    "tree_model",
    "wait_for_graph",
]

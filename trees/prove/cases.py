"""The all-sizes cases of each topology family: claim, argument and the numbers it predicts.

A family's statement is a few *cases*, each for the sizes it applies to (``R x C`` for grid
families, the radius for a full HexaMesh), with the claim in words, the argument that proves it
for every such size, and the numbers it predicts at one size (``predict``), which
:func:`supermesh.trees.prove.prove_family` compares with what it proves size by size: an
all-sizes claim that one checked size contradicts is reported, never hidden.
:mod:`~supermesh.trees.prove.statement` joins the cases covering one topology.

Conventions: out-trees (broadcast, AllGather); every family here is symmetric (a link is two
opposite arcs) or, for SMUni, its reverse is its mirror image, so the same holds for in-trees.
"Any roots" means any multiset of roots, repeats allowed. Arguments use Edmonds' branching
theorem (k trees with given roots exist iff every node set X is entered by at least as many arcs
as there are roots outside X) and Frank's theorem for free roots (k trees exist iff every
subpartition X1..Xt is entered by at least k(t - 1) arcs in total).

References
----------
.. [1] J. Edmonds, "Edge-disjoint branchings", Combinatorial Algorithms, 1973.
.. [2] A. Frank, "On disjoint trees and arborescences", Algebraic Methods in Graph Theory, 1978.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from supermesh.trees.rootspec import side_positions

__all__ = ["Case", "cases_for"]

Size = tuple[int, int]
"""``(rows, cols)``; a HexaMesh radius ``r`` is ``(r, r)``."""


@dataclass(frozen=True)
class Case:
    """One all-sizes claim of a family.

    Attributes
    ----------
    applies : str
        The sizes it covers, in words (``"R, C even"``).
    test : callable
        ``test(size) -> bool``: whether it covers ``size``.
    statement, argument : str
        The claim, and why it holds for every covered size.
    predict : callable
        ``predict(size) -> dict`` with the numbers the claim implies at that size:
        ``max_trees`` (int, when claimed) and ``heights`` (root choice -> height, or ``None``
        for a choice claimed impossible).
    construction : str or None
        The function that builds the trees the claim exhibits.
    """

    applies: str
    test: Callable[[Size], bool]
    statement: str
    argument: str
    predict: Callable[[Size], dict[str, Any]]
    construction: str | None = None

    def to_json(self) -> dict[str, Any]:
        """``applies``, ``statement``, ``argument``, ``construction``."""
        return {
            "applies": self.applies,
            "statement": self.statement,
            "argument": self.argument,
            "construction": self.construction,
        }


def _ecc(size: Size, r: int, c: int) -> int:
    rows, cols = size
    return max(r, rows - 1 - r) + max(c, cols - 1 - c)


def _sides_height(size: Size) -> int:
    return max(_ecc(size, r, c) for r, c in side_positions(*size))


def _corner(size: Size) -> int:
    return size[0] + size[1] - 2


_CORNER_CRITERION = (
    "Every perimeter chiplet has a doubled perimeter link, so the corner criterion of "
    "supermesh.trees.packing.closedform gives four shortest-path trees rooted at the corners "
    "(at each node the trees' geodesic in-arcs can be matched within the parallel copies; "
    "the node types are the same at every size), each of height R + C - 2, the corners' "
    "eccentricity."
)
_EVERY_ARC = (
    "{what}: corners have 3 in-arcs and every other chiplet 4, so there are 4RC - 4 arcs. "
    "Frank with every chiplet as a singleton: k trees need 4RC - 4 >= k(RC - 1), so k <= 4; "
    "for k = 4 equality holds, so every arc is used and every chiplet v has exactly "
    "4 - (trees rooted at v) in-arcs in use: the four 3-arc corners root one tree each and no "
    "other chiplet roots one."
)

MESH = [
    Case(
        "R, C >= 2",
        lambda s: min(s) >= 2,
        "Every R x C mesh supports exactly 2 arc-disjoint spanning trees, for any 2 roots, and "
        "never 3 with any roots; 4 roots at the corners or mid-sides are impossible. Three trees "
        "rooted at three corners exist, of optimal height R + C - 2, when the fourth corner need "
        "not be reached (it only relays): the TTO compromise.",
        "Upper bound: the four corners have 2 in-arcs each; as four singletons they are entered "
        "by 8 < 3 x (4 - 1) arcs, so 3 trees fail Frank's condition for any roots, and with 4 "
        "roots some corner outside them is entered by 2 < 3 arcs (Edmonds). Lower bound: rows "
        "and columns are paths; a nonempty proper set X splits some row and some column (an arc "
        "enters X along each), or no row (then all C >= 2 columns are split), or no column (all "
        "R >= 2 rows): at least 2 arcs enter X, so any 2 roots pass Edmonds' condition. Three "
        "corners: supermesh.trees.packing.closedform.mesh_three_corner_trees matches single "
        "arcs only at every node type; BL relays for TL and BR.",
        lambda s: {
            "max_trees": 2,
            "heights": {"corners": None, "sides": None, "corners3": _corner(s)},
        },
        "supermesh.trees.packing.closedform.mesh_three_corner_trees",
    )
]

SMBI = [
    Case(
        "R, C >= 2",
        lambda s: min(s) >= 2,
        "Every R x C SMBi supports 4 arc-disjoint spanning trees for any 4 roots; 5 are "
        "impossible with any roots when (R - 2)(C - 2) >= 2 (every N x N with N >= 4). Trees "
        "rooted at the corners have height R + C - 2 and trees with one root per side the "
        "largest root eccentricity: both optimal.",
        "Any 4 roots: let X be a nonempty proper node set. If X holds some but not all perimeter "
        "chiplets, at least two perimeter links cross its boundary (the perimeter is a cycle), "
        "each doubled, so 4 arcs enter X. Otherwise X or its complement S lies in the interior "
        "(R, C >= 3): the top-most then left-most chiplet of S has its upper and left neighbours "
        "outside S, the bottom-most then right-most one its lower and right neighbours (one "
        "chiplet with 4 outside neighbours if they coincide): 4 mesh links cross, each with an "
        "arc into X. So every set is entered by >= 4 arcs (Edmonds). At most 4: the 4 corners "
        "and the (R - 2)(C - 2) interior chiplets have 4 in-arcs; six of them as singletons are "
        "entered by 24 < 5 x 5 arcs (Frank). Heights: the comb trees "
        "(supermesh.trees.packing.construct; each tree owns one direction inside, perimeter "
        "arcs are used at most twice) and the corner criterion are shortest-path trees, so "
        "each tree's "
        "height is its root's eccentricity.",
        lambda s: {
            **({"max_trees": 4} if (s[0] - 2) * (s[1] - 2) >= 2 else {}),
            "heights": {"corners": _corner(s), "sides": _sides_height(s)},
        },
        "supermesh.trees.packing.construct.comb_parents, "
        "supermesh.trees.packing.closedform.corner_trees",
    )
]

_ALTER_CORNERS = Case(
    "R, C of different parity",
    lambda s: min(s) >= 2 and s[0] % 2 != s[1] % 2,
    "Four corner-rooted trees of height R + C - 2 (optimal) exist at every size.",
    "Sides are walked from their first corner and links 0, 2, 4, ... are doubled, so a border "
    "chiplet at position i touches links i - 1 and i, one of them doubled, and a corner starts "
    "a side at its doubled link 0. " + _CORNER_CRITERION,
    lambda s: {"heights": {"corners": _corner(s)}},
    "supermesh.trees.packing.closedform.smalter_corner_trees",
)

SMALTER = [
    Case(
        "R, C even",
        lambda s: s[0] % 2 == 0 and s[1] % 2 == 0,
        "Every R x C SMAlter with R and C even gives every chiplet exactly 4 links; it supports "
        "at most 4 arc-disjoint spanning trees with any roots (except 2 x 2), 4 for any 4 roots "
        "when R, C >= 4, and 4 corner-rooted trees of height R + C - 2 (optimal). On N x N with "
        "one root per side (N >= 6) trees of height 3N/2, the roots' eccentricity + 1, exist "
        "for every even N; shortest-path trees do not fit, and that 3N/2 is optimal is proved "
        "size by size (CP-SAT), not for every N.",
        "Each side has an odd number of links, both end links doubled: a border chiplet touches "
        "one doubled link, a corner two, so the topology is a 4-regular symmetric multigraph. "
        "At most 4: six singletons are entered by 24 < 25 arcs when RC >= 6 (Frank). Any 4 "
        "roots (R, C >= 4): the links crossing a set X number 4|X| - 2e(X), an even number; a "
        "set crossed by 2 links is crossed by at most 2 mesh links, hence (the mesh being "
        "2-edge-connected and each side of a cut adding 2 per component) by a mesh bond of size "
        "2, which is a 2-cycle of the plane dual: two faces sharing two links. For R, C >= 3 "
        "that is a corner square and the outer face, i.e. X or its complement is a corner, "
        "whose links are doubled: contradiction, so every set is crossed by >= 4 links and "
        "entered by >= 4 arcs (Edmonds). (On 2 x C the cut between columns c and c + 1, c odd, "
        "has 2 single links, so not all roots work there.) " + _ALTER_CORNERS.argument + " Side "
        "roots: supermesh.trees.packing.closedform.smalter_side_trees turns one tree by "
        "quarter turns (SMAlter with N even is invariant under them), so disjointness is one "
        "tree using each orbit of node pairs at most as often as its links are doubled; the comb "
        "breaks that at every second chiplet of the lower halves of the first and last columns, "
        "and local re-routings through the spare copies of doubled south and corner links "
        "repair it, making only chiplets of the last two rows 2 hops late.",
        lambda s: {
            **({"max_trees": 4} if s[0] * s[1] >= 6 else {}),
            "heights": {"corners": _corner(s)},
        },
        "supermesh.trees.packing.closedform.smalter_corner_trees, "
        "supermesh.trees.packing.closedform.smalter_side_trees",
    ),
    Case(
        "R, C odd (the paper's variant)",
        lambda s: s[0] % 2 == 1 and s[1] % 2 == 1,
        "Every R x C SMAlter with R and C odd supports at most 4 arc-disjoint spanning trees "
        "with any roots, and 4 only with the four corners as roots, one tree each (they then "
        "use every arc); those corner trees exist with height R + C - 2 (optimal).",
        _EVERY_ARC.format(
            what="Each side has an even number of links, doubled at positions 0, 2, ..., so "
            "its last link is single"
        )
        + " "
        + _ALTER_CORNERS.argument,
        lambda s: {
            "max_trees": 4,
            "heights": {"corners": _corner(s), **({"sides": None} if min(s) >= 3 else {})},
        },
        _ALTER_CORNERS.construction,
    ),
    _ALTER_CORNERS,
]

SMALTER4 = [
    Case(
        "any R, C",
        lambda s: min(s) >= 2,
        "Four corner-rooted trees of height R + C - 2 (optimal) exist at every size; at most 4 "
        "trees with any roots once at least six chiplets have 4 links (R x C >= 10).",
        "With corners=4 every corner and every border chiplet has a doubled perimeter link. "
        + _CORNER_CRITERION
        + " At most 4: six 4-link chiplets as singletons are entered by 24 < 25 arcs (Frank).",
        lambda s: {
            **({"max_trees": 4} if s[0] * s[1] >= 10 else {}),
            "heights": {"corners": _corner(s)},
        },
        "supermesh.trees.packing.closedform.corner_trees",
    )
]

SMUNI = [
    Case(
        "R, C >= 2",
        lambda s: min(s) >= 2,
        "Every R x C SMUni (either way round) supports at most 4 arc-disjoint spanning trees "
        "with any roots, and 4 only with the four corners as roots, one tree each (they then "
        "use every arc); those corner trees exist with height R + C - 2 (optimal).",
        _EVERY_ARC.format(
            what="One extra one-way arc runs beside each of the 2(R - 1) + 2(C - 1) perimeter "
            "links, entering every perimeter chiplet once"
        )
        + " Every perimeter chiplet is entered by a doubled pair from its predecessor on the "
        "perimeter cycle. " + _CORNER_CRITERION,
        lambda s: {
            "max_trees": 4,
            "heights": {"corners": _corner(s), **({"sides": None} if min(s) >= 3 else {})},
        },
        "supermesh.trees.packing.closedform.smuni_corner_trees",
    )
]


def _io_length(params: dict[str, Any], size: Size) -> int:
    return size[1] if params.get("io", "south") in ("north", "south") else size[0]


def _partial(kind: str, params: dict[str, Any]) -> list[Case]:
    def predict(s: Size) -> dict[str, Any]:
        length = _io_length(params, s)
        heights: dict[str, Any] = {"corners3": _corner(s)}
        if length >= 3:
            heights["corners"] = None
        return {**({"max_trees": 3} if length >= 5 else {}), "heights": heights}

    return [
        Case(
            "R, C >= 2 (L = chiplets on the I/O side)",
            lambda s: min(s) >= 2,
            f"Every R x C {kind} supports three arc-disjoint spanning trees rooted at three "
            "corners (all but the last corner of the I/O side's clockwise walk), each of height "
            "R + C - 2 (optimal); at most 3 trees with any roots when L >= 5; four corner roots "
            "are impossible when L >= 3.",
            "The L chiplets of the I/O side have at most 3 in-arcs each (its links are single; "
            "a corner adds at most one doubled link of the next side); as singletons they are "
            "entered by at most 3L < 4(L - 1) arcs when L >= 5 (Frank). A non-corner chiplet of "
            "the I/O side is entered by 3 arcs with 4 corner roots outside it (Edmonds). "
            "Construction (supermesh.trees.packing.closedform.partial_three_corner_trees): "
            "the three-corner case of the geodesic matching needs single arcs at every node "
            "type except the omitted corner, which starts the next side at its doubled link 0.",
            predict,
            "supermesh.trees.packing.closedform.partial_three_corner_trees",
        )
    ]


TORUS = [
    Case(
        "R, C >= 3",
        lambda s: min(s) >= 3,
        "Every R x C torus supports exactly 4 arc-disjoint spanning trees, for any 4 roots, and "
        "never 5. No closed form for heights is claimed: they are proved size by size.",
        "4-regular: six singletons are entered by 24 < 25 arcs (Frank). Rows and columns are "
        "cycles: a nonempty proper set X that splits a row and a column is crossed by at least "
        "2 links of each; one that splits no row holds whole rows and misses others, so it "
        "splits all C >= 3 columns (>= 6 links), and symmetrically. Links are bidirectional, "
        "so >= 4 arcs enter X and any 4 roots pass Edmonds' condition.",
        lambda s: {"max_trees": 4},
    )
]

HEXAMESH = [
    Case(
        "full hexagon of radius r >= 1",
        lambda s: s[0] >= 1,
        "Every full HexaMesh of radius r supports exactly 3 arc-disjoint spanning trees, for "
        "any 3 roots, and never 4. Heights are proved size by size.",
        "At most 3: the six corner chiplets of the hexagon have 3 links each; as singletons "
        "they are entered by 18 < 4 x 5 arcs (Frank). Any 3 roots: drawn as a brick wall the "
        "graph is a triangulated disc (every bounded face is a triangle (y, x), (y, x + 2), "
        "(y +- 1, x + 1)). A minimal cut of at most 2 links is a cycle of length <= 2 in the "
        "plane dual: a bridge (none: every link lies on a triangle) or two faces sharing two "
        "links: two triangles share at most one, and a triangle sharing two links with the "
        "outer face would leave its middle chiplet with 2 links (the minimum is 3). So every "
        "set is crossed by >= 3 links and entered by >= 3 arcs (Edmonds).",
        lambda s: {"max_trees": 3},
    )
]

_MEMORY_NOTE = (
    "Memory chiplets are attached to one compute chiplet each by a single link, so no path "
    "between two compute chiplets passes through one: trees rooted at compute chiplets that "
    "span the compute chiplets are exactly the trees of the bare array, and the claims below "
    "hold unchanged for compute roots (a memory root can add an arc; free-root counts are "
    "computed per size). "
)


def cases_for(family: str, params: dict[str, Any] | None = None) -> list[Case]:
    """The all-sizes cases known for a family and its options (``[]`` when none is known).

    Parameters
    ----------
    family : str
        Family name (``smbi``, ``smalter``, ...).
    params : dict, optional
        The generator options as in ``G.graph["params"]`` (``corners``, ``io``, ``memory``).

    Returns
    -------
    list of Case

    Examples
    --------
    >>> [c.applies for c in cases_for("smalter")]
    ['R, C even', "R, C odd (the paper's variant)", 'R, C of different parity']
    >>> cases_for("kite-small")
    []
    """
    params = dict(params or {})
    memory = params.pop("memory", None)
    table: dict[str, list[Case]] = {
        "mesh": MESH,
        "smbi": SMBI,
        "smalter": SMALTER4 if params.get("corners") == 4 else SMALTER,
        "smuni": SMUNI,
        "partial-smbi": _partial("Partial SMBi", params),
        "partial-smalter": _partial("Partial SMAlter", params),
        "torus": TORUS,
        "hexamesh": HEXAMESH,
    }
    cases = table.get(family, [])

    def heights_only(case: Case) -> Callable[[Size], dict[str, Any]]:
        return lambda s: {"heights": case.predict(s).get("heights", {})}

    if memory:
        if family == "hexamesh":
            return []  # HexaMesh memory chiplets touch two chiplets and can relay
        cases = [
            Case(
                c.applies,
                c.test,
                _MEMORY_NOTE + c.statement,
                c.argument,
                heights_only(c),
                c.construction,
            )
            for c in cases
        ]
    return cases

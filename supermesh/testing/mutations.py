"""Break valid trees on purpose: every mutation here must be caught by the checkers.

Each function returns a new object (the dataclasses are frozen). Used by the mutation-style
property tests: mutate a valid set, assert :func:`supermesh.verify.check_packing` finds an error.

Examples
--------
>>> from supermesh.trees.model import Tree
>>> change_height(Tree(0, ((0, 1, 0),), 1), 2).height
3
"""

from __future__ import annotations

import dataclasses

from supermesh.trees.model import Tree, TreeSet

__all__ = ["change_height", "drop_node", "move_arc", "remove_arc"]


def move_arc(tree_set: TreeSet, src: int, index: int, dst: int) -> TreeSet:
    """Move arc number ``index`` of tree ``src`` into tree ``dst`` (a second user of the arc).

    Examples
    --------
    >>> a, b = Tree(0, ((0, 1, 0),), 1), Tree(1, ((1, 0, 0),), 1)
    >>> [t.arcs for t in move_arc(TreeSet((a, b)), 0, 0, 1).trees]
    [(), ((0, 1, 0), (1, 0, 0))]
    """
    trees = list(tree_set.trees)
    arc = trees[src].arcs[index]
    trees[src] = dataclasses.replace(
        trees[src], arcs=tuple(a for i, a in enumerate(trees[src].arcs) if i != index)
    )
    trees[dst] = dataclasses.replace(trees[dst], arcs=(*trees[dst].arcs, arc))
    return dataclasses.replace(tree_set, trees=tuple(trees))


def drop_node(tree: Tree, node: int) -> Tree:
    """Remove every arc that touches ``node``.

    Examples
    --------
    >>> drop_node(Tree(0, ((0, 1, 0), (1, 2, 0)), 2), 2).arcs
    ((0, 1, 0),)
    """
    return dataclasses.replace(tree, arcs=tuple(a for a in tree.arcs if node not in a[:2]))


def remove_arc(tree: Tree, index: int) -> Tree:
    """Remove arc number ``index``.

    Examples
    --------
    >>> remove_arc(Tree(0, ((0, 1, 0), (1, 2, 0)), 2), 0).arcs
    ((1, 2, 0),)
    """
    return dataclasses.replace(tree, arcs=tree.arcs[:index] + tree.arcs[index + 1 :])


def change_height(tree: Tree, delta: int) -> Tree:
    """Claim a height ``delta`` away from the stated one."""
    return dataclasses.replace(tree, height=tree.height + delta)

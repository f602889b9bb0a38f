"""Tree counts with proof, height-optimal tree packing, root sets, schedules."""

from supermesh.trees.model import Tree, TreePacking, TreeSet

__all__ = ["Tree", "TreePacking", "TreeSet"]

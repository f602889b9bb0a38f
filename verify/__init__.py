"""Independent checkers of trees, certificates and schedules, and deadlock analysis."""

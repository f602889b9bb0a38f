"""Testing helpers for supermesh users: hypothesis strategies and mutation helpers.

:mod:`supermesh.testing.strategies` needs ``hypothesis`` (the ``test`` extra); import it
explicitly. :mod:`supermesh.testing.mutations` breaks valid trees on purpose, for checking that a
checker notices.
"""

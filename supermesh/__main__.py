"""``python -m supermesh``: the same command line as the ``supermesh`` script."""

from supermesh.cli import main

main()

"""`python -m research`: the same as the `research` console command."""

from research.cli import main

main()

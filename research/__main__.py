"""`python -m research`: the same as the `research` console command."""

from research.entry import main

if __name__ == "__main__":
    main()

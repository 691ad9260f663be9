#!/usr/bin/env python3
"""Run research.py from a checkout: a shim over the `research` package's CLI."""

from research.entry import main  # signal handlers first, then the imports

main()

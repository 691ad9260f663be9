"""The console entry point: signal handlers first thing, then the command line.

Importing the command line (typer, pydantic) takes about 0.1 s. A Ctrl-C or SIGTERM in
that time must neither print a KeyboardInterrupt traceback from the imports nor end the
process without a word; nothing has been written yet, so one line and the exit code do.
"""

from __future__ import annotations

import os
import signal
from types import FrameType

from research.core.errors import interrupted_code  # stdlib only: loads in no time


def _while_starting(signum: int, _frame: FrameType | None) -> None:
    name = signal.Signals(signum).name
    os.write(2, f"research: interrupted by {name} while starting; nothing was done\n".encode())
    os._exit(interrupted_code(signum))


def main() -> None:
    """Install the start-up handlers, then run the command line (which replaces them)."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _while_starting)
    from research.cli import main as cli_main

    cli_main()

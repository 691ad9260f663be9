"""What `research serve` and `research worker` share: argparse parsing that returns an exit
code instead of raising, and the one line a refused option gets."""

from __future__ import annotations

import argparse
import sys

from research.core.errors import ExitCode


def fail(message: str) -> int:
    """Say what is wrong in one line; a usage error's exit code."""
    sys.stderr.write(f"research: error: {message}\n")
    return ExitCode.USAGE


def parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace | int:
    """The parsed options, or the exit code of --help or of argparse's own usage error."""
    try:
        return parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)

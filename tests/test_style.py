"""`ruff format` and `ruff check` are part of the test command (issue 12)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CHECKED = ["research", "tests", "bench", "research.py"]


def ruff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args, "--no-cache", *CHECKED],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.skipif(importlib.util.find_spec("ruff") is None, reason="ruff is not installed")
def test_the_code_is_ruff_formatted() -> None:
    done = ruff("format", "--check")
    assert done.returncode == 0, "run `ruff format`:\n" + done.stdout + done.stderr


@pytest.mark.skipif(importlib.util.find_spec("ruff") is None, reason="ruff is not installed")
def test_the_code_passes_ruff_check() -> None:
    done = ruff("check")
    assert done.returncode == 0, done.stdout + done.stderr

"""`ruff format` and `ruff check` are part of the test command (issue 12), and with it the
complexity gate: no function in `research/` above 15 (C901, configured in pyproject.toml)."""

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


def complexity_check(branches: int) -> subprocess.CompletedProcess[str]:
    """`ruff check` with the project's settings on a function of `branches` + 1 paths."""
    body = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(branches))
    return subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache"]
        + ["--stdin-filename", "research/too_complex.py", "-"],
        input=f"def f(x: int) -> int:\n{body}    return -1\n",
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.skipif(importlib.util.find_spec("ruff") is None, reason="ruff is not installed")
def test_ruff_rejects_a_function_in_research_more_complex_than_15() -> None:
    assert complexity_check(14).returncode == 0, complexity_check(14).stdout
    done = complexity_check(15)
    assert done.returncode == 1 and "C901" in done.stdout, done.stdout + done.stderr

"""`mypy --strict research` is part of the test command (issue 12)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is not installed")
def test_the_package_is_mypy_strict_clean() -> None:
    args = ["--strict", "--no-incremental", "--cache-dir=/dev/null", "research"]
    if importlib.util.find_spec("fastapi") is None:  # the optional [server] extra is absent
        # Check everything else; the service's modules are only followed, silently.
        args += ["--exclude", "research/service/", "--follow-imports=silent"]
    done = subprocess.run(
        [sys.executable, "-m", "mypy", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr

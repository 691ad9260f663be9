"""What the tests of the real agent CLIs share (test_claude_real.py, test_codex_real.py,
test_opencode_real.py).

The CLIs are found on PATH (.ci/run puts .ci/node/node_modules/.bin there). Without one the
tests are skipped with the reason, unless REAL_AGENT_CLIS=1 (which .ci/run sets): then a
missing CLI fails them, so CI never passes by skipping. Every CLI runs with HOME in the
test's directory and HTTP(S)_PROXY pointing at a recorder (NO_PROXY for loopback only), so
whatever it tries to reach beyond the fake model server is seen and refused.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from research.agents.base import AgentCall

REQUIRED = os.environ.get("REAL_AGENT_CLIS") == "1"
"""Set by .ci/run: a missing CLI is an error, not a skip."""


def binary_or_skip(name: str, package: str) -> str:
    """The CLI's path; skips (or, with REAL_AGENT_CLIS=1, fails) the test when it is absent."""
    path = shutil.which(name)
    if path is not None:
        return path
    reason = f"needs the real `{name}` on PATH (npm install {package}; .ci/run installs it)"
    if REQUIRED:
        pytest.fail(f"REAL_AGENT_CLIS=1 but {reason}")
    pytest.skip(reason)


def proxy_env(proxy_origin: str) -> dict[str, str]:
    """Route everything but loopback through the recording proxy."""
    return {
        name: value
        for upper in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")
        for name, value in (
            (upper, proxy_origin if upper != "NO_PROXY" else "127.0.0.1,localhost"),
            (upper.lower(), proxy_origin if upper != "NO_PROXY" else "127.0.0.1,localhost"),
        )
    }


def processes_with(variable: str) -> list[int]:
    """The pids of live processes whose environment holds `variable` (NAME=value)."""
    needle = variable.encode() + b"\0"
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if needle in environ.read_bytes():
                found.append(int(environ.parent.name))
        except OSError:
            continue
    return found


PHASES = ("initial_plan", "research", "review", "synthesize", "final_review")
REVIEW_PROMPT = (
    "# Phase: REVIEW — Anything\n\nWrite exactly ONE of "
    "`.research/x/review.accepted.md` or `.research/x/review.rejected.md`.\n"
)


def review_call(
    tmp_path: Path, cwd: Path, env: dict[str, str], model: str, timeout: float = 60
) -> AgentCall:
    """One review call of REVIEW_PROMPT, logged where research.py would log the first."""
    return AgentCall(
        phase="review",
        prompt=REVIEW_PROMPT,
        model=model,
        timeout=timeout,
        cwd=cwd,
        log_path=tmp_path / "logs" / "001-review-001.log",
        env=env,
    )


def one_cycle(name: str, model: str) -> tuple[str, ...]:
    """research.py's arguments for session `name`: one cycle of one topic, all on `model`."""
    return ("--name", name, "--breadth", "1", "--depth", "1", "--model", model)


def run_research(
    cwd: Path, env: dict[str, str], *args: str, timeout: float = 300
) -> subprocess.CompletedProcess:
    """research.py with `args`, stdin closed, output captured."""
    return subprocess.run(
        [sys.executable, str(REPO / "research.py"), *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )

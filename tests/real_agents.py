"""What the tests of the real agent CLIs share (test_claude_real.py, test_codex_real.py,
test_opencode_real.py).

The CLIs are found on PATH (.ci/run puts .ci/node/node_modules/.bin there). Without one the
tests are skipped with the reason, unless REAL_AGENT_CLIS=1 (which .ci/run sets): then a
missing CLI fails them, so CI never passes by skipping. Every CLI runs with HOME in the
test's directory and HTTP(S)_PROXY pointing at a recorder (NO_PROXY for loopback only), so
whatever it tries to reach beyond the fake model server is seen and refused.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import pytest
from conftest import REPO, read_json
from helpers import clean_env, wait_until

from research.agents.base import AgentCall, AgentResult, FailureKind

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


Api = TypeVar("Api", bound=AbstractContextManager[Any])
Script = dict[str, list[str]]


@contextlib.contextmanager
def fake_apis(
    make: Callable[[Script | None], Api],
    prefixes: tuple[str, ...],
    proxy_origin: str,
    environment: Callable[[Api], dict[str, str]],
) -> Iterator[Callable[..., tuple[Api, dict[str, str]]]]:
    """`start(script=None)`: a fake model API `make(script)`, started, and the environment
    for its CLI: ours without `prefixes`' variables, everything but loopback through the
    recording proxy, and the CLI's own `environment(api)`. Every API started is stopped."""
    with contextlib.ExitStack() as stack:

        def start(script: Script | None = None) -> tuple[Api, dict[str, str]]:
            api = make(script)
            stack.enter_context(api)
            env = clean_env(*prefixes)
            env.update(proxy_env(proxy_origin))
            env.update(environment(api))
            return api, env

        yield start


def check_session(
    api: Any,
    session: Path,
    report: str,
    agent: str,
    model: str,
    served_usage: Callable[[Any, str], tuple[int, int, float]],
) -> dict[str, Any]:
    """What a whole session through a real CLI leaves: each phase (and one recovery) written
    through the CLI's own tools inside the project, the report naming the agent and model,
    and each phase's usage as the fake API served it. The session's state."""
    writes = [
        entry
        for entry in api.requests
        if entry.get("step") == "write" and entry["mode"] != "outside"
    ]
    project = session.parent.parent
    assert {entry["phase"] for entry in writes} == {*PHASES, "recovery"}
    assert all(Path(p).is_relative_to(project) for entry in writes for p in entry["files"])
    assert report.startswith("# Report\n\nThe answer, with a source [1]")
    assert f"- Agent: {agent}; model `{model}`, review model `{model}`" in report
    state: dict[str, Any] = read_json(session / "state.json")
    assert (state["config"]["agent"], state["config"]["model"]) == (agent, model)
    usage = state["usage"]["phases"]
    for phase in PHASES:
        tokens_in, tokens_out, cost = served_usage(api, phase)
        assert usage[phase]["input_tokens"] == tokens_in > 0, phase
        assert usage[phase]["output_tokens"] == tokens_out > 0, phase
        assert usage[phase]["cost"] == pytest.approx(cost, rel=1e-6), phase
    return state


def check_review(
    result: AgentResult,
    api: Any,
    isolated: Path,
    served_usage: Callable[[Any, str], tuple[int, int, float]],
) -> None:
    """What one review call (`review_call`) through a real CLI leaves: the verdict written
    through the CLI's own tools (a read, a write, a final answer), the usage and cost the
    fake API served, and research.py's one-line summary of the call."""
    assert result.ok, result.error
    assert (isolated / ".research/x/review.accepted.md").read_text().startswith("The notes meet")
    assert [entry["step"] for entry in api.served("review")] == ["read", "write", "final"]
    tokens_in, tokens_out, cost = served_usage(api, "review")
    assert (result.input_tokens, result.output_tokens) == (tokens_in, tokens_out)
    assert tokens_in > 0 and tokens_out > 0
    assert result.cost == pytest.approx(cost, rel=1e-9)
    assert result.output == "Done: wrote 1 file(s) for the review phase."


def check_hung_call(run: Callable[[AgentCall], AgentResult], call: AgentCall) -> None:
    """`call`, to an API that never answers: it times out, its log says so, and every
    process the agent started is gone (waited for: killed processes may take a moment to
    leave /proc on a loaded machine; one left running fails after the guard)."""
    marker = f"research-test-{uuid.uuid4().hex}"
    result = run(replace(call, env={**call.env, "RESEARCH_TEST_MARKER": marker}))
    assert result.failure is FailureKind.TIMEOUT and not result.ok
    assert call.log_path is not None
    assert "timed out: yes\n" in call.log_path.read_text(encoding="utf-8")
    wait_until(
        lambda: processes_with(f"RESEARCH_TEST_MARKER={marker}") == [],
        within=60,
        what="the agent's processes to end",
    )


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

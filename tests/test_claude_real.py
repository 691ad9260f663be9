"""The real `claude` (Claude Code) binary against a local fake Messages API.

Claude Code runs with HOME in the test's directory, ANTHROPIC_BASE_URL at
tests/fake_agents/fake_anthropic.py and every other connection routed to a recording proxy
(see real_agents.py). The fake model does each phase's work through Claude Code's own
`Read` and `Write` tools. Skipped when `claude` is not on PATH, except under
REAL_AGENT_CLIS=1 (.ci/run), where that fails.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import REPO, read_json, read_jsonl
from real_agents import (
    PHASES,
    binary_or_skip,
    check_hung_call,
    check_review,
    check_session,
    fake_apis,
    one_cycle,
    review_call,
    run_research,
)

from research.agents.base import FailureKind
from research.agents.claude import ClaudeAgent
from research.core.options import OPTION

sys.path.insert(0, str(Path(__file__).parent / "fake_agents"))
from fake_anthropic import FakeAnthropic  # noqa: E402
from fake_llm import OUTSIDE, ProxyRecorder  # noqa: E402

MODEL = "claude-sonnet-4-5"
# Claude Code's own list prices for MODEL, USD per token: it computes the cost it reports.
PRICE = {"input": 3e-6, "cache_read": 0.3e-6, "cache_write": 3.75e-6, "output": 15e-6}


@pytest.fixture(scope="module")
def claude() -> str:
    return binary_or_skip("claude", "@anthropic-ai/claude-code")


Start = Callable[..., tuple[FakeAnthropic, dict[str, str]]]


@pytest.fixture
def start_api(tmp_path: Path, claude: str, proxy: ProxyRecorder) -> Iterator[Start]:
    """Start the fake API; returns it and the environment that points Claude Code at it."""
    home = tmp_path / "claude-home"
    home.mkdir()

    def environment(api: FakeAnthropic) -> dict[str, str]:
        return {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "ANTHROPIC_BASE_URL": api.origin,
            "ANTHROPIC_API_KEY": "fake-key",
        }

    def make(script: dict[str, list[str]] | None) -> FakeAnthropic:
        return FakeAnthropic(tmp_path / "api-requests.jsonl", script=script)

    with fake_apis(make, ("ANTHROPIC_", "CLAUDE_"), proxy.origin, environment) as start:
        yield start


def session_args(name: str, *extra: str) -> list[str]:
    """research.py's arguments for one cycle of session `name` on Claude Code, all on MODEL."""
    return [
        *("--agent", "claude", *one_cycle(name, MODEL), "--review-model", MODEL, *extra),
        "What does a fake question cost?",
    ]


def served_usage(api: FakeAnthropic, phase: str) -> tuple[int, int, float]:
    """Input tokens (cache included), output tokens and the list-price cost of what the
    fake API answered for `phase`."""
    tokens_in = tokens_out = 0
    cost = 0.0
    for entry in api.served(phase):
        usage = entry["usage"]
        tokens_in += (
            usage["input_tokens"]
            + usage["cache_read_input_tokens"]
            + usage["cache_creation_input_tokens"]
        )
        tokens_out += usage["output_tokens"]
        cost += (
            usage["input_tokens"] * PRICE["input"]
            + usage["cache_read_input_tokens"] * PRICE["cache_read"]
            + usage["cache_creation_input_tokens"] * PRICE["cache_write"]
            + usage["output_tokens"] * PRICE["output"]
        )
    return tokens_in, tokens_out, cost


def test_a_phase_writes_its_file_and_reports_tokens_cost_and_model(
    tmp_path: Path, isolated: Path, start_api: Start
) -> None:
    api, env = start_api()
    result = ClaudeAgent(grace=2.0).run(review_call(tmp_path, isolated, env, MODEL))
    check_review(result, api, isolated, served_usage)
    assert result.model == MODEL
    log = (tmp_path / "logs" / "001-review-001.log").read_text(encoding="utf-8")
    assert "--permission-mode acceptEdits" in log and '"type":"result"' in log
    assert "cost: reported by Claude Code" in log
    # Claude Code's own retries were bounded, and nothing was sent but the conversation.
    assert {entry["method"] for entry in api.requests} <= {"HEAD", "POST"}


@pytest.mark.parametrize(
    ("mode", "failure", "words", "requests"),
    [
        # 401: refused; Claude Code says so in its own words, and so do we.
        ("http401", FailureKind.API_REFUSED, "Invalid API key", None),
        # 500: Claude Code retries CLAUDE_CODE_MAX_RETRIES (2) times, then gives up.
        ("http500", FailureKind.API_ERROR, "fake anthropic: upstream failure", 3),
    ],
)
def test_an_api_error_is_classified_from_the_result_on_stdout(
    tmp_path: Path,
    isolated: Path,
    start_api: Start,
    mode: str,
    failure: FailureKind,
    words: str,
    requests: int | None,
) -> None:
    api, env = start_api({"review": [mode]})
    result = ClaudeAgent(grace=2.0).run(review_call(tmp_path, isolated, env, MODEL))
    assert not result.ok and result.exit_code == 1
    assert result.failure is failure
    assert result.error is not None and words in result.error
    assert f"(HTTP {mode[4:]})" in result.error
    assert failure.transient is (failure is FailureKind.API_ERROR)
    refused = [entry for entry in api.requests if entry.get("status") == int(mode[4:])]
    if requests is not None:
        assert len(refused) == requests
    assert not (isolated / ".research").exists()


def test_a_denied_write_is_reported_despite_exit_0(
    tmp_path: Path, isolated: Path, start_api: Start
) -> None:
    api, env = start_api({"review": ["outside"]})
    result = ClaudeAgent(grace=2.0).run(review_call(tmp_path, isolated, env, MODEL))
    assert result.exit_code == 0 and not result.ok
    assert result.failure is FailureKind.AGENT_ERROR
    target = tmp_path / OUTSIDE / ".research/x/review.accepted.md"
    assert result.error is not None and f"Write {target}" in result.error
    assert result.error.startswith("permission denied: ")
    assert not target.exists()
    finals = [entry for entry in api.requests if entry.get("step") == "final"]
    assert finals and finals[0]["failed"] == [str(target)]


def test_a_hung_api_times_out_and_nothing_of_claude_keeps_running(
    tmp_path: Path, isolated: Path, start_api: Start
) -> None:
    api, env = start_api({"review": ["hang"]})
    check_hung_call(
        ClaudeAgent(grace=2.0).run, review_call(tmp_path, isolated, env, MODEL, timeout=5)
    )
    assert [entry["status"] for entry in api.requests if entry.get("phase")] == [None]


def test_a_research_session_runs_end_to_end_through_the_real_claude(
    tmp_path: Path, isolated: Path, start_api: Start
) -> None:
    # The first research call meets a 500 on every request: Claude Code gives up after its
    # own two retries, exits 1, and research.py retries the call. The first review writes
    # its verdict outside the project: Claude Code denies it and exits 0; research.py says
    # so, runs a RECOVERY call and the review again.
    api, env = start_api({"research": ["http500"], "review": ["outside"]})
    result = run_research(isolated, env, *session_args("e2e", "--timeout", "120"))
    assert result.returncode == 0, result.stdout + result.stderr
    session = isolated / ".research" / "e2e"
    report = (isolated / "reports" / "e2e" / "report.md").read_text(encoding="utf-8")
    state = check_session(api, session, report, "claude", MODEL, served_usage)
    assert state["usage"]["models_used"] == [MODEL]
    usage = state["usage"]["phases"]
    assert f"${sum(u['cost'] for u in usage.values()):.4f}" in report

    events = read_jsonl(session / "events.jsonl")
    calls = [event for event in events if event["type"] == "agent_call"]
    assert {(c["agent"], c["model"], c.get("model_used")) for c in calls if c["ok"]} == {
        ("claude", MODEL, MODEL)
    }
    failed = [event for event in calls if not event["ok"]]
    assert [(f["phase"], f["failure"], f["exit_code"]) for f in failed] == [
        ("research", FailureKind.API_ERROR.value, 1),
        ("review", FailureKind.AGENT_ERROR.value, 0),
    ]
    assert "API Error: 500 fake anthropic: upstream failure" in failed[0]["error"]
    denied = f"Write {tmp_path / OUTSIDE}"
    assert failed[1]["error"].startswith("permission denied: ") and denied in failed[1]["error"]
    ends = [e for e in events if e["type"] == "phase_end" and e["outcome"] == "failed"]
    assert [(e["phase"], e["kind"]) for e in ends] == [("review", "agent_error")]
    assert denied in ends[0]["error"] and "was written" in ends[0]["error"]
    assert [e["phase"] for e in events if e["type"] == "recovery"] == ["review"]
    assert [event["failure"] for event in events if event["type"] == "retry"] == ["api_error"]
    assert not [event for event in events if event["type"] == "stray_files"]

    status = run_research(isolated, env, "--agent", "claude", "--name", "e2e", "--status")
    assert status.returncode == 0, status.stderr
    assert f"claude, model {MODEL}, review model {MODEL}" in " ".join(status.stdout.split())


def test_a_cost_budget_stops_research_on_claude_code_s_reported_cost(
    tmp_path: Path, isolated: Path, start_api: Start
) -> None:
    api, env = start_api()
    # The plan costs about $0.15 at Sonnet 4.5's prices (Claude Code's long system prompt):
    # a budget of $0.17 leaves less than the final cycle's reserve for research.
    result = run_research(isolated, env, *session_args("b", "--max-cost", "0.17"))
    assert result.returncode == 0, result.stdout + result.stderr
    state = read_json(isolated / ".research" / "b" / "state.json")
    assert state["progress"]["stop_reason"] == "cost_budget"
    assert "research" not in state["usage"]["phases"]
    assert "COST BUDGET REACHED" in (isolated / "reports" / "b" / "report.md").read_text()


def test_the_agent_cmd_example_of_the_help_works_as_written(
    tmp_path: Path, isolated: Path, start_api: Start
) -> None:
    api, env = start_api()
    # A generic command runs in the user's environment as it is: research.py's own
    # settings for Claude Code (telemetry off) are the user's business here.
    env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
    example = re.search(r'--agent-cmd "([^"]+)"', OPTION["agent_cmd"].help)
    assert example is not None and example.group(1).startswith("claude -p ")
    result = subprocess.run(
        [
            sys.executable,
            str(REPO / "research.py"),
            "--agent-cmd",
            example.group(1),
            *("--model", MODEL, "--review-model", MODEL, "--name", "cmd"),
            *("--breadth", "1", "--depth", "1", "What does a fake question cost?"),
        ],
        cwd=isolated,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    state = read_json(isolated / ".research" / "cmd" / "state.json")
    assert (state["config"]["agent"], state["config"]["model"]) == ("command", MODEL)
    assert {entry["phase"] for entry in api.requests if entry.get("step") == "write"} == set(PHASES)

"""The real `codex` (Codex CLI) binary against a local fake Responses API.

Codex runs with HOME and CODEX_HOME in the test's directory; its config.toml names a model
provider at tests/fake_agents/fake_responses.py, and every other connection goes to a
recording proxy (see real_agents.py). The fake model does each phase's work through
Codex's own tools (`exec_command` to read, `apply_patch` to write). Skipped when `codex` is
not on PATH, except under REAL_AGENT_CLIS=1 (.ci/run), where that fails.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import read_json, read_jsonl
from real_agents import (
    binary_or_skip,
    check_hung_call,
    check_review,
    check_session,
    fake_apis,
    review_call,
    run_research,
)

from research.agents.base import FailureKind
from research.agents.codex import RETRIES, CodexAgent, namespaces_available
from research.core.prices import Price

sys.path.insert(0, str(Path(__file__).parent / "fake_agents"))
from fake_llm import OUTSIDE, ProxyRecorder  # noqa: E402
from fake_responses import FakeResponses  # noqa: E402

MODEL = "gpt-5.5"  # a model Codex knows: it offers apply_patch as a free-form tool
PRICE = Price(input=2.0, cached_input=0.5, output=8.0)  # the test's own, USD per million
Start = Callable[..., tuple[FakeResponses, dict[str, str]]]


@pytest.fixture(scope="module")
def codex() -> str:
    return binary_or_skip("codex", "@openai/codex")


@pytest.fixture
def start_api(tmp_path: Path, codex: str, proxy: ProxyRecorder) -> Iterator[Start]:
    """Start the fake API; returns it and the environment that points Codex at it."""
    home = tmp_path / "codex-home"
    (home / ".codex").mkdir(parents=True)

    def environment(api: FakeResponses) -> dict[str, str]:
        (home / ".codex" / "config.toml").write_text(
            'model_provider = "fake"\n\n[model_providers.fake]\nname = "Fake"\n'
            f'base_url = "{api.base_url}"\nenv_key = "FAKE_OPENAI_KEY"\nwire_api = "responses"\n',
            encoding="utf-8",
        )
        return {
            "HOME": str(home),
            "CODEX_HOME": str(home / ".codex"),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "FAKE_OPENAI_KEY": "fake-key",
        }

    def make(script: dict[str, list[str]] | None) -> FakeResponses:
        return FakeResponses(tmp_path / "api-requests.jsonl", script=script)

    with fake_apis(make, ("OPENAI_", "CODEX_"), proxy.origin, environment) as start:
        yield start


def served_usage(api: FakeResponses, phase: str) -> tuple[int, int, float]:
    """Input tokens (cached included), output tokens and PRICE's cost of what the fake API
    answered for `phase`."""
    tokens_in = cached = tokens_out = 0
    for entry in api.served(phase):
        tokens_in += entry["usage"]["input_tokens"]
        cached += entry["usage"]["input_tokens_details"]["cached_tokens"]
        tokens_out += entry["usage"]["output_tokens"]
    return tokens_in, tokens_out, PRICE.cost(tokens_in, cached, tokens_out)


def agent() -> CodexAgent:
    return CodexAgent(prices={MODEL: PRICE}, grace=2.0)


def test_a_phase_writes_its_file_and_reports_tokens_and_a_computed_cost(
    tmp_path: Path, isolated: Path, start_api: Start
) -> None:
    api, env = start_api()
    result = agent().run(review_call(tmp_path, isolated, env, MODEL))
    check_review(result, api, isolated, served_usage)
    log = (tmp_path / "logs" / "001-review-001.log").read_text(encoding="utf-8")
    assert '"type":"turn.completed"' in log and "cost: computed from research.py's prices" in log
    # The configured provider's own retries were lowered on the command line.
    assert f"model_providers.fake.request_max_retries={RETRIES}" in log
    # Without a price, the cost is unknown (never a guess).
    unpriced = CodexAgent(grace=2.0).run(review_call(tmp_path, isolated, env, MODEL))
    assert unpriced.ok and unpriced.cost is None and unpriced.input_tokens


@pytest.mark.parametrize(
    ("mode", "failure", "words"),
    [
        ("http401", FailureKind.API_REFUSED, "401 Unauthorized: fake openai: incorrect API key"),
        ("http500", FailureKind.API_ERROR, ""),
    ],
)
def test_an_api_error_is_classified_from_the_failed_turn_on_stdout(
    tmp_path: Path, isolated: Path, start_api: Start, mode: str, failure: FailureKind, words: str
) -> None:
    api, env = start_api({"review": [mode]})
    result = agent().run(review_call(tmp_path, isolated, env, MODEL))
    assert not result.ok and result.exit_code == 1
    assert result.failure is failure
    assert result.error is not None and words in result.error
    assert "Reading additional input" not in result.error
    refused = [entry for entry in api.requests if entry.get("status") == int(mode[4:])]
    # Codex's own retries are bounded (RETRIES per request and per stream).
    assert 1 <= len(refused) <= (RETRIES + 1) ** 2
    assert not (isolated / ".research").exists()


@pytest.mark.skipif(not namespaces_available(), reason="Codex's sandbox needs user namespaces")
def test_a_write_outside_the_project_is_rejected_by_the_sandbox(
    tmp_path: Path, isolated: Path, start_api: Start
) -> None:
    api, env = start_api({"review": ["outside"]})
    result = agent().run(review_call(tmp_path, isolated, env, MODEL))
    target = tmp_path / OUTSIDE / ".research/x/review.accepted.md"
    assert not target.exists()
    finals = [entry for entry in api.requests if entry.get("step") == "final"]
    assert finals and finals[0]["failed"] == [str(target)]
    # Codex's events do not say that the patch was rejected: the call looks fine, and the
    # loop finds the phase's file missing (see the session test's recovery).
    assert result.exit_code == 0 and f"Failed: {target}" in result.output
    assert "--sandbox workspace-write" in (tmp_path / "logs" / "001-review-001.log").read_text()


def test_a_hung_api_times_out_and_nothing_of_codex_keeps_running(
    tmp_path: Path, isolated: Path, start_api: Start
) -> None:
    api, env = start_api({"review": ["hang"]})
    check_hung_call(agent().run, review_call(tmp_path, isolated, env, MODEL, timeout=5))
    assert [entry["status"] for entry in api.requests if entry.get("phase")] == [None]


def price_file(tmp_path: Path) -> Path:
    path = tmp_path / "prices.json"
    fields = {"input": PRICE.input, "cached_input": PRICE.cached_input, "output": PRICE.output}
    path.write_text(json.dumps({MODEL: fields}), encoding="utf-8")
    return path


def session_args(name: str, *extra: str) -> list[str]:
    return [
        *("--name", name, "--breadth", "1", "--depth", "1", "--timeout", "120"),
        *("--model", MODEL, "--review-model", MODEL, *extra),
        "What does a fake question cost?",
    ]


def test_a_research_session_runs_end_to_end_through_the_real_codex(
    tmp_path: Path, isolated: Path, start_api: Start
) -> None:
    # Every request of the first research call gets a 500: Codex gives up after its own
    # (lowered) retries, exits 1, and research.py retries the call. The first review
    # writes its verdict outside the project: Codex's sandbox rejects it without a word
    # in its events, so the verdict is missing; a RECOVERY call and the review again follow.
    api, env = start_api({"research": ["http500"], "review": ["outside"]})
    prices = str(price_file(tmp_path))
    result = run_research(
        isolated, env, "--agent", "codex", *session_args("e2e", "--codex-prices", prices)
    )
    assert result.returncode == 0, result.stdout + result.stderr
    session = isolated / ".research" / "e2e"
    report = (isolated / "reports" / "e2e" / "report.md").read_text(encoding="utf-8")
    check_session(api, session, report, "codex", MODEL, served_usage)
    assert "[computed: the codex agent reports no cost" in report

    events = read_jsonl(session / "events.jsonl")
    calls = [event for event in events if event["type"] == "agent_call"]
    assert {(c["agent"], c["model"]) for c in calls} == {("codex", MODEL)}
    failed = [event for event in calls if not event["ok"]]
    assert [(f["phase"], f["failure"], f["exit_code"]) for f in failed] == [
        ("research", FailureKind.API_ERROR.value, 1)
    ]
    assert [event["failure"] for event in events if event["type"] == "retry"] == ["api_error"]
    assert not [event for event in events if event["type"] == "stray_files"]
    ends = [e for e in events if e["type"] == "phase_end" and e["outcome"] == "failed"]
    assert [(e["phase"], e["kind"]) for e in ends] == [("review", "missing_files")]
    assert [e["phase"] for e in events if e["type"] == "recovery"] == ["review"]

    status = run_research(isolated, env, "--agent", "codex", "--name", "e2e", "--status")
    assert status.returncode == 0, status.stderr
    shown = " ".join(status.stdout.split())
    assert f"codex, model {MODEL}, review model {MODEL}; cost computed" in shown
    assert "(computed)" in shown  # the usage row's cost


def test_a_token_budget_stops_research_on_codex_s_reported_tokens(
    tmp_path: Path, isolated: Path, start_api: Start
) -> None:
    api, env = start_api()
    # The plan takes about 30,000 tokens (Codex's instructions and tools): a budget of
    # 35,000 leaves less than the final cycle's reserve for research. No price is given for
    # MODEL: the cost budget cannot hold, and the run says so at the start.
    budgets = ("--token-budget", "35000", "--max-cost", "5")
    result = run_research(isolated, env, "--agent", "codex", *session_args("b", *budgets))
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"--max-cost cannot be enforced for {MODEL}" in result.stderr
    state = read_json(isolated / ".research" / "b" / "state.json")
    assert state["progress"]["stop_reason"] == "token_budget"
    assert "research" not in state["usage"]["phases"]
    assert "TOKEN BUDGET REACHED" in (isolated / "reports" / "b" / "report.md").read_text()

"""The real `opencode` binary, end to end, against a local fake model provider.

Skipped unless `opencode` is on PATH (`npm install -g opencode-ai`). OpenCode is configured
only through the working directory's `opencode.json` (a provider block for
tests/fake_agents/fake_provider.py) and the environment: HOME and XDG_* point into the test's
temporary directory, model-list fetches, auto-update and plugin installs are off, and npm runs
offline, so nothing here touches the real home or the network. The fake model does each
phase's work through OpenCode's own `read` and `write` tools.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import read_json, read_jsonl
from helpers import clean_env
from real_agents import PHASES, check_hung_call, one_cycle, review_call, run_research

from research.agents.base import FailureKind
from research.agents.opencode import OpenCodeAgent

sys.path.insert(0, str(Path(__file__).parent / "fake_agents"))
from fake_provider import OUTSIDE, FakeProvider  # noqa: E402
from test_source_check import FINDINGS, site  # noqa: E402, F401  (a local web to cite)

pytestmark = pytest.mark.skipif(
    shutil.which("opencode") is None, reason="needs a real `opencode` on PATH"
)
# A whole session through the real opencode is about 30 s (nine start-ups): only with
# OPENCODE_E2E=1, for the suite must stay well under two minutes.
WHOLE_SESSION = pytest.mark.skipif(
    os.environ.get("OPENCODE_E2E") != "1",
    reason="the full session through the real opencode runs with OPENCODE_E2E=1",
)

MODEL = "fake/fake-model"
# USD per million tokens, so that OpenCode reports a cost in its step_finish events.
PRICE = {"input": 2.0, "output": 8.0}


@pytest.fixture(scope="module")
def opencode_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """OpenCode's own state (database, logs, config dir), shared by this module's tests."""
    return tmp_path_factory.mktemp("opencode-home")


@pytest.fixture
def opencode_env(opencode_home: Path) -> dict[str, str]:
    """The environment for OpenCode: isolated state, nothing fetched from the network."""
    env = clean_env("OPENCODE_")
    env.update(
        {
            "HOME": str(opencode_home),
            "XDG_CONFIG_HOME": str(opencode_home / "config"),
            "XDG_DATA_HOME": str(opencode_home / "data"),
            "XDG_CACHE_HOME": str(opencode_home / "cache"),
            "XDG_STATE_HOME": str(opencode_home / "state"),
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
            "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
            "OPENCODE_DISABLE_SHARE": "1",
            # OpenCode looks up its own packages on the npm registry at start-up; offline, it
            # skips that (the openai-compatible provider package is bundled in the binary).
            "npm_config_offline": "true",
        }
    )
    return env


@pytest.fixture
def start_provider(tmp_path: Path, isolated: Path) -> Iterator[Callable[..., FakeProvider]]:
    """Start the fake provider and point the working directory's opencode.json at it."""
    started: list[FakeProvider] = []

    def start(script: dict[str, list[str]] | None = None) -> FakeProvider:
        provider = FakeProvider(tmp_path / "provider-requests.jsonl", script=script)
        started.append(provider.__enter__())
        config = {
            "$schema": "https://opencode.ai/config.json",
            "provider": {
                "fake": {
                    "npm": "@ai-sdk/openai-compatible",
                    "name": "Fake provider",
                    "options": {"baseURL": provider.base_url, "apiKey": "fake-key"},
                    "models": {"fake-model": {"name": "Fake model", "cost": PRICE}},
                }
            },
            "permission": {"edit": "allow", "bash": "allow", "webfetch": "allow"},
        }
        (isolated / "opencode.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
        return provider

    yield start
    for provider in started:
        provider.__exit__(None, None, None)


def session_args(name: str, question: str, *extra: str) -> list[str]:
    """research.py's arguments for one cycle of session `name`, all on MODEL."""
    return [*one_cycle(name, MODEL), "--review-model", MODEL, "--timeout", "120", *extra, question]


@WHOLE_SESSION
def test_a_research_session_runs_end_to_end_through_the_real_opencode(
    tmp_path: Path,
    isolated: Path,
    opencode_env: dict[str, str],
    start_provider: Callable[..., FakeProvider],
) -> None:
    # The provider fails every request of the first research call with HTTP 500: OpenCode
    # retries by itself, gives up with exit 1, and research.py retries the call.
    provider = start_provider({"research": ["http500"]})
    # The parent's $PWD, configured like the working directory: OpenCode, which takes its
    # project directory from $PWD, would work there if research.py did not set PWD.
    decoy = tmp_path / "decoy"
    decoy.mkdir()
    shutil.copy(isolated / "opencode.json", decoy / "opencode.json")
    result = run_research(
        isolated,
        {**opencode_env, "PWD": str(decoy)},
        *session_args("e2e", "What does a fake question cost?"),
        timeout=240,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    session = isolated / ".research" / "e2e"

    # The files came from OpenCode's write tool, at absolute paths in the working directory.
    writes = [entry for entry in provider.requests if entry.get("step") == "write"]
    assert {entry["phase"] for entry in writes} == set(PHASES)
    written = {Path(path) for entry in writes for path in entry["files"]}
    # Each call works in its own scratch copy of the session (.research/.calls/e2e/<call>/,
    # the report in its report/); the orchestrator takes what it wrote into the session.
    calls = isolated / ".research" / ".calls" / "e2e"
    assert all(path.is_relative_to(calls) for path in written), written
    within = {path.relative_to(calls).parts[1:] for path in written}
    assert {("research_plan.md",), ("progress.md",), ("report", "report.md")} <= within
    assert (session / "research_plan.md").is_file() and (session / "progress.md").is_file()
    assert [path.name for path in decoy.iterdir()] == ["opencode.json"]
    report = (isolated / "reports" / "e2e" / "report.md").read_text(encoding="utf-8")
    # The fake source cannot be checked (offline: not checked; online: not that page), so
    # its sentence is marked and listed with the reason.
    assert report.startswith("# Report\n\nThe answer, with a source [1]†.")
    unverified = report.split("### Sentences that could not be verified", 1)[1]
    assert '"The answer, with a source." (source 1)' in unverified
    assert "## Methodology" in report
    assert "- Costs and prices: one finding" in (session / "progress.md").read_text("utf-8")
    finals = [entry for entry in provider.requests if entry.get("step") == "final"]
    assert finals and all(entry["failed_writes"] == [] for entry in finals)

    # Tokens and cost from OpenCode's step_finish events, per phase, match what was reported.
    usage = read_json(session / "state.json")["usage"]["phases"]
    for phase in PHASES:
        served = [
            entry["usage"]
            for entry in provider.requests
            if entry.get("phase") == phase and entry.get("status") == 200
        ]
        prompt = sum(figures["prompt_tokens"] for figures in served)
        completion = sum(figures["completion_tokens"] for figures in served)
        assert usage[phase]["input_tokens"] == prompt > 0, phase
        assert usage[phase]["output_tokens"] == completion > 0, phase
        expected_cost = (prompt * PRICE["input"] + completion * PRICE["output"]) / 1e6
        assert usage[phase]["cost"] == pytest.approx(expected_cost, rel=1e-6), phase

    # The failed call: classified, logged with OpenCode's own error text, and retried once.
    assert usage["research"]["calls"] == 2 and usage["research"]["failures"] == 1
    refused = {entry["session"] for entry in provider.requests if entry.get("status") == 500}
    assert len(refused) == 1
    events = read_jsonl(session / "events.jsonl")
    calls = [event for event in events if event["type"] == "agent_call"]
    failed = [event for event in calls if not event["ok"]]
    assert len(failed) == 1 and failed[0]["phase"] == "research"
    assert failed[0]["failure"] == FailureKind.EXIT_NONZERO.value
    assert failed[0]["exit_code"] == 1
    assert "fake provider: upstream failure" in failed[0]["error"]
    assert [event["failure"] for event in events if event["type"] == "retry"] == ["exit_nonzero"]
    assert not [event for event in events if event["type"] == "stray_files"]

    # Every call's log holds the command, the prompt and OpenCode's JSON events.
    logs = sorted((session / "logs").glob("*.log"))
    assert len(logs) == len(calls) == len(PHASES) + 1
    for log in logs:
        text = log.read_text(encoding="utf-8")
        assert f"command: opencode run --model {MODEL} --format json\n" in text
        assert f"cwd: {isolated}\n" in text
        assert '"type":"step_finish"' in text or '"type":"error"' in text
    failed_log = (isolated / failed[0]["log"]).read_text(encoding="utf-8")
    assert "exit code: 1\n" in failed_log and "fake provider: upstream failure" in failed_log
    assert any('"tool":"write"' in log.read_text(encoding="utf-8") for log in logs)


def test_a_hung_provider_times_out_and_nothing_of_opencode_keeps_running(
    tmp_path: Path,
    isolated: Path,
    opencode_env: dict[str, str],
    start_provider: Callable[..., FakeProvider],
) -> None:
    start_provider({"review": ["hang"]})
    call = review_call(tmp_path, isolated, opencode_env, MODEL, timeout=6)
    check_hung_call(OpenCodeAgent(grace=2.0).run, call)


def test_a_write_outside_the_project_is_rejected_and_reported_despite_exit_0(
    tmp_path: Path,
    isolated: Path,
    opencode_env: dict[str, str],
    start_provider: Callable[..., FakeProvider],
) -> None:
    provider = start_provider({"review": ["outside"]})
    call = review_call(tmp_path, isolated, opencode_env, MODEL)
    result = OpenCodeAgent(grace=2.0).run(call)
    assert result.exit_code == 0 and not result.ok
    assert result.failure is FailureKind.AGENT_ERROR
    assert result.error is not None and "rejected permission" in result.error
    assert "permission rejected: external_directory" in result.error
    asked = [entry for entry in provider.requests if entry.get("step") == "read"]
    assert asked and all(OUTSIDE in path for entry in asked for path in entry["files"])
    assert not (tmp_path / OUTSIDE).exists()


@WHOLE_SESSION
def test_a_session_with_its_judge_runs_through_the_real_opencode(
    tmp_path: Path,
    isolated: Path,
    opencode_env: dict[str, str],
    start_provider: Callable[..., FakeProvider],
    site: Any,  # noqa: F811  (the fixture)
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """RESEARCH cites pages of a local web server, the orchestrator fetches and checks them,
    and VERIFY (the review model, through OpenCode's read and write tools) judges the
    report's sentences from the batch file."""
    base = f"http://127.0.0.1:{site.server_address[1]}"
    findings = tmp_path / "findings.json"
    findings.write_text(json.dumps([[claim, base + path] for claim, path in FINDINGS]))
    monkeypatch.setenv("FAKE_OPENCODE_FINDINGS", str(findings))  # read by the fake model
    provider = start_provider()
    result = run_research(
        isolated,
        {**opencode_env, "PWD": str(isolated)},
        *session_args(
            "judged", "Heat pumps in winter", "--verify-sources", "--allow-private-sources"
        ),
        timeout=240,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    session = isolated / ".research" / "judged"
    # The fake model read the batch and wrote the answers through OpenCode's tools.
    steps = {entry.get("step") for entry in provider.requests if entry.get("phase") == "verify"}
    assert {"write", "final"} <= steps
    found = read_json(session / "verification.json")
    assert found["judge"]["calls"] == 1 and found["judge"]["failed"] == 0
    assert len(found["judge"]["judgements"]) == 3  # the dead page's sentence is never sent
    summary = found["summary"]
    assert summary["decided_by_judge"] == 2 and summary["judge_voided"] == 0
    assert summary["unsupported"] == 1  # "fell by 45%": the page says 31%
    # Its tokens and cost are counted like any call's.
    usage = read_json(session / "state.json")["usage"]["phases"]["verify"]
    assert usage["calls"] == 1 and usage["input_tokens"] > 0 and usage["cost"] > 0
    report = (isolated / "reports" / "judged" / "report.md").read_text(encoding="utf-8")
    assert "- Decided by: the rules for 2 sentences, the judge for 2" in report

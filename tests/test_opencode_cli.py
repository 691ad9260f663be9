"""Whole sessions through the CLI with a fake `opencode` (and a fake generic agent) on PATH.

The fake (tests/fake_agents/fake_opencode.py, mode "agent") does each phase's work the way a
real agent would, reading the files to write from the prompt; FAKE_OPENCODE_SCRIPT makes
chosen calls misbehave. Every call is recorded in calls.jsonl (argv, PWD, cwd, stdin).
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import assert_gone, install_fake_agent, read_json, read_jsonl
from helpers import HANG_GUARD_SECONDS, events_of, research_argv, spawned, wait_for_file

QUESTION = "How do heat pumps perform in cold climates?"
SESSION = Path(".research") / "demo"
MAIN, REVIEWER = "prov/main-model", "prov/review-model"
# What the fake reports per call in mode "agent".
CALL_INPUT, CALL_OUTPUT, CALL_COST = 100, 20, 0.01


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`opencode` and `fake-agent` (both the fake, doing real phase work) first on PATH."""
    install_fake_agent(tmp_path / "bin", monkeypatch)
    monkeypatch.setenv("FAKE_OPENCODE_MODE", "agent")
    monkeypatch.setenv("FAKE_OPENCODE_CALLS", str(tmp_path / "calls.jsonl"))
    monkeypatch.setenv("FAKE_OPENCODE_PIDFILE", str(tmp_path / "grandchild.pid"))
    return tmp_path


@pytest.fixture
def script(fake: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """script(research=["exit1"]): the first research call exits 1, later ones do the work."""

    def write(**modes: list[str]) -> None:
        path = fake / "fake-script.json"
        path.write_text(json.dumps(modes), encoding="utf-8")
        monkeypatch.setenv("FAKE_OPENCODE_SCRIPT", str(path))

    return write


def calls(fake: Path) -> list[dict[str, Any]]:
    return read_jsonl(fake / "calls.jsonl")


def events(kind: str | None = None) -> list[dict[str, Any]]:
    return events_of(SESSION, kind)


def agent_calls(phase: str) -> list[dict[str, Any]]:
    return [e for e in events("agent_call") if e["phase"] == phase]


def start(run_cli: Callable[..., Any], *args: str, env: dict[str, str] | None = None) -> Any:
    return run_cli(
        "--name",
        "demo",
        "--breadth",
        "1",
        "--depth",
        "1",
        "--model",
        MAIN,
        "--review-model",
        REVIEWER,
        *args,
        QUESTION,
        env=env,
    )


def grandchild(fake: Path) -> int:
    return int((fake / "grandchild.pid").read_text())


def assert_logged(recorded: list[dict[str, Any]]) -> None:
    """One log per call, with the command, the figures, the prompt and the output."""
    logged = {e["log"]: e for e in events("agent_call")}
    assert len(logged) == len(recorded) == len(list((SESSION / "logs").iterdir()))
    for call, (log, event) in zip(recorded, logged.items(), strict=True):
        text = Path(log).read_text(encoding="utf-8")
        head, _, rest = text.partition("--- prompt ---\n")
        assert f"command: opencode run --model {event['model']} --format json\n" in head
        assert f"phase: {event['phase']}\n" in head
        assert "exit code: 0\n" in head and re.search(r"^duration: \d+\.\d+ s$", head, re.M)
        prompt, _, rest = rest.partition("\n--- stdout ---\n")
        assert prompt == call["stdin"].rstrip("\n")
        stdout, _, _stderr = rest.partition("\n--- stderr ---\n")
        assert '"type": "step_finish"' in stdout


ALL_PHASES = ["initial_plan", "research", "review", "synthesize", "final_review"]


# --- a whole session through the real OpenCodeAgent ----------------------------------------


def test_session_drives_opencode_run_in_the_working_directory_and_logs_each_call(
    fake: Path, run_cli: Callable[..., Any], isolated: Path
) -> None:
    result = start(run_cli)
    assert result.exit_code == 0, result.stderr
    recorded = calls(fake)
    assert [c["phase"] for c in recorded] == ALL_PHASES
    for call in recorded:
        model = REVIEWER if call["phase"] in ("review", "final_review") else MAIN
        assert call["argv"][1:] == ["run", "--model", model, "--format", "json"]
        assert call["pwd"] == str(isolated)
        assert Path(call["cwd"]).resolve() == isolated.resolve()
        assert call["stdin"].startswith("# Phase: ")
    state = read_json(SESSION / "state.json")
    assert state["progress"]["is_complete"] and state["config"]["agent"] == "opencode"
    assert [t["status"] for t in state["plan"]["topics"]] == ["Complete"]
    assert_logged(recorded)


def test_tokens_and_cost_are_summed_per_phase_and_reported(
    fake: Path, run_cli: Callable[..., Any]
) -> None:
    result = start(run_cli)
    assert result.exit_code == 0, result.stderr
    usage = read_json(SESSION / "state.json")["usage"]["phases"]
    assert set(usage) == set(ALL_PHASES)
    for phase in ALL_PHASES:
        assert usage[phase]["calls"] == 1
        assert (usage[phase]["input_tokens"], usage[phase]["output_tokens"]) == (
            CALL_INPUT,
            CALL_OUTPUT,
        )
        assert usage[phase]["cost"] == pytest.approx(CALL_COST)
    total_in, total_out = CALL_INPUT * len(ALL_PHASES), CALL_OUTPUT * len(ALL_PHASES)
    total_cost = f"${CALL_COST * len(ALL_PHASES):.4f}"
    report = Path("reports/demo/report.md").read_text(encoding="utf-8")
    methodology = report.partition("## Methodology")[2]
    assert f"- Tokens: {total_in:,} in / {total_out:,} out; cost: {total_cost}" in methodology
    per_call = f"tokens {CALL_INPUT} in / {CALL_OUTPUT} out; cost ${CALL_COST:.4f}"
    assert result.stderr.count(per_call) == len(ALL_PHASES)
    assert f"tokens {total_in:,} in / {total_out:,} out; cost {total_cost}" in result.stdout


def test_usage_is_unknown_when_the_provider_reports_none(
    fake: Path, run_cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_OPENCODE_MODE", "agent_no_usage")
    result = start(run_cli)
    assert result.exit_code == 0, result.stderr
    usage = read_json(SESSION / "state.json")["usage"]["phases"]
    assert all(u["input_tokens"] is None and u["cost"] is None for u in usage.values())
    report = Path("reports/demo/report.md").read_text(encoding="utf-8")
    assert "- Tokens: unknown (the agent reported none); cost: unknown" in report
    # said once, not after each call
    assert result.stderr.count("the agent reports no token usage or cost") == 1
    assert "tokens unknown" not in result.stderr
    assert "tokens unknown; cost unknown" in result.stdout  # the closing summary


@pytest.mark.parametrize(
    ("usage", "flags", "dropped"),
    [
        ('{"tokens": {"input": 1e400, "output": 20}, "cost": 0.01}', (), "input tokens inf"),
        ('{"tokens": {"input": 100, "output": 20}, "cost": NaN}', ("--max-cost", "1"), "cost nan"),
        (
            '{"tokens": {"input": -1000000000, "output": 20}, "cost": 0.01}',
            ("--token-budget", "1000"),
            "input tokens -1000000000",
        ),
        ('{"tokens": {"input": 100, "output": 20}, "cost": -5}', (), "cost -5"),
    ],
)
def test_usage_that_is_not_finite_and_non_negative_is_dropped_with_a_warning(
    fake: Path,
    run_cli: Callable[..., Any],
    monkeypatch: pytest.MonkeyPatch,
    usage: str,
    flags: tuple[str, ...],
    dropped: str,
) -> None:
    monkeypatch.setenv("FAKE_OPENCODE_USAGE", usage)
    result = start(run_cli, *flags)
    assert result.exit_code == 0, result.stderr
    assert "Traceback" not in result.stderr
    said = f"the agent reported {dropped}; the figure was dropped"
    assert said in result.stderr
    assert any(said == e["message"] for e in events("warning"))
    phases = read_json(SESSION / "state.json")["usage"]["phases"]
    for figures in phases.values():
        for name in ("input_tokens", "output_tokens", "cost"):
            value = figures[name]
            assert value is None or 0 <= value < 10**6, (name, value)
    report = Path("reports/demo/report.md").read_text(encoding="utf-8")
    assert not re.search(r"Tokens: -|\$nan|\$-|inf", report.partition("## Methodology")[2])
    log = Path(agent_calls("research")[0]["log"]).read_text(encoding="utf-8")
    assert f"usage dropped: {said}" in log


def test_prompts_name_the_files_by_relative_paths_and_forbid_other_writes(
    fake: Path, run_cli: Callable[..., Any], script: Callable[..., None], isolated: Path
) -> None:
    script(research=["text_only"])  # adds a RECOVERY call and a retried RESEARCH prompt
    assert start(run_cli).exit_code == 0
    prompts = {c["phase"]: c["stdin"] for c in calls(fake)}
    assert set(prompts) == {*ALL_PHASES, "recovery"}
    # Each call works in a scratch copy of the session (engine/staging.py): the prompt names
    # the copies, relative to the working directory, laid out like the session with the
    # report in report/.
    expected = {
        "initial_plan": ["research_plan.md"],
        "research": ["progress/costs-and-prices.md", "progress.md"],
        "review": ["review.accepted.md", "review.rejected.md"],
        "synthesize": ["report/report.md"],
        "final_review": ["review.accepted.md"],
        "recovery": ["recovery.notes.md"],
    }
    for phase, prompt in prompts.items():
        assert str(isolated) not in prompt, f"{phase}: the prompt shows an absolute path"
        assert re.search(
            r"write no other files|write nothing outside|and nothing else", prompt, re.IGNORECASE
        ), phase
        for path in expected[phase]:
            staged = r"`\.research/\.calls/demo/[0-9.]+/" + re.escape(path) + "`"
            assert re.search(staged, prompt), (phase, path)


# --- failures drive retries and recovery -----------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "failure", "error_part"),
    [
        ("exit1", "exit_nonzero", "Model not found: nope/nothing"),
        ("exit1_event", "exit_nonzero", "No API key for provider nope"),
    ],
)
def test_transient_failures_are_retried_after_a_backoff(
    fake: Path,
    run_cli: Callable[..., Any],
    script: Callable[..., None],
    mode: str,
    failure: str,
    error_part: str,
) -> None:
    script(research=[mode])
    result = start(run_cli)
    assert result.exit_code == 0, result.stderr
    first, second = agent_calls("research")
    assert (first["ok"], first["failure"]) == (False, failure)
    assert error_part in first["error"]
    assert second["ok"]
    assert [e["failure"] for e in events("retry")] == [failure]
    assert events("recovery") == []  # the retry succeeded: no recovery needed
    state = read_json(SESSION / "state.json")
    assert state["usage"]["agent_failures"] == 1
    assert (
        state["usage"]["phases"]["research"]["calls"],
        state["usage"]["phases"]["research"]["failures"],
    ) == (2, 1)
    assert "Model not found" not in result.stdout


@pytest.mark.parametrize(
    ("mode", "kind", "error_part"),
    [
        ("error_event", "agent_error", "Rate limit exceeded"),
        ("permission", "agent_error", "permission rejected: external_directory (/etc/*)"),
        ("text_only", "missing_files", "progress file .research/demo/progress/"),
    ],
)
def test_exit_zero_without_the_phases_files_goes_through_recovery(
    fake: Path,
    run_cli: Callable[..., Any],
    script: Callable[..., None],
    mode: str,
    kind: str,
    error_part: str,
) -> None:
    script(research=[mode])
    result = start(run_cli)
    assert result.exit_code == 0, result.stderr
    first = agent_calls("research")[0]
    assert first["exit_code"] == 0
    assert events("retry") == []  # not transient: the phase's files decide
    failed = [e for e in events("phase_end") if e["outcome"] == "failed"]
    assert [(e["phase"], e["kind"]) for e in failed] == [("research", kind)]
    assert error_part in failed[0]["error"]
    assert [e["phase"] for e in events("recovery")] == ["research"]
    assert [c["phase"] for c in calls(fake)].count("recovery") == 1
    state = read_json(SESSION / "state.json")
    assert state["usage"]["recoveries"] == 1 and state["plan"]["topics"][0]["status"] == "Complete"


def test_an_error_event_with_valid_files_is_only_a_warning(
    fake: Path, run_cli: Callable[..., Any], script: Callable[..., None]
) -> None:
    # Mode "agent" first, then its error: the files are there, so the phase counts.
    script(review=["agent_then_error"])
    result = start(run_cli)
    assert result.exit_code == 0, result.stderr
    assert agent_calls("review")[0]["failure"] == "agent_error"
    assert events("recovery") == []
    warnings = [e["message"] for e in events("warning")]
    assert any("reported an error but the phase's files are valid" in w for w in warnings)


# --- the time budget caps each call ----------------------------------------------------------


def test_a_call_never_outlives_the_time_budget(
    fake: Path, run_cli: Callable[..., Any], script: Callable[..., None]
) -> None:
    script(initial_plan=["grandchild"])
    budget_minutes = 0.05
    result = start(run_cli, "--time", str(budget_minutes), "--timeout", "30")
    assert result.exit_code == 0, result.stderr
    first = agent_calls("initial_plan")[0]
    assert first["failure"] == "timeout"
    assert first["timeout"] <= budget_minutes * 60
    assert "timed out: yes\n" in Path(first["log"]).read_text(encoding="utf-8")
    assert_gone(grandchild(fake))
    assert read_json(SESSION / "state.json")["progress"]["stop_reason"] == "time_budget"


# --- interrupts of the orchestrator ---------------------------------------------------------


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupt_kills_the_agents_group_saves_state_and_releases_the_lock(
    fake: Path,
    run_cli: Callable[..., Any],
    script: Callable[..., None],
    isolated: Path,
    signum: int,
    code: int,
) -> None:
    script(initial_plan=["grandchild"])
    with spawned(
        research_argv("--name", "demo", "--breadth", "1", "--depth", "1", QUESTION),
        cwd=isolated,
        stdin=subprocess.DEVNULL,
    ) as proc:
        wait_for_file(fake / "grandchild.pid", within=15, proc=proc)  # the fake started
        proc.send_signal(signum)
        _, stderr = proc.communicate(timeout=HANG_GUARD_SECONDS)
    assert proc.returncode == code, stderr
    assert f"interrupted by {signal.Signals(signum).name}" in stderr
    assert "Traceback" not in stderr
    assert_gone(grandchild(fake))
    assert_gone(calls(fake)[-1]["pid"])
    assert not (SESSION / "research.lock.json").exists()
    state = read_json(SESSION / "state.json")
    assert (
        state["progress"]["current_phase"] == "initial_plan"
        and not state["progress"]["is_complete"]
    )
    resumed = run_cli("--name", "demo", "--resume")
    assert resumed.exit_code == 0, resumed.stderr
    assert read_json(SESSION / "state.json")["progress"]["is_complete"]
    # The resumed run's logs are new files: the interrupted call's log is kept.
    logs = [log.read_text(encoding="utf-8") for log in (SESSION / "logs").iterdir()]
    assert len(logs) == len(calls(fake))
    assert sum("failure: interrupted" in log for log in logs) == 1


# --- files written outside the session -------------------------------------------------------


def test_files_written_outside_the_session_are_reported_and_kept(
    fake: Path, run_cli: Callable[..., Any], script: Callable[..., None], isolated: Path
) -> None:
    (isolated / "notes.md").write_text("the user's own notes\n", encoding="utf-8")
    script(research=["stray"])
    result = start(run_cli)
    assert result.exit_code == 0, result.stderr
    stray = events("stray_files")
    assert [(e["phase"], e["created"], e["modified"], e["deleted"]) for e in stray] == [
        ("research", ["stray-notes.txt"], [], [])
    ]
    assert (isolated / "stray-notes.txt").exists()
    assert (isolated / "notes.md").read_text(encoding="utf-8") == "the user's own notes\n"
    assert re.search(
        r"warning: during the research phase the agent changed files outside "
        r"\.research/demo/ and reports/demo/: created stray-notes\.txt",
        result.stderr,
    )


def test_a_well_behaved_agent_causes_no_stray_file_reports(
    fake: Path, run_cli: Callable[..., Any], isolated: Path
) -> None:
    (isolated / "notes.md").write_text("the user's own notes\n", encoding="utf-8")
    assert start(run_cli).exit_code == 0
    assert events("stray_files") == []


# --- a missing agent executable --------------------------------------------------------------


def test_missing_opencode_says_how_to_install_it_and_writes_nothing(
    run_cli: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated: Path
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    result = start(run_cli)
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "not found on PATH" in lines[0]
    assert "npm install -g opencode-ai" in lines[0] and "opencode auth login" in lines[0]
    assert "Traceback" not in result.stderr
    assert list(isolated.iterdir()) == []  # no lock, no state, not even the templates


def test_missing_agent_command_executable_fails_before_anything_is_written(
    run_cli: Callable[..., Any], isolated: Path
) -> None:
    result = start(run_cli, env={"RESEARCH_AGENT_CMD": "no-such-agent-cli -p"})
    assert result.exit_code == 1
    assert "'no-such-agent-cli' was not found on PATH" in result.stderr
    assert list(isolated.iterdir()) == []


# --- the generic command agent ----------------------------------------------------------------


@pytest.mark.parametrize("how", ["flag", "env"])
def test_agent_cmd_runs_a_generic_agent_with_the_model_placeholder(
    fake: Path, run_cli: Callable[..., Any], isolated: Path, how: str
) -> None:
    command = "fake-agent -p --model {model}"
    if how == "flag":
        result = start(run_cli, "--agent-cmd", command)
    else:
        result = start(run_cli, env={"RESEARCH_AGENT_CMD": command})
    assert result.exit_code == 0, result.stderr
    recorded = calls(fake)
    assert [c["phase"] for c in recorded] == ALL_PHASES
    for call in recorded:
        model = REVIEWER if call["phase"] in ("review", "final_review") else MAIN
        assert Path(call["argv"][0]).name == "fake-agent"
        assert call["argv"][1:] == ["-p", "--model", model]
        assert call["pwd"] == str(isolated) and call["stdin"].startswith("# Phase: ")
    state = read_json(SESSION / "state.json")
    assert state["config"]["agent"] == "command" and state["progress"]["is_complete"]
    # A generic agent's output is plain text: no usage figures are read from it.
    assert all(u["input_tokens"] is None for u in state["usage"]["phases"].values())
    logs = sorted((SESSION / "logs").iterdir())
    assert len(logs) == len(recorded)
    assert f"command: fake-agent -p --model {MAIN}\n" in logs[0].read_text(encoding="utf-8")


def test_agent_cmd_follows_the_same_timeout_and_failure_rules(
    fake: Path, run_cli: Callable[..., Any], script: Callable[..., None]
) -> None:
    script(initial_plan=["grandchild"], research=["text_only"])
    result = start(run_cli, "--agent-cmd", "fake-agent", "--timeout", "1")
    assert result.exit_code == 0, result.stderr
    plan_calls = agent_calls("initial_plan")
    assert [c["failure"] for c in plan_calls] == ["timeout", None]
    assert_gone(grandchild(fake))
    assert "failure: timeout" in Path(plan_calls[0]["log"]).read_text(encoding="utf-8")
    failed = [e for e in events("phase_end") if e["outcome"] == "failed"]
    assert [(e["phase"], e["kind"]) for e in failed] == [("research", "missing_files")]
    assert [e["phase"] for e in events("recovery")] == ["research"]

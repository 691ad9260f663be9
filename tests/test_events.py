"""events.jsonl: valid JSON Lines, documented event types, every exit path recorded."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from conftest import REPO, read_jsonl
from helpers import clean_env, run_demo, run_research

from research.workspace.events import EVENT_TYPES

EVENTS = Path(".research/demo/events.jsonl")


def documented_types() -> set[str]:
    """The event types of the README's table (the `| type | when | main fields |` one)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    table = text.partition("| type | when | main fields |")[2].split("\n\n", 1)[0]
    return set(re.findall(r"^\| `([a-z_]+)` \|", table, re.MULTILINE))


def read_events() -> list[dict[str, Any]]:
    lines = EVENTS.read_text(encoding="utf-8").splitlines()
    events = [json.loads(line) for line in lines]  # every line is one JSON document
    assert all(isinstance(event, dict) for event in events)
    return events


def test_the_readme_documents_exactly_the_event_types() -> None:
    assert documented_types() == set(EVENT_TYPES)


def test_a_mock_run_writes_valid_json_lines_of_documented_types(
    run_cli: Callable[..., Any],
) -> None:
    result = run_demo(run_cli, "--quiet")
    assert result.exit_code == 0, result.stderr
    events = read_events()
    documented = documented_types()
    for event in events:
        assert event["type"] in documented
        assert isinstance(event["iteration"], int) and event["iteration"] >= 0
        assert datetime.fromisoformat(event["ts"]).tzinfo is not None
    kinds = [event["type"] for event in events]
    assert kinds[:2] == ["lock_taken", "run_start"]
    assert kinds[-2:] == ["run_end", "lock_released"]
    assert events[-2]["outcome"] == "complete"
    assert {
        "phase_start",
        "phase_end",
        "agent_call",
        "decision",
        "topic_skipped",
        "research_stopped",
        "archive",
    } <= set(kinds)
    assert kinds.count("phase_start") == kinds.count("phase_end") == kinds.count("agent_call")
    for event in events:
        if event["type"] == "phase_end":
            assert event["outcome"] in {"ok", "failed"} and event["duration"] >= 0
        if event["type"] == "agent_call":
            assert event["exit_code"] == 0 and event["duration"] >= 0
            assert Path(event["log"]).is_file()
    decisions = read_jsonl(Path(".research/demo/decisions.jsonl"))
    assert len(decisions) == kinds.count("decision")
    iterations = [event["iteration"] for event in events]
    assert iterations == sorted(iterations) and iterations[-1] == decisions[-1]["iteration"]


def test_retries_recoveries_and_failed_phases_are_logged(
    run_cli: Callable[..., Any],
    mock_script: Callable[..., Path],
) -> None:
    script = mock_script(
        faults=[
            {"action": "fail", "phase": "research", "calls": [1]},
            {"action": "no_verdict", "phase": "review", "calls": [1]},
        ]
    )
    result = run_demo(run_cli, "--quiet", "--mock-script", str(script))
    assert result.exit_code == 0, result.stderr
    events = read_events()
    retry = next(e for e in events if e["type"] == "retry")
    assert retry["phase"] == "research" and retry["failure"] == "exit_nonzero"
    failed_call = next(e for e in events if e["type"] == "agent_call" and not e["ok"])
    assert failed_call["exit_code"] == 1
    failed = next(e for e in events if e["type"] == "phase_end" and e["outcome"] == "failed")
    assert failed["phase"] == "review" and failed["error"]
    recovery = next(e for e in events if e["type"] == "recovery")
    assert recovery["phase"] == "review" and recovery["round"] == 1


def test_a_failed_run_ends_with_run_end_failed_then_lock_released(
    run_cli: Callable[..., Any],
    mock_script: Callable[..., Path],
) -> None:
    script = mock_script(faults=[{"action": "garbage_plan", "phase": "*"}])
    result = run_demo(run_cli, "--quiet", "--mock-script", str(script))
    assert result.exit_code == 1
    events = read_events()
    assert [e["type"] for e in events[-2:]] == ["run_end", "lock_released"]
    assert events[-2]["outcome"] == "failed" and "INITIAL PLAN" in events[-2]["error"]
    assert not Path(".research/demo/research.lock.json").exists()


def test_resuming_a_finished_session_logs_its_own_run(run_cli: Callable[..., Any]) -> None:
    first = run_demo(run_cli, "--quiet")
    assert first.exit_code == 0, first.stderr
    count = len(read_events())
    result = run_cli("--resume", "--mock-mode", "--name", "demo", "--quiet")
    assert result.exit_code == 0, result.stderr
    events = read_events()[count:]
    assert events[0]["type"] == "lock_taken" and events[-1]["type"] == "lock_released"
    assert [e["type"] for e in events].count("run_start") == 1


def cli(work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """research.py in a child process: logging is configured per process."""
    return run_research(*args, cwd=work, env=clean_env())


def test_verbose_logs_every_event_at_debug_and_the_default_does_not(isolated: Path) -> None:
    verbose = cli(
        isolated,
        "--mock-mode",
        "--name",
        "loud",
        "--breadth",
        "1",
        "--depth",
        "1",
        "--verbose",
        "Q?",
    )
    assert verbose.returncode == 0, verbose.stderr
    assert re.search(r" DEBUG phase_start phase=initial_plan", verbose.stderr)
    assert " DEBUG lock_released" in verbose.stderr
    assert "Attempting to acquire lock" not in verbose.stderr  # no library DEBUG lines
    default = cli(isolated, "--mock-mode", "--name", "calm", "--breadth", "1", "--depth", "1", "Q?")
    assert default.returncode == 0, default.stderr
    assert "DEBUG" not in default.stderr and "INFO" not in default.stderr


def test_phase_events_carry_the_tokens_left_and_the_sources_found(
    run_cli: Callable[..., Any],
) -> None:
    # seed 002 §17: each phase's log line says what is left of the budget and what was found.
    result = run_cli(
        "--mock-mode", "--name", "demo", "--breadth", "2", "--depth", "1",
        "--token-budget", "500000", "Q?",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    events = read_events()
    phases = [e for e in events if e["type"] in ("phase_start", "phase_end")]
    assert phases and all("tokens_left" in e and "sources_found" in e for e in phases)
    left = [e["tokens_left"] for e in phases]
    assert left == sorted(left, reverse=True) and left[0] == 500000 > left[-1]
    state = json.loads(Path(".research/demo/state.json").read_text())
    assert left[-1] == 500000 - sum(
        (u["input_tokens"] or 0) + (u["output_tokens"] or 0)
        for u in state["usage"]["phases"].values()
    )
    found = [e["sources_found"] for e in phases]
    assert found == sorted(found) and found[-1] == state["final"]["sources_found"] > 0


def test_an_early_stop_is_logged_at_info(isolated: Path) -> None:
    # seed 004 NFR-05: the early stop is an INFO line, not only an event and a DEBUG line.
    done = cli(
        isolated,
        "--mock-mode",
        "--name",
        "early",
        "--breadth",
        "2",
        "--depth",
        "1",
        "--token-budget",
        "1000",
        "--verbose",
        "Q?",
    )
    assert done.returncode == 0, done.stderr
    assert re.search(r" INFO research_stopped reason=token_budget", done.stderr), done.stderr
    assert " DEBUG research_stopped" not in done.stderr


def test_each_agent_call_log_keeps_its_prompt_and_output(run_cli: Callable[..., Any]) -> None:
    result = run_demo(run_cli, "--quiet")
    assert result.exit_code == 0, result.stderr
    calls = [e for e in read_events() if e["type"] == "agent_call"]
    logs = {Path(e["log"]) for e in calls}
    assert calls and len(logs) == len(calls)
    for log in logs:
        text = log.read_text(encoding="utf-8")
        _, prompt_mark, rest = text.partition("--- prompt ---\n")
        prompt, output_mark, output = rest.partition("\n--- stdout ---\n")
        assert prompt_mark and output_mark, text
        assert "# Phase:" in prompt and output.strip(), text

"""`--status` and `--list`: inspect sessions without running them, and without writing."""

from __future__ import annotations

import hashlib
import io
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import read_json
from helpers import killed_session

from research.views.status import list_sessions, show_status
from research.workspace.lock import SessionLock
from research.workspace.paths import SessionPaths

QUESTION = "How do heat pumps perform in cold climates?"


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def finished(run_cli: Callable[..., Any], name: str = "demo") -> None:
    result = run_cli(
        "--mock-mode", "--name", name, "--breadth", "2", "--depth", "1", "--quiet", QUESTION
    )
    assert result.exit_code == 0, result.stderr


def killed(work: Path, mock_script: Callable[..., Path], name: str = "demo") -> None:
    """A session whose process was SIGKILLed mid-run: state saved, lock file left behind."""
    killed_session(work, mock_script(kill_at_call=3), name)  # during the first REVIEW


def snapshot(root: Path) -> dict[str, str]:
    """Every file under root with a hash of its content."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def fields(stdout: str) -> dict[str, str]:
    rows = {}
    for line in stdout.splitlines()[1:]:
        label, sep, value = line.strip().partition(": ")
        if sep and not line.startswith("    "):
            rows[label] = value
    return rows


# ------------------------------------------------------------------ finished


def test_status_of_a_finished_session(run_cli: Callable[..., Any], isolated: Path) -> None:
    finished(run_cli)
    before = snapshot(isolated)
    result = run_cli("--status", "--name", "demo")
    assert result.exit_code == 0, result.stderr
    assert snapshot(isolated) == before
    state = read_json(isolated / ".research/demo/state.json")
    rows = fields(result.stdout)
    assert result.stdout.startswith("Session 'demo' (.research/demo)\n")
    assert rows["topic"] == QUESTION
    assert rows["session"] == "finished"
    assert rows["phase"] == "done (report written)"
    assert (
        rows["iteration"]
        == f"{state['progress']['iteration']} of {state['config']['max_iterations']}"
    )
    assert rows["lock"] == "not locked"
    assert rows["report"] == "reports/demo/report.md"
    assert rows["last decision"].startswith(f"iteration {state['progress']['iteration']}, ")
    last = state["progress"]["last_decision"]
    assert f"; review confidence {last['confidence']:.2f}" in rows["last decision"]
    assert rows["last event"].startswith("lock_released")
    for topic in state["plan"]["topics"]:
        assert f"- {topic['name']} [{topic['status']}" in result.stdout


def test_list_shows_every_session(run_cli: Callable[..., Any], isolated: Path) -> None:
    finished(run_cli, "alpha")
    finished(run_cli, "beta")
    (isolated / ".research" / "not-a-session").mkdir()
    before = snapshot(isolated)
    result = run_cli("--list")
    assert result.exit_code == 0, result.stderr
    assert snapshot(isolated) == before
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["name", "phase", "iteration", "topics", "lock", "updated", "report"]
    assert [line.split()[0] for line in lines[1:]] == ["alpha", "beta"]
    for line in lines[1:]:
        assert "done (report written)" in line and "none" in line
        assert line.endswith(f"reports/{line.split()[0]}/report.md")


# ------------------------------------------------------------------ running and killed


def test_status_of_a_killed_session_shows_a_stale_lock(
    run_cli: Callable[..., Any],
    mock_script: Callable[..., Path],
    isolated: Path,
) -> None:
    killed(isolated, mock_script)
    lock = read_json(isolated / ".research/demo/research.lock.json")
    before = snapshot(isolated)
    result = run_cli("--status", "--name", "demo")
    assert result.exit_code == 0, result.stderr
    assert snapshot(isolated) == before
    rows = fields(result.stdout)
    assert rows["session"] == "stopped; continue it with --resume"
    assert rows["lock"].startswith(f"stale: held by pid {lock['pid']} on host {lock['host']}")
    assert f"pid {lock['pid']} is not running" in rows["lock"]
    assert rows["report"] == "reports/demo/report.md (not written yet)"
    listed = run_cli("--list").stdout.splitlines()[1]
    assert listed.split()[0] == "demo" and " stale " in listed


def test_status_of_a_running_session_names_the_live_holder(
    run_cli: Callable[..., Any],
    mock_script: Callable[..., Path],
    isolated: Path,
) -> None:
    killed(isolated, mock_script)
    holder = SessionLock(SessionPaths(isolated, "demo").lock_file)
    holder.acquire(force=True)  # this test process is now the live holder
    try:
        before = snapshot(isolated)
        result = run_cli("--status", "--name", "demo")
        listed = run_cli("--list")
        assert snapshot(isolated) == before  # the lock was not touched, nothing written
    finally:
        holder.release()
    assert result.exit_code == 0, result.stderr
    rows = fields(result.stdout)
    assert rows["session"] == "running"
    assert rows["lock"].startswith(f"live: held by pid {os.getpid()} on host ")
    assert rows["phase"] == "review"
    assert "current topic" in rows
    assert listed.exit_code == 0
    assert " live " in listed.stdout.splitlines()[1]


# ------------------------------------------------------------------ unknown and broken


def test_status_of_an_unknown_session_exits_2_and_creates_nothing(
    run_cli: Callable[..., Any],
    isolated: Path,
) -> None:
    finished(run_cli)
    before = snapshot(isolated)
    result = run_cli("--status", "--name", "nope")
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"research: error: no research session named 'nope' in {isolated / '.research'} "
        "(sessions here: demo)"
    )
    assert "Traceback" not in result.stderr
    assert snapshot(isolated) == before


@pytest.mark.parametrize("args", [("--status",), ("--status", "--name", "../x")])
def test_status_needs_a_valid_name(run_cli: Callable[..., Any], args: tuple[str, ...]) -> None:
    result = run_cli(*args)
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1


def test_list_in_an_empty_directory(run_cli: Callable[..., Any], isolated: Path) -> None:
    result = run_cli("--list")
    assert result.exit_code == 0
    assert result.stdout == f"no research sessions in {isolated / '.research'}\n"
    assert not (isolated / ".research").exists()


def test_a_corrupt_state_is_a_clear_error_for_status_and_a_row_for_list(
    run_cli: Callable[..., Any],
    isolated: Path,
) -> None:
    finished(run_cli, "good")
    bad = isolated / ".research" / "bad"
    bad.mkdir()
    (bad / "state.json").write_text("{not json", encoding="utf-8")
    status = run_cli("--status", "--name", "bad")
    assert status.exit_code == 2
    assert "corrupt" in status.stderr and "Traceback" not in status.stderr
    listed = run_cli("--list")
    assert listed.exit_code == 0
    rows = {line.split()[0]: line for line in listed.stdout.splitlines()[1:]}
    assert "unreadable state" in rows["bad"] and "done" in rows["good"]


# ------------------------------------------------------------------ on a terminal


def test_on_a_terminal_status_and_list_are_tables(
    run_cli: Callable[..., Any],
    isolated: Path,
) -> None:
    finished(run_cli)
    terminal = FakeTerminal()
    show_status(isolated, "demo", terminal)
    list_sessions(isolated, terminal)
    out = terminal.getvalue()
    assert "╭" in out and "topic tree" in out and "demo" in out
    assert "\x1b[" in out  # styled for the terminal


def test_status_reads_only_the_tail_of_a_long_event_log(
    run_cli: Callable[..., Any],
    isolated: Path,
) -> None:
    finished(run_cli)
    events = isolated / ".research/demo/events.jsonl"
    filler = json.dumps({"ts": "x", "iteration": 0, "type": "warning", "message": "m" * 200})
    text = events.read_text(encoding="utf-8")
    events.write_text((filler + "\n") * 2000 + text + '{"torn', encoding="utf-8")
    result = run_cli("--status", "--name", "demo")
    assert result.exit_code == 0, result.stderr
    assert fields(result.stdout)["last event"].startswith("lock_released")

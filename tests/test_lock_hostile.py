"""The session lock against hostile files and runs, through the real CLI: a lock with an
unknown field, a lock or guard that is a directory, a link or a FIFO, NaN and huge times,
an agent that rewrites the lock during its call, heartbeats during short calls, and a run
whose lock is taken over while its agent works."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import alive, assert_gone, dead_pid, read_json, read_jsonl
from helpers import (
    HOST,
    clean_env,
    events_of,
    lock_text,
    research_argv,
    run_research,
    spawned,
    wait_for_file,
    wait_until,
)

import research.workspace.lock
from research.workspace.lock import SessionLock

QUESTION = "How do heat pumps perform in cold climates?"
SESSION = Path(".research") / "lk"
LOCK = SESSION / "research.lock.json"
GUARD = SESSION / "research.lock.json.lock"
FAKE = Path(__file__).parent / "fake_agents" / "fake_opencode.py"

# An agent for --agent-cmd: it does the phase's work through the fake agent (mode "agent"),
# and before that what LOCK_HOOK asks of its RESEARCH call; LOCK_LOG gets the lock file as
# each call saw it.
AGENT = r"""
import json, os, subprocess, sys, time

prompt = sys.stdin.read()
first = prompt.lstrip().splitlines()[0] if prompt.strip() else ""
research = first.startswith("# Phase: RESEARCH")
lock = os.path.join(os.environ["PWD"], ".research", "lk", "research.lock.json")
hook = os.environ.get("LOCK_HOOK", "")


def seen():
    try:
        with open(lock, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


if os.environ.get("LOCK_LOG"):
    with open(os.environ["LOCK_LOG"], "a", encoding="utf-8") as handle:
        handle.write(json.dumps({"first": first, "lock": seen(), "at": time.time()}) + "\n")
if os.environ.get("LOCK_WAIT_BEAT"):  # stay in the call until the heartbeat moves on
    beat = (seen() or {}).get("heartbeat")
    deadline = time.time() + 300  # a hung orchestrator, not a slow machine
    while time.time() < deadline and (seen() or {}).get("heartbeat") == beat:
        time.sleep(0.02)
if hook == "other_pid" and research:
    data = seen()
    orchestrator = data["pid"]
    data["pid"] = int(os.environ["OTHER_PID"])
    with open(lock, "w", encoding="utf-8") as handle:  # in place, as a careless agent would
        json.dump(data, handle)
    deadline = time.time() + 20
    while time.time() < deadline and (seen() or {}).get("pid") != orchestrator:
        time.sleep(0.05)
    with open(os.environ["LOCK_AFTER"], "w", encoding="utf-8") as handle:
        json.dump(seen(), handle)
if hook.startswith("forge") and research:  # a lock of its own, as if it had taken over
    data = seen()
    forged = dict(data, pid=1, lock_token="0badc0de0badc0de")
    if hook == "forge_took_over":  # knows the field, but not the user's key
        forged.update(took_over=data["lock_token"], proof="0" * 64)
    with open(lock + ".agent", "w", encoding="utf-8") as handle:
        json.dump(forged, handle)
    os.replace(lock + ".agent", lock)
    deadline = time.time() + 20
    while time.time() < deadline and (seen() or {}).get("pid") == 1:
        time.sleep(0.05)
    with open(os.environ["LOCK_AFTER"], "w", encoding="utf-8") as handle:
        json.dump(seen(), handle)
if hook == "hang" and research:
    with open(os.environ["AGENT_PIDFILE"], "w", encoding="utf-8") as handle:
        handle.write(str(os.getpid()))
    time.sleep(120)
sys.exit(subprocess.run([sys.executable, FAKE], input=prompt, text=True).returncode)
"""


@pytest.fixture
def agent_cmd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The --agent-cmd of the agent above; the fake does real phase work."""
    script = tmp_path / "agent.py"
    script.write_text(f"FAKE = {str(FAKE)!r}\n{AGENT}", encoding="utf-8")
    monkeypatch.setenv("FAKE_OPENCODE_MODE", "agent")
    return f"{sys.executable} {script}"


def events(kind: str) -> list[dict[str, Any]]:
    return events_of(SESSION, kind)


def one_line(stderr: str) -> str:
    (line,) = stderr.strip().splitlines()
    assert "internal error" not in line and "Traceback" not in stderr
    return line


# ------------------------------------------------------------------ unknown fields, odd times


def test_a_live_holders_lock_with_an_unknown_field_is_honoured(
    unfinished: Path, live_pid: int, run_cli
) -> None:
    before = lock_text(pid=live_pid, owner="a newer version", priority=3)
    unfinished.write_text(before)
    result = run_cli("--mock-mode", "--name", "lk", "--resume")
    assert result.exit_code == 3
    line = one_line(result.stderr)
    assert f"locked by pid {live_pid} on host {HOST}" in line and "--force-resume" in line
    assert unfinished.read_text() == before


def test_a_dead_holders_lock_with_an_unknown_field_is_taken_over(unfinished: Path, run_cli) -> None:
    pid = dead_pid()
    unfinished.write_text(lock_text(pid=pid, owner="someone"))
    result = run_cli("--mock-mode", "--name", "lk", "--resume")
    assert result.exit_code == 0, result.stderr
    (taken,) = [e for e in events("lock_taken") if e["takeover"]]
    assert taken["reason"] == f"pid {pid} is not running" and taken["previous_pid"] == pid
    assert not LOCK.exists() and not GUARD.exists()


@pytest.mark.parametrize(
    ("case", "exit_code", "expected"),
    [
        ("created 1e20, live", 3, "started at 1e+20 (not a valid time)"),
        ("created -1e20, live", 3, "started at -1e+20 (not a valid time)"),
        ("heartbeat 1e20, another host", 0, "did not change in 1.6 s"),  # watched, not compared
        ("heartbeat -1e20, live", 0, "min old"),
        ("heartbeat NaN, live", 0, "unreadable lock file"),
        ("heartbeat 1e400, live", 0, "unreadable lock file"),
        ("pid 1e30", 0, "is not running"),
    ],
)
def test_nan_huge_and_negative_lock_values_never_overflow(
    unfinished: Path, live_pid: int, run_cli, case: str, exit_code: int, expected: str
) -> None:
    text = {
        "created 1e20, live": lock_text(pid=live_pid, created=1e20),
        "created -1e20, live": lock_text(pid=live_pid, created=-1e20),
        "heartbeat 1e20, another host": lock_text(pid=live_pid, host="elsewhere", heartbeat=1e20),
        "heartbeat -1e20, live": lock_text(pid=live_pid, heartbeat=-1e20),
        "heartbeat NaN, live": lock_text(pid=live_pid, heartbeat=float("nan")),
        "heartbeat 1e400, live": lock_text(pid=live_pid).replace(
            '"heartbeat": ', '"heartbeat": 1e400, "x": '
        ),
        "pid 1e30": lock_text(pid=10**30),
    }[case]
    unfinished.write_text(text)
    # another host's lock is watched for 2/5 of the failover bound (4 s here)
    env = {"RESEARCH_FAILOVER_SECONDS": "4"}
    result = run_cli("--mock-mode", "--name", "lk", "--resume", env=env)
    assert result.exit_code == exit_code, result.stderr
    if exit_code == 3:
        line = one_line(result.stderr)
        assert expected in line and f"pid {live_pid}" in line
    else:
        (taken,) = events("lock_taken")[-1:]
        assert expected in taken["reason"], taken


# ------------------------------------------------------------------ not a file


def make(kind: str, path: Path, victim: Path) -> None:
    path.unlink(missing_ok=True)
    if kind == "directory":
        path.mkdir()
        (path / "inside").write_text("x")
    elif kind == "link":
        path.symlink_to(victim)
    else:
        os.mkfifo(path)


@pytest.mark.parametrize("where", ["lock", "guard"])
@pytest.mark.parametrize("kind", ["directory", "link", "fifo"])
def test_a_lock_or_guard_that_is_no_file_exits_2_with_one_line(
    unfinished: Path, tmp_path: Path, isolated: Path, where: str, kind: str
) -> None:
    """In a child process with a timeout: a FIFO opened blocking would hang for ever."""
    victim = tmp_path / "outside.json"  # a stale lock: followed, it would be taken over
    victim.write_text(lock_text(pid=dead_pid()))
    before = victim.read_bytes()
    target = LOCK if where == "lock" else GUARD
    make(kind, target, victim)
    state = (SESSION / "state.json").read_bytes()
    done = run_research(
        "--mock-mode",
        "--name",
        "lk",
        "--resume",
        cwd=isolated,
        env=clean_env(RESEARCH_VERIFY_SOURCES="0"),
    )
    assert done.returncode == 2, done.stderr
    line = one_line(done.stderr)
    what = {"directory": "a directory", "link": "a symbolic link", "fifo": "a FIFO"}[kind]
    assert f"{target.name} is {what}" in line and "remove" in line, line
    if kind == "directory":
        assert "remove the directory" in line
    assert victim.read_bytes() == before
    assert (SESSION / "state.json").read_bytes() == state
    assert os.path.lexists(target)


# ------------------------------------------------------------------ during a run


def test_an_agent_that_rewrites_the_lock_pid_is_repaired_and_the_run_finishes(
    agent_cmd: str, tmp_path: Path, live_pid: int, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOCK_HOOK", "other_pid")
    monkeypatch.setenv("OTHER_PID", str(live_pid))
    monkeypatch.setenv("LOCK_AFTER", str(tmp_path / "after.json"))
    result = run_cli(
        "--agent-cmd", agent_cmd, "--name", "lk", "--breadth", "1", "--depth", "1", QUESTION
    )
    assert result.exit_code == 0, result.stderr
    (repaired,) = events("lock_repaired")
    assert repaired["repair"] == "changed" and repaired["found_pid"] == live_pid
    after = read_json(tmp_path / "after.json")  # what the agent saw, still in its call
    assert after["pid"] == os.getpid() and after["host"] == HOST
    assert events("lock_released") and not LOCK.exists() and not GUARD.exists()

    again = run_cli("--agent-cmd", agent_cmd, "--name", "lk", "--resume")
    assert again.exit_code == 0, again.stderr
    assert "already complete" in again.stderr + again.stdout


@pytest.mark.parametrize("hook", ["forge", "forge_took_over"])
def test_an_agent_that_forges_a_lock_of_its_own_is_repaired_and_the_run_finishes(
    agent_cmd: str, tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch, hook: str
) -> None:
    """A takeover is real only when another research process made it through the guard:
    a record with pid 1 and the agent's own token (even one naming our token as the one
    it took over) is written back, and no later --resume is locked out."""
    monkeypatch.setenv("LOCK_HOOK", hook)
    monkeypatch.setenv("LOCK_AFTER", str(tmp_path / "after.json"))
    result = run_cli(
        "--agent-cmd", agent_cmd, "--name", "lk", "--breadth", "1", "--depth", "1", QUESTION
    )
    assert result.exit_code == 0, result.stderr
    (repaired,) = events("lock_repaired")
    assert repaired["repair"] == "forged" and repaired["found_pid"] == 1
    assert events("lock_lost") == []
    after = read_json(tmp_path / "after.json")  # what the agent saw, still in its call
    assert after["pid"] == os.getpid() and after["lock_token"] != "0badc0de0badc0de"
    assert events("lock_released") and not LOCK.exists() and not GUARD.exists()
    again = run_cli("--agent-cmd", agent_cmd, "--name", "lk", "--resume")
    assert again.exit_code == 0, again.stderr
    assert "already complete" in again.stderr + again.stdout


def test_the_heartbeat_is_refreshed_while_calls_are_short(
    agent_cmd: str, tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The product refreshes every 30 s; here every 0.25 s (the SessionLock's default
    interval, patched in this process), and each call waits until the heartbeat has moved
    on, so however loaded the machine, every call sees a newer one than the last."""
    monkeypatch.setattr(research.workspace.lock, "HEARTBEAT_INTERVAL_SECONDS", 0.25)
    monkeypatch.setattr(research.workspace.lock, "CHECK_INTERVAL_SECONDS", 0.05)
    monkeypatch.setenv("LOCK_LOG", str(tmp_path / "seen.jsonl"))
    monkeypatch.setenv("LOCK_WAIT_BEAT", "1")  # each call waits for a refresh: no race
    started = time.time()
    result = run_cli(
        "--agent-cmd", agent_cmd, "--name", "lk", "--breadth", "1", "--depth", "1", QUESTION
    )
    assert result.exit_code == 0, result.stderr
    seen = read_jsonl(tmp_path / "seen.jsonl")
    assert len(seen) >= 5
    locks = [s["lock"] for s in seen]
    assert all(lock["pid"] == os.getpid() for lock in locks)
    assert len({lock["created"] for lock in locks}) == 1  # one acquisition
    beats = [lock["heartbeat"] for lock in locks]
    assert beats == sorted(beats) and len(set(beats)) == len(beats) and beats[0] >= started
    assert beats[-1] > locks[0]["created"]


@pytest.mark.parametrize("parallel", ["1", "2"])
def test_a_run_whose_lock_is_taken_over_stops_at_once_with_exit_3(
    agent_cmd: str, tmp_path: Path, isolated: Path, parallel: str
) -> None:
    pidfile = tmp_path / "agent.pid"
    env = clean_env(RESEARCH_VERIFY_SOURCES="0", LOCK_HOOK="hang", AGENT_PIDFILE=str(pidfile))
    with spawned(
        research_argv(
            "--agent-cmd",
            agent_cmd,
            "--name",
            "lk",
            "--breadth",
            "1",
            "--depth",
            "1",
            "--parallel",
            parallel,
            "--quiet",
            QUESTION,
        ),
        cwd=isolated,
        env=env,
    ) as run:
        agent = int(wait_for_file(pidfile, within=60, proc=run))  # the RESEARCH call started
        state = (SESSION / "state.json").read_bytes()
        # Another run (say --force-resume in a second terminal; here this process) takes
        # the session over, through the lock's guard.
        theirs = SessionLock(LOCK)
        taken = theirs.acquire(force=True)
        try:
            assert taken.reason == "forced" and taken.took_over is not None
            taken_at = time.monotonic()
            _, stderr = run.communicate(timeout=30)
            took = time.monotonic() - taken_at
            assert read_json(LOCK) == taken.info.model_dump()  # the new holder's lock is kept
        finally:
            theirs.release()
    assert run.returncode == 3, stderr
    assert took < 8, took
    line = one_line(stderr)
    assert line.startswith(
        f"research: error: session 'lk' was taken over by pid {os.getpid()} on host {HOST}"
    ), line
    assert_gone(agent)
    assert (SESSION / "state.json").read_bytes() == state  # and its session not written
    # The session is the new holder's: the run that lost it does not log its lock_lost there.
    assert events("lock_lost") == []
    assert events("lock_released") == []
    assert not GUARD.exists()


def test_no_guard_file_is_left_after_runs_or_refusals(
    unfinished: Path, live_pid: int, run_cli
) -> None:
    unfinished.write_text(lock_text(pid=live_pid))
    assert run_cli("--mock-mode", "--name", "lk", "--resume").exit_code == 3
    assert not GUARD.exists()
    unfinished.unlink()
    assert run_cli("--mock-mode", "--name", "lk", "--resume").exit_code == 0
    assert not GUARD.exists() and not LOCK.exists()


def test_sigterm_still_releases_the_lock_and_stops_the_keep_alive(
    tmp_path: Path, isolated: Path, mock_script: Callable[..., Path]
) -> None:
    script = mock_script(sleep_seconds=30)
    with spawned(
        research_argv(
            "--mock-mode",
            "--mock-script",
            str(script),
            "--name",
            "lk",
            "--breadth",
            "1",
            "--depth",
            "1",
            "--quiet",
            QUESTION,
            scripted=True,
        ),
        cwd=isolated,
        env=clean_env(RESEARCH_VERIFY_SOURCES="0"),
    ) as run:
        wait_until(LOCK.exists, within=60, proc=run, what="the lock was taken")
        time.sleep(0.3)
        run.send_signal(signal.SIGTERM)
        run.communicate(timeout=30)
    assert run.returncode == 143
    assert not LOCK.exists() and not GUARD.exists()
    assert not alive(run.pid)

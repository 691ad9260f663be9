"""Fencing with real processes (issue 28): a `research` run paused past another run's
takeover writes nothing into the session when it wakes up, and an agent whose `research`
process is killed dies with it, none of its writes landing in the session.

Two "hosts" on one machine: RESEARCH_HOST_ID names them, so the second run judges the
first one's lock by watching its heartbeat, as across machines. Each wait is for an event
(a pid file, a process's exit); the timeouts only bound a hang.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import alive, assert_gone
from helpers import clean_env, events_of, research_argv, wait_for_file

QUESTION = "How do heat pumps perform in cold climates?"
NAME = "fz"
FAKE = Path(__file__).parent / "fake_agents" / "fake_opencode.py"
HANG = 600  # bounds a hang only

# A command agent: the phase's work through the fake agent ("agent" mode); at the phase
# FENCE_HANG names it then writes its pid and keeps writing, into the notes the prompt
# names and beside them, and counts its writes in AGENT_BEAT, until it is stopped.
WRITER = r"""
import os, subprocess, sys, time
sys.path.insert(0, os.path.dirname(FAKE))
import fake_opencode

prompt = sys.stdin.read()
phase = fake_opencode.phase_of(prompt)
done = subprocess.run([sys.executable, FAKE], input=prompt, text=True)
if phase == os.environ.get("FENCE_HANG"):
    notes = fake_opencode.named_paths(prompt)["progress"]
    beside = os.path.join(os.path.dirname(os.path.dirname(notes)), "orphan.txt")
    with open(os.environ["AGENT_PIDFILE"], "w", encoding="utf-8") as handle:
        handle.write(str(os.getpid()))
    count = 0
    while True:
        count += 1
        for relative in (notes, beside):
            try:
                with open(os.path.join(os.environ["PWD"], relative), "a") as handle:
                    handle.write(f"ORPHAN-WRITE {count}\n")
            except OSError:
                pass
        with open(os.environ["AGENT_BEAT"], "w", encoding="utf-8") as handle:
            handle.write(str(count))
        time.sleep(0.05)
sys.exit(done.returncode)
"""


@pytest.fixture
def writer(tmp_path: Path) -> str:
    script = tmp_path / "writer.py"
    script.write_text(f"FAKE = {str(FAKE)!r}\n{WRITER}", encoding="utf-8")
    return f"{sys.executable} {script}"


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    return clean_env(
        RESEARCH_VERIFY_SOURCES="0",
        RESEARCH_FAILOVER_SECONDS="5",  # the heartbeat watched 2 s before a takeover
        FAKE_OPENCODE_MODE="agent",
        AGENT_PIDFILE=str(tmp_path / "agent.pid"),
        AGENT_BEAT=str(tmp_path / "agent.beat"),
        **extra,
    )


def digest(work: Path) -> dict[str, str]:
    """Every file of the session and its report: relative path -> sha256."""
    found = {}
    for top in (work / ".research" / NAME, work / "reports" / NAME):
        for path in sorted(top.rglob("*")):
            if path.is_file() and not path.is_symlink():
                found[path.relative_to(work).as_posix()] = hashlib.sha256(
                    path.read_bytes()
                ).hexdigest()
    return found


def start(argv: list[str], work: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        argv,
        cwd=work,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a group of its own: SIGSTOP reaches all of it
    )


def first_run(writer: str, work: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    argv = research_argv(
        "--agent-cmd", writer, "--name", NAME, "--breadth", "1", "--depth", "1", "--yes"
    )
    return start([*argv, QUESTION], work, env)


def resume(writer: str, work: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    argv = research_argv("--agent-cmd", writer, "--name", NAME, "--resume")
    return subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, timeout=HANG)


def test_a_run_paused_past_a_takeover_writes_nothing_when_it_wakes(
    writer: str, tmp_path: Path, isolated: Path
) -> None:
    old = first_run(
        writer, isolated, env_for(tmp_path, RESEARCH_HOST_ID="host-a", FENCE_HANG="research")
    )
    try:
        agent = int(wait_for_file(tmp_path / "agent.pid", within=HANG, proc=old))
        os.killpg(old.pid, signal.SIGSTOP)  # the whole run, as a paused VM or a long stall
        # Another host takes the session over once the heartbeat stood still, and finishes.
        new = resume(writer, isolated, env_for(tmp_path, RESEARCH_HOST_ID="host-b"))
        assert new.returncode == 0, new.stderr
        files = digest(isolated)
        log = (isolated / ".research" / NAME / "events.jsonl").read_text(encoding="utf-8")
        os.killpg(old.pid, signal.SIGCONT)
        _, stderr = old.communicate(timeout=HANG)
    finally:
        if old.poll() is None:
            os.killpg(old.pid, signal.SIGCONT)
            old.kill()
            old.communicate()
    assert old.returncode == 3, stderr
    assert "taken over" in stderr
    assert_gone(agent, within=HANG)
    # Not a byte more in any file, the event log included.
    after = digest(isolated)
    assert after == files
    assert (isolated / ".research" / NAME / "events.jsonl").read_text(encoding="utf-8") == log
    # The log shows who wrote each phase: the old generation only before the takeover.
    events = events_of(isolated / ".research" / NAME)
    taken = next(i for i, e in enumerate(events) if e["type"] == "lock_taken" and e["takeover"])
    assert events[taken]["previous_host"] == "host-a"
    phases: list[dict[str, Any]] = [e for e in events if e["type"].startswith("phase_")]
    before = [e for e in events[:taken] if e["type"].startswith("phase_")]
    later = [e for e in events[taken:] if e["type"].startswith("phase_")]
    assert {(e["host"], e["generation"]) for e in before} == {("host-a", 1)}
    assert later and {(e["host"], e["generation"]) for e in later} == {("host-b", 2)}
    assert all(e["pid"] for e in phases)
    assert not any("ORPHAN-WRITE" in (isolated / path).read_text() for path in after)


def test_an_agent_dies_with_its_killed_run_and_none_of_its_writes_lands(
    writer: str, tmp_path: Path, isolated: Path
) -> None:
    run = first_run(writer, isolated, env_for(tmp_path, FENCE_HANG="research"))
    try:
        agent = int(wait_for_file(tmp_path / "agent.pid", within=HANG, proc=run))
        wait_for_file(tmp_path / "agent.beat", within=HANG)  # it is writing
        os.kill(run.pid, signal.SIGKILL)  # the research process only, not its agent's group
        run.communicate(timeout=HANG)
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()
    assert_gone(agent, within=HANG)  # its supervisor's watch stopped the group
    beats = int((tmp_path / "agent.beat").read_text())
    assert beats >= 1 and not alive(agent)
    resumed = resume(writer, isolated, env_for(tmp_path))
    assert resumed.returncode == 0, resumed.stderr
    state = json.loads((isolated / ".research" / NAME / "state.json").read_text())
    assert state["progress"]["is_complete"]
    files = digest(isolated)
    assert not any("ORPHAN-WRITE" in (isolated / path).read_text() for path in files), files
    assert not (isolated / ".research" / ".calls" / NAME).exists() or not any(
        (isolated / ".research" / ".calls" / NAME).iterdir()
    )

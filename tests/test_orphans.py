"""Agents a killed orchestrator left running are stopped by the run that takes over."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from conftest import assert_gone
from helpers import HANG_GUARD_SECONDS, events_of, killed_session, wait_for_file

from research.workspace.orphans import SESSION_ENV, agent_process_groups, session_marker

# A stand-in for an agent: it starts a grandchild (as OpenCode starts tools), records its
# pid, and waits to be killed.
AGENT = (
    "import subprocess, sys, time\n"
    "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
    "open(sys.argv[1], 'w').write(str(child.pid))\n"
    "time.sleep(120)\n"
)


def start_agent(pid_file: Path, env: dict[str, str]) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-c", AGENT, str(pid_file)],
        start_new_session=True,
        env={**os.environ, **env},
    )
    # Reap it as soon as it dies, as init would reap a dead orchestrator's orphan; an
    # unreaped zombie would keep its process group in existence.
    threading.Thread(target=proc.wait, daemon=True).start()
    wait_for_file(pid_file, within=10)  # the stand-in agent started
    return proc


def test_groups_are_found_by_the_session_marker_only(tmp_path: Path) -> None:
    mine = tmp_path / ".research" / "a"
    other = tmp_path / ".research" / "b"
    ours = start_agent(tmp_path / "ours.pid", session_marker(mine))
    theirs = start_agent(tmp_path / "theirs.pid", session_marker(other))
    try:
        groups = agent_process_groups(mine)
        assert os.getpgid(ours.pid) in groups
        assert os.getpgid(theirs.pid) not in groups
        assert os.getpgrp() not in groups
    finally:
        for proc in (ours, theirs):
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_resume_after_a_kill_stops_the_dead_runs_agents(
    tmp_path: Path, run_cli, mock_script, isolated: Path
) -> None:
    session_dir = killed_session(isolated, mock_script(kill_at_call=3), "orph")

    leftover = start_agent(tmp_path / "leftover.pid", {SESSION_ENV: str(session_dir.resolve())})
    grandchild = int((tmp_path / "leftover.pid").read_text())
    bystander = start_agent(tmp_path / "bystander.pid", {})
    try:
        result = run_cli("--mock-mode", "--name", "orph", "--resume")
        assert result.exit_code == 0, result.stderr
        leftover.wait(timeout=HANG_GUARD_SECONDS)
        assert_gone(grandchild, within=10)
        assert bystander.poll() is None, "a process of no session must be left alone"
        warnings = [
            e
            for e in events_of(session_dir, "warning")
            if "left running by the dead run" in e["message"]
        ]
        assert len(warnings) == 1 and warnings[0]["process_groups"] == [leftover.pid]
    finally:
        for proc in (leftover, bystander):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()

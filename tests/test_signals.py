"""SIGINT and SIGTERM during an agent call: the agent's process group dies, state is saved,
the lock is released, the exit code says which signal, and `--resume` continues."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest
from conftest import alive, read_json
from helpers import (
    HANG_GUARD_SECONDS,
    clean_env,
    research_argv,
    spawned,
    wait_for_file,
    wait_until,
)

from research.model.state import load_state

FAKE_AGENT = """
import os, subprocess, sys, time
from pathlib import Path

pids = Path(sys.argv[1])
grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
sys.stdin.read()
for name, pid in (("agent", os.getpid()), ("grandchild", grandchild.pid)):
    (pids / (name + ".tmp")).write_text(str(pid))
    os.replace(pids / (name + ".tmp"), pids / (name + ".pid"))
time.sleep(120)
"""


@pytest.fixture
def fake_agent(tmp_path: Path) -> tuple[str, Path]:
    script = tmp_path / "fake_agent.py"
    script.write_text(FAKE_AGENT)
    pids = tmp_path / "pids"
    pids.mkdir()
    return f"{sys.executable} {script} {pids}", pids


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to see zombies")
@pytest.mark.parametrize(
    ("signum", "code", "name"),
    [
        (signal.SIGINT, 130, "SIGINT"),
        (signal.SIGTERM, 143, "SIGTERM"),
    ],
)
def test_signal_during_agent_call_kills_the_group_saves_and_resumes(
    signum: int, code: int, name: str, fake_agent, isolated: Path, run_cli
) -> None:
    agent_cmd, pids = fake_agent
    with spawned(
        research_argv(
            "--agent-cmd",
            agent_cmd,
            "--name",
            "sig",
            "--breadth",
            "1",
            "--depth",
            "1",
            "--timeout",
            "300",
            "--quiet",
            "Why is the sky blue?",
        ),
        cwd=isolated,
        env=clean_env(),
    ) as proc:
        grandchild = int(wait_for_file(pids / "grandchild.pid", proc=proc))
        agent = int((pids / "agent.pid").read_text())
        assert alive(agent) and alive(grandchild)
        proc.send_signal(signum)
        _, stderr = proc.communicate(timeout=HANG_GUARD_SECONDS)
    assert proc.returncode == code
    assert "Traceback" not in stderr
    assert stderr.strip().splitlines()[-1] == (
        f"research: interrupted by {name}; state saved, continue with --resume"
    )
    wait_until(lambda: not alive(agent) and not alive(grandchild), within=10, what="both gone")

    session = isolated / ".research" / "sig"
    assert not (session / "research.lock.json").exists()
    state = load_state(session / "state.json")
    assert state.progress.current_phase.value == "initial_plan" and not state.progress.is_complete
    (log,) = (session / "logs").iterdir()
    assert "interrupted" in log.read_text()

    # The agent is not part of a session's identity: finish it with the simulated agent.
    result = run_cli("--name", "sig", "--resume", "--mock-mode")
    assert result.exit_code == 0, result.stderr
    state = read_json(session / "state.json")
    assert state["progress"]["is_complete"]
    assert state["config"]["mock_mode"] is True  # the report must say its research was simulated
    assert "simulated" in (isolated / "reports" / "sig" / "report.md").read_text()

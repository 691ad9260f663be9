"""What a user sees around sessions: a resumed session keeps its agent and says what it
changes; topics without ASCII letters get distinct names; a signal while starting is one
line, not a traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, read_json

QUESTION = "How do heat pumps perform in cold climates?"
SMALL = ("--breadth", "1", "--depth", "1", "--yes")


def test_a_mock_session_resumes_without_mock_mode(
    run_cli, mock_script, monkeypatch, tmp_path: Path
) -> None:
    (tmp_path / "empty-bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))  # no opencode to fall back on
    failing = mock_script(faults=[{"action": "fail", "phase": "initial_plan"}])
    first = run_cli("--mock-mode", "--mock-script", str(failing), "--name", "a", *SMALL, QUESTION)
    assert first.exit_code == 1, first.stderr
    resumed = run_cli("--name", "a", "--resume")
    assert resumed.exit_code == 0, resumed.stderr
    state = read_json(Path(".research/a/state.json"))
    assert state["config"]["agent"] == "mock" and state["progress"]["is_complete"]
    again = run_cli("--name", "a", "--resume")  # finished: no agent needed, and it says so
    assert again.exit_code == 0 and "already complete" in again.stderr


def test_resume_applies_the_flags_that_may_change_and_says_so(run_cli) -> None:
    assert run_cli("--mock-mode", "--name", "a", *SMALL, QUESTION).exit_code == 0
    result = run_cli(
        "--name", "a", "--resume", "--time", "5", "--timeout", "30", "--review-model", "other/model"
    )
    assert result.exit_code == 0, result.stderr
    for change in (
        "--time 5.0 (was unlimited)",
        "--timeout 30.0 (was 1200.0)",
        "--review-model other/model (was ",
    ):
        assert change in result.stderr
    config = read_json(Path(".research/a/state.json"))["config"]
    assert (config["time_budget_minutes"], config["timeout"], config["review_model"]) == (
        5.0,
        30.0,
        "other/model",
    )
    assert config["agent"] == "mock"  # not given, so kept


def test_resume_refuses_a_changed_shape_and_keeps_the_state(run_cli) -> None:
    assert run_cli("--mock-mode", "--name", "a", *SMALL, QUESTION).exit_code == 0
    before = Path(".research/a/state.json").read_bytes()
    for args, says in (
        (("--depth", "2"), "--depth (it has 1)"),
        (("Another question",), "cannot change the topic"),
    ):
        result = run_cli("--name", "a", "--resume", *args)
        assert result.exit_code == 2 and says in result.stderr, result.stderr
    assert Path(".research/a/state.json").read_bytes() == before


def test_topics_without_ascii_letters_get_distinct_default_names(run_cli) -> None:
    for topic in ("热泵在寒冷气候中的性能如何？", "寒冷地でのヒートポンプの性能は？"):
        result = run_cli("--mock-mode", *SMALL, topic)
        assert result.exit_code == 0, result.stderr
    names = sorted(path.name for path in Path("reports").iterdir())
    assert len(names) == 2 and all(name.startswith("topic-") for name in names), names


def _handlers_installed(pid: int) -> bool:
    """Whether `pid` catches SIGTERM (which only research.py's own handlers do)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) & (1 << (signal.SIGTERM - 1)))


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_while_starting_is_one_line(sig: signal.Signals, tmp_path: Path) -> None:
    """The signal arrives the moment the handlers are in, while the imports still run."""
    proc = subprocess.Popen(
        [sys.executable, str(REPO / "research.py"), "--mock-mode", "--name", "x", *SMALL, QUESTION],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("RESEARCH_")},
    )
    deadline = time.monotonic() + 120  # a hang guard, not a speed test
    while not _handlers_installed(proc.pid):
        assert proc.poll() is None and time.monotonic() < deadline
    proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=120)  # a hang guard
    assert proc.returncode == 128 + sig, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and f"interrupted by {sig.name}" in lines[0], stderr

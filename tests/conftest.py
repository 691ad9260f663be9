"""Shared fixtures: every test runs in its own empty working directory, with no RESEARCH_*
environment leaking in, and can drive the real CLI in-process. (Plain helpers, for child
processes, lock files and the like, are in helpers.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO as REPO
from helpers import SCRIPTED_CLI as SCRIPTED_CLI
from helpers import read_jsonl as read_jsonl
from scripted_mock import installed
from typer.testing import CliRunner

from research.cli import app

# Before any test module imports it: its shared assertion reports like a test's own.
pytest.register_assert_rewrite("case_tables")

# A child `python -m research` or `research` (the service's jobs, the workers, the
# catalogues' processes) imports this checkout, not whichever one the venv's editable
# install points at. Set for the whole process, not per test: module-scoped fixtures start
# their children before any test's own fixtures run.
if str(REPO) not in os.environ.get("PYTHONPATH", "").split(os.pathsep):
    _path = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = f"{REPO}{os.pathsep}{_path}" if _path else str(REPO)
# With PYTHONDONTWRITEBYTECODE set (as some sandboxes do) every child compiles the modules it
# imports again, a tenth of a catalogue case's CPU: let the children keep their bytecode, in
# a cache outside the checkout (stale entries are detected by the source's mtime and size).
if os.environ.get("PYTHONDONTWRITEBYTECODE") and not os.environ.get("PYTHONPYCACHEPREFIX"):
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    os.environ["PYTHONPYCACHEPREFIX"] = str(REPO / ".pytest_cache" / "pycache")


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key in list(os.environ):
        if key.startswith("RESEARCH_"):
            monkeypatch.delenv(key)
    # No test may reach the network: the source check (which fetches what the notes cite)
    # is off unless a test turns it on with --verify-sources, against a local server or the
    # mock's simulated web.
    monkeypatch.setenv("RESEARCH_VERIFY_SOURCES", "0")
    # The user's key (research/workspace/userkey.py) is made in the test's own state dir.
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


@pytest.fixture
def run_cli() -> Callable[..., object]:
    """Invoke the CLI in-process: run_cli("--mock-mode", "topic") → click Result."""
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None, env: dict[str, str] | None = None):
        with installed(list(args)) as rest:  # --mock-script: the tests' scripted double
            return runner.invoke(app, rest, input=input, env=env, catch_exceptions=False)

    return invoke


@pytest.fixture
def mock_script(tmp_path: Path) -> Callable[..., Path]:
    """Write a script for the tests' scripted double; returns its path (pass it with
    --mock-script, which the `run_cli` fixture and tests/scripted_cli.py understand)."""

    def write(**script: object) -> Path:
        path = tmp_path / "mock-script.json"
        path.write_text(json.dumps(script), encoding="utf-8")
        return path

    return write


@pytest.fixture
def unfinished(run_cli: Callable[..., Any], mock_script: Callable[..., Path]) -> Path:
    """A session named `lk` whose first run failed (exit 1) at its INITIAL PLAN: its state
    is left for --resume, its lock released. Returns where its lock file goes."""
    script = mock_script(faults=[{"action": "fail", "phase": "initial_plan"}])
    result = run_cli(
        "--mock-mode",
        "--mock-script",
        str(script),
        "--name",
        "lk",
        "--breadth",
        "2",
        "--depth",
        "1",
        "How do heat pumps perform in cold climates?",
    )
    assert result.exit_code == 1, result.stderr
    session = Path(".research") / "lk"
    assert not read_json(session / "state.json")["progress"]["is_complete"]
    lock = session / "research.lock.json"
    assert not lock.exists() and not lock.with_name(f"{lock.name}.lock").exists()
    return lock


def read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


FAKE_AGENTS = Path(__file__).parent / "fake_agents"
FAKE_AGENT = FAKE_AGENTS / "fake_opencode.py"


def install_fake_agent(bin_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Put the fake agent first on PATH as `opencode` and `fake-agent`."""
    bin_dir.mkdir()
    body = FAKE_AGENT.read_text(encoding="utf-8").split("\n", 1)[1]
    for name in ("opencode", "fake-agent"):
        exe = bin_dir / name
        exe.write_text(f"#!{sys.executable}\n{body}", encoding="utf-8")
        exe.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    return bin_dir


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[Any]:
    """A recording proxy (tests/fake_agents/fake_llm.py) for the real-CLI tests; fails the
    test if anything tried to connect beyond loopback through it."""
    if str(FAKE_AGENTS) not in sys.path:
        sys.path.insert(0, str(FAKE_AGENTS))
    from fake_llm import ProxyRecorder

    with ProxyRecorder(tmp_path / "proxy.jsonl") as recorder:
        yield recorder
    assert recorder.requests == [], "a connection beyond loopback was attempted"


def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


@pytest.fixture
def live_pid() -> Iterator[int]:
    """The pid of a process that stays alive for the test."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield proc.pid
    proc.kill()
    proc.wait()


def alive(pid: int) -> bool:
    """Whether `pid` runs; a zombie (dead, not yet reaped by its new parent) does not."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def assert_gone(pid: int, within: float = 60.0) -> None:
    """Wait for `pid` to be gone, else fail after `within` seconds (at least 60: a hang
    guard; a killed process that a loaded machine reaps late is not a failure)."""
    deadline = time.monotonic() + max(within, 60.0)
    while alive(pid):
        assert time.monotonic() < deadline, f"process {pid} is still running"
        time.sleep(0.02)

"""Nothing outside the session: a run writes only `.research/` and `reports/` of its working
directory, and a session never touches another session's files."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from conftest import REPO

QUESTION = "How do heat pumps perform in cold climates?"


def tree(root: Path) -> dict[str, tuple]:
    """Every path under `root`: files with a hash of their bytes and their times."""
    found: dict[str, tuple] = {}
    if not root.exists():
        return found
    for path in sorted(root.rglob("*")):
        key = path.relative_to(root).as_posix()
        if path.is_dir():
            found[key] = ("dir",)
        else:
            stat = path.stat()
            found[key] = (hashlib.sha256(path.read_bytes()).hexdigest(), stat.st_mtime_ns)
    return found


def test_a_session_never_touches_another_sessions_files(run_cli, mock_script) -> None:
    assert (
        run_cli("--mock-mode", "--name", "b", "--breadth", "2", "--depth", "1", QUESTION).exit_code
        == 0
    )
    # b looks busy: a live holder's lock, so a careless `a` would trip over it.
    lock = Path(".research/b/research.lock.json")
    lock.write_text(
        json.dumps(
            {
                "lock_token": "feedfacefeedface",
                "pid": os.getpid(),
                "host": "elsewhere",
                "created": time.time(),
                "heartbeat": time.time(),
            }
        )
    )
    before = {"session": tree(Path(".research/b")), "report": tree(Path("reports/b"))}
    assert before["session"] and before["report"]

    failing = mock_script(faults=[{"action": "fail", "phase": "initial_plan"}])
    runs = [
        (
            "--mock-mode",
            "--mock-script",
            str(failing),
            "--name",
            "a",
            "--breadth",
            "2",
            "--depth",
            "1",
            QUESTION,
        ),  # fails (exit 1), keeps its state
        ("--mock-mode", "--name", "a", "--resume"),
        ("--mock-mode", "--name", "a", "--resume"),  # already complete
        ("--name", "a", "--reorganize-archive"),
    ]
    codes = [run_cli(*args).exit_code for args in runs]
    assert codes == [1, 0, 0, 0]
    after = {"session": tree(Path(".research/b")), "report": tree(Path("reports/b"))}
    assert after == before
    assert sorted(p.name for p in Path(".research").iterdir()) == ["a", "b", "templates"]


def test_a_run_writes_nowhere_but_research_and_reports_of_its_directory(tmp_path: Path) -> None:
    work, home, temp = tmp_path / "work2", tmp_path / "home", tmp_path / "tmp"
    for directory in (work, home, temp):
        directory.mkdir()
    # The checkout may hold a demo run's .research/ and reports/ (the README runs one there
    # first): the test checks they are left as they were, not that they are absent.
    checkout = {name: tree(REPO / name) for name in ("templates", ".research", "reports")}
    env = {key: value for key, value in os.environ.items() if not key.startswith("RESEARCH_")}
    env.update(
        HOME=str(home),
        TMPDIR=str(temp),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_DATA_HOME=str(home / ".local"),
    )
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "research.py"),
            "--mock-mode",
            "--name",
            "iso",
            "--breadth",
            "2",
            "--depth",
            "1",
            "--quiet",
            QUESTION,
        ],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in work.iterdir()) == [".research", "reports"]
    assert sorted(p.name for p in (work / "reports").iterdir()) == ["iso"]
    assert sorted(p.name for p in (work / ".research").iterdir()) == ["iso", "templates"]
    assert list(home.iterdir()) == [] and list(temp.iterdir()) == []
    assert {name: tree(REPO / name) for name in checkout} == checkout

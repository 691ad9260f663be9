"""Nothing outside the session: a run writes only `.research/` and `reports/` of its working
directory, and a session never touches another session's files."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from conftest import REPO
from helpers import run_research, sandbox_env, write_lock

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
    write_lock(Path(".research/b/research.lock.json"), pid=os.getpid(), host="elsewhere")
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
    env = sandbox_env(tmp_path)  # HOME, TMPDIR and XDG_* in `home` and `temp`
    # The checkout may hold a demo run's .research/ and reports/ (the README runs one there
    # first): the test checks they are left as they were, not that they are absent.
    checkout = {name: tree(REPO / name) for name in ("templates", ".research", "reports")}
    done = run_research(
        "--mock-mode",
        "--name",
        "iso",
        "--breadth",
        "2",
        "--depth",
        "1",
        "--quiet",
        QUESTION,
        cwd=work,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in work.iterdir()) == [".research", "reports"]
    assert sorted(p.name for p in (work / "reports").iterdir()) == ["iso"]
    assert sorted(p.name for p in (work / ".research").iterdir()) == ["iso", "templates"]
    # Outside the working directory only the user's key (research/workspace/userkey.py),
    # which signs the source ledger: in the user's state directory, owner-only.
    written = sorted(p.relative_to(home).as_posix() for p in home.rglob("*") if p.is_file())
    assert written == [".local/state/research-py/key"]
    assert (home / written[0]).stat().st_mode & 0o077 == 0
    assert list(temp.iterdir()) == []
    assert {name: tree(REPO / name) for name in checkout} == checkout

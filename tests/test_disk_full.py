"""A full disk: writes that fail leave whole files behind, the run stops with one clear line
(exit 1), and `--resume` continues once there is room. A file-size limit (RLIMIT_FSIZE, with
SIGXFSZ ignored) makes writes fail mid-run the way a full disk does, without filling one."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

from conftest import REPO

from research.model.state import load_state
from research.workspace.events import read_events
from research.workspace.fsutil import UMASK, append_line, atomic_write_text

QUESTION = "How do heat pumps perform in cold climates?"
LIMIT_BYTES = 12_000


def small_disk() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT_BYTES, LIMIT_BYTES))


def test_a_write_failing_mid_run_stops_cleanly_and_resume_finishes(isolated: Path, run_cli) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("RESEARCH_")}
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "research.py"),
            "--mock-mode",
            "--name",
            "full",
            "--breadth",
            "2",
            "--depth",
            "2",
            "--yes",
            "--quiet",
            QUESTION,
        ],
        cwd=isolated,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,  # a hang guard
        preexec_fn=small_disk,
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("research: error: file system error: File too large")
    assert "--resume" in line

    session = isolated / ".research" / "full"
    assert not load_state(session / "state.json").progress.is_complete  # whole, and resumable
    assert not (session / "research.lock.json").exists()
    assert not list(session.glob(".*.tmp"))  # no temporary file left behind

    result = run_cli("--mock-mode", "--name", "full", "--resume")
    assert result.exit_code == 0, result.stderr
    assert load_state(session / "state.json").progress.is_complete
    lines = (session / "events.jsonl").read_text().splitlines()
    damaged = [text for text in lines if not _is_json(text)]
    assert len(damaged) <= 1  # at most the line cut short by the full disk
    # Every event of the resumed run is readable: the cut line did not swallow the next one.
    types = [e["type"] for e in read_events(session / "events.jsonl")]
    assert types.count("lock_taken") == 2 and types.count("run_start") == 2


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return False
    return True


def test_append_after_a_torn_last_line_starts_a_new_line(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    log.write_text('{"a": 1}\n{"b": ')
    append_line(log, '{"c": 3}')
    append_line(log, '{"d": 4}')
    assert log.read_text().splitlines() == ['{"a": 1}', '{"b": ', '{"c": 3}', '{"d": 4}']
    assert list(read_events(log)) == [{"a": 1}, {"c": 3}, {"d": 4}]


def test_a_failed_atomic_write_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    target.write_text("old")
    code = (
        "import sys; from pathlib import Path\n"
        "from research.workspace.fsutil import atomic_write_text\n"
        "try:\n    atomic_write_text(Path(sys.argv[1]), 'x' * 20_000)\n"
        "except OSError as exc:\n    print(exc.strerror)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(target)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=120,  # a hang guard
        preexec_fn=small_disk,
    )
    assert done.stdout.strip() == "File too large", done.stderr
    assert target.read_text() == "old"
    assert not list(tmp_path.glob(".*.tmp"))  # the temporary file was removed


def test_atomic_writes_keep_the_usual_permissions(tmp_path: Path) -> None:
    fresh = tmp_path / "report.md"
    atomic_write_text(fresh, "text")
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~UMASK
    shared = tmp_path / "shared.md"
    shared.write_text("x")
    shared.chmod(0o640)
    atomic_write_text(shared, "y")
    assert shared.stat().st_mode & 0o777 == 0o640

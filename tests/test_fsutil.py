"""Atomic writes and the append-only line log."""

from __future__ import annotations

import os
from pathlib import Path

from research.fsutil import LineLog, atomic_write_text, write_if_changed


def test_line_log_lines_are_on_disk_at_once_and_survive_replacement(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    log = LineLog(path)
    log.append("one")
    assert path.read_text() == "one\n"  # no close, no flush needed
    path.unlink()  # an agent deletes the log mid-run
    log.append("two")
    assert path.read_text() == "two\n"
    path.write_text("replaced\n")  # or replaces it
    log.append("three")
    assert path.read_text() == "replaced\nthree\n"
    log.close()


def test_line_log_closes_a_line_left_unfinished(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text('{"torn": ')
    log = LineLog(path)
    log.append("{}")
    log.close()
    assert path.read_text().splitlines() == ['{"torn": ', "{}"]


def test_write_if_changed_skips_identical_content(tmp_path: Path) -> None:
    path = tmp_path / "plan.md"
    assert write_if_changed(path, "a\n")
    before = os.stat(path).st_ino
    assert not write_if_changed(path, "a\n")
    assert os.stat(path).st_ino == before
    assert write_if_changed(path, "b\n") and path.read_text() == "b\n"


def test_atomic_write_keeps_permissions(isolated: Path) -> None:
    path = isolated / "report.md"
    path.write_text("old")
    path.chmod(0o640)
    atomic_write_text(path, "new")
    assert path.read_text() == "new" and (path.stat().st_mode & 0o777) == 0o640
    assert [p.name for p in isolated.iterdir()] == ["report.md"]  # no temporary file left

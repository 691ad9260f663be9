"""Atomic writes and the append-only line log."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from research.workspace.fsutil import LineLog, atomic_write_text, write_if_changed


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


SWAPPER = """
import os, sys, time
root, victim, stop, swapping = sys.argv[1:5]
notes = os.path.join(root, "progress")
n = 0
while not os.path.exists(stop):
    n += 1
    if n == 200:
        open(swapping, "w").close()  # racing for a while now
    aside = os.path.join(root, f"moved{n}")
    try:
        os.rename(notes, aside)
    except OSError:
        continue
    try:
        os.symlink(victim, notes, target_is_directory=True)
        os.unlink(notes)
        os.rename(aside, notes)
    except OSError:
        pass
"""


def test_a_directory_swapped_for_a_link_at_any_instant_never_takes_a_write(
    tmp_path: Path,
) -> None:
    """An agent running beside the orchestrator (parallel mode) swaps a session directory
    for a link to the user's files, back and forth, while the orchestrator writes into it:
    no write, temporary file, deletion or rename ever reaches the user's folder."""
    import subprocess
    import sys
    import time

    from research.workspace.fsutil import (
        append_line,
        guard_tree,
        remove_if_holds,
        rename_entry,
        unlink_entry,
    )

    root = tmp_path / "session"
    notes = root / "progress"
    notes.mkdir(parents=True)
    victim = tmp_path / "victim"
    victim.mkdir()
    users = {"gone.md": b"the user's notes\n", "topic.md": b"notes 1\n", "old.md": b"old\n"}
    for name, data in users.items():
        (victim / name).write_bytes(data)
    stop, swapping = tmp_path / "stop", tmp_path / "swapping"
    guard_tree(root)
    swapper = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, str(root), str(victim), str(stop), str(swapping)]
    )
    try:
        # Two seconds of writes, and at least until the swapper (slow to start on a loaded
        # machine) has swapped 200 times: the race must have been run.
        end = time.monotonic() + 2.0
        n = 0
        while time.monotonic() < end or not swapping.exists():
            assert swapper.poll() is None, "the swapper stopped"
            n += 1
            try:
                atomic_write_text(notes / "topic.md", f"notes {n}\n", durable=False)
                append_line(notes / "index.md", f"line {n}")
                unlink_entry(notes / "gone.md")  # what an agent left there
                remove_if_holds(notes / "topic.md", b"notes 1\n")  # archived notes
                rename_entry(notes / "old.md", root / f"aside-{n}.md")  # moved aside
            except OSError:
                pass  # an operation may fail in the race; none may go through the link
    finally:
        stop.touch()
        swapper.wait(timeout=120)  # a hang guard
    assert {p.name: p.read_bytes() for p in victim.iterdir()} == users


def test_nothing_is_read_through_a_link_in_place_of_a_directory(tmp_path: Path) -> None:
    """Below a guarded root a read never goes through a link on the way: an agent that
    links progress/ to the user's files cannot have them read as notes."""
    from research.workspace.fsutil import NOT_REGULAR, guard_tree, read_regular

    root = tmp_path / "session"
    root.mkdir()
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "topic.md").write_text("the user's private notes\n")
    guard_tree(root)
    (root / "progress").symlink_to(victim, target_is_directory=True)
    assert read_regular(root / "progress" / "topic.md") == NOT_REGULAR
    assert read_regular(root / "missing" / "topic.md") is None
    (root / "progress").unlink()
    (root / "progress").mkdir()
    (root / "progress" / "topic.md").write_text("notes\n")
    assert read_regular(root / "progress" / "topic.md") == b"notes\n"
    assert (root / "progress").is_dir() and not (root / "missing").exists()  # no repairs


def test_a_directory_removed_on_the_way_is_made_again(tmp_path: Path) -> None:
    """Sessions sharing a working directory share `.research/.calls`, which one removes when
    it holds no area: another, making its area meanwhile, walks again and makes it (a
    cluster test once saw 'No such file or directory' there). A second process removes the
    empty directory over and over while areas are made and removed."""
    import subprocess
    import sys

    from research.workspace.fsutil import make_dir_below

    calls, running = tmp_path / ".calls", tmp_path / "running"
    running.touch()
    remover = (
        "import os, sys, time\n"
        "while os.path.exists(sys.argv[2]):\n"
        "    try:\n        os.rmdir(sys.argv[1])\n    except OSError:\n        pass\n"
        "    time.sleep(0.0005)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", remover, str(calls), str(running)])
    failed = 0
    try:
        for number in range(1000):
            try:
                make_dir_below(tmp_path, ".calls", "s", f"area{number}")
            except FileNotFoundError:
                failed += 1
                continue
            (calls / "s" / f"area{number}").rmdir()
            with contextlib.suppress(OSError):
                (calls / "s").rmdir()
    finally:
        running.unlink()
        child.wait(timeout=60)
    assert failed == 0

"""Snapshots of the working tree and the changes an agent made outside the session."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import read_jsonl

from research.workspace.events import EventLog
from research.workspace.paths import SessionPaths
from research.workspace.strays import (
    Changes,
    changes,
    owned_by_sessions,
    snapshot,
    watch_for_stray_files,
)


def touch(root: Path, relative: str, text: str = "x") -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("relative_dir", "owned"),
    [
        (".research/demo", True),
        (".research/other-session/logs", True),
        ("reports", True),
        ("reports/demo", True),
        (".research", False),
        (".research/templates", False),
        ("docs", False),
        ("research", False),
        ("reports-old", False),
    ],
)
def test_owned_by_sessions(relative_dir: str, owned: bool) -> None:
    assert owned_by_sessions(relative_dir) is owned


def test_snapshot_walks_the_tree_but_skips_sessions_and_tool_directories(tmp_path: Path) -> None:
    for relative in [
        "a.txt",
        "docs/deep/b.md",
        ".research/templates/research.md",
        ".research/stray.md",
        ".research/demo/state.json",
        "reports/demo/report.md",
        ".git/HEAD",
        "node_modules/pkg/index.js",
        ".venv/bin/python",
        "src/__pycache__/m.pyc",
    ]:
        touch(tmp_path, relative)
    seen = snapshot(tmp_path)
    assert seen.complete
    assert sorted(seen.files) == [
        ".research/stray.md",
        ".research/templates/research.md",
        "a.txt",
        "docs/deep/b.md",
    ]
    assert seen.files["a.txt"][1] == 1


def test_snapshot_records_symlinks_without_following_them(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    touch(outside, "big/file.txt")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "link").symlink_to(outside / "big")
    assert list(snapshot(tree).files) == ["link"]


def test_snapshot_stops_at_the_entry_limit(tmp_path: Path) -> None:
    for number in range(10):
        touch(tmp_path, f"f{number}.txt")
    seen = snapshot(tmp_path, limit=4)
    assert not seen.complete
    assert list(seen.files) == ["f0.txt", "f1.txt", "f2.txt", "f3.txt"]


def test_changes_lists_created_modified_and_deleted_files(tmp_path: Path) -> None:
    touch(tmp_path, "keep.txt")
    edit = touch(tmp_path, "edit.txt", "old")
    gone = touch(tmp_path, "gone.txt")
    before = snapshot(tmp_path)
    edit.write_text("new and longer", encoding="utf-8")
    gone.unlink()
    touch(tmp_path, "sub/new.txt")
    found = changes(before, snapshot(tmp_path))
    assert found == Changes(created=["sub/new.txt"], modified=["edit.txt"], deleted=["gone.txt"])
    assert not changes(before, before)


def test_a_truncated_walk_reports_only_modifications(tmp_path: Path) -> None:
    for number in range(6):
        touch(tmp_path, f"f{number}.txt")
    before = snapshot(tmp_path, limit=3)
    (tmp_path / "f0.txt").write_text("changed", encoding="utf-8")
    touch(tmp_path, "a-new.txt")  # sorts first: pushes f2 past the limit
    after = snapshot(tmp_path, limit=3)
    assert changes(before, after) == Changes(created=[], modified=["f0.txt"], deleted=[])


def test_watch_emits_an_event_and_a_warning_and_deletes_nothing(tmp_path: Path) -> None:
    paths = SessionPaths(tmp_path, "demo")
    log = EventLog(paths.events_file)
    with watch_for_stray_files(paths, log, "research"):
        touch(tmp_path, "stray.txt")
        touch(tmp_path, ".research/demo/progress/x.md")
        touch(tmp_path, "reports/demo/report.md")
    recorded = read_jsonl(paths.events_file)
    assert [e["type"] for e in recorded] == ["stray_files", "warning"]
    stray = recorded[0]
    assert (stray["phase"], stray["created"], stray["count"]) == ("research", ["stray.txt"], 1)
    assert "created stray.txt (left as they are)" in recorded[1]["message"]
    assert (tmp_path / "stray.txt").exists()


def test_watch_reports_nothing_when_the_block_raises(tmp_path: Path) -> None:
    paths = SessionPaths(tmp_path, "demo")
    log = EventLog(tmp_path / "session" / "events.jsonl")
    with pytest.raises(KeyboardInterrupt), watch_for_stray_files(paths, log, "research"):
        touch(tmp_path, "stray.txt")
        raise KeyboardInterrupt
    assert not (tmp_path / "session" / "events.jsonl").exists()

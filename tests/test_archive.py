"""Archiving: naming, sha256 dedup, the index, session cleanup, and reorganizing by token."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from research.workspace.archive import (
    INDEX_NAME,
    archive_file,
    archive_session,
    load_index,
    reorganize_archive,
    timestamp,
)
from research.workspace.paths import SessionPaths

T0 = datetime(2026, 11, 22, 10, 15, 2, tzinfo=UTC)
T1 = T0 + timedelta(minutes=5)


@pytest.fixture
def paths(tmp_path: Path) -> SessionPaths:
    paths = SessionPaths(root=tmp_path, name="demo")
    paths.session_dir.mkdir(parents=True)
    return paths


def archived(archive_dir: Path) -> dict[str, bytes]:
    """Every archive file (relative path → bytes), index excluded."""
    return {
        file.relative_to(archive_dir).as_posix(): file.read_bytes()
        for file in archive_dir.rglob("*")
        if file.is_file() and file.name != INDEX_NAME
    }


def test_timestamp_is_sortable_utc() -> None:
    assert timestamp(T0) == "20261122T101502Z"
    assert timestamp(T0.astimezone(timezone(timedelta(hours=2)))) == "20261122T101502Z"
    assert timestamp(T0.replace(tzinfo=None)) == "20261122T101502Z"


def test_archive_file_naming(tmp_path: Path) -> None:
    source = tmp_path / "review.rejected.md"
    source.write_text("gaps\n", encoding="utf-8")
    copy = archive_file(tmp_path / "archive", source, "ab12cd", now=T0)
    assert copy == tmp_path / "archive" / "20261122T101502Z.ab12cd.review.rejected.md"
    assert copy.read_text(encoding="utf-8") == "gaps\n"
    assert source.read_text(encoding="utf-8") == "gaps\n"


@pytest.mark.parametrize(
    ("file_name", "kwargs", "expected"),
    [
        ("ml-basics.md", {"prepend": "ml-basics", "name": "progress.md"}, "ml-basics.progress.md"),
        ("progress.md", {"prepend": "ml-basics"}, "ml-basics.progress.md"),
        ("notes.md", {"name": "other.md"}, "other.md"),
    ],
)
def test_archive_file_prepend(
    tmp_path: Path, file_name: str, kwargs: dict[str, str], expected: str
) -> None:
    source = tmp_path / file_name
    source.write_text("x", encoding="utf-8")
    copy = archive_file(tmp_path / "archive", source, "tok", now=T0, **kwargs)
    assert copy is not None and copy.name == f"20261122T101502Z.tok.{expected}"


def test_missing_file_is_not_archived(tmp_path: Path) -> None:
    assert archive_file(tmp_path / "archive", tmp_path / "absent.md", "tok", now=T0) is None
    assert not (tmp_path / "archive").exists()


@pytest.mark.parametrize("token", ["", "a.b", "a/b", "spa ce"])
def test_bad_token_is_refused(tmp_path: Path, token: str) -> None:
    source = tmp_path / "f.md"
    source.write_text("x", encoding="utf-8")
    with pytest.raises(ValueError, match="token"):
        archive_file(tmp_path / "archive", source, token)


def test_dedup_by_sha256_per_logical_name(tmp_path: Path) -> None:
    archive_dir = tmp_path / "archive"
    source = tmp_path / "review.accepted.md"
    source.write_text("ok\n", encoding="utf-8")
    assert archive_file(archive_dir, source, "tok1", now=T0) is not None
    assert archive_file(archive_dir, source, "tok2", now=T1) is None
    assert len(archived(archive_dir)) == 1

    source.write_text("ok, revised\n", encoding="utf-8")
    assert archive_file(archive_dir, source, "tok2", now=T1) is not None
    source.write_text("ok\n", encoding="utf-8")
    assert archive_file(archive_dir, source, "tok3", now=T1) is None

    other = tmp_path / "review.rejected.md"
    other.write_text("ok\n", encoding="utf-8")
    assert archive_file(archive_dir, other, "tok3", now=T1) is not None
    assert sorted(archived(archive_dir)) == [
        "20261122T101502Z.tok1.review.accepted.md",
        "20261122T102002Z.tok2.review.accepted.md",
        "20261122T102002Z.tok3.review.rejected.md",
    ]


def test_same_second_versions_never_overwrite(tmp_path: Path) -> None:
    archive_dir = tmp_path / "archive"
    source = tmp_path / "progress.md"
    for text in ("one", "two", "three"):
        source.write_text(text, encoding="utf-8")
        archive_file(archive_dir, source, "tok", now=T0)
    assert archived(archive_dir) == {
        "20261122T101502Z.tok.progress.md": b"one",
        "20261122T101502Z-2.tok.progress.md": b"two",
        "20261122T101502Z-3.tok.progress.md": b"three",
    }


def test_archive_is_byte_exact(tmp_path: Path) -> None:
    source = tmp_path / "completed.md"
    source.write_bytes(b"\xff\xfe not utf-8 \r\n")
    copy = archive_file(tmp_path / "archive", source, "tok", now=T0)
    assert copy is not None and copy.read_bytes() == b"\xff\xfe not utf-8 \r\n"


@pytest.mark.parametrize("damage", ["missing", "garbage", "wrong-shape", "binary"])
def test_index_is_rebuilt(tmp_path: Path, damage: str) -> None:
    archive_dir = tmp_path / "archive"
    source = tmp_path / "progress.md"
    source.write_text("notes", encoding="utf-8")
    copy = archive_file(archive_dir, source, "tok", now=T0)
    assert copy is not None
    index_file = archive_dir / INDEX_NAME
    content = {
        "missing": None,
        "garbage": b"{oops",
        "wrong-shape": b'{"abc": "not a mapping"}',
        "binary": b"\xff\x00",
    }[damage]
    if content is None:
        index_file.unlink()
    else:
        index_file.write_bytes(content)

    assert archive_file(archive_dir, source, "tok2", now=T1) is None
    assert len(archived(archive_dir)) == 1
    rebuilt = json.loads(index_file.read_text(encoding="utf-8"))
    assert rebuilt == {next(iter(rebuilt)): {"progress.md": copy.name}}


def test_stale_index_entry_is_not_trusted(tmp_path: Path) -> None:
    archive_dir = tmp_path / "archive"
    source = tmp_path / "progress.md"
    source.write_text("notes", encoding="utf-8")
    first = archive_file(archive_dir, source, "tok", now=T0)
    assert first is not None
    first.unlink()
    again = archive_file(archive_dir, source, "tok", now=T1)
    assert again is not None and again.read_text(encoding="utf-8") == "notes"


KEPT = {
    "research_plan.md": b"# Research Plan\n",
    "progress.md": b"# Research Progress\n",
    "state.json": b"{}",
    "decisions.jsonl": b"{}\n",
    "events.jsonl": b"{}\n",
    "sources.json": b"[]",
    "citations.json": b"[]",
    "research.lock.json": b"{}",
    "logs/001-research.log": b"agent output",
}
REMOVED = {
    "review.accepted.md": b"accepted\n",
    "review.rejected.md": b"rejected\n",
    "recovery.notes.md": b"recovered\n",
    "completed.md": b"<promise>COMPLETE</promise>\n",
    "progress/ml-basics.md": b"# Progress: ML basics\n",
    "progress/neural-nets.md": b"# Progress: Neural nets\n\xff",
}


def make_session(paths: SessionPaths) -> None:
    for rel, data in {**KEPT, **REMOVED}.items():
        file = paths.session_dir / rel
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(data)


def session_files(paths: SessionPaths) -> dict[str, bytes]:
    return {
        file.relative_to(paths.session_dir).as_posix(): file.read_bytes()
        for file in paths.session_dir.rglob("*")
        if file.is_file() and paths.archive_dir not in file.parents
    }


def test_archive_session_names(paths: SessionPaths) -> None:
    make_session(paths)
    written = archive_session(paths, "tok", remove=False, now=T0)
    assert sorted(p.name for p in written) == sorted(
        f"20261122T101502Z.tok.{name}"
        for name in [
            "review.accepted.md",
            "review.rejected.md",
            "recovery.notes.md",
            "completed.md",
            "research_plan.md",
            "progress.md",
            "ml-basics.progress.md",
            "neural-nets.progress.md",
        ]
    )
    assert all(p.parent == paths.archive_dir for p in written)


def test_archive_session_remove_keeps_what_it_must(paths: SessionPaths) -> None:
    make_session(paths)
    archive_session(paths, "tok", remove=True, now=T0)
    assert session_files(paths) == KEPT
    assert not paths.progress_dir.exists()
    copies = set(archived(paths.archive_dir).values())
    assert all(data in copies for data in REMOVED.values())


def test_archive_session_without_remove_removes_nothing(paths: SessionPaths) -> None:
    make_session(paths)
    archive_session(paths, "tok", remove=False, now=T0)
    assert session_files(paths) == {**KEPT, **REMOVED}
    assert archive_session(paths, "tok2", remove=False, now=T1) == []


def test_remove_after_an_earlier_archive_run(paths: SessionPaths) -> None:
    make_session(paths)
    first = archive_session(paths, "tok", remove=False, now=T0)
    (paths.session_dir / "completed.md").write_bytes(b"changed")
    second = archive_session(paths, "tok2", remove=True, now=T1)
    assert [p.name for p in second] == ["20261122T102002Z.tok2.completed.md"]
    assert session_files(paths) == KEPT
    assert len(archived(paths.archive_dir)) == len(first) + 1


def test_remove_keeps_a_progress_dir_with_foreign_files(paths: SessionPaths) -> None:
    make_session(paths)
    (paths.progress_dir / "figure.png").write_bytes(b"png")
    archive_session(paths, "tok", remove=True, now=T0)
    assert sorted(p.name for p in paths.progress_dir.iterdir()) == ["figure.png"]


def test_archive_session_on_a_bare_session(paths: SessionPaths) -> None:
    assert archive_session(paths, "tok", remove=True, now=T0) == []
    assert not paths.archive_dir.exists()


def write_archive(archive_dir: Path, name: str, data: bytes) -> Path:
    file = archive_dir / name
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_bytes(data)
    return file


def test_reorganize_groups_by_token(tmp_path: Path) -> None:
    archive_dir = tmp_path / "archive"
    a = tmp_path / "progress.md"
    a.write_text("v1", encoding="utf-8")
    archive_file(archive_dir, a, "tokA", now=T0)
    a.write_text("v2", encoding="utf-8")
    archive_file(archive_dir, a, "tokB", now=T1)
    write_archive(archive_dir, "notes.txt", b"foreign")
    write_archive(archive_dir, "20261122T101502Z.bad.token.md/inner", b"dir, not a file")

    assert reorganize_archive(archive_dir) == 2
    assert archived(archive_dir) == {
        "tokA/20261122T101502Z.tokA.progress.md": b"v1",
        "tokB/20261122T102002Z.tokB.progress.md": b"v2",
        "notes.txt": b"foreign",
        "20261122T101502Z.bad.token.md/inner": b"dir, not a file",
    }
    index = load_index(archive_dir)
    assert sorted(v["progress.md"] for v in index.values()) == [
        "tokA/20261122T101502Z.tokA.progress.md",
        "tokB/20261122T102002Z.tokB.progress.md",
    ]
    assert archive_file(archive_dir, a, "tokC", now=T1) is None

    assert reorganize_archive(archive_dir) == 0
    assert len(archived(archive_dir)) == 4


def test_reorganize_never_overwrites(tmp_path: Path) -> None:
    archive_dir = tmp_path / "archive"
    same = "20261122T101502Z.tok.progress.md"
    differs = "20261122T101502Z.tok.completed.md"
    write_archive(archive_dir, same, b"same")
    write_archive(archive_dir, f"tok/{same}", b"same")
    write_archive(archive_dir, differs, b"top")
    write_archive(archive_dir, f"tok/{differs}", b"folder")

    assert reorganize_archive(archive_dir) == 1
    assert archived(archive_dir) == {
        f"tok/{same}": b"same",
        differs: b"top",
        f"tok/{differs}": b"folder",
    }
    assert reorganize_archive(archive_dir) == 0


def test_new_archives_avoid_names_already_in_token_folders(tmp_path: Path) -> None:
    archive_dir = tmp_path / "archive"
    source = tmp_path / "progress.md"
    source.write_text("v1", encoding="utf-8")
    archive_file(archive_dir, source, "tok", now=T0)
    reorganize_archive(archive_dir)
    source.write_text("v2", encoding="utf-8")
    copy = archive_file(archive_dir, source, "tok", now=T0)
    assert copy is not None and copy.name == "20261122T101502Z-2.tok.progress.md"
    assert reorganize_archive(archive_dir) == 1


def test_reorganize_missing_archive(tmp_path: Path) -> None:
    assert reorganize_archive(tmp_path / "archive") == 0

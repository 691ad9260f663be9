"""Archive intermediate files, remove them on completion, and group archives by token.

Archives are named `{timestamp}.{token}.{file}` (UTC `YYYYmmddTHHMMSSZ`); per-topic
progress files are archived as `{timestamp}.{token}.{slug}.progress.md`. Content already
archived under the same logical file name (by sha256) is not archived again; the lookup
goes through `archive/.index.json`, {sha256: {logical name: path relative to archive/}},
rebuilt from the files whenever it is missing or corrupt.

The session directory is hostile ground (an agent may have left links, FIFOs or
directories anywhere in it): every file is read with `read_regular` (no link followed, no
FIFO opened), only real directories are listed, nothing is written into an archive
directory that is a link, and a file is deleted only when it is a regular file that still
holds exactly the bytes that were archived. Directories an agent left where the
orchestrator's files belong are kept under `archive/moved-aside/` (MOVED_ASIDE), which
is never read.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from datetime import UTC, datetime
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from research.core.errors import RunFailed
from research.workspace.fsutil import (
    NOT_REGULAR,
    atomic_write_bytes,
    atomic_write_text,
    is_real_dir,
    read_regular,
    remove_if_holds,
)
from research.workspace.paths import SessionPaths

INDEX_NAME = ".index.json"
MOVED_ASIDE = "moved-aside"
"""The folder of archive/ that keeps what an agent left where the orchestrator's files or
directories belong (moved there whole, never read, never deleted)."""
ARCHIVE_NAME = re.compile(
    r"^(?P<stamp>\d{8}T\d{6}Z(?:-\d+)?)\.(?P<token>[A-Za-z0-9_-]+)\.(?P<name>[^/]+)$"
)
TOKEN_PATTERN = re.compile(r"^[A-Za-z0-9_-]+$")

Index = dict[str, dict[str, str]]
_INDEX_ADAPTER: TypeAdapter[Index] = TypeAdapter(Index)


class ArchiveTampered(RunFailed):
    """The archive directory is a link or not a directory: nothing is written through it."""


def _read(path: Path) -> bytes | None:
    """A regular file's bytes; None for anything else (missing, a link, a FIFO, a directory)."""
    data = read_regular(path)
    return None if data is None or data == NOT_REGULAR else data


def _entries(directory: Path) -> list[os.DirEntry[str]]:
    """The entries of a real directory (never of a link to one), sorted by name."""
    if not is_real_dir(directory):
        return []
    try:
        with os.scandir(directory) as scan:
            return sorted(scan, key=lambda entry: entry.name)
    except OSError:
        return []


def _regular_files(directory: Path) -> list[Path]:
    return [Path(e.path) for e in _entries(directory) if e.is_file(follow_symlinks=False)]


def ensure_archive_dir(archive_dir: Path) -> None:
    """Make the archive directory if missing; refuse one that is a link or not a directory."""
    try:
        mode = os.lstat(archive_dir).st_mode
    except FileNotFoundError:
        archive_dir.mkdir(parents=True, exist_ok=True)
        mode = os.lstat(archive_dir).st_mode
    if not stat.S_ISDIR(mode):
        kind = "a symbolic link" if stat.S_ISLNK(mode) else "not a directory"
        raise ArchiveTampered(
            f"{archive_dir} is {kind}; nothing was archived through it; "
            "the session can be continued with --resume"
        )


def timestamp(now: datetime) -> str:
    """`now` as a sortable UTC stamp; a naive datetime is taken as UTC."""
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    return now.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def archive_file(
    archive_dir: Path,
    path: Path,
    token: str,
    *,
    prepend: str | None = None,
    name: str | None = None,
    now: datetime | None = None,
) -> Path | None:
    """Copy `path` into the archive; None if it is missing, not a regular file, or its
    content is already there.

    The logical name is `name` (default: the file's name), prefixed by `{prepend}.` if given.
    `path` itself is never touched.
    """
    logical = _logical_name(path, prepend=prepend, name=name)
    _check_token(token)
    data = _read(path)
    if data is None:
        return None
    index = load_index(archive_dir)
    copy, written = _archive_bytes(archive_dir, index, data, logical, token, now or _utcnow())
    return copy if written else None


def archive_session(
    paths: SessionPaths, token: str, *, remove: bool, now: datetime | None = None
) -> list[Path]:
    """Archive the session's intermediates, plan and progress notes; return the copies written.

    With `remove`, the intermediates and per-topic progress files are then deleted, each
    only once an archived copy with its exact content exists; the plan, `progress.md` and
    every other session file are kept.
    """
    _check_token(token)
    now = now or _utcnow()
    jobs = [(file, file.name, True) for file in paths.intermediate_files()]
    jobs += [(paths.plan_file, paths.plan_file.name, False)]
    jobs += [(paths.progress_index, paths.progress_index.name, False)]
    # Only a real progress directory is listed: a link an agent put in its place is never
    # followed (the files it points to are the user's, not the session's).
    jobs += [
        (file, _logical_name(file, prepend=file.stem, name="progress.md"), True)
        for file in _regular_files(paths.progress_dir)
        if file.suffix == ".md" and not file.name.startswith(".")
    ]

    archive_dir = paths.archive_dir
    index: Index | None = None
    written: list[Path] = []
    removable: list[tuple[Path, bytes]] = []
    for file, logical, transient in jobs:
        data = _read(file)
        if data is None:
            continue
        if index is None:
            index = load_index(archive_dir)
        copy, new = _archive_bytes(archive_dir, index, data, logical, token, now)
        if new:
            written.append(copy)
        if transient and _read(copy) == data:
            removable.append((file, data))

    if remove:
        for file, data in removable:
            remove_if_unchanged(file, data)
        if is_real_dir(paths.progress_dir):
            try:
                paths.progress_dir.rmdir()
            except OSError:
                pass  # holds files we do not own
    return written


def remove_if_unchanged(path: Path, data: bytes) -> bool:
    """Delete `path` only if it is (still) a regular file holding exactly `data`, the bytes
    just archived: a file changed since stays for the next archive run, and nothing that
    is not a regular file (a link, a directory) is ever deleted here."""
    return remove_if_holds(path, data)


def reorganize_archive(archive_dir: Path) -> int:
    """Move top-level `{timestamp}.{token}.{file}` archives into `{token}/`, keeping their names.

    Returns how many left the top level. A target that already exists is never overwritten:
    with the same content the top-level duplicate is dropped (and counted), otherwise it
    stays where it is. Other files are left alone. Idempotent.
    """
    if not is_real_dir(archive_dir):
        return 0
    moved = 0
    for source in _regular_files(archive_dir):
        match = ARCHIVE_NAME.match(source.name)
        if match is None:
            continue
        folder = archive_dir / match["token"]
        if os.path.lexists(folder) and not is_real_dir(folder):
            continue
        target = folder / source.name
        if os.path.lexists(target):
            data = _read(source)
            if data is not None and _read(target) == data:
                remove_if_unchanged(source, data)
                moved += 1
            continue
        folder.mkdir(exist_ok=True)
        os.rename(source, target)
        moved += 1
    if moved:
        rebuild_index(archive_dir)
    return moved


def load_index(archive_dir: Path) -> Index:
    """The archive's sha256 index; rebuilt from the files if missing or corrupt."""
    data = _read(archive_dir / INDEX_NAME)
    if data is not None:
        try:
            return _INDEX_ADAPTER.validate_json(data)
        except ValidationError:
            pass
    return rebuild_index(archive_dir)


def rebuild_index(archive_dir: Path) -> Index:
    """Hash every archive under `archive_dir` (top level and token folders) and save the index."""
    index: Index = {}
    if is_real_dir(archive_dir):
        for file in _archive_files(archive_dir):
            match = ARCHIVE_NAME.match(file.name)
            data = _read(file) if match is not None else None
            if match is None or data is None:
                continue
            entry = index.setdefault(_sha256(data), {})
            entry.setdefault(match["name"], file.relative_to(archive_dir).as_posix())
        _save_index(archive_dir, index)
    return index


def _archive_files(archive_dir: Path) -> list[Path]:
    """The regular files at the top of the archive and in its token folders (real
    directories only; moved-aside content is not an archive)."""
    files = _regular_files(archive_dir)
    for entry in _entries(archive_dir):
        if entry.name != MOVED_ASIDE and entry.is_dir(follow_symlinks=False):
            files += _regular_files(Path(entry.path))
    return sorted(files)


def _archive_bytes(
    archive_dir: Path, index: Index, data: bytes, logical: str, token: str, now: datetime
) -> tuple[Path, bool]:
    """Return the archived copy of `data` under `logical`, and whether it was written now."""
    digest = _sha256(data)
    known = index.get(digest, {}).get(logical)
    if known is not None and _read(archive_dir / known) != data:
        index.clear()
        index.update(rebuild_index(archive_dir))
        known = index.get(digest, {}).get(logical)
    if known is not None:
        return archive_dir / known, False
    ensure_archive_dir(archive_dir)
    target = _free_target(archive_dir, timestamp(now), token, logical)
    atomic_write_bytes(target, data)
    index.setdefault(digest, {})[logical] = target.relative_to(archive_dir).as_posix()
    _save_index(archive_dir, index)
    return target, True


def _free_target(archive_dir: Path, stamp: str, token: str, logical: str) -> Path:
    # Two versions archived within one second get `-2`, `-3`… on the stamp, so no archive
    # (at the top level, or already moved to its token folder) is ever overwritten.
    suffix, n = "", 1
    while True:
        file_name = f"{stamp}{suffix}.{token}.{logical}"
        taken = os.path.lexists(archive_dir / file_name) or os.path.lexists(
            archive_dir / token / file_name
        )
        if not taken:
            return archive_dir / file_name
        n += 1
        suffix = f"-{n}"


def _save_index(archive_dir: Path, index: Index) -> None:
    ensure_archive_dir(archive_dir)
    atomic_write_text(archive_dir / INDEX_NAME, json.dumps(index, indent=2, sort_keys=True) + "\n")


def _logical_name(path: Path, *, prepend: str | None, name: str | None) -> str:
    logical = name or path.name
    if prepend:
        logical = f"{prepend}.{logical}"
    if "/" in logical or "\\" in logical or logical.startswith("."):
        raise ValueError(f"invalid archive file name {logical!r}")
    return logical


def _check_token(token: str) -> None:
    if not TOKEN_PATTERN.fullmatch(token):
        raise ValueError(f"invalid archive token {token!r}: use letters, digits, '_' or '-'")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _utcnow() -> datetime:
    return datetime.now(UTC)


def latest_archived(archive_dir: Path, logical_name: str) -> Path | None:
    """The newest archived copy of a logical file name, at the top level or in token folders."""
    best: tuple[tuple[str, int], Path] | None = None
    for path in _archive_files(archive_dir):
        match = ARCHIVE_NAME.match(path.name)
        if match is None or match["name"] != logical_name:
            continue
        base, _, suffix = match["stamp"].partition("-")
        key = (base, int(suffix or 1))
        if best is None or key > best[0]:
            best = (key, path)
    return best[1] if best else None

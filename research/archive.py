"""Archive intermediate files, remove them on completion, and group archives by token.

Archives are named `{timestamp}.{token}.{file}` (UTC `YYYYmmddTHHMMSSZ`); per-topic
progress files are archived as `{timestamp}.{token}.{slug}.progress.md`. Content already
archived under the same logical file name (by sha256) is not archived again; the lookup
goes through `archive/.index.json`, {sha256: {logical name: path relative to archive/}},
rebuilt from the files whenever it is missing or corrupt.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from research.fsutil import atomic_write_bytes, atomic_write_text
from research.paths import SessionPaths

INDEX_NAME = ".index.json"
ARCHIVE_NAME = re.compile(
    r"^(?P<stamp>\d{8}T\d{6}Z(?:-\d+)?)\.(?P<token>[A-Za-z0-9_-]+)\.(?P<name>[^/]+)$"
)
TOKEN_PATTERN = re.compile(r"^[A-Za-z0-9_-]+$")

Index = dict[str, dict[str, str]]
_INDEX_ADAPTER: TypeAdapter[Index] = TypeAdapter(Index)


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
    """Copy `path` into the archive; None if it is missing or its content is already there.

    The logical name is `name` (default: the file's name), prefixed by `{prepend}.` if given.
    `path` itself is never touched.
    """
    logical = _logical_name(path, prepend=prepend, name=name)
    _check_token(token)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
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
    if paths.progress_dir.is_dir():
        jobs += [
            (file, _logical_name(file, prepend=file.stem, name="progress.md"), True)
            for file in sorted(paths.progress_dir.glob("*.md"))
            if file.is_file()
        ]

    archive_dir = paths.archive_dir
    index: Index | None = None
    written: list[Path] = []
    removable: list[tuple[Path, Path]] = []
    for file, logical, transient in jobs:
        try:
            data = file.read_bytes()
        except FileNotFoundError:
            continue
        if index is None:
            index = load_index(archive_dir)
        copy, new = _archive_bytes(archive_dir, index, data, logical, token, now)
        if new:
            written.append(copy)
        if transient:
            removable.append((file, copy))

    if remove:
        for file, copy in removable:
            # Re-read both: a file changed since it was archived stays for the next archive run.
            if copy.is_file() and file.read_bytes() == copy.read_bytes():
                file.unlink()
        try:
            paths.progress_dir.rmdir()
        except OSError:
            pass  # missing, or holds files we do not own
    return written


def reorganize_archive(archive_dir: Path) -> int:
    """Move top-level `{timestamp}.{token}.{file}` archives into `{token}/`, keeping their names.

    Returns how many left the top level. A target that already exists is never overwritten:
    with the same content the top-level duplicate is dropped (and counted), otherwise it
    stays where it is. Other files are left alone. Idempotent.
    """
    if not archive_dir.is_dir():
        return 0
    moved = 0
    for source in sorted(archive_dir.iterdir()):
        match = ARCHIVE_NAME.match(source.name)
        if match is None or not source.is_file() or source.is_symlink():
            continue
        folder = archive_dir / match["token"]
        if folder.exists() and not folder.is_dir():
            continue
        target = folder / source.name
        if target.exists():
            if target.is_file() and target.read_bytes() == source.read_bytes():
                source.unlink()
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
    try:
        return _INDEX_ADAPTER.validate_json((archive_dir / INDEX_NAME).read_bytes())
    except (FileNotFoundError, ValidationError):
        return rebuild_index(archive_dir)


def rebuild_index(archive_dir: Path) -> Index:
    """Hash every archive under `archive_dir` (top level and token folders) and save the index."""
    index: Index = {}
    if archive_dir.is_dir():
        for file in sorted(archive_dir.rglob("*")):
            match = ARCHIVE_NAME.match(file.name)
            if match is None or not file.is_file():
                continue
            entry = index.setdefault(_sha256(file.read_bytes()), {})
            entry.setdefault(match["name"], file.relative_to(archive_dir).as_posix())
        _save_index(archive_dir, index)
    return index


def _archive_bytes(
    archive_dir: Path, index: Index, data: bytes, logical: str, token: str, now: datetime
) -> tuple[Path, bool]:
    """Return the archived copy of `data` under `logical`, and whether it was written now."""
    digest = _sha256(data)
    known = index.get(digest, {}).get(logical)
    if known is not None and not (archive_dir / known).is_file():
        index.clear()
        index.update(rebuild_index(archive_dir))
        known = index.get(digest, {}).get(logical)
    if known is not None:
        return archive_dir / known, False
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
        taken = (archive_dir / file_name).exists() or (archive_dir / token / file_name).exists()
        if not taken:
            return archive_dir / file_name
        n += 1
        suffix = f"-{n}"


def _save_index(archive_dir: Path, index: Index) -> None:
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
    if not archive_dir.is_dir():
        return None
    for path in [*archive_dir.glob("*"), *archive_dir.glob("*/*")]:
        match = ARCHIVE_NAME.match(path.name)
        if match is None or match["name"] != logical_name or not path.is_file():
            continue
        base, _, suffix = match["stamp"].partition("-")
        key = (base, int(suffix or 1))
        if best is None or key > best[0]:
            best = (key, path)
    return best[1] if best else None

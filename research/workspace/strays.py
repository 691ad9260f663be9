"""Notice files an agent wrote outside the session's directories during a call.

The agent is told to write only under `.research/{name}/` and `reports/{name}/`. Before and
after each call the working tree is snapshotted (names, mtimes and sizes: a bounded walk, no
file contents), and whatever appeared, changed or vanished elsewhere is reported as a
`stray_files` event plus a warning. Nothing is ever deleted or restored: the files may be
the user's, and the orchestrator cannot tell a stray note from wanted work.

Skipped: the session's own directories (`.research/{name}/`, `reports/{name}/`), those of
any other session a live run holds (its lock names a running process), so sessions running
side by side in one working directory do not accuse each other's agents, and tool caches
that agents legitimately touch (`.git`, `.venv`, `node_modules`, …). Another session that is
not running is watched like any other file: an agent writing into it is reported.
"""

from __future__ import annotations

import os
import stat
import time
from collections import deque
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from research.core.errors import ResearchError
from research.core.hosts import host_id
from research.workspace.events import EventLog
from research.workspace.fsutil import is_real_dir
from research.workspace.lock import read_lock_file, stale_reason
from research.workspace.paths import CALLS_DIR, REPORTS_DIR, RESEARCH_DIR, SessionPaths

IGNORED_DIR_NAMES = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "node_modules",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        ".cache",
    }
)
# Enough for a project checkout; a call in a huge directory (a home directory) stays cheap
# and only reports what the bounded walk can see.
MAX_ENTRIES = 20_000
SHOWN_NAMES = 20


@dataclass(frozen=True)
class Snapshot:
    """What a bounded walk saw: relative POSIX path → (mtime in ns, size)."""

    files: dict[str, tuple[int, int]]
    complete: bool
    """False when the walk stopped at MAX_ENTRIES (files beyond it are unknown)."""


@dataclass(frozen=True)
class Changes:
    """Files created, modified and deleted between two snapshots."""

    created: list[str]
    modified: list[str]
    deleted: list[str]

    def __bool__(self) -> bool:
        return bool(self.created or self.modified or self.deleted)


def owned_by_sessions(relative_dir: str) -> bool:
    """Directories the orchestrator and its agents may write: any session's, not templates."""
    parts = relative_dir.split("/")
    if parts[0] == REPORTS_DIR:
        return True
    return parts[0] == RESEARCH_DIR and len(parts) > 1 and parts[1] != "templates"


def skipped_dirs(paths: SessionPaths) -> frozenset[str]:
    """What a call of this session does not watch: its own directories and those of every
    other session a live run holds (their own orchestrators write there all the time)."""
    skip = {
        paths.relative(paths.session_dir),
        paths.relative(paths.report_dir),
        f"{RESEARCH_DIR}/{CALLS_DIR}",  # the agent calls' scratch areas: written by design
    }
    if not is_real_dir(paths.research_root):
        return frozenset(skip)
    try:
        with os.scandir(paths.research_root) as scan:
            names = [e.name for e in scan if e.is_dir(follow_symlinks=False)]
    except OSError:
        names = []
    for name in names:
        if name not in ("templates", paths.name) and _held_by_a_live_run(
            paths.research_root / name / "research.lock.json"
        ):
            skip |= {f"{RESEARCH_DIR}/{name}", f"{REPORTS_DIR}/{name}"}
    return frozenset(skip)


def _held_by_a_live_run(lock_file: Path) -> bool:
    """Whether a lock file holds a record whose holder looks alive (lock.stale_reason).
    Read like any file an agent may have touched: no link followed, no FIFO opened."""
    try:
        info = read_lock_file(lock_file).info
    except ResearchError:  # cannot be read (no permission): not a live run's
        return False
    return info is not None and stale_reason(info, now=time.time(), host=host_id()) is None


def own_output_files() -> frozenset[tuple[int, int]]:
    """(device, inode) of the regular files this process's stdout and stderr go to: a user
    who redirects the output into the working directory sees it grow during every call."""
    found = set()
    for fd in (1, 2):
        try:
            info = os.fstat(fd)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            found.add((info.st_dev, info.st_ino))
    return frozenset(found)


def snapshot(
    root: Path,
    *,
    limit: int = MAX_ENTRIES,
    skip: Collection[str] | None = None,
    ignore: Collection[tuple[int, int]] = (),
) -> Snapshot:
    """Names, mtimes and sizes of the files under `root`, breadth-first, at most `limit` entries.

    Symbolic links are recorded, never followed; unreadable directories are skipped. `skip`
    names the directories (relative POSIX paths) not walked; by default every session's.
    `ignore` names files by (device, inode) that are left out (our own output).
    """
    files: dict[str, tuple[int, int]] = {}
    queue: deque[tuple[Path, str]] = deque([(root, "")])
    seen = 0
    while queue:
        directory, prefix = queue.popleft()
        try:
            with os.scandir(directory) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > limit:
                return Snapshot(files, complete=False)
            relative = prefix + entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    skipped = owned_by_sessions(relative) if skip is None else relative in skip
                    if entry.name not in IGNORED_DIR_NAMES and not skipped:
                        queue.append((Path(entry.path), relative + "/"))
                    continue
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if (info.st_dev, info.st_ino) in ignore:
                continue
            files[relative] = (info.st_mtime_ns, info.st_size)
    return Snapshot(files, complete=True)


def changes(before: Snapshot, after: Snapshot) -> Changes:
    """What changed between two snapshots.

    A truncated walk cannot tell a new file from one it did not reach before, or a deleted
    file from one it did not reach after, so those lists stay empty when the walk was cut.
    """
    created = sorted(set(after.files) - set(before.files)) if before.complete else []
    deleted = sorted(set(before.files) - set(after.files)) if after.complete else []
    modified = sorted(
        path
        for path, seen in after.files.items()
        if path in before.files and before.files[path] != seen
    )
    return Changes(created, modified, deleted)


@contextmanager
def watch_for_stray_files(paths: SessionPaths, events: EventLog, phase: str) -> Iterator[None]:
    """Report files changed outside the session's directories while the block ran, other
    sessions' included (see `skipped_dirs`).

    Nothing is reported when the block raises (an interrupted call is not judged).
    """
    skip, ours = skipped_dirs(paths), own_output_files()
    before = snapshot(paths.root, skip=skip, ignore=ours)
    yield
    found = changes(before, snapshot(paths.root, skip=skip, ignore=ours))
    if not found:
        return
    events.emit(
        "stray_files",
        phase=phase,
        created=found.created[:SHOWN_NAMES],
        modified=found.modified[:SHOWN_NAMES],
        deleted=found.deleted[:SHOWN_NAMES],
        count=len(found.created) + len(found.modified) + len(found.deleted),
    )
    events.emit("warning", message=describe(found, paths, phase))


def describe(found: Changes, paths: SessionPaths, phase: str) -> str:
    """One warning line naming the stray files (a few of them) and saying they were kept."""
    parts = []
    for label, names in (
        ("created", found.created),
        ("modified", found.modified),
        ("deleted", found.deleted),
    ):
        if names:
            shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
            parts.append(f"{label} {shown}")
    own = (paths.relative(paths.session_dir), paths.relative(paths.report_dir))
    others: set[str] = set()
    for name in (*found.created, *found.modified, *found.deleted):
        steps = name.split("/")  # a file inside .research/{other}/ or reports/{other}/
        if len(steps) > 2 and steps[0] in (RESEARCH_DIR, REPORTS_DIR) and steps[1] != "templates":
            others.add(f"{steps[0]}/{steps[1]}")
    others -= set(own)
    shown = ", ".join(f"{other}/" for other in sorted(others))
    sessions = f", among them another session's ({shown})" if others else ""
    return (
        f"during the {phase} phase the agent changed files outside "
        f"{own[0]}/ and {own[1]}/{sessions}: "
        f"{'; '.join(parts)} (left as they are)"
    )

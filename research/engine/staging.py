"""Each phase's agent calls work in a scratch area of their own, never in the session.

Why: a run that was paused past another run's takeover (SIGSTOP, a stopped VM, a stall)
and an agent that outlived its run must not write into a session another run now owns.
The orchestrator's own writes are fenced (workspace/fencing.py); an agent's cannot be,
so it is never told to write into the session at all. Instead, for each phase run:

- a scratch copy of what the phase may read is made under `.research/.calls/{name}/`
  (the session's files, its topics' notes and verdicts, the report; the latest call logs
  for a RECOVERY), laid out like the session, with the report in `report/`;
- the prompt names the copies (`StagedPaths`): the agent runs in the working directory as
  before (the user's files, OpenCode's project) and reads and writes the paths it is told;
- before each call the copy is made afresh: a copy an earlier call left is kept only when
  it is still a regular file of one name holding the session's bytes (read through no
  link; a hard link is not kept), and
  everything else there (links, FIFOs, directories, files an agent made) is removed, never
  followed; after the call, the files the phase may write (`PhaseSpec.may_write`) that the
  agent changed are taken into the session, each write fenced by the lock's generation.
  Whatever else the agent did there is dropped, and a link, FIFO or directory it left is
  reported, never followed;
- when the phase ends its scratch area waits for the next phase of the run (writing the
  copies again costs more than reading them), which takes it under a new name (a process
  the ended phase left behind writes by the old one in vain); it is removed at the run's
  end (`close_areas`); a new lock holder removes the session's old ones (`discard_stale`):
  what a stale run's or an orphaned agent's writes land in is never read.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from research.engine.context import RunContext
from research.engine.specs import SPECS
from research.model.artifacts import NOT_REGULAR, read_regular
from research.model.state import Phase
from research.workspace.fsutil import (
    TEMP_NAME,
    atomic_write_bytes,
    guard_tree,
    place_special,
    read_descriptor,
    remove_if_holds,
    rename_entry,
    unguard_tree,
    what_is,
)
from research.workspace.guard import Repair, report_repairs
from research.workspace.paths import SessionPaths

REPORT_DIR = "report"
"""Where the report's copy is, inside a scratch area."""
SEEDED_DIRS = ("progress", "review")
"""The session's subdirectories whose files are copied (the topics' notes and verdicts)."""
NOT_COPIED = frozenset(
    {
        "research.lock.json",
        "research.lock.json.lock",
        "state.prev.json",
        "decisions.jsonl",
        "report.html",
    }
)
RECOVERY_ONLY = frozenset({"events.jsonl"})
"""Copied for a RECOVERY call only (its prompt asks it to read the log)."""
NEVER_TAKEN = frozenset({"events.jsonl", "decisions.jsonl"})
"""Append-only logs the orchestrator writes during the call: given to read, never taken."""
STAMP_TRUSTED_AFTER_NS = 100_000_000
"""An unchanged (inode, mtime) means untouched only for a copy older than this (file times
tick in milliseconds); a younger one is compared byte for byte."""
RECOVERY_LOGS = 3
"""The latest call logs a RECOVERY call is given to read."""

_NUMBERS = itertools.count(1)


@dataclass(frozen=True)
class StagedPaths(SessionPaths):
    """A session's paths with the session and report directories inside a scratch area:
    what a prompt names, relative to the working directory the agent runs in."""

    stage: Path = field(default_factory=Path)

    @property
    def session_dir(self) -> Path:
        return self.stage

    @property
    def report_dir(self) -> Path:
        return self.stage / REPORT_DIR


def _copy_into(path: Path, data: bytes) -> None:
    """Write a copy into a scratch area made a moment ago (no agent has run in it yet)."""
    try:
        fd = os.open(path, _NEW_FILE, 0o644)
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, _NEW_FILE, 0o644)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def _recent(info: os.stat_result) -> bool:
    """A copy too young for its timestamp to show a write in the same clock tick."""
    return time.time_ns() - info.st_mtime_ns < STAMP_TRUSTED_AFTER_NS


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info.st_ino, info.st_mtime_ns


def discard_stale(paths: SessionPaths) -> None:
    """Remove every scratch area of the session (call it holding the lock): those of a run
    that was taken over or killed, and whatever its agents still wrote there."""
    _remove(paths.calls_dir)
    with contextlib.suppress(OSError):
        paths.calls_dir.parent.rmdir()  # .calls itself, when no other session has any


def close_areas(ctx: RunContext) -> None:
    """At the run's end: remove the scratch areas its phases left for the next one."""
    with ctx.mutex:
        areas, ctx.idle_areas[:] = list(ctx.idle_areas), []
    for root, _ in areas:
        unguard_tree(root)
        _remove(root)
    for parent in (ctx.paths.calls_dir, ctx.paths.calls_dir.parent):  # .calls/<name>, .calls
        try:
            parent.rmdir()  # only when empty: another run's or session's areas keep them
        except OSError:
            break


_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _prune(dir_fd: int, here: Path, copies: dict[Path, bytes], places: set[Path]) -> set[Path]:
    """Clear the directory `dir_fd` (at `here`) of an earlier call's leftovers, through
    descriptors (a link is never followed): keep the directories on the way to `copies`
    and the regular files of one name that still hold their copy's bytes; the kept files'
    paths."""
    kept: set[Path] = set()
    with os.scandir(dir_fd) as scan:
        entries = [
            (e.name, e.is_dir(follow_symlinks=False), e.is_file(follow_symlinks=False))
            for e in scan
        ]
    for name, is_dir, is_file in entries:
        path = here / name
        if is_dir and path in places:
            fd = os.open(name, _DIRECTORY, dir_fd=dir_fd)
            try:
                kept |= _prune(fd, path, copies, places)
            finally:
                os.close(fd)
        elif is_dir:
            shutil.rmtree(name, dir_fd=dir_fd)  # never follows a link
        elif is_file and path in copies and _read_at(dir_fd, name) == copies[path]:
            kept.add(path)
        else:
            os.unlink(name, dir_fd=dir_fd)
    return kept


def _read_at(dir_fd: int, name: str) -> bytes | None:
    """The bytes of the regular file `name` in `dir_fd` when it has no other name; None for
    anything else (a hard link an agent made would tie the copy to another file, so that
    the next call's write into it changes that one too)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    fd = os.open(name, flags, dir_fd=dir_fd)
    try:
        linked = os.fstat(fd).st_nlink != 1
    except OSError:
        linked = True
    if linked:
        os.close(fd)
        return None
    return read_descriptor(fd)


def _moved(area: tuple[Path, tuple[int, int]], root: Path) -> tuple[int, int] | None:
    """An ended phase's `area` (its path and identity) renamed to `root`, so that what a
    process that phase left behind writes by the old name reaches nothing the run reads;
    its identity, or None when it could not be moved (it is removed)."""
    old, made = area
    unguard_tree(old)
    try:
        os.rename(old, root)  # a link in its place is moved, never followed
    except OSError:
        _remove(old)
        return None
    guard_tree(root)  # what is there now: _prepare checks it is `made` before any use
    return made


def _remove(directory: Path) -> None:
    # rmtree never follows a link inside the tree; a link in place of the tree is unlinked.
    if os.path.islink(directory):
        os.unlink(directory)
        return
    shutil.rmtree(directory, ignore_errors=True)
    if os.path.lexists(directory):  # a directory an agent made that nobody may enter
        _open_up(directory)
        shutil.rmtree(directory, ignore_errors=True)


def _open_up(directory: Path) -> None:
    """Make every directory of the tree ours to enter again (an agent may have left one of
    mode 000 with files in it, which rmtree cannot empty), never following a link."""
    with contextlib.suppress(OSError):
        if stat.S_ISDIR(os.lstat(directory).st_mode):
            os.chmod(directory, 0o700)
    for top, names, _ in os.walk(directory):  # top-down: a directory is opened before entered
        for name in names:
            path = os.path.join(top, name)
            with contextlib.suppress(OSError):
                if stat.S_ISDIR(os.lstat(path).st_mode):
                    os.chmod(path, 0o700)


class Stage:
    """One phase run's scratch area (its calls share it; each starts with a fresh copy)."""

    def __init__(self, ctx: RunContext, phase: Phase) -> None:
        self.ctx = ctx
        self.phase = phase
        with ctx.mutex:
            idle = ctx.idle_areas.pop() if ctx.idle_areas else None
        generation = ctx.lock.generation if ctx.lock is not None else 0
        self.root = ctx.paths.calls_dir / f"{generation}.{os.getpid()}.{next(_NUMBERS)}"
        self.made = None if idle is None else _moved(idle, self.root)
        """The identity of the area's directory as made here (or by an earlier phase)."""
        self.paths = StagedPaths(ctx.paths.root, ctx.paths.name, stage=self.root)
        self._prefixes = (  # staged() is hot: the session's and the report's, as strings
            os.fspath(ctx.paths.report_dir) + os.sep,
            os.fspath(ctx.paths.session_dir) + os.sep,
            os.fspath(self.root),
        )
        self.seeded: dict[Path, bytes] = {}
        """Session path -> the bytes copied for the call."""
        self.stamps: dict[Path, tuple[int, int] | None] = {}
        """Session path -> its copy's (inode, mtime): a file written again with the same
        bytes was still written (a phase's "were the notes updated" check needs it)."""
        self.fresh_for: Phase | None = None
        """The phase the copy was made for, until a call used it."""

    def ready(self, phase: Phase) -> None:
        """Before a call of `phase`: a fresh copy, unless one was just made for it."""
        if self.fresh_for is not phase:
            self.fresh(phase)

    # --- the copy --------------------------------------------------------------------------

    def fresh(self, phase: Phase | None = None) -> None:
        """Make the scratch area a copy of the session as it is now (for `phase`'s call)."""
        self.seeded, self.stamps = {}, {}
        self.fresh_for = phase or self.phase
        session = self.ctx.paths.session_dir
        with self.ctx.mutex:
            recovery = (phase or self.phase) is Phase.RECOVERY
            sources = [p for p in self._files(session) if recovery or p.name not in RECOVERY_ONLY]
            for name in SEEDED_DIRS:
                sources += self._files(session / name)
            sources += self._files(self.ctx.paths.report_dir)
            if recovery:
                sources += self._files(self.ctx.paths.logs_dir)[-RECOVERY_LOGS:]
            for path in sources:
                data = read_regular(path)
                if data is not None and data != NOT_REGULAR:
                    self.seeded[path] = data
            copies = {self.staged(path): data for path, data in self.seeded.items()}
            kept = self._prepare(copies)
            for path in self.seeded:
                staged = self.staged(path)
                if staged not in kept:
                    _copy_into(staged, copies[staged])
                self.stamps[path] = _stamp(staged)

    def _prepare(self, copies: dict[Path, bytes]) -> set[Path]:
        """The area ready for `copies` (scratch path -> bytes): made when it is not there (or
        not the directory made for it), else cleared of all but the copies that still hold
        their bytes; those are returned."""
        try:
            info = os.lstat(self.root)
            ours = stat.S_ISDIR(info.st_mode) and (info.st_dev, info.st_ino) == self.made
        except OSError:
            ours = False
        if ours:
            places = {parent for place in copies for parent in place.parents}
            try:
                fd = os.open(self.root, _DIRECTORY)
                try:
                    return _prune(fd, self.root, copies, places)
                finally:
                    os.close(fd)
            except OSError:
                pass  # changed under us: made again
        self._remove_area()
        self.root.mkdir(parents=True)
        guard_tree(self.root)
        info = os.lstat(self.root)
        self.made = (info.st_dev, info.st_ino)
        return set()

    @staticmethod
    def _files(directory: Path) -> list[Path]:
        """The regular files directly in `directory`, by name (never through a link)."""
        try:
            with os.scandir(directory) as scan:
                names = sorted(
                    e.name for e in scan if e.is_file(follow_symlinks=False) and e.name[0] != "."
                )
        except OSError:
            return []
        return [directory / name for name in names if name not in NOT_COPIED]

    def staged(self, path: Path) -> Path:
        """Where the session's `path` is in the scratch area (strings: this is hot)."""
        name = os.fspath(path)
        report, session, root = self._prefixes
        if name.startswith(report):
            return Path(root, REPORT_DIR, name[len(report) :])
        if not name.startswith(session):
            raise ValueError(f"{path} is not in the session")
        return Path(root, name[len(session) :])

    def session_path(self, staged: Path) -> Path:
        """The session's path for `staged`, a path in the scratch area."""
        relative = staged.relative_to(self.root)
        if relative.parts and relative.parts[0] == REPORT_DIR:
            return self.ctx.paths.report_dir.joinpath(*relative.parts[1:])
        return self.ctx.paths.session_dir / relative

    def discard(self) -> None:
        """The phase has ended: its area waits for the run's next phase (checked before any
        copy in it is kept), or is removed with the others at the run's end."""
        if self.made is not None:
            with self.ctx.mutex:
                self.ctx.idle_areas.append((self.root, self.made))
            self.made = None

    def _remove_area(self) -> None:
        unguard_tree(self.root)
        _remove(self.root)

    # --- taking what the agent wrote ----------------------------------------------------------

    def take(self, phase: Phase, topic: str | None) -> None:
        """After a call of `phase`, before the workspace checks: apply to the session what
        the agent changed in the scratch area, as if it had worked there itself (each write
        fenced), so that the checks that follow (workspace/guard.py, the state, the plan,
        the topics' files, the completion marker) judge it as always. A link or FIFO at a
        file's place is made again there, never followed, for the guard to remove; one
        elsewhere is only reported. A file someone else changed in the session meanwhile
        keeps their version; the append-only logs are never taken."""
        ctx = self.ctx
        self.fresh_for = None
        with ctx.mutex:
            if ctx.guard.frozen:
                return
            files: dict[Path, bytes | None] = dict.fromkeys(
                SPECS[phase].may_write(ctx.paths, topic, ctx.mode)
            )
            files.update(self.seeded)
            repairs, created = self._walk({self.staged(path) for path in files})
            dropped = [self._take(path, before) for path, before in files.items()]
            for staged in created:
                self._take_new(staged)
            report_repairs(ctx.events, phase.value, repairs)
            self._report_dropped(phase, [name for name in dropped if name])

    def _take(self, target: Path, before: bytes | None) -> str | None:
        """Apply the agent's change to one file of the session; its name when not taken."""
        source = self.staged(target)
        try:
            info: os.stat_result | None = os.lstat(source)
        except OSError:
            info = None
        regular = info is not None and stat.S_ISREG(info.st_mode)
        if info is None and before is None:
            return None
        now = None
        if regular and info is not None:
            stamp = (info.st_ino, info.st_mtime_ns)
            if stamp == self.stamps.get(target) and not _recent(info):
                return None  # untouched (an agent writing into the session itself: judged there)
            now = read_regular(source)
            if now == before and stamp == self.stamps.get(target):
                return None
        if target.name in NEVER_TAKEN or not self._unchanged(target, before):
            return self.ctx.paths.relative(target)
        if regular:
            if now is not None and now != NOT_REGULAR:
                atomic_write_bytes(target, now, durable=False)  # as the agent left it
            return None
        if before is not None:
            remove_if_holds(target, before)  # deleted, or replaced by something else
        if info is None:
            return None
        if stat.S_ISDIR(info.st_mode):
            rename_entry(source, target)  # where the file belongs: the guard moves it aside
        elif stat.S_ISLNK(info.st_mode):
            place_special(target, os.readlink(source))
        elif stat.S_ISFIFO(info.st_mode):
            place_special(target, None)
        return None

    def _unchanged(self, target: Path, before: bytes | None) -> bool:
        """Whether the session's `target` is still what was copied (nothing: not there)."""
        if before is None:
            return not os.path.lexists(target)
        return read_regular(target) == before

    def _take_new(self, staged: Path) -> None:
        target = self.session_path(staged)
        data = read_regular(staged)
        if data is None or data == NOT_REGULAR or os.path.lexists(target):
            return
        atomic_write_bytes(target, data, durable=False)

    def _walk(self, file_places: set[Path]) -> tuple[list[Repair], list[Path]]:
        """What the agent left in the scratch area besides the files: links, FIFOs, sockets
        and devices elsewhere than at a file's place (reported at the session's path, never
        followed), and the regular files it made there."""
        found: list[Repair] = []
        created: list[Path] = []
        for top, dirs, files in os.walk(self.root):
            here = Path(top)
            for name in [*dirs, *files]:
                path = here / name
                if path in file_places:
                    continue  # taken (or made again) at its place in the session
                try:
                    info = os.lstat(path)
                except OSError:
                    continue
                if stat.S_ISREG(info.st_mode):
                    if not TEMP_NAME.fullmatch(name):
                        created.append(path)
                    continue
                if stat.S_ISDIR(info.st_mode):
                    continue
                found.append(
                    Repair(
                        self.ctx.paths.relative(self.session_path(path)),
                        what_is(path, info),
                        "left in the call's scratch area, never followed; not taken into "
                        "the session",
                    )
                )
            dirs[:] = [
                d for d in dirs if not os.path.islink(here / d) and here / d not in file_places
            ]
        return found, created

    def _report_dropped(self, phase: Phase, names: list[str]) -> None:
        if names:
            self.ctx.events.emit(
                "warning",
                message=f"during the {phase.value} call the agent changed "
                f"{', '.join(names)}, which the orchestrator writes; the session keeps its own",
            )

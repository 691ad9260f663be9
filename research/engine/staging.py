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
  link; a hard link is not kept), and everything else there is removed, never followed
  (engine/pruning.py);
- after the call, what the agent changed there is taken into the session, each write
  fenced by the lock's generation (engine/intake.py);
- when the phase ends its scratch area waits for the next phase of the run, which takes it
  under a new name when no process still holds anything inside it (engine/areas.py).
"""

from __future__ import annotations

import itertools
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from research.engine.areas import remove_tree, reuse
from research.engine.context import RunContext
from research.engine.intake import Intake
from research.engine.pruning import DIRECTORY, prune
from research.model.artifacts import NOT_REGULAR, read_regular
from research.model.state import Phase
from research.workspace.fsutil import guard_tree, unguard_tree
from research.workspace.holders import boot_clock
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


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info.st_ino, info.st_mtime_ns


class Stage:
    """One phase run's scratch area (its calls share it; each starts with a fresh copy)."""

    def __init__(self, ctx: RunContext, phase: Phase) -> None:
        self.ctx = ctx
        self.phase = phase
        with ctx.mutex:
            idle = ctx.idle_areas.pop() if ctx.idle_areas else None
        generation = ctx.lock.generation if ctx.lock is not None else 0
        self.root = ctx.paths.calls_dir / f"{generation}.{os.getpid()}.{next(_NUMBERS)}"
        area = None if idle is None else reuse(ctx, idle, self.root, phase)
        self.made: tuple[int, int] | None = None if area is None else area[1]
        """The identity of the area's directory as made here (or by an earlier phase)."""
        self.born = 0.0 if area is None else area[2]
        """When the area was made (seconds since boot)."""
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
                fd = os.open(self.root, DIRECTORY)
                try:
                    return prune(fd, self.root, copies, places)
                finally:
                    os.close(fd)
            except OSError:
                pass  # changed under us: made again
        self._remove_area()
        self.born = boot_clock()  # before it exists: whoever is in it started after this
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

    def take(self, phase: Phase, topic: str | None) -> None:
        """After a call of `phase`: what the agent changed here, into the session
        (engine/intake.py)."""
        self.fresh_for = None
        Intake(self).take(phase, topic)

    def discard(self) -> None:
        """The phase has ended: its area waits for the run's next phase (checked before any
        copy in it is kept), or is removed with the others at the run's end."""
        if self.made is not None:
            with self.ctx.mutex:
                self.ctx.idle_areas.append((self.root, self.made, self.born))
            self.made = None

    def _remove_area(self) -> None:
        unguard_tree(self.root)
        remove_tree(self.root)

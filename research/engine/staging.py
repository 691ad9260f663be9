"""Each agent call works in a scratch area of its own, never in the session.

Why: a run that was paused past another run's takeover (SIGSTOP, a stopped VM, a stall)
and an agent that outlived its run must not write into a session another run now owns.
The orchestrator's own writes are fenced (workspace/fencing.py); an agent's cannot be,
so it is never told to write into the session at all. Instead, for each agent call:

- a scratch area is made under `.research/.calls/{name}/{generation}.{pid}.{number}`, a
  name never used twice, holding a copy of what the phase may read (the session's files,
  its topics' notes and verdicts, the report; the latest call logs for a RECOVERY), laid
  out like the session, with the report in `report/`;
- the prompt names the copies (`StagedPaths`): the agent runs in the working directory as
  before (the user's files, OpenCode's project) and reads and writes the paths it is told;
  a call that resends an earlier call's prompt (a retry, a RECOVERY) has it re-pointed at
  its own area (`repoint`);
- after the call, what the agent changed there is taken into the session, each write
  fenced by the lock's generation (engine/intake.py), and the area is moved aside and
  removed (engine/areas.py): nothing in it is ever given to a later call.

An area is never reused (it once was, by the run's next phase; what that saved, 1-2 ms a
phase, did not pay for proving that no process the earlier call left still wrote there:
BENCHMARKS.md).
"""

from __future__ import annotations

import itertools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from research.engine.areas import retire
from research.engine.context import RunContext
from research.engine.intake import Intake
from research.model.artifacts import NOT_REGULAR, read_regular
from research.model.state import Phase
from research.workspace.fsutil import guard_tree, make_dir_below
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
    """A phase run's scratch areas: one for each of its agent calls, made afresh for it."""

    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx
        self.generation = ctx.lock.generation if ctx.lock is not None else 0
        self.root = self._new_root()
        """The current call's area (not made yet: the first call's prompt may name it)."""
        self.made = False
        """Whether `root` was made (the next call then gets another)."""
        self.earlier: list[str] = []
        """The earlier calls' areas, as a prompt names them (for `repoint`)."""
        self._name()
        self.seeded: dict[Path, bytes] = {}
        """Session path -> the bytes copied for the call."""
        self.stamps: dict[Path, tuple[int, int] | None] = {}
        """Session path -> its copy's (inode, mtime): a file written again with the same
        bytes was still written (a phase's "were the notes updated" check needs it)."""
        self.fresh_for: Phase | None = None
        """The phase the copy was made for, until a call used it."""

    def _new_root(self) -> Path:
        return self.ctx.paths.calls_dir / f"{self.generation}.{os.getpid()}.{next(_NUMBERS)}"

    def _name(self) -> None:
        ctx = self.ctx
        self.paths = StagedPaths(ctx.paths.root, ctx.paths.name, stage=self.root)
        self._prefixes = (  # staged() is hot: the session's and the report's, as strings
            os.fspath(ctx.paths.report_dir) + os.sep,
            os.fspath(ctx.paths.session_dir) + os.sep,
            os.fspath(self.root),
        )

    def ready(self, phase: Phase) -> None:
        """Before a call of `phase`: a fresh area, unless one was just made for it (its
        prompt names it), which this call then uses up."""
        if self.fresh_for is not phase:
            self.fresh(phase)
        self.fresh_for = None

    def repoint(self, text: str) -> str:
        """`text` (a prompt made for an earlier call's area) naming this call's area."""
        for old in self.earlier:
            text = re.sub(re.escape(old) + r"(?![0-9])", self.paths.relative(self.root), text)
        return text

    # --- the copy --------------------------------------------------------------------------

    def fresh(self, phase: Phase) -> None:
        """Make a new scratch area, a copy of the session as it is now (for `phase`'s call);
        the one an earlier call used is moved aside and removed."""
        self._retire()
        self.seeded, self.stamps = {}, {}
        self.fresh_for = phase
        session = self.ctx.paths.session_dir
        with self.ctx.mutex:
            self._make()
            recovery = phase is Phase.RECOVERY
            sources = [p for p in self._files(session) if recovery or p.name not in RECOVERY_ONLY]
            for name in SEEDED_DIRS:
                sources += self._files(session / name)
            sources += self._files(self.ctx.paths.report_dir)
            if recovery:
                sources += self._files(self.ctx.paths.logs_dir)[-RECOVERY_LOGS:]
            for path in sources:
                data = read_regular(path)
                if data is None or data == NOT_REGULAR:
                    continue
                staged = self.staged(path)
                _copy_into(staged, data)
                self.seeded[path] = data
                self.stamps[path] = _stamp(staged)

    def _make(self) -> None:
        """Make the area, under another new name when something is there already (an
        agent can guess the next name and make it first: what it put there is never
        used)."""
        research = self.ctx.paths.research_root
        while True:
            try:  # never through a link an agent put in place of .calls or .calls/<name>
                make_dir_below(research, *self.root.relative_to(research).parts)
                break
            except FileExistsError:
                self.root = self._new_root()
                self._name()
        self.made = True
        guard_tree(self.root)

    def _retire(self) -> None:
        """The area made last moved aside and removed (engine/areas.py); the next call's
        gets a new name."""
        if self.made:
            self.earlier.append(self.paths.relative(self.root))
            self.made = False
            retire(self.root)
            self.root = self._new_root()
            self._name()

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
        (engine/intake.py); then the area is done with."""
        Intake(self).take(phase, topic)
        self._retire()

    def discard(self) -> None:
        """The phase has ended: its last area is moved aside and removed, and the session's
        directory of areas too when no other phase has one."""
        self._retire()
        with self.ctx.mutex:  # another phase's `_make` may be making its area there
            for parent in (self.root.parent, self.root.parent.parent):  # .calls/<name>, .calls
                try:
                    parent.rmdir()  # only when empty: another phase's area keeps them
                except OSError:
                    break

"""Taking into the session what an agent changed in its call's scratch area (engine/
staging.py): after the call, the files the phase may write (`PhaseSpec.may_write`) and the
copies it was given that the agent changed are applied to the session, each write fenced
by the lock's generation, as if the agent had worked there itself; the regular files it
made there are taken when the session has none of that name. Whatever else it did there
is dropped, and a link, FIFO or directory it left is reported, never followed. A file
someone else changed in the session meanwhile keeps their version; the append-only logs
are never taken."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path
from typing import TYPE_CHECKING

from research.engine.specs import SPECS
from research.model.artifacts import NOT_REGULAR, read_regular
from research.model.state import Phase
from research.workspace.fsutil import (
    TEMP_NAME,
    atomic_write_bytes,
    place_special,
    remove_if_holds,
    rename_entry,
    what_is,
)
from research.workspace.guard import Repair, report_repairs

if TYPE_CHECKING:
    from research.engine.staging import Stage

NEVER_TAKEN = frozenset({"events.jsonl", "decisions.jsonl"})
"""Append-only logs the orchestrator writes during the call: given to read, never taken."""
STAMP_TRUSTED_AFTER_NS = 100_000_000
"""An unchanged (inode, mtime) means untouched only for a copy older than this (file times
tick in milliseconds); a younger one is compared byte for byte."""


def _recent(info: os.stat_result) -> bool:
    """A copy too young for its timestamp to show a write in the same clock tick."""
    return time.time_ns() - info.st_mtime_ns < STAMP_TRUSTED_AFTER_NS


class Intake:
    """What one call of a stage left, applied to the session."""

    def __init__(self, stage: Stage) -> None:
        self.stage = stage
        self.ctx = stage.ctx

    def take(self, phase: Phase, topic: str | None) -> None:
        """After a call of `phase`, before the workspace checks: apply to the session what
        the agent changed in the scratch area (each write fenced), so that the checks that
        follow (workspace/guard.py, the state, the plan, the topics' files, the completion
        marker) judge it as always. A link or FIFO at a file's place is made again there,
        never followed, for the guard to remove; one elsewhere is only reported."""
        ctx, stage = self.ctx, self.stage
        with ctx.mutex:
            if ctx.guard.frozen:
                return
            files: dict[Path, bytes | None] = dict.fromkeys(
                SPECS[phase].may_write(ctx.paths, topic, ctx.mode)
            )
            files.update(stage.seeded)
            repairs, created = self._walk({stage.staged(path) for path in files})
            dropped = [self._take(path, before) for path, before in files.items()]
            for staged in created:
                self._take_new(staged)
            report_repairs(ctx.events, phase.value, repairs)
            self._report_dropped(phase, [name for name in dropped if name])

    def _take(self, target: Path, before: bytes | None) -> str | None:
        """Apply the agent's change to one file of the session; its name when not taken."""
        source = self.stage.staged(target)
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
            if stamp == self.stage.stamps.get(target) and not _recent(info):
                return None  # untouched (an agent writing into the session itself: judged there)
            now = read_regular(source)
            if now == before and stamp == self.stage.stamps.get(target):
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

    @staticmethod
    def _unchanged(target: Path, before: bytes | None) -> bool:
        """Whether the session's `target` is still what was copied (nothing: not there)."""
        if before is None:
            return not os.path.lexists(target)
        return read_regular(target) == before

    def _take_new(self, staged: Path) -> None:
        target = self.stage.session_path(staged)
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
        for top, dirs, files in os.walk(self.stage.root):
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
                        self.ctx.paths.relative(self.stage.session_path(path)),
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

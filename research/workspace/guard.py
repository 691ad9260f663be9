"""The session and report directories as hostile ground.

The agent reads arbitrary web pages, so it can be prompt-injected: everything it leaves in
`.research/{name}/` and `reports/{name}/` is untrusted. The orchestrator never follows a
symbolic link there and never opens a file there that is not a regular one (reads go
through `fsutil.read_regular`, writes replace by rename). After every agent call (and once
when a run starts) `WorkspaceGuard.check` makes the two directories safe again:

- the session and report directories must still be the ones the run started with (device
  and inode, taken with lstat at the start). A session directory that is now a link, or
  another directory, stops the run at once (exit 1) and nothing more is written into the
  session: no state, no event, no lock release. A report directory that is now a link is
  unlinked and made again, and the run stops too; one simply deleted is made again.
- the orchestrator's own directories (progress/, archive/, logs/, sources/, review/): a
  link, FIFO or file in their place is removed (a link is unlinked, never followed; a
  regular file is moved aside) and the real directory made again.
- a directory where one of the orchestrator's files belongs (state.json, the plan, a
  verdict, a progress file, the report, …) is moved aside, whole, into
  `archive/moved-aside/`: it is the agent's content, never deleted.
- every symbolic link, FIFO, socket or device anywhere in the two directories is unlinked
  (unlinking never follows).
- files the phase could not write and that are gone or were replaced (the report during a
  review, the progress index) are put back as they were before the call.

Each repair is a `workspace_repair` event plus one warning line. Known limit: the checks
run between calls, so in parallel mode another topic's agent may swap something while the
orchestrator writes; every write is made in a descriptor of the real directory, reached
from the session directory without following a link (fsutil), and every read refuses
links and FIFOs, so such a race can fail a write but never write through a link.
"""

from __future__ import annotations

import os
import stat
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from research.core.errors import RunFailed
from research.workspace.archive import MOVED_ASIDE
from research.workspace.events import EventLog
from research.workspace.fsutil import (
    NOT_REGULAR,
    TEMP_NAME,
    atomic_write_bytes,
    guard_tree,
    read_regular,
    rename_entry,
    take_unlinked,
    unlink_entry,
    what_is,
)
from research.workspace.paths import SessionPaths

OWN_DIRS = ("archive", "progress", "logs", "sources", "review")
"""The session's subdirectories the orchestrator reads or writes (archive first: what is
moved aside goes there)."""
FILE_SUFFIXES = (".md", ".json", ".jsonl", ".txt", ".log", ".lock")
"""Names with these endings are files the orchestrator or the agent write: a directory
under such a name is moved aside."""
MAX_WALK = 100_000
"""Entries a sweep looks at, at most (an agent could make a huge tree)."""


class WorkspaceTampered(RunFailed):
    """The agent swapped the session or report directory: the run stops (exit 1)."""

    def __init__(self, message: str, *, remade: tuple[int, int] | None = None) -> None:
        super().__init__(message)
        self.remade = remade
        """The session directory the guard made again (device, inode) after the agent
        deleted it, for the state to be saved there; None when nothing may be written."""


Identity = tuple[int, int]


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


def refuse_linked_dirs(paths: SessionPaths) -> None:
    """Refuse (exit 1) a run whose session or report directory is a symbolic link or not a
    directory: nothing is read or written through it. Checked before anything is read."""
    for directory in (paths.session_dir, paths.report_dir):
        info = _lstat(directory)
        if info is None or stat.S_ISDIR(info.st_mode):
            continue
        raise RunFailed(
            f"{paths.relative(directory)} is {what_is(directory, info)}, not a directory of "
            "its own; nothing was read or written through it: put the directory back in "
            "its place (or remove what is there) and run again"
        )


def remove_temp_files(paths: SessionPaths) -> list[str]:
    """Remove the temporary files of atomic writes a killed run left behind (regular files
    named like `.state.json.k3j2h1g0.tmp`, and nothing else) in the session and report
    directories; returns their relative paths. Call it with the session lock held."""
    removed = []
    for entry in _walk((paths.session_dir, paths.report_dir)):
        if entry.is_file(follow_symlinks=False) and TEMP_NAME.fullmatch(entry.name):
            try:
                unlink_entry(Path(entry.path))
            except OSError:
                continue
            removed.append(paths.relative(Path(entry.path)))
    return removed


def _walk(tops: Iterable[Path]) -> Iterator[os.DirEntry[str]]:
    """Every entry under `tops` (not the tops themselves), breadth-first, never following a
    link, skipping archive/moved-aside (the agent's content, kept as it is). Cheap: one
    scandir per directory, no stat of a regular file."""
    queue = deque(str(top) for top in tops if _is_dir(_lstat(top)))
    seen = 0
    while queue:
        directory = queue.popleft()
        try:
            with os.scandir(directory) as scan:
                entries = list(scan)
        except OSError:
            continue
        seen += len(entries)
        if seen > MAX_WALK:
            return
        aside = os.path.basename(directory) == "archive"
        for entry in entries:
            yield entry
            try:
                descend = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if descend and not (aside and entry.name == MOVED_ASIDE):
                queue.append(entry.path)


def _is_dir(info: os.stat_result | None) -> bool:
    return info is not None and stat.S_ISDIR(info.st_mode)


@dataclass
class Kept:
    """Files a call may not lose, as they were before it (see `WorkspaceGuard.keep`)."""

    files: dict[Path, bytes] = field(default_factory=dict)
    may_write: frozenset[Path] = frozenset()


@dataclass
class Repair:
    path: str
    found: str
    action: str


class WorkspaceGuard:
    """Checks and repairs the session and report directories after each agent call."""

    def __init__(
        self, paths: SessionPaths, events: EventLog, spare: Callable[[Path], bool] | None = None
    ) -> None:
        self.paths = paths
        self.events = events
        self.spare = spare
        """Says which links or FIFOs the sweep leaves to someone who can do better (in
        parallel mode the topic file guard puts a topic's notes back as they were)."""
        self.frozen = False
        """True once the session directory was found swapped: nothing more is written."""
        self.identities: dict[Path, Identity | None] = {}
        for place in self.places():
            info = _lstat(place)
            if info is not None and (_is_dir(info) or self._is_parent(place)):
                self._record(place, info)

    def _record(self, place: Path, info: os.stat_result) -> None:
        """Fix `place`'s identity for the run; no write goes through a link below it now."""
        self.identities[place] = (info.st_dev, info.st_ino)
        if place in (self.paths.session_dir, self.paths.report_dir):
            guard_tree(place)

    def _is_parent(self, place: Path) -> bool:
        """.research/ and reports/: the user may have made them links; the run keeps them."""
        return place in (self.paths.research_root, self.paths.root / "reports")

    def places(self) -> tuple[Path, ...]:
        """The directories whose identity is fixed for the run: the session's first."""
        paths = self.paths
        return (paths.research_root, paths.session_dir, paths.root / "reports", paths.report_dir)

    # --- before and after a call ----------------------------------------------------------

    def keep(self, may_write: Iterable[Path]) -> Kept:
        """What to put back after the call if the agent removes or replaces it: the report
        and the progress index as they are now (the state has its own saved copy)."""
        kept = Kept(may_write=frozenset(may_write))
        for path in (self.paths.report_file, self.paths.progress_index):
            data = read_regular(path)
            if data is not None and data != NOT_REGULAR:
                kept.files[path] = data
        return kept

    def check(self, phase: str | None, kept: Kept | None = None) -> list[Repair]:
        """Make the session and report directories safe after a call of `phase` (None: at
        the start of a run). Raises WorkspaceTampered when the run must stop."""
        repairs: list[Repair] = []
        replaced: set[Path] = set()
        for path, what in take_unlinked(self.paths.session_dir, self.paths.report_dir):
            repairs.append(
                Repair(
                    self.paths.relative(path),
                    what,
                    "removed when a file was written there; the directory was made again",
                )
            )
        try:
            self._check_places(phase, repairs)
            self._check_own_dirs(repairs)
            self._sweep(repairs, replaced)
            if kept is not None:
                self._put_back(kept, replaced, repairs)
        finally:
            if not self.frozen:
                self._report(phase, repairs)
        return repairs

    # --- the steps ------------------------------------------------------------------------

    def _check_places(self, phase: str | None, repairs: list[Repair]) -> None:
        paths = self.paths
        during = f" during the {phase} call" if phase else ""
        for place in self.places():
            info = _lstat(place)
            recorded = self.identities.get(place)
            if recorded is None:
                if info is None:
                    continue
                if _is_dir(info) or self._is_parent(place):
                    self._record(place, info)  # made since the start
                    continue
            elif info is not None and (info.st_dev, info.st_ino) == recorded:
                continue  # the very same directory (or the user's own link)
            shown = paths.relative(place)
            found = what_is(place, info)
            if place in (paths.research_root, paths.session_dir):
                if info is None:  # made again, empty, for the state to be saved there
                    paths.session_dir.mkdir(parents=True, exist_ok=True)
                    for again in (paths.research_root, paths.session_dir):
                        if (made := _lstat(again)) is not None:
                            self._record(again, made)
                    raise WorkspaceTampered(
                        f"the agent deleted {shown}{during}; its state is saved again; the "
                        "session can be continued with --resume",
                        remade=self.identities.get(paths.session_dir),
                    )
                self.freeze()
                replaced_with = "another directory" if found == "a directory" else found
                raise WorkspaceTampered(
                    f"the agent replaced {shown} with {replaced_with}{during}; nothing was "
                    "written through it; the session can be continued with --resume after "
                    "restoring it"
                )
            # The report directory (or reports/ itself) is never written through: what is
            # in its place is taken away and the real directory made again.
            if info is None:
                paths.report_dir.mkdir(parents=True, exist_ok=True)
                self._record_report_dirs()
                repairs.append(Repair(shown, "nothing (deleted)", "made again"))
                continue
            if _is_dir(info):
                raise WorkspaceTampered(
                    f"the agent replaced {shown} with another directory{during}; nothing was "
                    "written into it; the session can be continued with --resume"
                )
            action = self._remove(place, info)
            paths.report_dir.mkdir(parents=True, exist_ok=True)
            self._record_report_dirs()
            repairs.append(Repair(shown, found, f"{action}; the directory was made again"))
            raise WorkspaceTampered(
                f"the agent replaced {shown} with {found}{during}; nothing was written "
                f"through it (it was {action.split(' to ', 1)[0]} and the directory made "
                "again); the session can be continued with --resume"
            )

    def _record_report_dirs(self) -> None:
        for place in (self.paths.root / "reports", self.paths.report_dir):
            if (info := _lstat(place)) is not None:
                self._record(place, info)

    def _check_own_dirs(self, repairs: list[Repair]) -> None:
        for name in OWN_DIRS:
            path = self.paths.session_dir / name
            info = _lstat(path)
            if info is None or stat.S_ISDIR(info.st_mode):
                continue
            found = what_is(path, info)
            action = self._remove(path, info)
            path.mkdir(exist_ok=True)
            repairs.append(
                Repair(self.paths.relative(path), found, f"{action}; the directory was made again")
            )

    def _sweep(self, repairs: list[Repair], replaced: set[Path]) -> None:
        """Links, FIFOs, sockets and devices anywhere, and directories where files belong."""
        paths = self.paths
        found: list[Path] = []
        for entry in _walk((paths.session_dir, paths.report_dir)):
            try:
                if entry.is_file(follow_symlinks=False):
                    continue
                if entry.is_dir(follow_symlinks=False) and not (
                    entry.name.endswith(FILE_SUFFIXES) and self._holds_files(Path(entry.path))
                ):
                    continue
            except OSError:
                continue
            found.append(Path(entry.path))
        for path in sorted(found, key=lambda p: (len(p.parts), p)):
            info = _lstat(path)
            if info is None:
                continue  # inside a directory moved aside a moment ago
            if self.spare is not None and not _is_dir(info) and self.spare(path):
                continue
            what = what_is(path, info)
            action = self._remove(path, info)
            replaced.add(path)
            repairs.append(Repair(paths.relative(path), what, action))

    def _holds_files(self, directory: Path) -> bool:
        """Whether `directory` is one where the orchestrator's or the agent's files live
        (the top of the session or report directory, or one of the session's own)."""
        parent = directory.parent
        paths = self.paths
        return parent in (paths.session_dir, paths.report_dir) or (
            parent.parent == paths.session_dir
            and parent.name in OWN_DIRS
            and parent.name != "archive"
        )

    def _put_back(self, kept: Kept, replaced: set[Path], repairs: list[Repair]) -> None:
        for path, data in kept.files.items():
            now = read_regular(path)
            if now is not None and now != NOT_REGULAR:
                continue  # a regular file: the phase's validator judges it
            if path in kept.may_write and path not in replaced:
                continue  # deleted by a phase that writes it: not written, as before
            atomic_write_bytes(path, data)
            repairs.append(
                Repair(
                    self.paths.relative(path),
                    "taken away (see above)" if path in replaced else "deleted",
                    "put back as it was before the call",
                )
            )

    # --- helpers --------------------------------------------------------------------------

    def _remove(self, path: Path, info: os.stat_result) -> str:
        return take_away(self.paths, path, info)

    def move_aside(self, path: Path) -> Path:
        return move_aside(self.paths, path)

    def freeze(self) -> None:
        """The session directory is no longer the run's: write nothing more into it."""
        self.frozen = True
        self.events.log.freeze()

    def _report(self, phase: str | None, repairs: list[Repair]) -> None:
        report_repairs(self.events, phase, repairs)


def report_repairs(events: EventLog, phase: str | None, repairs: list[Repair]) -> None:
    """Each repair a `workspace_repair` event, and one warning line for them all."""
    if not repairs:
        return
    for repair in repairs:
        events.emit(
            "workspace_repair",
            phase=phase,
            path=repair.path,
            found=repair.found,
            action=repair.action,
        )
    shown = "; ".join(f"{r.path} was {r.found}: {r.action}" for r in repairs[:5])
    more = f"; and {len(repairs) - 5} more" if len(repairs) > 5 else ""
    when = f"during the {phase} call" if phase else "before this run"
    events.emit(
        "warning",
        message=f"{when} the agent left what the orchestrator "
        f"never follows or opens: {shown}{more}",
    )


def take_away(paths: SessionPaths, path: Path, info: os.stat_result | None = None) -> str:
    """Take `path` out of the way without following it: a link, FIFO, socket or device is
    unlinked; a directory or regular file is moved aside (kept). Says what was done."""
    info = info or _lstat(path)
    if info is None:
        return "gone"
    if not (stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode)):
        unlink_entry(path)
        return "removed"
    archive_dir = paths.archive_dir
    if path in (archive_dir, archive_dir / MOVED_ASIDE):  # cannot go into itself
        target = _free(path.with_name(path.name + ".moved-aside"))
        rename_entry(path, target)
    else:
        target = move_aside(paths, path)
    return f"moved aside to {paths.relative(target)}"


def move_aside(paths: SessionPaths, path: Path) -> Path:
    """Rename `path` into archive/moved-aside/ (made as a real directory if needed)."""
    archive_dir = paths.archive_dir
    aside = archive_dir / MOVED_ASIDE
    for directory in (archive_dir, aside):
        info = _lstat(directory)
        if info is not None and not _is_dir(info):
            take_away(paths, directory, info)
        directory.mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    session = paths.session_dir
    where = (
        path.relative_to(session)
        if path.is_relative_to(session)
        else (path.relative_to(paths.root))
    )
    target = _free(aside / f"{stamp}.{where.as_posix().replace('/', '__')}")
    rename_entry(path, target)
    return target


def _free(path: Path) -> Path:
    """`path`, or `path-2`, `path-3`… when taken."""
    candidate, n = path, 1
    while os.path.lexists(candidate):
        n += 1
        candidate = path.with_name(f"{path.name}-{n}")
    return candidate

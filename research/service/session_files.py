"""Every read of a session's files the service makes: its state and lock here (the
`SessionStore`), its report and side files in side_files.py, its event log in
event_files.py.

The service keeps nothing of its own: what it shows comes from `.research/<name>/` and
`reports/<name>/`, read in these three modules (and only there), through the CLI's own
loaders. Everything in
those files may have been written by an agent, so every read tolerates garbage: a file that
does not parse is reported as unreadable, never raised.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from research.core.errors import StateError
from research.core.hosts import host_id
from research.model.state import STATE_COPY_NAME, RWRState, load_state
from research.service.event_files import events_from, failovers_in, tail_events
from research.service.side_files import (
    MAX_REPORT_BYTES,
    cited_ids_of,
    exports_of,
    read_text,
    sources_of,
    verification_of,
)
from research.views.status import LockView, judge_lock, lock_record, session_names
from research.workspace.lock import LockInfo
from research.workspace.paths import SessionPaths, validate_name

MAX_CACHED_NAMES = 4096
NO_LOCK = LockView("none", "")
NO_STATE_YET = "no state.json yet"


FileKey = tuple[int, int, int]
"""(mtime_ns, size, inode) of a file: a cached reading is reused while this is unchanged."""


def file_key(path: str | Path) -> FileKey | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size, stat.st_ino)


@dataclass(frozen=True)
class Snapshot:
    """One session as its files describe it right now."""

    name: str
    paths: SessionPaths
    state: RWRState | None
    """None when state.json is missing or unreadable (see `error`)."""
    error: str | None
    lock: LockView
    lock_pid: int | None
    """The lock holder's pid when the lock is live and held on this host."""
    lock_host: str | None
    """The host named by the lock record (the host that runs the session, when live)."""
    updated: float
    """state.json's modification time (epoch seconds), 0 when unknown."""
    report_exists: bool
    last_run_end: dict[str, Any] | None
    """The last run_end event (how the last run ended), or None."""
    key: tuple[object, ...]
    """Equal for two snapshots whose views are equal: what the response caches are keyed by."""
    exports: tuple[str, ...] = ()
    """The report's exports beside it (--export), once the session is complete."""

    @property
    def has_state(self) -> bool:
        """Whether state.json exists (readable or not)."""
        return self.key[0] is not None

    @property
    def complete(self) -> bool:
        return self.state is not None and self.state.progress.is_complete

    @property
    def locked(self) -> bool:
        return self.lock.state == "live"


@dataclass(frozen=True)
class _Parsed:
    """A file's parsed content, valid while the file's key is unchanged."""

    key: FileKey
    value: Any
    error: str | None = None


class _Session:
    """One session's file names (as strings: os.stat on a str is the cheap call) and the
    parsed files cached for it."""

    def __init__(self, paths: SessionPaths) -> None:
        self.paths = paths
        self.state_file = str(paths.state_file)
        self.lock_file = str(paths.lock_file)
        self.report_file = str(paths.report_file)
        self.events_file = str(paths.events_file)
        self.state: _Parsed | None = None
        self.lock: _Parsed | None = None
        self.lock_view: tuple[object, LockView, int | None, str | None] | None = None
        self.run_end: _Parsed | None = None
        self.watched: tuple[LockInfo, float] | None = None
        """Another host's lock record, and since when (monotonic) it has been unchanged."""
        self.failovers: tuple[int, int, int] = (0, 0, 0)
        """(inode, bytes read, failovers counted) of the event log."""


class SessionStore:
    """Reads the sessions of one working directory.

    Parsing is what costs (state.json through pydantic, the lock file, the event log's
    tail), so each parsed file is cached under its `file_key`: a reader that finds the file
    unchanged pays a `stat`, not a read. The lock's liveness (is its pid running, how old
    is its heartbeat, which the view shows in whole seconds) is judged again at most once a
    second: it changes without the file.
    """

    def __init__(self, root: Path, *, failover: float | None = None) -> None:
        self.root = root
        self.host = host_id()
        self.failover = failover
        """Another host's lock whose record this store saw unchanged for this long is stale
        (None: never judged so). The store watches it as a run would, on its own clock."""
        self._sessions: dict[str, _Session] = {}

    def _session(self, name: str) -> _Session:
        """A session's record; raises UsageError for a name the CLI would refuse."""
        found = self._sessions.get(name)
        if found is None:
            found = _Session(SessionPaths(self.root, validate_name(name)))
            if len(self._sessions) >= MAX_CACHED_NAMES:
                self._sessions.clear()
            self._sessions[name] = found
        return found

    def paths(self, name: str) -> SessionPaths:
        """The paths of session `name`; raises UsageError for a name the CLI would refuse."""
        return self._session(name).paths

    def names(self) -> list[str]:
        return session_names(self.root)

    def exists(self, name: str) -> bool:
        """Whether anything of a session by this name is on disk (a name taken)."""
        paths = self.paths(name)
        return paths.session_dir.exists() or paths.report_dir.exists()

    def has_state(self, name: str) -> bool:
        return os.path.isfile(self._session(name).state_file)

    def snapshot(self, name: str) -> Snapshot:
        session = self._session(name)
        state_key, state, error = self._state(session)
        lock, lock_pid, lock_host = self._lock(session)
        report_exists = os.path.isfile(session.report_file)
        exports = exports_of(session.paths, state)
        run_end = None
        if lock.state != "live" and state is not None and not state.progress.is_complete:
            run_end = self._last_run_end(session)
        return Snapshot(
            name=name,
            paths=session.paths,
            state=state,
            error=error,
            lock=lock,
            lock_pid=lock_pid,
            lock_host=lock_host,
            updated=state_key[0] / 1e9 if state_key else 0.0,
            report_exists=report_exists,
            last_run_end=run_end,
            key=(
                state_key,
                error,
                lock.state,
                lock.detail,
                lock_pid,
                lock_host,
                report_exists,
                run_end.get("outcome") if run_end else None,
                exports,
            ),
            exports=exports,
        )

    def locked(self, name: str) -> bool:
        """Whether a live process holds the session's lock (a cheap check for streams)."""
        return self._lock(self._session(name))[0].state == "live"

    def _state(self, session: _Session) -> tuple[FileKey | None, RWRState | None, str | None]:
        key = file_key(session.state_file)
        if key is None:
            session.state = None
            return None, None, NO_STATE_YET
        cached = session.state
        if cached is None or cached.key != key:
            try:
                cached = _Parsed(key, load_state(session.paths.state_file))
            except StateError as exc:
                cached = _Parsed(key, None, str(exc))
            session.state = cached
        return key, cached.value, cached.error

    def _lock(self, session: _Session) -> tuple[LockView, int | None, str | None]:
        """The lock as `research --status` shows it (status.lock_view's judgement), the
        holder's pid when it is live and on this host, and the host its record names."""
        key = file_key(session.lock_file)
        if key is None:
            session.lock = session.lock_view = None
            return NO_LOCK, None, None
        now = time.time()
        memo = (key, int(now))
        if session.lock_view is not None and session.lock_view[0] == memo:
            return session.lock_view[1:]
        cached = session.lock
        if cached is None or cached.key != key:
            cached = session.lock = _Parsed(key, lock_record(session.paths))
        record: LockInfo | LockView = cached.value
        pid = host = None
        if isinstance(record, LockView):
            view = record
        else:
            host = record.host
            view = self._watched(session, record, judge_lock(record, now=now, host=self.host))
            if view.state == "live" and record.host == self.host:
                pid = record.pid
        session.lock_view = (memo, view, pid, host)
        return view, pid, host

    def _watched(self, session: _Session, record: LockInfo, view: LockView) -> LockView:
        """`view`, or stale when it is another host's live-looking lock whose record has not
        changed for the failover bound while this store looked (no clocks compared)."""
        if self.failover is None or view.state != "live" or record.host == self.host:
            session.watched = None
            return view
        now = time.monotonic()
        if session.watched is None or session.watched[0] != record:
            session.watched = (record, now)
            return view
        still = now - session.watched[1]
        if still < self.failover:
            return view
        return LockView(
            "stale",
            f"{view.detail} (its heartbeat has not changed for {int(still)} s, beyond the "
            f"failover bound of {self.failover:g} s; the next run takes it over)",
        )

    def _last_run_end(self, session: _Session) -> dict[str, Any] | None:
        key = file_key(session.events_file)
        if key is None:
            return None
        cached = session.run_end
        if cached is not None and cached.key == key:
            found: dict[str, Any] | None = cached.value
            return found
        found = None
        for event in tail_events(session.paths.events_file, 65_536):
            if event.get("type") == "run_end":
                found = event
        if found is None and cached is not None and key[1] >= 65_536:
            found = cached.value  # an older run_end beyond the tail: keep what we saw
        session.run_end = _Parsed(key, found)
        return found

    def failovers(self, name: str) -> int:
        """How often the session was taken over from another host: `lock_taken` events
        with a takeover whose previous host is not the new one. The log is read on from
        where the last call stopped."""
        session = self._session(name)
        key = file_key(session.events_file)
        if key is None:
            return 0
        inode, offset, count = session.failovers
        if inode != key[2] or key[1] < offset:
            offset, count = 0, 0
        while True:
            lines, after = events_from(session.paths.events_file, offset)
            if after == offset:
                break
            offset = after
            count += failovers_in(line for _, line in lines)
        session.failovers = (key[2], offset, count)
        return count

    # --- the report and its citations ---------------------------------------------------

    def report(self, name: str) -> str | None:
        """The report's Markdown, or None when there is none yet."""
        path = self.paths(name).report_file
        return read_text(path, MAX_REPORT_BYTES)

    def report_html(self, name: str) -> str | None:
        """reports/<name>/report.html, or None when there is none yet."""
        return read_text(self.paths(name).report_html_file, 4 * MAX_REPORT_BYTES)

    def report_mtime(self, name: str) -> float | None:
        try:
            return self.paths(name).report_file.stat().st_mtime
        except OSError:
            return None

    def sources(self, name: str) -> list[dict[str, Any]]:
        """The source registry's entries (sources.json), each a dict; [] when unreadable."""
        return sources_of(self.paths(name))

    def cited_ids(self, name: str) -> list[int] | None:
        """The ids the final report cites (citations.json), or None when not recorded."""
        return cited_ids_of(self.paths(name))

    def verification(self, name: str) -> dict[int, str]:
        """Verification outcome per source id, from verification.json when it exists."""
        return verification_of(self.paths(name))

    # --- events ----------------------------------------------------------------------------

    def events_path(self, name: str) -> Path:
        return self.paths(name).events_file

    def read_events_from(
        self, name: str, offset: int, limit: int = 1 << 20
    ) -> tuple[list[tuple[int, str]], int]:
        """Whole event lines after byte `offset`: [(end offset, JSON text)], and the new offset.

        A line still being written (no newline yet) is left for the next read.
        """
        return events_from(self.events_path(name), offset, limit)


def saved(paths: SessionPaths) -> bool:
    """Whether the session's name is taken as the CLI judges it: a saved state (or its
    copy), or a report. A session stopped before its first save can be started again."""
    return any(
        os.path.lexists(path)
        for path in (paths.state_file, paths.session_dir / STATE_COPY_NAME, paths.report_file)
    )

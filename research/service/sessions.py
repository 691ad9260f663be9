"""Every read of a session's files the service makes, in one place.

The service keeps nothing of its own: what it shows comes from `.research/<name>/` and
`reports/<name>/`, read here (and only here), through the CLI's own loaders. Everything in
those files may have been written by an agent, so every read tolerates garbage: a file that
does not parse is reported as unreadable, never raised.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from research.errors import StateError
from research.paths import SessionPaths, validate_name
from research.state import RWRState, load_state
from research.status import LockView, lock_view, session_names

MAX_JSON_BYTES = 8 * 1024 * 1024
"""Side files (sources.json, citations.json, verification.json) larger than this are ignored."""
MAX_REPORT_BYTES = 16 * 1024 * 1024


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
    updated: float
    """state.json's modification time (epoch seconds), 0 when unknown."""
    report_exists: bool
    last_run_end: dict[str, Any] | None
    """The last run_end event (how the last run ended), or None."""

    @property
    def complete(self) -> bool:
        return self.state is not None and self.state.progress.is_complete

    @property
    def locked(self) -> bool:
        return self.lock.state == "live"


class SessionStore:
    """Reads the sessions of one working directory; parsed state is cached by mtime."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._states: dict[str, tuple[tuple[int, int], RWRState | None, str | None]] = {}
        self._run_ends: dict[str, tuple[tuple[int, int], dict[str, Any] | None]] = {}

    def paths(self, name: str) -> SessionPaths:
        """The paths of session `name`; raises UsageError for a name the CLI would refuse."""
        return SessionPaths(self.root, validate_name(name))

    def names(self) -> list[str]:
        return session_names(self.root)

    def exists(self, name: str) -> bool:
        """Whether anything of a session by this name is on disk (a name taken)."""
        paths = self.paths(name)
        return paths.session_dir.exists() or paths.report_dir.exists()

    def has_state(self, name: str) -> bool:
        return self.paths(name).state_file.is_file()

    def snapshot(self, name: str) -> Snapshot:
        paths = self.paths(name)
        state, error, updated = self._state(paths)
        lock = lock_view(paths)
        return Snapshot(
            name=name,
            paths=paths,
            state=state,
            error=error,
            lock=lock,
            lock_pid=self._lock_pid(paths) if lock.state == "live" else None,
            updated=updated,
            report_exists=paths.report_file.is_file(),
            last_run_end=(self._last_run_end(paths) if lock.state != "live"
                          and state is not None and not state.progress.is_complete else None),
        )

    def locked(self, name: str) -> bool:
        """Whether a live process holds the session's lock (a cheap check for streams)."""
        paths = self.paths(name)
        return paths.lock_file.exists() and lock_view(paths).state == "live"

    def _state(self, paths: SessionPaths) -> tuple[RWRState | None, str | None, float]:
        try:
            stat = paths.state_file.stat()
        except OSError:
            self._states.pop(paths.name, None)
            return None, "no state.json yet", 0.0
        key = (stat.st_mtime_ns, stat.st_size)
        cached = self._states.get(paths.name)
        if cached is not None and cached[0] == key:
            return cached[1], cached[2], stat.st_mtime
        try:
            state: RWRState | None = load_state(paths.state_file)
            error = None
        except StateError as exc:
            state, error = None, str(exc)
        self._states[paths.name] = (key, state, error)
        return state, error, stat.st_mtime

    @staticmethod
    def _lock_pid(paths: SessionPaths) -> int | None:
        from research.lock import LockInfo

        try:
            info = LockInfo.model_validate_json(paths.lock_file.read_bytes())
        except (OSError, ValueError):
            return None
        import socket

        return info.pid if info.host == socket.gethostname() else None

    def _last_run_end(self, paths: SessionPaths) -> dict[str, Any] | None:
        try:
            stat = paths.events_file.stat()
        except OSError:
            return None
        key = (stat.st_mtime_ns, stat.st_size)
        cached = self._run_ends.get(paths.name)
        if cached is not None and cached[0] == key:
            return cached[1]
        found: dict[str, Any] | None = None
        for event in tail_events(paths.events_file, 65_536):
            if event.get("type") == "run_end":
                found = event
        if found is None and cached is not None and stat.st_size >= 65_536:
            found = cached[1]  # an older run_end beyond the tail: keep what we saw
        self._run_ends[paths.name] = (key, found)
        return found

    # --- the report and its citations ---------------------------------------------------

    def report(self, name: str) -> str | None:
        """The report's Markdown, or None when there is none yet."""
        path = self.paths(name).report_file
        return read_text(path, MAX_REPORT_BYTES)

    def report_mtime(self, name: str) -> float | None:
        try:
            return self.paths(name).report_file.stat().st_mtime
        except OSError:
            return None

    def sources(self, name: str) -> list[dict[str, Any]]:
        """The source registry's entries (sources.json), each a dict; [] when unreadable."""
        raw = read_json(self.paths(name).sources_file)
        items = raw.get("sources") if isinstance(raw, dict) else raw
        return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []

    def cited_ids(self, name: str) -> list[int] | None:
        """The ids the final report cites (citations.json), or None when not recorded."""
        raw = read_json(self.paths(name).citations_file)
        if not isinstance(raw, dict):
            return None
        for key in ("cited", "cited_ids"):
            value = raw.get(key)
            if isinstance(value, list):
                return [v for v in value if isinstance(v, int) and not isinstance(v, bool)]
        audit = raw.get("audit")
        if isinstance(audit, dict) and isinstance(audit.get("cited"), list):
            return [v for v in audit["cited"] if isinstance(v, int) and not isinstance(v, bool)]
        return None

    def verification(self, name: str) -> dict[int, str]:
        """Verification outcome per source id, from verification.json when it exists."""
        raw = read_json(self.paths(name).session_dir / "verification.json")
        found: dict[int, str] = {}
        entries: Any = raw
        if isinstance(raw, dict):
            entries = raw.get("sources", raw.get("results", raw.get("citations", [])))
        if isinstance(entries, dict):
            entries = [
                {"id": key, **value} if isinstance(value, dict) else {"id": key, "outcome": value}
                for key, value in entries.items()
            ]
        if not isinstance(entries, list):
            return found
        for entry in entries:
            if not isinstance(entry, dict):
                continue
            ident = _int(entry.get("id", entry.get("source_id")))
            outcome = _outcome(entry)
            if ident is not None and outcome is not None:
                found[ident] = outcome
        return found

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


def events_from(path: Path, offset: int, limit: int = 1 << 20) -> tuple[list[tuple[int, str]], int]:
    """Whole event lines after byte `offset`, as [(end offset, JSON text)], and the new offset.

    Lines are passed on as they are (one JSON object each, so no newline inside); a line that
    is not an object, or not UTF-8, is skipped; a line still being written is left for later.
    """
    try:
        with path.open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if offset > size:  # the log was replaced: start over
                offset = 0
            handle.seek(offset)
            chunk = handle.read(limit)
    except OSError:
        return [], offset
    out: list[tuple[int, str]] = []
    position = offset
    for line in chunk.splitlines(keepends=True):
        if not line.endswith(b"\n"):
            break
        position += len(line)
        text = line.strip()
        if not (text.startswith(b"{") and text.endswith(b"}")) or b"\r" in text:
            continue
        try:
            out.append((position, text.decode("utf-8")))
        except UnicodeDecodeError:
            continue
    return out, position


def tail_events(path: Path, size: int) -> list[dict[str, Any]]:
    """The whole events in the last `size` bytes of an event log."""
    try:
        with path.open("rb") as handle:
            end = handle.seek(0, os.SEEK_END)
            start = max(0, end - size)
            handle.seek(start)
            data = handle.read()
    except OSError:
        return []
    lines = data.splitlines()
    if start > 0 and lines:
        lines = lines[1:]  # probably cut in the middle
    events = []
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


def read_text(path: Path, limit: int) -> str | None:
    try:
        with path.open("rb") as handle:
            data = handle.read(limit + 1)
    except OSError:
        return None
    if len(data) > limit:
        data = data[:limit]
    return data.decode("utf-8", errors="replace")


def read_json(path: Path) -> Any:
    """A side file's JSON, or None when missing, too large or malformed."""
    text = read_text(path, MAX_JSON_BYTES)
    if text is None or len(text) >= MAX_JSON_BYTES:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        digits = value.strip("[] ")
        return int(digits) if digits.isdigit() else None
    return None


def _outcome(entry: dict[str, Any]) -> str | None:
    for key in ("outcome", "verification", "verdict", "status", "result"):
        value = entry.get(key)
        if isinstance(value, str) and value:
            return value[:64]
        if isinstance(value, dict):
            inner = _outcome(value)
            if inner is not None:
                return inner
    return None


def age(updated: float) -> float:
    return max(0.0, time.time() - updated) if updated else 0.0

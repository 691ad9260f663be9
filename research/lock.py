"""The session lock: `research.lock.json`, taken atomically, refreshed, and released."""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import filelock
from pydantic import BaseModel, ConfigDict, ValidationError

from research.errors import SessionLockedError
from research.fsutil import atomic_write_text

STALE_AFTER_SECONDS = 3600
GUARD_TIMEOUT_SECONDS = 10.0


class LockInfo(BaseModel):
    """The content of `research.lock.json`."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    lock_token: str
    """Random token of one acquisition; only its holder may refresh or release the lock."""
    pid: int
    """Process id of the holder."""
    host: str
    """Host name of the holder; the pid is only checked on the same host."""
    created: float
    """When the lock was taken (epoch seconds)."""
    heartbeat: float
    """When the holder last proved it was alive (epoch seconds)."""

    def describe(self, now: float) -> str:
        """One line for humans: who holds the lock, since when, last heartbeat."""
        started = datetime.fromtimestamp(self.created).strftime("%Y-%m-%d %H:%M:%S")
        return (
            f"pid {self.pid} on host {self.host}, started {started}, "
            f"last heartbeat {_age(now - self.heartbeat)} ago"
        )


def _age(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{int(seconds)} s"
    if seconds < 2 * 3600:
        return f"{int(seconds // 60)} min"
    return f"{seconds / 3600:.1f} h"


def pid_running(pid: int) -> bool:
    """Whether a process with this pid exists on this host."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stale_reason(info: LockInfo, *, now: float, host: str) -> str | None:
    """Why the lock `info` may be taken over, or None when its holder looks alive."""
    age = now - info.heartbeat
    if age > STALE_AFTER_SECONDS:
        return f"heartbeat is {int(age // 60)} min old"
    if info.host == host and not pid_running(info.pid):
        return f"pid {info.pid} is not running"
    return None


@dataclass
class Acquired:
    """The outcome of `SessionLock.acquire`: our lock, and what it replaced and why."""

    info: LockInfo
    took_over: LockInfo | None
    reason: str | None


class SessionLock:
    """A session's lock file, guarded by a `filelock` on a sibling file."""

    def __init__(
        self,
        path: Path,
        *,
        clock: Callable[[], float] = time.time,
        host: str | None = None,
    ) -> None:
        self.path = path
        self._clock = clock
        self._host = host or socket.gethostname()
        self._guard = filelock.FileLock(
            path.with_name(path.name + ".lock"), timeout=GUARD_TIMEOUT_SECONDS
        )
        self._token: str | None = None

    @property
    def token(self) -> str | None:
        """Token of the lock we hold, or None."""
        return self._token

    def read(self) -> LockInfo | None:
        """The lock file's content; None if it is missing or unreadable."""
        try:
            return LockInfo.model_validate_json(self.path.read_bytes())
        except (FileNotFoundError, ValidationError):
            return None

    def acquire(self, *, force: bool = False) -> Acquired:
        """Take the lock, taking over a stale or unreadable one (any one with `force`)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with self._guard:
                return self._acquire_locked(force=force)
        except filelock.Timeout as exc:
            raise SessionLockedError(
                f"session '{self.path.parent.name}' is locked: another process has held "
                f"{self._guard.lock_file} for over {GUARD_TIMEOUT_SECONDS:.0f} s"
            ) from exc

    def _acquire_locked(self, *, force: bool) -> Acquired:
        now = self._clock()
        current = self.read()
        took_over: LockInfo | None = None
        reason: str | None = None
        if current is not None:
            reason = stale_reason(current, now=now, host=self._host)
            if reason is None and not force:
                raise self._locked(current, now)
            took_over, reason = current, reason or "forced"
        elif self.path.exists():
            reason = "unreadable lock file"
        info = LockInfo(
            lock_token=secrets.token_hex(8),
            pid=os.getpid(),
            host=self._host,
            created=now,
            heartbeat=now,
        )
        self._write(info)
        self._token = info.lock_token
        return Acquired(info=info, took_over=took_over, reason=reason)

    def ensure_not_held(self) -> None:
        """Raise SessionLockedError if a live process holds the lock; changes nothing."""
        current = self.read()
        now = self._clock()
        if current is not None and stale_reason(current, now=now, host=self._host) is None:
            raise self._locked(current, now)

    def _locked(self, holder: LockInfo, now: float) -> SessionLockedError:
        return SessionLockedError(
            f"session '{self.path.parent.name}' is locked by {holder.describe(now)}; "
            "if that process is gone, rerun with --force-resume"
        )

    def heartbeat(self) -> bool:
        """Refresh the heartbeat; False if the file no longer holds our token."""
        if self._token is None:
            return False
        try:
            with self._guard:
                info = self.read()
                if info is None or info.lock_token != self._token:
                    return False
                self._write(info.model_copy(update={"heartbeat": self._clock()}))
                return True
        except filelock.Timeout:
            # Could not refresh this time; report ownership from an unguarded read.
            info = self.read()
            return info is not None and info.lock_token == self._token

    def release(self) -> None:
        """Delete the lock file if it still holds our token. Idempotent."""
        if self._token is None:
            return
        try:
            with self._guard:
                info = self.read()
                if info is not None and info.lock_token == self._token:
                    self.path.unlink(missing_ok=True)
        except filelock.Timeout:
            # Leave the file: our pid is dead soon, so the next run takes it over as stale.
            pass
        self._token = None

    @contextlib.contextmanager
    def keep_alive(self, interval: float) -> Iterator[None]:
        """Refresh the heartbeat every `interval` seconds from a daemon thread while inside."""
        stop = threading.Event()

        def run() -> None:
            while not stop.wait(interval):
                try:
                    if not self.heartbeat():
                        return
                except OSError:
                    # A transient write failure (disk full, NFS hiccup) must not end the refresher.
                    continue

        thread = threading.Thread(target=run, name="research-lock-heartbeat", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()

    def _write(self, info: LockInfo) -> None:
        atomic_write_text(self.path, info.model_dump_json(indent=2) + "\n")

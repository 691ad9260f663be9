"""Keeping a held session lock ours: the keep-alive thread, the checks it makes, the fence
every write into the session passes, and what happens when another run takes over.

While a run holds its session lock, a thread (`KeepAlive`) reads the lock file every
`check_interval` (a takeover is noticed this fast) and refreshes the heartbeat every
`heartbeat_interval`; a failed write is retried, never fatal. `Keeper` holds what the
run owns (its token and record) and judges each read: ours, a record to write again
("lock_repaired"), or another run's ("lock_lost": this run's agent calls are stopped at
once). `Keeper.fenced` makes one write into the session under the flock, only while the
lock file still holds our token and generation.
"""

from __future__ import annotations

import contextlib
import os
import stat
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from research.core.errors import ResearchError, SessionLockedError
from research.workspace.lockfile import (
    FileFlock,
    FlockTimeout,
    FoundLock,
    LockFileError,
    LockInfo,
    SessionDirectoryGone,
    lock_bytes,
    lock_file_bytes,
    parse_lock,
    write_lock_file,
)
from research.workspace.lockrules import is_takeover, repair_kind
from research.workspace.orphans import agent_process_groups, stop_process_groups

FLOCK_TIMEOUT_SECONDS = 10.0
AGENT_STOP_GRACE_SECONDS = 2.0

Listener = Callable[[str, dict[str, object]], None]
"""Receives the lock's events: ("lock_repaired" | "lock_lost" | "warning", fields)."""
Check = Callable[[bool], bool]
"""check(refresh) → whether the lock is still ours (see `Keeper.check`)."""


class KeepAlive:
    """One thread per held lock, started by `acquire` and stopped by `release` or a loss."""

    def __init__(
        self,
        check: Check,
        warn: Callable[[str], None],
        *,
        heartbeat_interval: float,
        check_interval: float,
        name: str,
        what: str,
    ) -> None:
        self._check = check
        self._warn = warn
        self.heartbeat_interval = heartbeat_interval
        self.check_interval = check_interval
        self._name = name
        self._what = what
        """How warnings name the lock ("the session lock <path>")."""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._warned: set[str] = set()

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, daemon=True, name=self._name)
        self._thread.start()

    def request_stop(self) -> None:
        """Stop at the next wake-up, without waiting (from the thread itself, say)."""
        self._stop.set()

    def stop(self) -> None:
        """Stop and wait for the thread (unless called from it)."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def warn_once(self, message: str) -> None:
        if message not in self._warned:
            self._warned.add(message)
            self._warn(message)

    def _run(self) -> None:
        next_beat = time.monotonic() + self.heartbeat_interval
        while not self._stop.wait(min(self.check_interval, self.heartbeat_interval)):
            refresh = time.monotonic() >= next_beat
            try:
                if not self._check(refresh):
                    return
                if refresh:
                    next_beat = time.monotonic() + self.heartbeat_interval
            except FlockTimeout:
                continue  # another process holds the flock: next time
            except (OSError, ResearchError) as exc:
                self.warn_once(f"{self._what} could not be kept up to date: {exc}; retrying")
            except Exception as exc:  # the thread must outlive any surprise
                self.warn_once(f"the session lock's keep-alive failed: {exc!r}; retrying")


class Keeper:
    """What a run owns of its session lock, and the checks that keep it so."""

    def __init__(
        self,
        path: Path,
        flock: FileFlock,
        *,
        host: str,
        clock: Callable[[], float],
        floor: Callable[[], int],
    ) -> None:
        self.path = path
        self._flock = flock
        self._host = host
        self._clock = clock
        self._floor = floor
        """The generation the session's state was last saved under (a newer run's, if
        higher than ours: the lock file alone forgets it once that run released it)."""
        self.token: str | None = None
        self.record: LockInfo | None = None
        self.mutex = threading.RLock()  # the keep-alive, the fence and the caller take turns
        self.holder: LockInfo | None = None
        self.directory: tuple[int, int] | None = None  # the session directory we locked
        self.last_generation = 0
        self.lost = threading.Event()
        """Set when another run took the lock over while we held it."""
        self.on_lost: Callable[[], None] = lambda: None
        self._written: tuple[LockInfo, bytes] | None = None
        """Our record and its bytes in the lock file."""
        self._listener: Listener | None = None
        self._pending: list[tuple[str, dict[str, object]]] = []

    def take(self, info: LockInfo) -> None:
        """Our record, just written under the flock."""
        directory = os.lstat(self.path.parent)
        with self.mutex:
            self.token, self.record = info.lock_token, info
            self.directory = (directory.st_dev, directory.st_ino)
            self.lost.clear()
            self.holder = None

    def let_go(self) -> str | None:
        """Forget our record (released); returns the token we held."""
        with self.mutex:
            if self.record is not None:
                self.last_generation = self.record.generation
            token, self.token, self.record = self.token, None, None
        return token

    def listen(self, listener: Listener) -> None:
        """Send the lock's events to `listener` (those that happened before it, first)."""
        with self.mutex:
            self._listener = listener
            pending, self._pending = self._pending, []
        for kind, fields in pending:
            self._deliver(kind, fields)

    def check_owned(self) -> None:
        """Raise SessionLockedError (exit 3) if another run took the lock over."""
        if self.token is not None and not self.lost.is_set():
            with contextlib.suppress(Exception):  # the file may be in flux: the thread decides
                self.check(False)
        self.raise_if_lost()

    def raise_if_lost(self) -> None:
        if self.lost.is_set():
            holder = self.holder
            who = holder.describe(self._clock()) if holder is not None else "another run"
            raise SessionLockedError(
                f"session '{self.path.parent.name}' was taken over by {who} while this run "
                "was going; this run stopped without saving (its last agent call is made "
                "again by the run that continues the session)"
            )

    def heartbeat(self) -> bool:
        """Refresh the heartbeat now (repairing our record if needed); False if the lock
        is not ours (never taken, released, or taken over by another run)."""
        try:
            return self.check(True)
        except FlockTimeout:
            return self.token is not None and not self.lost.is_set()

    @contextlib.contextmanager
    def fenced(self) -> Iterator[None]:
        """One write into the session: made under the flock while the lock file holds our
        token and generation; SessionLockedError (nothing written) once it is another's.
        Each try decides from one read of the lock file, under the flock."""
        with self.mutex:
            if self.token is None and not self.lost.is_set():
                yield  # released (or never taken): the run's last lines
                return
            for _ in range(3):
                self.raise_if_lost()
                try:
                    with self._flock.quick(FLOCK_TIMEOUT_SECONDS):
                        found = self._not_ours()
                        if found is None:
                            yield
                            return
                        repair = self._settle(found, refresh=False)  # or lose to a newer run
                except FlockTimeout:
                    continue
                self._repaired(repair, found)  # said once the flock is free (it is written)
            self.raise_if_lost()
            raise SessionLockedError(
                f"session '{self.path.parent.name}': this run could not confirm it still "
                "holds the lock; nothing more is written"
            )

    def _not_ours(self) -> FoundLock | None:
        """Under the flock, from one read of the lock file (another read could see something
        else): None when it holds our record, byte for byte or parsed; else what it holds."""
        record = self.record
        assert record is not None  # set with the token, which the fence saw
        if self._written is None or self._written[0] is not record:
            self._written = (record, lock_bytes(record))
        data = self._look()
        if data == self._written[1]:
            return None
        found = parse_lock(data)
        return None if found.info is not None and found.info == record else found

    def check(self, refresh: bool) -> bool:
        """Read the lock file; rewrite our record if it is due (`refresh`) or was
        tampered with; record a takeover. Returns whether the lock is still ours."""
        with self.mutex:
            if self.token is None or self.lost.is_set():
                return False
            found = self._read_quietly()
            if found.info is not None and self.newer(found.info, self.token, self.record):
                self.lose(found.info)
                return False
            if not refresh and found.info == self.record:
                return True
            # Before the flock too (`_settle` checks again, just before it writes): taking it
            # would make a deleted session directory again, or the flock file in a linked one.
            self.same_directory()
            with self._flock.held(min(FLOCK_TIMEOUT_SECONDS, 2.0)):
                found = self._read_quietly()  # again, under the flock: it may have changed
                repair = self._settle(found, refresh)
            self._repaired(repair, found)
            return not self.lost.is_set()

    def _repaired(self, repair: str | None, found: FoundLock) -> None:
        """Say what `_settle` repaired in what it `found`, if anything."""
        if repair is not None:
            fields: dict[str, object] = {"repair": repair}
            if found.info is not None:
                fields.update(found_pid=found.info.pid, found_host=found.info.host)
            self.notify("lock_repaired", fields)

    def _settle(self, found: FoundLock, refresh: bool) -> str | None:
        """Under the flock: lose to a newer run, or write our record again (refreshed when
        `refresh`). Returns what was repaired, if anything."""
        assert self.token is not None and self.record is not None
        if found.info is not None and self.newer(found.info, self.token, self.record):
            self.lose(found.info)
            return None
        if found.info is None and self._floor() > self.record.generation:
            self.lose(None)  # a newer run saved the session, and has released it since
            return None
        self.same_directory()  # a lock is never written anywhere else
        record = self.record
        if refresh:
            record = record.model_copy(update={"heartbeat": self._clock()})
        repair = repair_kind(found, self.token, self.record)
        if repair is not None and found.kind == "not_regular" and os.path.isdir(self.path):
            os.rmdir(self.path)  # an empty directory goes; a full one raises (warned)
        write_lock_file(self.path, record)
        self.record = record
        return repair

    def newer(self, found: LockInfo, token: str, mine: LockInfo | None) -> bool:
        """Whether `found` is another run's: a takeover of ours, or a later generation."""
        if found.lock_token == token:
            return False
        if mine is not None and found.generation > mine.generation:
            return True
        return is_takeover(found, token, mine, self._host)

    def same_directory(self) -> None:
        """Refuse to write when the session directory was deleted or replaced (by a link to
        the user's files, say): a lock is never written anywhere else."""
        try:
            now = os.lstat(self.path.parent)
            same = stat.S_ISDIR(now.st_mode) and (now.st_dev, now.st_ino) == self.directory
        except OSError:
            same = False
        if not same:
            raise SessionDirectoryGone(
                f"the session directory {self.path.parent} was deleted or "
                "replaced; the lock is not written there"
            )

    def follow(self, directory: tuple[int, int]) -> None:
        """The session directory is `directory` now (the workspace guard made it again after
        an agent deleted it): the lock's record is written there again at the next check."""
        with self.mutex:
            if self.token is not None and not self.lost.is_set():
                self.directory = directory

    def _read_quietly(self) -> FoundLock:
        return parse_lock(self._look())

    def _look(self) -> bytes | FoundLock:
        """One read of the lock file: its bytes, or what is there instead."""
        try:
            return lock_file_bytes(self.path)
        except LockFileError as exc:  # unreadable now: rewritten like junk
            return FoundLock("not_regular", problem=str(exc))

    def lose(self, holder: LockInfo | None) -> None:
        """Another run holds the lock: stop, and stop our agent calls at once (they would
        write over the new holder's session)."""
        if self.lost.is_set():
            return
        self.holder = holder
        self.lost.set()
        self.on_lost()
        groups = own_agent_groups(self.path.parent)
        if groups:
            stop_process_groups(groups, grace=AGENT_STOP_GRACE_SECONDS)
        # Heard in this process (the run's stop line names the new holder); the session's
        # event log is the new holder's now, so the fence keeps this line out of it.
        self.notify(
            "lock_lost",
            {
                "pid": holder.pid if holder else None,
                "host": holder.host if holder else None,
                "generation": holder.generation if holder else None,
                "holder": holder.describe(self._clock()) if holder else "another run",
                "stopped_process_groups": sorted(groups),
            },
        )

    def notify(self, kind: str, fields: dict[str, object]) -> None:
        with self.mutex:
            if self._listener is None:
                self._pending.append((kind, fields))
                return
        self._deliver(kind, fields)

    def _deliver(self, kind: str, fields: dict[str, object]) -> None:
        if self._listener is not None:
            with contextlib.suppress(Exception):  # a full disk must not end the keep-alive
                self._listener(kind, fields)


def own_agent_groups(session_dir: Path) -> set[int]:
    """Process groups of this process's own agent calls in the session: marked as the
    session's agents, led by a child of ours (another run's agents are not ours to stop)."""
    own = set()
    me = os.getpid()
    for group in agent_process_groups(session_dir):
        try:
            fields = Path(f"/proc/{group}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 1 and fields[1] == str(me):
            own.add(group)
    return own

"""The lock's rules: whether a holder is alive, whether a record is a takeover of ours, and
what a record that is not ours calls for. Pure functions of what was read, but for
`pid_running` (this host's process table) and the user's key.

Whether a lock's holder is alive: on this host, its pid tells. Another host's pid cannot
be checked and its clock may be off by any amount, so its lock is watched instead (without
the flock, so that its holder can refresh it): a heartbeat value that changes means a live
run; one that stays the same for `watch_seconds` (2/5 of the failover bound) means a dead
one, and the lock is taken over (`SessionLock.acquire`).
"""

from __future__ import annotations

import hmac
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path

from research.workspace.lockfile import FoundLock, LockFileError, LockInfo, read_lock_file
from research.workspace.userkey import sign, user_key

log = logging.getLogger("research")

STALE_AFTER_SECONDS = 3600
WATCH_POLL_SECONDS = 0.2
"""How often a run watching another host's lock reads it."""


def pid_running(pid: int) -> bool:
    """Whether a process with this pid exists on this host."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # OverflowError: no pid is that big
        return False
    except PermissionError:
        return True
    return True


def takeover_proof(old_token: str, new_token: str) -> str:
    return sign(user_key(), "lock takeover", old_token, new_token)


def stale_reason(info: LockInfo, *, now: float, host: str) -> str | None:
    """Why the lock `info` may be taken over, or None when its holder looks alive.

    Only a lock of this host is judged at a glance: a dead pid is stale, and a live one
    is never taken for stale because of a heartbeat in the future (a clock stepped back
    leaves one); a heartbeat older than `STALE_AFTER_SECONDS` is stale. Another host's lock
    is never stale at a glance: its clock may differ from ours by any amount, so only
    watching its heartbeat change (or not) tells (`SessionLock.acquire`)."""
    if info.host != host:
        return None
    if not pid_running(info.pid):
        return f"pid {info.pid} is not running"
    age = now - info.heartbeat
    if age > STALE_AFTER_SECONDS:
        return f"heartbeat is {int(age // 60)} min old"
    return None


def is_takeover(found: LockInfo, token: str, mine: LockInfo | None, host: str) -> bool:
    """Whether `found`, a record that is not ours (`token`, `mine`), is another run's
    takeover of our lock (or, when it holds the token we took over, its holder's refusal of
    our takeover, which it could not check: we give way rather than take turns writing)."""
    if found.lock_token == token:
        return False
    if mine is not None and mine.took_over is not None and found.lock_token == mine.took_over:
        return True
    if found.took_over != token:
        return False
    if found.host != host:
        return True  # signed with that host's key, if any: not checkable here
    expected = takeover_proof(token, found.lock_token)
    return found.proof is not None and hmac.compare_digest(found.proof, expected)


def repair_kind(found: FoundLock, token: str | None, record: LockInfo | None) -> str | None:
    """What our record needs after `found` was read (not a takeover): None when it is ours
    as written, else why it is written again."""
    if found.kind == "ok":
        assert found.info is not None
        if found.info.lock_token != token:
            return "forged"
        return None if found.info == record else "changed"
    return {"missing": "deleted", "junk": "unreadable", "not_regular": "replaced"}[found.kind]


class WatchFirst(Exception):
    """The lock is another host's: watch its heartbeat (without the flock) before judging."""

    def __init__(self, info: LockInfo) -> None:
        self.info = info


Locked = Callable[[LockInfo], Exception]
"""Makes the error that says who holds the lock."""


def takeover_reason(
    current: LockInfo,
    *,
    now: float,
    host: str,
    force: bool,
    watched: LockInfo | None,
    watch_seconds: float,
    locked: Locked,
) -> str | None:
    """Why `current` may be taken over (None: forced); `locked(current)` raised when it may
    not; WatchFirst when it is another host's and has not been watched yet.

    Another host's lock is judged by watching it, never by comparing clocks: stale only
    when the very record watched for `watch_seconds` is still there, unchanged."""
    if force:
        return stale_reason(current, now=now, host=host)
    if current.host == host:
        reason = stale_reason(current, now=now, host=host)
        if reason is None:
            raise locked(current)
        return reason
    if watched is None:
        raise WatchFirst(current)
    if current != watched:  # refreshed, or taken, at the last moment: alive
        raise locked(current)
    return f"the heartbeat of host {current.host} did not change in {watch_seconds:g} s"


def watch(path: Path, info: LockInfo, seconds: float, locked: Locked) -> LockInfo | None:
    """Watch another host's lock record, without holding the flock (its holder must be free
    to refresh it). Returns the record if it stayed unchanged for `seconds`, None if it went
    away or became junk (judged again under the flock); `locked(record)` raised as soon as
    it changes: its holder is alive."""
    log.info(
        "session %r is locked by host %s: watching its heartbeat for up to %g s",
        path.parent.name,
        info.host,
        seconds,
    )
    deadline = time.monotonic() + seconds
    while True:
        found = read_lock_file(path)
        if found.kind == "not_regular":
            raise LockFileError(found.problem)
        if found.info is None:
            return None
        if found.info != info:
            raise locked(found.info)
        left = deadline - time.monotonic()
        if left <= 0:
            return info
        time.sleep(min(WATCH_POLL_SECONDS, left))

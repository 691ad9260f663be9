"""The service's side of the task queue (`serve --queue URL`): send a job, ask whether the
queue holds a job of a name, stop a session's jobs by their ids, and, after each reading
of the queue (queue_watch.py), time other hosts' locks and send lost jobs again.

Every call that reaches Redis turns its outage into a retryable 503.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from research.cluster.messages import JobMessage
from research.service.children import Job
from research.service.errors import ApiError
from research.service.roster import Roster
from research.service.session_files import SessionStore, Snapshot

if TYPE_CHECKING:
    from research.cluster.broker import QueueClient

MAX_AUTO_RESENDS = 3
"""How often --resume-running sends one session's lost job again on its own."""


def unavailable(exc: Exception) -> ApiError:
    return ApiError(503, "queue_unavailable", str(exc), retryable=True)


class TaskQueue:
    """The task queue as one service uses it."""

    def __init__(self, client: QueueClient, store: SessionStore) -> None:
        self.client = client
        self.store = store
        self.resent: dict[str, int] = {}
        """How often each session's lost job was sent again on its own (--resume-running)."""

    def send(self, job: JobMessage, roster: Roster) -> Job:
        """Put `job` on the queue; its placeholder in the roster."""
        from research.cluster.broker import QueueUnavailable

        try:
            self.client.send(job)
        except QueueUnavailable as exc:
            raise unavailable(exc) from None
        return roster.sent(job)

    def holds(self, name: str) -> bool:
        """Whether the queue holds a job of `name` (sent by anyone), read now."""
        from research.cluster.broker import QueueUnavailable

        try:
            return any(job["name"] == name for job in self.client.jobs())
        except QueueUnavailable as exc:
            raise unavailable(exc) from None

    def stop(self, name: str, snap: Snapshot | None, roster: Roster) -> str:
        """Ask whichever worker runs (or will start) the session's job to stop that job (by
        its id: a later job of the name is not stopped)."""
        from research.cluster.broker import QueueUnavailable

        try:
            found = self.client.stop(name)
        except QueueUnavailable as exc:
            raise unavailable(exc) from None
        sent = roster.enqueued.pop(name, None)
        if found:
            return "stopping"
        if sent is not None:
            return "cancelled"  # lost: nothing runs, nothing will
        if snap is not None and snap.locked:
            raise ApiError(
                409,
                "locked",
                f"session {name!r} is held by a run no worker names ({snap.lock.detail}); "
                "it cannot be stopped from here",
                retryable=True,
            )
        raise ApiError(409, "not_running", f"session {name!r} is not running")

    def look_at_locks(self) -> None:
        """Read every session's lock: another host's still heartbeat is timed from now."""
        for name in self.store.names():
            self.store.locked(name)

    def send_lost_again(self, roster: Roster, resume: Callable[[str], object]) -> None:
        """Send again each job the queue lost, at most MAX_AUTO_RESENDS times a session (a
        job a worker keeps dropping is then left `lost`, for a person to look at)."""
        for name in roster.all_names():
            job = roster.job(name)
            if job is None or job.state != "lost" or self.resent.get(name, 0) >= MAX_AUTO_RESENDS:
                continue
            self.resent[name] = self.resent.get(name, 0) + 1
            try:
                resume(name)
            except ApiError as exc:
                sys.stderr.write(f"research: {name}: lost, not sent again: {exc.message}\n")
                continue
            sys.stderr.write(f"research: {name}: the queue lost its job; sent it again\n")

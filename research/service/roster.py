"""Which sessions this server knows and which of its jobs runs each: the children it
started, the jobs it put on the task queue that no worker has started yet, and the
sessions' files. Reads only; starting and stopping jobs is `Service`'s."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from research.core.errors import UsageError
from research.service.bodies import job_state
from research.service.children import Job, JobManager
from research.service.errors import ApiError
from research.service.session_files import SessionStore, Snapshot

if TYPE_CHECKING:
    from research.cluster.messages import JobMessage
    from research.service.queue_watch import QueueWatch


@dataclass
class Sent:
    """A job this server put on the task queue."""

    placeholder: Job
    """Shown as queued until a worker starts the job, or as lost."""
    key: tuple[object, ...]
    """The session's snapshot key when it was sent: a change means a run started."""
    message: JobMessage
    """The job as sent: a lost job without saved state is sent again as it was."""
    at: float
    """When it was sent (monotonic): only a reading of the queue taken later judges it."""


class Roster:
    """The sessions of one working directory and this server's job of each."""

    def __init__(
        self, store: SessionStore, jobs: JobManager, watch: QueueWatch | None = None
    ) -> None:
        self.store = store
        self.jobs = jobs
        self.watch = watch
        self.enqueued: dict[str, Sent] = {}
        """Jobs this server put on the queue, shown as queued until a worker starts them."""
        self.last_sent: dict[str, float] = {}
        """When this server last sent a job of each session (monotonic)."""

    def name(self, name: str) -> str:
        """A name from a request path: validated as the CLI does, or a 400."""
        try:
            self.store.paths(name)
        except UsageError as exc:
            raise ApiError(400, "invalid_name", str(exc)) from None
        return name

    def snapshot(self, name: str) -> Snapshot | None:
        self.name(name)
        snap = self.store.snapshot(name)
        if not snap.has_state and self.job(name, snap) is None:
            raise ApiError(404, "not_found", f"no research session named {name!r}")
        return snap if snap.state is not None or snap.error else None

    def sent(self, job: JobMessage) -> Job:
        """Record a job just put on the queue; its placeholder."""
        placeholder = Job(name=job.name, argv=[], state="queued")
        key = self.store.snapshot(job.name).key
        now = self.last_sent[job.name] = time.monotonic()
        self.enqueued[job.name] = Sent(placeholder, key, job, now)
        return placeholder

    def job(self, name: str, snap: Snapshot | None = None) -> Job | None:
        """This server's job of session `name`: a child it started, or a job it put on the
        queue that no worker has started yet (after that, the session's files tell). With
        the task queue, also a session's job the queue holds (queued), or one it lost.
        `snap`: the reading of the session's files the caller decides with (read here when
        not given): a second reading could see a state the first did not, and each would
        leave the session to the other (a just-started job found nowhere)."""
        local = self.jobs.jobs.get(name)
        if local is not None:
            return local
        if self.watch is None:
            return self._placeholder(name, snap)
        return self._queue_job(name, self.store.snapshot(name) if snap is None else snap)

    def _placeholder(self, name: str, snap: Snapshot | None) -> Job | None:
        queued = self.enqueued.get(name)
        if queued is None:
            return None
        snap = self.store.snapshot(name) if snap is None else snap
        if snap.has_state and (snap.locked or snap.key != queued.key):
            del self.enqueued[name]
            return None
        return queued.placeholder

    def _queue_job(self, name: str, snap: Snapshot) -> Job | None:
        """The job of `name` as the queue and the files tell (--queue).

        The queue is read before the files: a job leaves the queue only after its run
        ended, and a run's end is in the files before that."""
        assert self.watch is not None
        view = self.watch.current()
        sent = self.enqueued.get(name)
        if snap.has_state and (snap.locked or snap.complete or (sent and snap.key != sent.key)):
            self.enqueued.pop(name, None)  # its run started: the files tell from now on
            sent = None
        if snap.locked or snap.complete:
            return None if sent is None else sent.placeholder  # started, no state yet
        on_queue = view is not None and name in view.jobs
        judged = view is not None and view.taken_at > self.last_sent.get(name, -1.0)
        if on_queue or (name in self.last_sent and not judged):
            # on the queue, or sent since the last reading (or Redis cannot be read now)
            if sent is None:
                return Job(name, [], state="queued")
            sent.placeholder.state = "queued"
            return sent.placeholder
        if not judged:
            return None  # the queue cannot be read: nothing to say beyond the files
        if sent is not None:
            sent.placeholder.state = "lost"
            return sent.placeholder
        if snap.state is not None and snap.lock.state == "stale":
            return Job(name, [], state="lost")  # its run died, and its job is gone
        return None

    def all_names(self) -> list[str]:
        names = set(self.store.names()) | set(self.jobs.jobs) | set(self.enqueued)
        return sorted(names)

    def running(self, name: str) -> bool:
        """Whether the session runs: a job of ours, or a live lock (a job of an earlier server)."""
        job = self.job(name)
        return (job is not None and job.state in ("queued", "running")) or self.store.locked(name)

    def lost(self, name: str) -> Sent | None:
        """The job this server sent for `name`, when the queue lost it."""
        job = self.job(name)
        sent = self.enqueued.get(name)
        if job is None or job.state != "lost" or sent is None or sent.placeholder is not job:
            return None
        return sent

    def rows(self) -> list[tuple[Snapshot | None, str]]:
        out: list[tuple[Snapshot | None, str]] = []
        for name in self.all_names():
            snap = self.store.snapshot(name) if self.store.has_state(name) else None
            out.append((snap, job_state(snap, self.job(name, snap))))
        return out

    def state(self, name: str) -> str:
        """The session's state as a run's view gives it, from one reading of its files."""
        snap = self.store.snapshot(name)
        return job_state(snap, self.job(name, snap))

    def host_rows(self) -> list[tuple[str, str | None, int]]:
        """(name, host running it or None, failovers) of every session, for /metrics."""
        out = []
        for name in self.store.names():
            snap = self.store.snapshot(name)
            out.append((name, snap.lock_host if snap.locked else None, self.store.failovers(name)))
        return out

    def resumable(self) -> list[str]:
        """Sessions that were running when the server stopped: not complete, not locked."""
        names = []
        for name in self.store.names():
            snap = self.store.snapshot(name)
            if snap.state is not None and not snap.complete and not snap.locked:
                names.append(name)
        return names

    def report_not_ready(self, name: str, why: str) -> ApiError:
        """404 for a report that is not there: worth asking again only while the session
        is queued or running (a failed or stopped one writes nothing until resumed)."""
        snap = self.store.snapshot(name)
        state = job_state(snap if snap.has_state else None, self.job(name, snap))
        pending = state in ("queued", "running")
        hint = "" if pending else f" and is {state}; resume it with POST /runs/{name}/resume"
        if state == "awaiting_approval":
            hint = f": it awaits approval of its plan (POST /runs/{name}/approve)"
        return ApiError(404, "report_not_ready", f"session {name!r} {why}{hint}", pending)

"""Which sessions this server knows and which of its jobs runs each: the children it
started, the jobs it put on the task queue that no worker has started yet, and the
sessions' files. Reads only; starting and stopping jobs is `Service`'s."""

from __future__ import annotations

from research.core.errors import UsageError
from research.service.bodies import job_state
from research.service.children import Job, JobManager
from research.service.errors import ApiError
from research.service.session_files import SessionStore, Snapshot


class Roster:
    """The sessions of one working directory and this server's job of each."""

    def __init__(self, store: SessionStore, jobs: JobManager) -> None:
        self.store = store
        self.jobs = jobs
        self.enqueued: dict[str, tuple[Job, tuple[object, ...]]] = {}
        """Jobs this server put on the queue, shown as queued until a worker starts them."""

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
        if not snap.has_state and self.job(name) is None:
            raise ApiError(404, "not_found", f"no research session named {name!r}")
        return snap if snap.state is not None or snap.error else None

    def job(self, name: str) -> Job | None:
        """This server's job of session `name`: a child it started, or a job it put on the
        queue that no worker has started yet (after that, the session's files tell)."""
        local = self.jobs.jobs.get(name)
        if local is not None:
            return local
        queued = self.enqueued.get(name)
        if queued is None:
            return None
        job, key_when_sent = queued
        snap = self.store.snapshot(name)
        if snap.has_state and (snap.locked or snap.key != key_when_sent):
            del self.enqueued[name]
            return None
        return job

    def all_names(self) -> list[str]:
        names = set(self.store.names()) | set(self.jobs.jobs) | set(self.enqueued)
        return sorted(names)

    def running(self, name: str) -> bool:
        """Whether the session runs: a job of ours, or a live lock (a job of an earlier server)."""
        job = self.job(name)
        return (job is not None and job.state in ("queued", "running")) or self.store.locked(name)

    def rows(self) -> list[tuple[Snapshot | None, str]]:
        out: list[tuple[Snapshot | None, str]] = []
        for name in self.all_names():
            snap = self.store.snapshot(name) if self.store.has_state(name) else None
            out.append((snap, job_state(snap, self.job(name))))
        return out

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
        state = job_state(snap if snap.has_state else None, self.job(name))
        pending = state in ("queued", "running")
        hint = "" if pending else f" and is {state}; resume it with POST /runs/{name}/resume"
        return ApiError(404, "report_not_ready", f"session {name!r} {why}{hint}", pending)

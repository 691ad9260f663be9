"""The response bodies of the views polled most (GET /runs/{name}, GET /runs), each kept
with the key it was built for and rebuilt only when what it shows has changed."""

from __future__ import annotations

import time
from collections.abc import Callable

from pydantic import BaseModel

from research.service.bodies import detail, summary
from research.service.children import Job
from research.service.roster import Roster
from research.service.session_files import Snapshot

JobKey = tuple[str, int | None, str | None] | None


def job_key(job: Job | None) -> JobKey:
    """What of a job the views show: equal keys, equal views."""
    return None if job is None else (job.state, job.exit_code, job.message)


class PolledBodies:
    """The last body of each polled view, with the key it was built for."""

    def __init__(self, roster: Roster) -> None:
        self.roster = roster
        self._details: dict[str, tuple[object, bytes]] = {}
        self._summaries: dict[str, tuple[object, bytes]] = {}
        self._listing: tuple[float, bytes] = (0.0, b"")

    def detail(self, name: str) -> bytes:
        """GET /runs/{name}'s JSON body."""
        return self._view(self._details, detail, name, self.roster.snapshot(name))

    def summary(self, name: str) -> bytes:
        store = self.roster.store
        snap = store.snapshot(name) if store.has_state(name) else None
        return self._view(self._summaries, summary, name, snap)

    def _view(
        self,
        cache: dict[str, tuple[object, bytes]],
        view: Callable[[str, Snapshot | None, Job | None], BaseModel],
        name: str,
        snap: Snapshot | None,
    ) -> bytes:
        """`view`'s JSON body, rebuilt only when the session's files or its job changed."""
        job = self.roster.job(name)
        key = (snap.key if snap is not None else None, job_key(job))
        cached = cache.get(name)
        if cached is not None and cached[0] == key:
            return cached[1]
        body = view(name, snap, job).model_dump_json().encode()
        cache[name] = (key, body)
        return body

    def runs(self) -> bytes:
        """GET /runs's JSON body (a RunList)."""
        names = self.roster.all_names()
        for gone in set(self._summaries) - set(names):
            del self._summaries[gone]
        return b'{"runs":[' + b",".join(self.summary(name) for name in names) + b"]}"

    def shared_runs(self, max_age: float) -> bytes:
        """GET /runs's body, computed at most once per `max_age` seconds for all the clients
        of the session list stream."""
        taken, body = self._listing
        now = time.monotonic()
        if not body or now - taken >= max_age:
            body = self.runs()
            self._listing = (now, body)
        return body

"""The service's roster of sessions (research/service/roster.py): what it says of a job it
sent to the task queue while a worker starts it."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from research.service.queue_watch import QueueView
from research.service.roster import Roster


@dataclass
class Reading:
    """A stand-in for one reading of a session's files (session_files.Snapshot)."""

    key: tuple[object, ...]
    locked: bool
    state: Any = None
    error: str | None = None
    complete: bool = False
    lock: Any = field(default_factory=lambda: SimpleNamespace(state="live"))

    @property
    def has_state(self) -> bool:
        return self.key[0] is not None


class Store:
    """Each reading of the session's files a step later than the last one: the worker
    writes the session's first state between two readings."""

    def __init__(self, *readings: Reading) -> None:
        self.readings = list(readings)

    def snapshot(self, name: str) -> Reading:
        return self.readings.pop(0) if len(self.readings) > 1 else self.readings[0]

    def paths(self, name: str) -> None:
        return None


class Watch:
    def current(self) -> QueueView:
        return QueueView({}, 0.0)  # read before the job was sent: it judges nothing


def test_a_job_whose_worker_saves_its_first_state_meanwhile_is_never_unknown() -> None:
    """The roster decides from one reading of the session's files: when the worker saved
    the first state between two readings, the first saw no state and the second no job of
    ours any more, and a session just started was "no research session named" (a 404 to
    the MCP client's first research_status, seen once in CI)."""
    sent_at = Reading(key=(None,), locked=False)
    starting = Reading(key=(None,), locked=True)  # the worker holds the lock, no state yet
    saved = Reading(key=("state", 1), locked=True, state=SimpleNamespace())
    store = Store(sent_at, starting, saved)
    roster = Roster(store, SimpleNamespace(jobs={}), Watch())  # type: ignore[arg-type]
    roster.sent(SimpleNamespace(name="far"))  # type: ignore[arg-type]
    assert roster.snapshot("far") is None  # started, no state yet: found, not a 404
    assert roster.snapshot("far") is saved

"""What the task queue holds, as `research serve --queue` last read it: the jobs that wait,
are delayed, or are taken by a worker and not yet acknowledged.

Read in the background (a thread: a Redis that does not answer never blocks a request),
at most once a `interval`. A worker acknowledges a job only after its session's run ended,
so a job the service sent that is not in the queue, and whose session does not run, was
lost (a Redis that lost its data, a worker that dropped it): the service shows it `lost`
and sends it again on request (roster.py, service.py). Each reading also records this
folder as the queue's again, should Redis have lost that.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from research.cluster.broker import QueueClient


@dataclass(frozen=True)
class QueueView:
    """One reading of the queue."""

    jobs: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """The jobs on the queue (or taken, not acknowledged) by session name."""
    taken_at: float = 0.0
    """When the reading began (monotonic): a job sent after it is not judged by it."""


def _say(text: str) -> None:
    sys.stderr.write(f"research: {text}\n")
    sys.stderr.flush()


class QueueWatch:
    """The last reading of the queue, kept fresh by a background task."""

    def __init__(
        self,
        client: QueueClient,
        root: Path,
        *,
        interval: float = 1.0,
        touch: Callable[[], None] | None = None,
        say: Callable[[str], None] = _say,
    ) -> None:
        from research.cluster.broker import safe_url
        from research.cluster.health import QueueHealth

        self.client = client
        self.root = root
        self.interval = interval
        self.touch = touch
        """Called after each reading: the store looks at the locks, so that another host's
        still heartbeat is timed from the service's start, not from the first request."""
        self.view: QueueView | None = None
        """The last reading; None before the first one and while Redis cannot be read."""
        self.health = QueueHealth(safe_url(client.url), say)
        self._task: asyncio.Task[None] | None = None

    def read(self) -> None:
        """Read the queue once (blocking: run it in a thread)."""
        from research.cluster.broker import QueueUnavailable, reaching
        from research.cluster.checks import SetupError, claim_folder, folder_id

        started = time.monotonic()
        try:
            jobs = self.client.jobs()
            with reaching(self.client.url), contextlib.suppress(SetupError):
                claim_folder(self.client.redis, folder_id(self.root))
        except QueueUnavailable as exc:
            self.view = None
            self.health.down(exc)
            return
        self.health.reached()
        by_name: dict[str, list[dict[str, Any]]] = {}
        for job in jobs:
            by_name.setdefault(job["name"], []).append(job)
        self.view = QueueView(by_name, started)

    def start(self) -> None:
        """Start the background readings (within a running event loop; again: no-op)."""
        if self._task is not None and not self._task.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._task = loop.create_task(self._run())

    async def _run(self) -> None:
        while True:
            await asyncio.to_thread(self.read)
            if self.touch is not None:
                self.touch()
            await asyncio.sleep(self.interval)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def current(self) -> QueueView | None:
        """The last reading (and the readings started, when they were not yet)."""
        self.start()
        return self.view

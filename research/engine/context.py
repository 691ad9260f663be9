"""What every part of the engine shares during one run: the state, its files and the clock.

All changes to the state go through one lock (`mutex`), so topic cycles running on
threads in parallel mode never interleave a half-made change with a save.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from research import archive, phases
from research.agents.base import Agent
from research.budget import TimeBudget
from research.events import EventLog
from research.fsutil import atomic_write_bytes, atomic_write_text, write_if_changed
from research.lock import SessionLock
from research.paths import SessionPaths
from research.phases import NOT_REGULAR, read_regular
from research.plan import TopicStatus, render_plan
from research.state import Phase, RWRState
from research.templates import PromptTemplates


def put_back(path: Path, data: bytes | None) -> None:
    """Make `path` hold `data` again (or nothing), whatever an agent left there; a link
    is replaced, never written through."""
    if os.path.islink(path) or (os.path.lexists(path) and not os.path.isdir(path)):
        path.unlink(missing_ok=True)
    if data is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, data)


class Cancelled(BaseException):  # noqa: N818 - not an error: the run is stopping
    """Raised in a topic's thread when the run was interrupted: its call is abandoned
    unrecorded, so a resumed run makes it again."""


@dataclass
class Clock:
    """Time and sleep, injectable so tests run on a simulated clock."""

    now: Callable[[], float] = time.time
    sleep: Callable[[float], None] = time.sleep


class RunContext:
    """The session being run and the services its parts use."""

    def __init__(
        self,
        *,
        state: RWRState,
        paths: SessionPaths,
        agent: Agent,
        templates: PromptTemplates,
        events: EventLog,
        lock: SessionLock | None = None,
        clock: Clock | None = None,
        rng: random.Random | None = None,
        parallel: int = 1,
    ) -> None:
        self.state = state
        self.paths = paths
        self.agent = agent
        self.templates = templates
        self.events = events
        self.lock = lock
        self.clock = clock or Clock()
        self.rng = rng or random.Random()
        self.parallel = parallel
        self.budget = TimeBudget(
            state.config.time_budget_minutes, state.progress.elapsed_seconds, self.clock.now()
        )
        self.events.iteration = state.progress.iteration
        self.call_number = state.usage.agent_calls
        self.mutex = threading.RLock()
        self.cancelled = threading.Event()
        """Set when the run is interrupted: no further agent call starts or is counted."""
        self._saved_state: bytes | None = None

    def now(self) -> float:
        return self.clock.now()

    def now_remaining(self) -> float | None:
        return self.budget.remaining_minutes(self.clock.now())

    @property
    def token(self) -> str:
        return (
            (self.lock.token if self.lock else None) or self.state.progress.lock_token or "nolock"
        )

    def save(self) -> None:
        """Save the state, then the plan and the progress index rendered from it."""
        with self.mutex:
            state = self.state
            if not state.progress.is_complete:  # a finished session's time is final
                state.progress.elapsed_seconds = self.budget.elapsed(self.clock.now())
            state.progress.lock_token = self.lock.token if self.lock else None
            text = state.model_dump_json(indent=2) + "\n"
            atomic_write_text(self.paths.state_file, text)
            self._saved_state = text.encode("utf-8")
            self.events.snapshot = state.model_copy(deep=True)
            self.write_plan()
            self.write_progress_index()

    def restore_state_file(self) -> str | None:
        """Put `state.json` back as last saved if an agent deleted or changed it.

        Returns "deleted" or "changed" when it had to, else None.
        """
        with self.mutex:
            now = read_regular(self.paths.state_file)
            if self._saved_state is None:
                if now is not None and now != NOT_REGULAR:
                    self._saved_state = now
                return None
            if now == self._saved_state:
                return None
            put_back(self.paths.state_file, self._saved_state)
            return "deleted" if now is None else "changed"

    def write_plan(self) -> None:
        with self.mutex:
            write_if_changed(self.paths.plan_file, render_plan(self.state.plan))

    def write_progress_index(self) -> None:
        with self.mutex:
            state = self.state
            if state.progress.is_complete and not self.paths.progress_index.exists():
                return
            plan = state.plan
            total = sum(1 for t in plan.topics if t.status is not TopicStatus.SKIPPED)
            text = phases.progress_index_text(
                phases.read_text(self.paths.progress_index),
                iteration=state.progress.iteration,
                completed=plan.counts()[TopicStatus.COMPLETE],
                total=total,
            )
            write_if_changed(self.paths.progress_index, text)

    def new_log_path(self, phase: Phase) -> Path:
        """A log file of its own for the next call; numbers continue across resumed runs, and
        an existing log (such as an interrupted call's) is never overwritten."""
        with self.mutex:
            while True:
                self.call_number += 1
                path = self.paths.logs_dir / (
                    f"{self.state.progress.iteration:03d}-{phase.value}-{self.call_number:03d}.log"
                )
                if not path.exists():
                    return path

    def archive_files(self, *files: Path) -> None:
        """Archive files (if present) and remove them."""
        with self.mutex:
            for path in files:
                archive.archive_file(self.paths.archive_dir, path, self.token)
                path.unlink(missing_ok=True)

"""What every part of the engine shares during one run: the state, its files and the clock.

All changes to the state go through one lock (`RunContext.mutex`), so topic iterations
running on threads with several topics in flight never interleave a half-made change with
a save.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from research.agents.base import Agent, AgentCall, AgentResult
from research.core.budget import TimeBudget
from research.core.defaults import JudgeMode
from research.core.hosts import host_id
from research.engine.specs import SPECS
from research.model import artifacts as phases
from research.model.artifacts import NOT_REGULAR, read_regular
from research.model.mode import Mode
from research.model.plan import TopicStatus, render_plan
from research.model.state import STATE_COPY_NAME, Phase, RWRState
from research.prompts.templates import PromptTemplates
from research.prompts.text import progress_index_text
from research.workspace import archive
from research.workspace.events import EventLog
from research.workspace.fsutil import (
    atomic_write_bytes,
    atomic_write_text,
    is_real_dir,
    unlink_entry,
    write_if_changed,
)
from research.workspace.guard import Kept, WorkspaceGuard, WorkspaceTampered
from research.workspace.lock import SessionDirectoryGone, SessionLock
from research.workspace.paths import SessionPaths


def put_back(
    path: Path, data: bytes | None, move_aside: Callable[[Path], object] | None = None
) -> None:
    """Make `path` hold `data` again (or nothing), whatever an agent left there; a link
    is replaced, never written through; a directory is moved aside by `move_aside` (it is
    never deleted: without one, the write fails)."""
    if is_real_dir(path):
        if move_aside is not None:
            move_aside(path)
    elif os.path.lexists(path):
        unlink_entry(path)
    if data is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, data)


class Cancelled(BaseException):  # noqa: N818 - not an error: the run is stopping
    """Raised in a topic's thread when the run was interrupted: its call is abandoned
    unrecorded, so a resumed run makes it again."""


def _cannot_ask(_question: str) -> bool:
    return False


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
        ask: Callable[[str], bool] | None = None,
    ) -> None:
        self.state = state
        self.ask = ask or _cannot_ask
        """Asks the user a yes/no question at a terminal during the run; False when there is
        none to ask (or the answer is no); True at once with --yes."""
        self.paths = paths
        self.agent = agent
        self.templates = templates
        self.events = events
        self.lock = lock
        self.clock = clock or Clock()
        self.rng = rng or random.Random()
        self.mode = Mode(state.config.parallel)
        """Which files a topic's call may write: one topic in flight, or several."""
        self.budget = TimeBudget(
            state.config.time_budget_minutes,
            state.progress.elapsed_seconds,
            self.clock.now(),
            judge=state.config.verify_sources and state.config.judge is not JudgeMode.OFF,
        )
        self.events.iteration = state.progress.iteration
        self.call_number = state.usage.agent_calls
        self.mutex = threading.RLock()
        """Guards, with several topics in flight:
        - the state (`self.state`: plan, progress, usage, sources ledger) and every
          decision that reads it (stop rules, the next topic, verdicts, novelty);
        - the orchestrator's files rendered from it (state.json and its copy, the plan,
          the progress index, decisions.jsonl, verification.json) and the archive;
        - the call and log counters, and the workspace guard's checks and repairs.
        A thread holds it to read or change these, never while an agent runs or a page
        is fetched; re-entrant, so a step may call another that takes it."""
        self.cancelled = threading.Event()
        """Set when the run is interrupted: no further agent call starts or is counted."""
        self._saved_state: bytes | None = None
        self.written_index: str | None = None
        """The progress index as the orchestrator last wrote it (None: not yet)."""
        self.guard = WorkspaceGuard(
            paths, events, spare=self._topic_file_in_flight if self.mode.own_files else None
        )
        """Checks and repairs the session and report directories after each agent call."""
        with self.mutex:
            self.guard.check(None)  # what a killed run's agent may have left

    def now(self) -> float:
        return self.clock.now()

    def _topic_file_in_flight(self, path: Path) -> bool:
        """A topic's notes or verdict while several topics are researched at once: a link
        or FIFO there is left to the topic file guard (engine/topicfiles.py), which puts
        the file back as it was recorded instead of only removing what is there."""
        if self.state.progress.current_phase not in (Phase.RESEARCH, Phase.REVIEW):
            return False
        if path.parent == self.paths.progress_dir:
            slug = path.name.removesuffix(".md")
        elif path.parent == self.paths.session_dir / "review":
            slug = path.name.removesuffix(".accepted.md").removesuffix(".rejected.md")
        else:
            return False
        return any(topic.slug == slug for topic in self.state.plan.topics)

    def now_remaining(self) -> float | None:
        return self.budget.remaining_minutes(self.clock.now())

    @property
    def token(self) -> str:
        return (
            (self.lock.token if self.lock else None) or self.state.progress.lock_token or "nolock"
        )

    @property
    def owner(self) -> dict[str, object]:
        """Who writes: the host, the pid and the lock's generation (every phase event)."""
        lock = self.lock
        return {
            "host": lock.host if lock else host_id(),
            "pid": os.getpid(),
            "generation": lock.generation if lock else 0,
        }

    @property
    def state_copy(self) -> Path:
        return self.paths.session_dir / STATE_COPY_NAME

    def save(self) -> None:
        """Save the state (and its copy, which a resume falls back to when an agent left
        something else in place of state.json), then the plan and the progress index
        rendered from it. Nothing once the session directory was found swapped."""
        with self.mutex:
            if self.guard.frozen:
                return
            state = self.state
            if not state.progress.is_complete:  # a finished session's time is final
                state.progress.elapsed_seconds = self.budget.elapsed(self.clock.now())
            state.progress.lock_token = self.lock.token if self.lock else None
            state.progress.lock_generation = self.lock.generation if self.lock else 0
            text = state.model_dump_json(indent=2) + "\n"
            atomic_write_text(self.paths.state_file, text)
            # Not fsynced: only read when state.json is not a regular file.
            atomic_write_text(self.state_copy, text, durable=False)
            self._saved_state = text.encode("utf-8")
            self.events.snapshot = state.model_copy(deep=True)
            self.write_plan()
            self.write_progress_index()

    def restore_state_file(self) -> str | None:
        """Put `state.json` back as last saved if an agent deleted or changed it (and its
        copy, silently).

        Returns "deleted" or "changed" when it had to, else None.
        """
        with self.mutex:
            if self.guard.frozen:
                return None
            now = read_regular(self.paths.state_file)
            if self._saved_state is None:
                if now is not None and now != NOT_REGULAR:
                    self._saved_state = now
                return None
            if read_regular(self.state_copy) not in (None, self._saved_state):
                put_back(self.state_copy, self._saved_state, self.guard.move_aside)
            if now == self._saved_state:
                return None
            put_back(self.paths.state_file, self._saved_state, self.guard.move_aside)
            return "deleted" if now is None else "changed"

    def keep_files(self, phase: Phase, topic: str | None) -> Kept:
        """Before a call: what to put back if the agent removes or replaces it."""
        with self.mutex:
            may_write = SPECS[phase].may_write(self.paths, topic, self.mode)
            return self.guard.keep(may_write)

    def run_agent(
        self,
        call: AgentCall,
        phase: Phase,
        kept: Kept,
        taken: Callable[[], None] | None = None,
    ) -> AgentResult:
        """The agent call, then what it wrote taken from its scratch area (`taken`), then the
        workspace checks, before anything else reads or writes the session (a swapped
        session directory stops the run before a word more is written through it)."""
        try:
            result = self.agent.run(call)
            if taken is not None:
                taken()
        except (OSError, SessionDirectoryGone):
            # The call's log, or what it wrote, could not be written (the lock's fence refused
            # a session directory that is not the one locked): the guard says what happened.
            self.check_workspace(phase, kept)
            raise
        self.check_workspace(phase, kept)
        return result

    def check_workspace(self, phase: Phase, kept: Kept | None = None) -> None:
        """After a call: make the session and report directories safe again (see
        research/workspace/guard.py); raises WorkspaceTampered when the run must stop. A
        session directory the guard made again keeps the lock, so the state is saved there."""
        with self.mutex:
            try:
                self.guard.check(phase.value, kept)
            except WorkspaceTampered as exc:
                if exc.remade is not None and self.lock is not None:
                    self.lock.follow_directory(exc.remade)
                raise

    def write_plan(self) -> None:
        with self.mutex:
            if self.guard.frozen:
                return
            write_if_changed(self.paths.plan_file, render_plan(self.state.plan))

    def write_progress_index(self) -> None:
        with self.mutex:
            if self.guard.frozen:
                return
            state = self.state
            if state.progress.is_complete and not os.path.lexists(self.paths.progress_index):
                return
            plan = state.plan
            total = sum(1 for t in plan.topics if t.status is not TopicStatus.SKIPPED)
            # With several topics in flight no agent may edit it: build on our own text.
            own = self.mode.own_files and self.written_index is not None
            text = progress_index_text(
                self.written_index if own else phases.read_text(self.paths.progress_index),
                iteration=state.progress.iteration,
                completed=plan.counts()[TopicStatus.COMPLETE],
                total=total,
            )
            write_if_changed(self.paths.progress_index, text)
            self.written_index = text

    def new_log_path(self, phase: Phase) -> Path:
        """A log file of its own for the next call; numbers continue across resumed runs, and
        an existing log (such as an interrupted call's) is never overwritten."""
        with self.mutex:
            while True:
                self.call_number += 1
                path = self.paths.logs_dir / (
                    f"{self.state.progress.iteration:03d}-{phase.value}-{self.call_number:03d}.log"
                )
                if not os.path.lexists(path):
                    return path

    def archive_files(self, *files: Path) -> None:
        """Archive files (if present) and remove them: a regular file only once its bytes
        are archived (and only while it still holds them); a link, FIFO or other special
        file is unlinked (never followed or opened); a directory is moved aside."""
        with self.mutex:
            if self.guard.frozen:
                return
            for path in files:
                data = read_regular(path)
                if data is None:
                    continue
                if data == NOT_REGULAR:
                    put_back(path, None, self.guard.move_aside)
                    continue
                archive.archive_file(self.paths.archive_dir, path, self.token)
                archive.remove_if_unchanged(path, data)

"""One running server: it starts, queues and stops jobs. What it knows of the sessions and
their jobs is its `Roster` (roster.py), the polled views' bodies are `PolledBodies`
(polled.py), the event feeds a `FeedHub` (feeds.py)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from research.cluster.messages import JobMessage, child_args
from research.core.agentkind import AgentKind
from research.service.bodies import citations, synthesis
from research.service.children import Job, JobManager, QueueFull, is_research_process
from research.service.errors import ApiError
from research.service.feeds import FeedHub
from research.service.models import RunRequest, SynthesisResponse
from research.service.polled import PolledBodies
from research.service.request_checks import can_run, check_agent, request_job
from research.service.resuming import resume_job
from research.service.roster import Roster
from research.service.session_files import SessionStore, saved

if TYPE_CHECKING:
    from research.cluster.broker import QueueClient
    from research.service.queue_watch import QueueWatch
    from research.service.task_queue import TaskQueue

BODY_LIMIT = 64 * 1024
AGENTS_TTL = 60.0
"""Seconds the list of agents a server can start is kept (/healthz)."""


@dataclass
class ServiceConfig:
    root: Path
    max_jobs: int = 2
    max_queue: int = 8
    token: str | None = None
    """RESEARCH_API_TOKEN: when set, every endpoint but /healthz needs it."""
    agent_cmd: str | None = None
    """The server's --agent-cmd, given to every non-mock job."""
    resume_running: bool = False
    env: dict[str, str] | None = None
    poll_seconds: float = 0.1
    """How often a session's event feed looks for new lines (one feed per session, however
    many clients follow it), and the session list stream (GET /events, at most every 0.5 s)
    for changes."""
    heartbeat_seconds: float = 15.0
    body_limit: int = BODY_LIMIT
    cli: tuple[str, ...] = (sys.executable, "-m", "research")
    """The command that runs the CLI, before a job's arguments."""
    extra: dict[str, Any] = field(default_factory=dict)
    queue_url: str | None = None
    """With --queue URL, jobs go on the task queue for `research worker`s to run."""
    failover: float = 120.0


class Service:
    """One running server: the session store, the job manager and the roster of what runs,
    the event feeds and the polled bodies; it starts, queues and stops the jobs."""

    def __init__(self, config: ServiceConfig) -> None:
        self.config = config
        self.store = SessionStore(config.root, failover=config.failover)
        self.jobs = JobManager(
            config.root,
            max_jobs=config.max_jobs,
            max_queue=config.max_queue,
            env=config.env,
            cli=config.cli,
        )
        self.queue: QueueClient | None = None
        self._agents: tuple[float, list[str]] | None = None
        self.tasks: TaskQueue | None = None
        self.watch: QueueWatch | None = None
        if config.queue_url is not None:
            from research.cluster.broker import QueueClient
            from research.service.queue_watch import QueueWatch
            from research.service.task_queue import TaskQueue

            self.queue = QueueClient(config.queue_url, failover=config.failover)
            self.tasks = TaskQueue(self.queue, self.store)
            self.watch = QueueWatch(self.queue, config.root, touch=self.after_reading)
        self.roster = Roster(self.store, self.jobs, self.watch)
        self.polled = PolledBodies(self.roster)
        self.feeds = FeedHub(
            self.store.events_path,
            self.roster.running,
            self.roster.state,
            poll_seconds=config.poll_seconds,
            heartbeat_seconds=config.heartbeat_seconds,
        )

    def after_reading(self) -> None:
        """After each reading of the queue: time other hosts' locks, and with
        --resume-running send lost jobs again."""
        assert self.tasks is not None
        self.tasks.look_at_locks()
        if self.config.resume_running:
            self.tasks.send_lost_again(self.roster, self.resume)

    def agents_available(self) -> list[str]:
        """The agents this server can start (with --queue: every one, the workers check
        theirs), looked up at most once a minute."""
        now = time.monotonic()
        if self._agents is None or now - self._agents[0] > AGENTS_TTL:
            names = [
                kind.value
                for kind in AgentKind
                if self.queue is not None or can_run(self.config.root, self.config.agent_cmd, kind)
            ]
            self._agents = (now, names)
        return self._agents[1]

    def new_run(self, request: RunRequest) -> Job:
        """Validate as the CLI does, then start (or queue) `research TOPIC --name …`."""
        from research.core.names import slugify

        name = request.name if request.name is not None else slugify(request.task, max_length=64)
        self.roster.name(name)
        job, warnings = request_job(request, name, self.config.root)
        on_queue = self.tasks is not None and self.tasks.holds(name)
        if self.roster.running(name) or saved(self.store.paths(name)) or on_queue:
            raise ApiError(
                409,
                "name_taken",
                f"a session named {name!r} already exists; "
                f"resume it with POST /runs/{name}/resume, or choose another name",
            )
        if self.queue is not None:  # the workers check their agent
            started = self.enqueue(job)
        else:
            check_agent(self.config.root, self.config.agent_cmd, job.agent)
            started = self.submit(name, child_args(job, self.config.root, self.config.agent_cmd))
        started.topic = request.task
        started.warnings = warnings
        return started

    def submit(self, name: str, args: list[str]) -> Job:
        try:
            return self.jobs.submit(name, args)
        except QueueFull as exc:
            raise ApiError(429, "too_many_jobs", str(exc), retryable=True) from None

    def enqueue(self, job: JobMessage) -> Job:
        """Put `job` on the task queue (--queue); a retryable 503 when Redis is down."""
        assert self.tasks is not None
        return self.tasks.send(job, self.roster)

    async def wait_for_end(self, name: str) -> None:
        """Wait until a queued job's session is complete (or failed for good: 502)."""
        while True:
            snap = self.store.snapshot(name)
            if snap.complete or (snap.state is not None and snap.state.progress.awaiting_approval):
                return
            end = snap.last_run_end
            if (
                self.roster.job(name) is None
                and not snap.locked
                and end
                and end.get("outcome") == "failed"
            ):
                message = str(end.get("error") or "the run failed")
                raise ApiError(
                    502,
                    "run_failed",
                    f"{message} (resume it with POST /runs/{name}/resume)",
                    retryable=True,
                )
            await asyncio.sleep(0.5)

    def awaiting_approval(self, name: str) -> bool:
        """Whether the session stopped after its plan for the user's approval."""
        state = self.store.snapshot(name).state
        return state is not None and state.progress.awaiting_approval

    def resume(self, name: str) -> Job:
        """POST /runs/{name}/resume (service/resuming.py)."""
        return resume_job(self, name)

    def stop(self, name: str) -> str:
        snap = self.roster.snapshot(name)
        if self.jobs.cancel_queued(name):
            return "cancelled"
        if self.jobs.signal_job(name, signal.SIGTERM):
            return "stopping"
        if (
            snap is not None
            and snap.locked
            and snap.lock_pid is not None
            and is_research_process(snap.lock_pid, self.config.root)
        ):
            try:
                os.kill(snap.lock_pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            return "stopping"
        if self.tasks is not None:
            return self.tasks.stop(name, snap, self.roster)
        if snap is not None and snap.locked:
            raise ApiError(
                409,
                "locked",
                f"session {name!r} is held by another process "
                f"({snap.lock.detail}); it cannot be stopped from here",
            )
        raise ApiError(409, "not_running", f"session {name!r} is not running")

    def result(self, name: str) -> SynthesisResponse | None:
        snap = self.store.snapshot(name)
        report = self.store.report(name)
        if snap.state is None or report is None or not snap.complete:
            return None
        cites = citations(
            self.store.sources(name), self.store.cited_ids(name), self.store.verification(name)
        )
        return synthesis(snap.state, report, cites, self.store.report_mtime(name))

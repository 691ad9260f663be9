"""The state of one running server: its session store, its jobs, its event feeds, and the
cached response bodies of the views that are polled most (GET /runs/{name}, GET /runs)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from research.cluster.messages import JobMessage
from research.core.agentkind import DEFAULT_AGENT, AgentKind, agent_args
from research.core.errors import INTERRUPTED_CODES, AgentUnavailable, ExitCode, UsageError
from research.core.options import command_line, from_request, iteration_floor_problem
from research.service.bodies import citations, detail, job_state, summary, synthesis
from research.service.children import Job, JobManager, QueueFull, is_research_process
from research.service.errors import ApiError
from research.service.feeds import FeedHub
from research.service.models import RunRequest, SynthesisResponse
from research.service.session_files import SessionStore, Snapshot

if TYPE_CHECKING:
    from research.cluster.broker import QueueClient

BODY_LIMIT = 64 * 1024


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


JobKey = tuple[str, int | None, str | None] | None


def job_key(job: Job | None) -> JobKey:
    """What of a job the views show: equal keys, equal views."""
    return None if job is None else (job.state, job.exit_code, job.message)


def queued_job(name: str, request: RunRequest) -> JobMessage:
    """The task-queue job of a request the CLI's checks accepted (`Service.run_options`)."""
    fields = request.model_dump(exclude_none=True)
    if "time" in fields:
        fields["time"] = str(fields["time"])
    fields.update(name=name, agent=request.agent or DEFAULT_AGENT)
    return JobMessage.model_validate(fields)


class Service:
    """The state of one running server: the session store, the job manager, the event
    feeds, and the last body of each polled view with the key it was built for."""

    def __init__(self, config: ServiceConfig) -> None:
        self.config = config
        self.store = SessionStore(config.root)
        self.jobs = JobManager(
            config.root,
            max_jobs=config.max_jobs,
            max_queue=config.max_queue,
            env=config.env,
            cli=config.cli,
        )
        self.feeds = FeedHub(
            self.store.events_path,
            self.running,
            lambda name: job_state(self.store.snapshot(name), self.job(name)),
            poll_seconds=config.poll_seconds,
            heartbeat_seconds=config.heartbeat_seconds,
        )
        self.queue: QueueClient | None = None
        if config.queue_url is not None:
            from research.cluster.broker import QueueClient

            self.queue = QueueClient(config.queue_url, failover=config.failover)
        self.enqueued: dict[str, tuple[Job, tuple[object, ...]]] = {}
        """Jobs this server put on the queue, shown as queued until a worker starts them."""
        self._details: dict[str, tuple[object, bytes]] = {}
        self._summaries: dict[str, tuple[object, bytes]] = {}
        self._listing: tuple[float, bytes] = (0.0, b"")

    # --- lookups ------------------------------------------------------------------------

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

    # --- cached views: rebuilt only when what they show has changed ---------------------------

    def detail_body(self, name: str) -> bytes:
        """GET /runs/{name}'s JSON body."""
        return self._view(self._details, detail, name, self.snapshot(name))

    def summary_body(self, name: str) -> bytes:
        snap = self.store.snapshot(name) if self.store.has_state(name) else None
        return self._view(self._summaries, summary, name, snap)

    def _view(
        self,
        cache: dict[str, tuple[object, bytes]],
        view: Callable[[str, Snapshot | None, Job | None], BaseModel],
        name: str,
        snap: Snapshot | None,
    ) -> bytes:
        """`view`'s JSON body, rebuilt only when the session's files or its job changed."""
        job = self.job(name)
        key = (snap.key if snap is not None else None, job_key(job))
        cached = cache.get(name)
        if cached is not None and cached[0] == key:
            return cached[1]
        body = view(name, snap, job).model_dump_json().encode()
        cache[name] = (key, body)
        return body

    def runs_body(self) -> bytes:
        """GET /runs's JSON body (a RunList)."""
        names = self.all_names()
        for gone in set(self._summaries) - set(names):
            del self._summaries[gone]
        return b'{"runs":[' + b",".join(self.summary_body(name) for name in names) + b"]}"

    def shared_runs_body(self, max_age: float) -> bytes:
        """GET /runs's body, computed at most once per `max_age` seconds for all the clients
        of the session list stream."""
        taken, body = self._listing
        now = time.monotonic()
        if not body or now - taken >= max_age:
            body = self.runs_body()
            self._listing = (now, body)
        return body

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

    # --- starting jobs ------------------------------------------------------------------

    def check_agent(self, mock: bool) -> None:
        """503 when the agent's executable is missing (the CLI's own check)."""
        if mock:
            return
        from research.core.settings import Settings
        from research.session.run import build_agent

        try:
            build_agent(
                Settings.model_validate(
                    {"root": self.config.root, "name": "check", "agent_cmd": self.config.agent_cmd}
                )
            )
        except AgentUnavailable as exc:
            raise ApiError(503, "agent_unavailable", str(exc), retryable=True) from None
        except UsageError as exc:
            raise ApiError(503, "agent_unavailable", str(exc)) from None

    def new_run(self, request: RunRequest) -> Job:
        """Validate as the CLI does, then start (or queue) `research TOPIC --name …`."""
        from research.core.names import slugify

        name = request.name if request.name is not None else slugify(request.task, max_length=64)
        self.name(name)
        values = self.run_options(request, name)
        if self.running(name) or self.store.exists(name):
            raise ApiError(
                409,
                "name_taken",
                f"a session named {name!r} already exists; "
                f"resume it with POST /runs/{name}/resume, or choose another name",
            )
        kind = request.agent or DEFAULT_AGENT
        mock = kind is AgentKind.MOCK
        if self.queue is not None:  # the workers check their agent
            return self.enqueue(queued_job(name, request))
        self.check_agent(mock)
        args = [
            request.task,
            "--name",
            name,
            "--yes",
            "--quiet",
            *agent_args(kind, self.config.agent_cmd),
        ]
        job = self.submit(name, args + command_line(values))
        job.topic = request.task
        return job

    def local_sources_allowed(self) -> bool:
        """Whether this research.py can read local documents (--sources)."""
        from research.core.settings import Settings

        return "source_dirs" in Settings.model_fields

    def run_options(self, request: RunRequest, name: str) -> dict[str, object]:
        """The request's options by option name, checked as the CLI checks them (a 422 names
        the request's field); its source folders resolved inside the working directory."""
        from research.core.settings import Settings

        fields = request.model_dump(exclude_none=True)
        try:
            values = from_request(fields)
        except ValueError as exc:
            raise ApiError(422, "validation_error", str(exc)) from None
        try:
            Settings.model_validate(
                {"root": self.config.root, "name": name, "topic": request.task, **values}
            )
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise ApiError(422, "validation_error", f"{where}: {first['msg']}") from None
        if not request.task.strip():
            raise ApiError(422, "validation_error", "task: give the research question")
        problem = iteration_floor_problem(values)
        if problem is not None:
            raise ApiError(422, "validation_error", f"max_iterations: {problem}")
        if "source_dirs" in values:
            values["source_dirs"] = self.request_folders(request.sources or [])
        return values

    def request_folders(self, sources: list[str]) -> list[Path]:
        """Each folder asked for: a folder inside the working directory (relative paths are
        taken from there; `..` and symbolic links may not lead out)."""
        root = self.config.root.resolve()
        folders: list[Path] = []
        for given in sources:
            if not given.strip() or "\x00" in given:
                raise ApiError(422, "validation_error", "sources: give a folder's path")
            folder = (root / given).resolve()
            if not folder.is_relative_to(root):
                raise ApiError(
                    422, "validation_error", f"sources: {given!r} is outside the working directory"
                )
            if not folder.is_dir():
                raise ApiError(422, "validation_error", f"sources: {given!r} is not a folder")
            folders.append(folder)
        return folders

    def submit(self, name: str, args: list[str]) -> Job:
        try:
            return self.jobs.submit(name, args)
        except QueueFull as exc:
            raise ApiError(429, "too_many_jobs", str(exc), retryable=True) from None

    def enqueue(self, job: JobMessage) -> Job:
        """Put `job` on the task queue (--queue); a retryable 503 when Redis is down."""
        from research.cluster.broker import QueueUnavailable

        assert self.queue is not None
        try:
            self.queue.send(job)
        except QueueUnavailable as exc:
            raise ApiError(503, "queue_unavailable", str(exc), retryable=True) from None
        placeholder = Job(name=job.name, argv=[], state="queued")
        self.enqueued[job.name] = (placeholder, self.store.snapshot(job.name).key)
        return placeholder

    async def wait_for_end(self, name: str) -> None:
        """Wait until a queued job's session is complete (or failed for good: 502)."""
        while True:
            snap = self.store.snapshot(name)
            if snap.complete:
                return
            end = snap.last_run_end
            if (
                self.job(name) is None
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

    def resume(self, name: str) -> Job:
        snap = self.snapshot(name)
        if self.running(name) or (snap is not None and snap.locked):
            raise ApiError(
                409,
                "locked",
                f"session {name!r} is running"
                + (f" ({snap.lock.detail})" if snap and snap.locked else ""),
                retryable=True,
            )
        if snap is None or snap.state is None:
            reason = snap.error if snap is not None and snap.error else "it has no saved state"
            raise ApiError(409, "not_resumable", f"session {name!r} cannot be resumed: {reason}")
        if snap.complete:
            raise ApiError(409, "already_complete", f"session {name!r} is complete")
        mock = snap.state.config.mock_mode and snap.state.config.agent == AgentKind.MOCK
        kind = AgentKind.MOCK if mock else DEFAULT_AGENT
        if self.queue is not None:
            job = {"name": name, "agent": kind}
            return self.enqueue(JobMessage.model_validate(job))
        self.check_agent(mock)
        agent = agent_args(kind, self.config.agent_cmd)
        return self.submit(name, ["--resume", "--name", name, "--yes", "--quiet", *agent])

    def resumable(self) -> list[str]:
        """Sessions that were running when the server stopped: not complete, not locked."""
        names = []
        for name in self.store.names():
            snap = self.store.snapshot(name)
            if snap.state is not None and not snap.complete and not snap.locked:
                names.append(name)
        return names

    def stop(self, name: str) -> str:
        snap = self.snapshot(name)
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
        if self.queue is not None and (name in self.enqueued or (snap is not None and snap.locked)):
            return self.stop_queued(name)
        if snap is not None and snap.locked:
            raise ApiError(
                409,
                "locked",
                f"session {name!r} is held by another process "
                f"({snap.lock.detail}); it cannot be stopped from here",
            )
        raise ApiError(409, "not_running", f"session {name!r} is not running")

    def stop_queued(self, name: str) -> str:
        """Ask whichever worker runs (or will start) the job to stop it."""
        from research.cluster.broker import QueueUnavailable

        assert self.queue is not None
        try:
            self.queue.stop(name)
        except QueueUnavailable as exc:
            raise ApiError(503, "queue_unavailable", str(exc), retryable=True) from None
        self.enqueued.pop(name, None)
        return "stopping"

    def result(self, name: str) -> SynthesisResponse | None:
        snap = self.store.snapshot(name)
        report = self.store.report(name)
        if snap.state is None or report is None or not snap.complete:
            return None
        cites = citations(
            self.store.sources(name), self.store.cited_ids(name), self.store.verification(name)
        )
        return synthesis(snap.state, report, cites, self.store.report_mtime(name))

    def report_not_ready(self, name: str, why: str) -> ApiError:
        """404 for a report that is not there: worth asking again only while the session
        is queued or running (a failed or stopped one writes nothing until resumed)."""
        snap = self.store.snapshot(name)
        state = job_state(snap if snap.has_state else None, self.job(name))
        pending = state in ("queued", "running")
        hint = "" if pending else f" and is {state}; resume it with POST /runs/{name}/resume"
        return ApiError(404, "report_not_ready", f"session {name!r} {why}{hint}", pending)

    def failure(self, job: Job) -> ApiError:
        code = job.exit_code
        message = job.message or f"the job ended with exit code {code}"
        if code == ExitCode.LOCKED:
            return ApiError(409, "locked", message, retryable=True)
        if code == ExitCode.USAGE:
            return ApiError(422, "validation_error", message)
        if code in INTERRUPTED_CODES:
            return ApiError(
                409,
                "interrupted",
                f"the job was stopped; resume it with POST /runs/{job.name}/resume",
                retryable=True,
            )
        return ApiError(
            502,
            "run_failed",
            f"{message} (resume it with POST /runs/{job.name}/resume)",
            retryable=True,
        )

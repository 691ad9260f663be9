"""The HTTP API: research as jobs (seed 002's `/run`), run views, events, metrics, the page."""

from __future__ import annotations

import asyncio
import hmac
import json
import signal
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
    StreamingResponse,
)
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from research import __version__
from research.errors import AgentUnavailable, UsageError
from research.service.jobs import Job, JobManager, QueueFull, is_research_process
from research.service.models import (
    ErrorResponse,
    JobAccepted,
    RunDetail,
    RunList,
    RunRequest,
    SynthesisResponse,
)
from research.service.sessions import SessionStore, Snapshot
from research.service.views import citations, detail, job_state, summary, synthesis

BODY_LIMIT = 64 * 1024
EXIT_USAGE, EXIT_LOCKED = 2, 3
INTERRUPTED = {130, 143}


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
    poll_seconds: float = 0.2
    heartbeat_seconds: float = 15.0
    body_limit: int = BODY_LIMIT
    extra: dict[str, Any] = field(default_factory=dict)


class ApiError(Exception):
    def __init__(self, status: int, kind: str, message: str, retryable: bool = False) -> None:
        super().__init__(message)
        self.status, self.kind, self.message, self.retryable = status, kind, message, retryable


def error_response(
    status: int,
    kind: str,
    message: str,
    retryable: bool = False,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    body = {"error": {"type": kind, "message": message, "retryable": retryable}}
    return JSONResponse(body, status_code=status, headers=headers)


ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorResponse, "description": text}
    for code, text in {
        400: "Bad input (an invalid name, malformed JSON)",
        401: "Missing or wrong bearer token",
        404: "Unknown session",
        409: "Session locked, running, or name taken",
        413: "Request body too large",
        422: "Invalid options",
        429: "Too many jobs running and the queue is full",
        503: "The agent's executable is missing",
    }.items()
}


class Guard:
    """Pure ASGI middleware: the bearer token, and a cap on request bodies."""

    def __init__(self, app: ASGIApp, token: str | None, body_limit: int) -> None:
        self.app, self.token, self.body_limit = app, token, body_limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.token is not None and scope["path"] != "/healthz" and not self._authorized(scope):
            response = error_response(
                401,
                "unauthorized",
                "a valid bearer token is required (Authorization: Bearer $RESEARCH_API_TOKEN)",
                headers={"WWW-Authenticate": "Bearer"},
            )
            await response(scope, receive, send)
            return
        headers = dict(scope["headers"])
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.body_limit):
            response = error_response(
                413, "payload_too_large", f"request bodies are limited to {self.body_limit} bytes"
            )
            await response(scope, receive, send)
            return
        received = 0
        limit = self.body_limit

        async def capped() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise ApiError(
                        413, "payload_too_large", f"request bodies are limited to {limit} bytes"
                    )
            return message

        await self.app(scope, capped, send)

    def _authorized(self, scope: Scope) -> bool:
        assert self.token is not None
        given = ""
        for key, value in scope["headers"]:
            if key == b"authorization":
                text = value.decode("latin-1")
                if text.lower().startswith("bearer "):
                    given = text[7:].strip()
        if not given:  # EventSource and a page link cannot send headers
            from urllib.parse import parse_qs

            query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            given = (query.get("token") or [""])[0]
        return hmac.compare_digest(given.encode(), self.token.encode())


class Service:
    """The state of one running server: the session store and the job manager."""

    def __init__(self, config: ServiceConfig) -> None:
        self.config = config
        self.store = SessionStore(config.root)
        self.jobs = JobManager(
            config.root, max_jobs=config.max_jobs, max_queue=config.max_queue, env=config.env
        )

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
        job = self.jobs.jobs.get(name)
        if not self.store.has_state(name) and job is None:
            raise ApiError(404, "not_found", f"no research session named {name!r}")
        snap = self.store.snapshot(name)
        return snap if snap.state is not None or snap.error else None

    def all_names(self) -> list[str]:
        names = set(self.store.names()) | set(self.jobs.jobs)
        return sorted(names)

    def rows(self) -> list[tuple[Snapshot | None, str]]:
        out: list[tuple[Snapshot | None, str]] = []
        for name in self.all_names():
            snap = self.store.snapshot(name) if self.store.has_state(name) else None
            out.append((snap, job_state(snap, self.jobs.jobs.get(name))))
        return out

    # --- starting jobs ------------------------------------------------------------------

    def agent_args(self, mock: bool) -> list[str]:
        if mock:
            return ["--agent", "mock"]
        if self.config.agent_cmd:
            return ["--agent-cmd", self.config.agent_cmd]
        return ["--agent", "opencode"]

    def check_agent(self, mock: bool) -> None:
        """503 when the agent's executable is missing (the CLI's own check)."""
        if mock:
            return
        from research.session import build_agent
        from research.settings import Settings

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
        from research.budget import parse_time_budget
        from research.plan import slugify
        from research.settings import Settings

        name = request.name if request.name is not None else slugify(request.task, max_length=64)
        self.name(name)
        budget: float | None = None
        if request.time is not None:
            try:
                budget = parse_time_budget(str(request.time))
            except ValueError as exc:
                raise ApiError(422, "validation_error", f"time: {exc}") from None
        given = {
            key: value
            for key, value in {
                "breadth": request.breadth,
                "depth": request.depth,
                "max_iterations": request.max_iterations,
                "model": request.model,
                "review_model": request.review_model,
                "parallel": request.parallel,
            }.items()
            if value is not None
        }
        mock = request.agent == "mock"
        try:
            Settings.model_validate(
                {
                    "root": self.config.root,
                    "name": name,
                    "topic": request.task,
                    "time_budget_minutes": budget,
                    "mock_mode": mock,
                    **given,
                }
            )
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise ApiError(422, "validation_error", f"{where}: {first['msg']}") from None
        if not request.task.strip():
            raise ApiError(422, "validation_error", "task: give the research question")
        if self.jobs.active(name) is not None or self.store.exists(name):
            raise ApiError(
                409,
                "name_taken",
                f"a session named {name!r} already exists; "
                "resume it with POST /runs/{name}/resume, or choose another name",
            )
        self.check_agent(mock)
        args = [request.task, "--name", name, "--yes", "--quiet", *self.agent_args(mock)]
        for key, value in given.items():
            args += [f"--{key.replace('_', '-')}", str(value)]
        if request.time is not None:
            args += ["--time", str(request.time)]
        if request.sources:
            raise ApiError(
                422,
                "validation_error",
                "sources: this version of research.py has no local sources option",
            )
        return self.submit(name, args)

    def submit(self, name: str, args: list[str]) -> Job:
        try:
            return self.jobs.submit(name, self.jobs.command(*args))
        except QueueFull as exc:
            raise ApiError(429, "too_many_jobs", str(exc), retryable=True) from None

    def resume(self, name: str) -> Job:
        snap = self.snapshot(name)
        if self.jobs.active(name) is not None or (snap is not None and snap.locked):
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
        mock = snap.state.config.mock_mode and snap.state.config.agent == "mock"
        self.check_agent(mock)
        return self.submit(
            name, ["--resume", "--name", name, "--yes", "--quiet", *self.agent_args(mock)]
        )

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
            import os

            try:
                os.kill(snap.lock_pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            return "stopping"
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

    def failure(self, job: Job) -> ApiError:
        code = job.exit_code
        message = job.message or f"the job ended with exit code {code}"
        if code == EXIT_LOCKED:
            return ApiError(409, "locked", message, retryable=True)
        if code == EXIT_USAGE:
            return ApiError(422, "validation_error", message)
        if code in INTERRUPTED:
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


def page_html() -> str:
    return (resources.files("research.service") / "static" / "index.html").read_text("utf-8")


def create_app(config: ServiceConfig) -> FastAPI:
    service = Service(config)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if config.resume_running:
            for name in service.resumable():
                try:
                    service.resume(name)
                except ApiError:
                    continue
        yield
        await service.jobs.shutdown()

    app = FastAPI(
        title="research.py service",
        version=__version__,
        description="Research as jobs over HTTP: each job is one `research` session, run as a "
        "child process in the working directory. Errors are `{error: {type, message, "
        "retryable}}`.",
        lifespan=lifespan,
        responses=ERRORS,
    )
    app.state.service = service

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> Response:
        return error_response(exc.status, exc.kind, exc.message, exc.retryable)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        errors = exc.errors()
        first = errors[0] if errors else {"loc": (), "msg": "invalid request"}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
        message = f"{where}: {first.get('msg')}" if where else str(first.get("msg"))
        if first.get("type") == "json_invalid":
            return error_response(400, "bad_request", f"the body is not valid JSON ({message})")
        return error_response(422, "validation_error", message)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        kinds = {404: "not_found", 405: "method_not_allowed"}
        return error_response(
            exc.status_code, kinds.get(exc.status_code, "http_error"), str(exc.detail)
        )

    @app.exception_handler(Exception)
    async def internal(request: Request, exc: Exception) -> Response:
        return error_response(500, "internal_error", f"internal error: {exc!r}", True)

    app.add_middleware(Guard, token=config.token, body_limit=config.body_limit)

    @app.get("/healthz", tags=["service"])
    async def healthz() -> dict[str, object]:
        return {
            "status": "ok",
            "version": __version__,
            "running": len(service.jobs.running()),
            "queued": len(service.jobs.queue),
        }

    @app.post(
        "/run",
        tags=["jobs"],
        status_code=200,
        response_model=SynthesisResponse,
        responses={
            202: {"model": JobAccepted, "description": "Accepted (async=true)"},
            502: {"model": ErrorResponse, "description": "The run failed"},
        },
    )
    async def run(
        body: RunRequest,
        async_: bool = Query(False, alias="async", description="Answer 202 with a job id at once."),
    ) -> Response:
        """Start a research session; wait for its report, or (async=true) answer at once."""
        job = service.new_run(body)
        if async_:
            accepted = JobAccepted(
                job_id=job.name,
                name=job.name,
                status="queued" if job.state == "queued" else "running",
                status_url=f"/runs/{job.name}",
            )
            return JSONResponse(
                accepted.model_dump(), status_code=202, headers={"Location": accepted.status_url}
            )
        await job.ended.wait()
        result = service.result(job.name)
        if result is None:
            raise service.failure(job)
        return JSONResponse(result.model_dump())

    @app.get("/runs", tags=["runs"], response_model=RunList)
    async def runs() -> RunList:
        """Every session of the working directory, with its job state."""
        items = []
        for name in service.all_names():
            snap = service.store.snapshot(name) if service.store.has_state(name) else None
            items.append(summary(name, snap, service.jobs.jobs.get(name)))
        return RunList(runs=items)

    @app.get("/runs/{name}", tags=["runs"], response_model=RunDetail)
    async def run_detail(name: str) -> RunDetail:
        """Phase, iteration, topic tree, last decision, time, calls, tokens, cost, lock."""
        snap = service.snapshot(name)
        return detail(name, snap, service.jobs.jobs.get(name))

    @app.get(
        "/runs/{name}/report",
        tags=["runs"],
        responses={
            200: {
                "content": {
                    "text/markdown": {},
                    "application/json": {"schema": SynthesisResponse.model_json_schema()},
                }
            }
        },
    )
    async def run_report(name: str, request: Request) -> Response:
        """The report: Markdown, or the SynthesisResponse with `Accept: application/json`."""
        service.snapshot(name)
        text = service.store.report(name)
        if text is None:
            raise ApiError(
                404, "report_not_ready", f"session {name!r} has no report yet", retryable=True
            )
        if "application/json" in request.headers.get("accept", ""):
            result = service.result(name)
            if result is None:
                raise ApiError(
                    404, "report_not_ready", f"session {name!r} is not complete", retryable=True
                )
            return JSONResponse(result.model_dump())
        return PlainTextResponse(text, media_type="text/markdown; charset=utf-8")

    @app.get(
        "/runs/{name}/events",
        tags=["runs"],
        responses={200: {"content": {"text/event-stream": {}}}},
    )
    async def run_events(
        name: str,
        request: Request,
        offset: int = Query(0, ge=0, description="Byte offset to start at."),
    ) -> Response:
        """Server-Sent Events following events.jsonl live; each id is a byte offset, so a
        reconnect (Last-Event-ID) goes on where it left off. Ends with `event: end` once the
        session is not running."""
        service.snapshot(name)
        last = request.headers.get("last-event-id", "")
        start = int(last) if last.isdigit() else offset
        return StreamingResponse(
            follow(service, name, start, request.is_disconnected),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    @app.get("/events", tags=["runs"], responses={200: {"content": {"text/event-stream": {}}}})
    async def all_events(request: Request) -> Response:
        """Server-Sent Events: `event: runs` with GET /runs's body whenever it changes."""
        return StreamingResponse(
            watch_runs(service, request.is_disconnected),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache"},
        )

    @app.post("/runs/{name}/resume", tags=["jobs"], status_code=202, response_model=JobAccepted)
    async def resume(name: str) -> JSONResponse:
        """Continue a stopped or failed session (the CLI's --resume)."""
        job = service.resume(name)
        accepted = JobAccepted(
            job_id=name,
            name=name,
            status="queued" if job.state == "queued" else "running",
            status_url=f"/runs/{name}",
        )
        return JSONResponse(accepted.model_dump(), status_code=202)

    @app.delete("/runs/{name}", tags=["jobs"], status_code=202)
    async def stop(name: str) -> JSONResponse:
        """Stop the job gracefully (SIGTERM); its state is saved and it stays resumable."""
        outcome = service.stop(name)
        return JSONResponse({"name": name, "status": outcome}, status_code=202)

    @app.get("/metrics", tags=["service"], response_class=PlainTextResponse)
    async def metrics() -> Response:
        """Prometheus metrics, computed from the session files."""
        from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

        from research.service.metrics import SessionCollector

        registry = CollectorRegistry()
        registry.register(SessionCollector(service.rows))
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)

    @app.get("/", include_in_schema=False)
    async def page() -> HTMLResponse:
        return HTMLResponse(
            page_html(),
            headers={
                "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; "
                "script-src 'self' 'unsafe-inline'; img-src 'self' data:"
            },
        )

    return app


async def follow(
    service: Service, name: str, offset: int, disconnected: Callable[[], Awaitable[bool]]
) -> AsyncIterator[bytes]:
    config = service.config
    yield b"retry: 1000\n\n"
    last_beat = time.monotonic()
    while True:
        events, offset = service.store.read_events_from(name, offset)
        for end, event in events:
            yield f"id: {end}\ndata: {event}\n\n".encode()
        if events:
            continue
        if service.jobs.active(name) is None and not service.store.locked(name):
            events, offset = service.store.read_events_from(name, offset)
            for end, event in events:
                yield f"id: {end}\ndata: {event}\n\n".encode()
            final = job_state(service.store.snapshot(name), service.jobs.jobs.get(name))
            yield f"id: {offset}\nevent: end\ndata: {json.dumps({'state': final})}\n\n".encode()
            return
        if await disconnected():
            return
        if time.monotonic() - last_beat > config.heartbeat_seconds:
            last_beat = time.monotonic()
            yield b": keep-alive\n\n"
        await asyncio.sleep(config.poll_seconds)


async def watch_runs(
    service: Service, disconnected: Callable[[], Awaitable[bool]]
) -> AsyncIterator[bytes]:
    previous = ""
    last_beat = time.monotonic()
    yield b"retry: 1000\n\n"
    while not await disconnected():
        items = []
        for name in service.all_names():
            snap = service.store.snapshot(name) if service.store.has_state(name) else None
            items.append(summary(name, snap, service.jobs.jobs.get(name)))
        body = RunList(runs=items).model_dump_json()
        if body != previous:
            previous = body
            yield f"event: runs\ndata: {body}\n\n".encode()
        elif time.monotonic() - last_beat > service.config.heartbeat_seconds:
            last_beat = time.monotonic()
            yield b": keep-alive\n\n"
        await asyncio.sleep(max(service.config.poll_seconds, 0.5))

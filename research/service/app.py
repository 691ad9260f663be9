"""The HTTP API: research as jobs (seed 002's `/run`), run views, events, metrics, the page.

The routes only translate: `Service` (service.py) holds the store, the jobs and the event
feeds; errors are ApiError (errors.py); the token and the body cap are the Guard (guard.py).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
    StreamingResponse,
)
from starlette.exceptions import HTTPException as StarletteHTTPException

from research import __version__
from research.service.errors import ERRORS, ApiError, error_response
from research.service.middleware import Guard
from research.service.models import (
    ErrorResponse,
    JobAccepted,
    RunDetail,
    RunList,
    RunRequest,
    SynthesisResponse,
)
from research.service.service import Service, ServiceConfig

__all__ = ["ApiError", "Service", "ServiceConfig", "create_app"]

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


class JSONBytes(Response):
    """A JSON body already encoded (a cached view)."""

    media_type = "application/json"


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
        await service.feeds.close()
        await service.jobs.shutdown()

    app = FastAPI(
        title="research.py service",
        version=__version__,
        description="Research as jobs over HTTP: each job is one `research` session, run as a "
        "child process in the working directory. Errors are `{error: {type, message, "
        "retryable}}`.",
        lifespan=lifespan,
        responses=ERRORS,
        # Swagger UI and ReDoc load their scripts from a CDN: offline they are blank pages,
        # and the service must not reach the network for them. /openapi.json stays.
        docs_url=None,
        redoc_url=None,
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
    async def runs() -> Response:
        """Every session of the working directory, with its job state."""
        return JSONBytes(service.runs_body())

    @app.get("/runs/{name}", tags=["runs"], response_model=RunDetail)
    async def run_detail(name: str) -> Response:
        """Phase, iteration, topic tree, last decision, time, calls, tokens, cost, lock."""
        return JSONBytes(service.detail_body(name))

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
            raise service.report_not_ready(name, "has no report yet")
        if "application/json" in request.headers.get("accept", ""):
            result = service.result(name)
            if result is None:
                raise service.report_not_ready(name, "is not complete")
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
            service.feeds.follow(name, start), media_type="text/event-stream", headers=SSE_HEADERS
        )

    @app.get("/events", tags=["runs"], responses={200: {"content": {"text/event-stream": {}}}})
    async def all_events() -> Response:
        """Server-Sent Events: `event: runs` with GET /runs's body whenever it changes."""
        return StreamingResponse(
            watch_runs(service), media_type="text/event-stream", headers=SSE_HEADERS
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


async def watch_runs(service: Service) -> AsyncIterator[bytes]:
    """The session list stream. Every client compares the same body, computed once per
    interval for all of them. (Starlette ends the stream when the client goes away.)"""
    interval = max(service.config.poll_seconds, 0.5)
    previous = b""
    last_beat = time.monotonic()
    yield b"retry: 1000\n\n"
    while True:
        body = service.shared_runs_body(max_age=interval)
        if body != previous:
            previous = body
            yield b"event: runs\ndata: " + body + b"\n\n"
        elif time.monotonic() - last_beat > service.config.heartbeat_seconds:
            last_beat = time.monotonic()
            yield b": keep-alive\n\n"
        await asyncio.sleep(interval)

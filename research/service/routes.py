"""The API's routes, one router per concern: the service itself, jobs, and run views.

Each router is built around one `Service` and only translates between HTTP and it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterable
from html import escape
from importlib import resources

from fastapi import APIRouter, Query, Request
from fastapi.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
    StreamingResponse,
)

from research import __version__
from research.core.agentkind import agent_names
from research.core.defaults import EXPORT_FORMATS
from research.core.options import OPTION
from research.service.approval import approve
from research.service.children import Job
from research.service.errors import job_failure
from research.service.models import (
    ApproveRequest,
    ErrorResponse,
    JobAccepted,
    RunDetail,
    RunList,
    RunRequest,
    SynthesisResponse,
)
from research.service.request_checks import local_sources_allowed
from research.service.service import Service
from research.service.side_files import read_export
from research.service.streaming import run_stream
from research.views.exports import missing_library

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
PAGE_POLICY = (
    "default-src 'self'; style-src 'self' 'unsafe-inline'; "
    "script-src 'self' 'unsafe-inline'; img-src 'self' data:"
)


class JSONBytes(Response):
    """A JSON body already encoded (a cached view)."""

    media_type = "application/json"


def page_html() -> str:
    """The page, its agent choices those of `AgentKind` and its tiers the option table's."""
    page = (resources.files("research.service") / "static" / "index.html").read_text("utf-8")
    tier = OPTION["tier"]
    return (
        page.replace("<!--AGENT_OPTIONS-->", _options(agent_names()))
        .replace("<!--TIER_OPTIONS-->", _options(tier.values or ()))
        .replace("<!--TIER_FIELD-->", tier.request_field or "")
        .replace("<!--EXPORT_FIELD-->", OPTION["export"].request_field or "")
    )


def _options(names: Iterable[str]) -> str:
    return "".join(f'<option value="{escape(name)}">{escape(name)}</option>' for name in names)


def service_routes(service: Service) -> APIRouter:
    """Health, metrics and the page."""
    router = APIRouter()

    @router.get("/healthz", tags=["service"])
    async def healthz() -> dict[str, object]:
        return {
            "status": "ok",
            "version": __version__,
            "running": len(service.jobs.running()),
            "queued": len(service.jobs.queue),
            "local_sources": local_sources_allowed(),
            "exports": [f for f in EXPORT_FORMATS if missing_library([f]) is None],
            "agents": service.agents_available(),
        }

    @router.get("/metrics", tags=["service"], response_class=PlainTextResponse)
    async def metrics() -> Response:
        """Prometheus metrics, computed from the session files."""
        from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

        from research.service.metrics import SessionCollector

        registry = CollectorRegistry()
        registry.register(SessionCollector(service.roster.rows))
        if service.queue is not None:
            from research.service.metrics import QueueCollector

            registry.register(
                QueueCollector(service.queue.depth, service.queue.workers, service.roster.host_rows)
            )
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)

    @router.get("/", include_in_schema=False)
    async def page() -> HTMLResponse:
        return HTMLResponse(page_html(), headers={"Content-Security-Policy": PAGE_POLICY})

    return router


def accepted(job: Job, name: str) -> JobAccepted:
    """The 202 answer for a job that was queued or started."""
    return JobAccepted(
        job_id=name,
        name=name,
        status="queued" if job.state == "queued" else "running",
        status_url=f"/runs/{name}",
        warnings=job.warnings,
    )


def job_routes(service: Service) -> APIRouter:
    """Starting, resuming and stopping jobs."""
    router = APIRouter()

    @router.post(
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
        stream: bool = Query(
            False,
            description="Stream the session's events as SSE, ending with `event: result` (the "
            "SynthesisResponse) or `event: error`.",
        ),
    ) -> Response:
        """Start a research session; wait for its report, stream its events (stream=true),
        or (async=true) answer at once."""
        job = service.new_run(body)
        if stream and not async_:
            return StreamingResponse(
                run_stream(service, job), media_type="text/event-stream", headers=SSE_HEADERS
            )
        if async_:
            answer = accepted(job, job.name)
            return JSONResponse(
                answer.model_dump(), status_code=202, headers={"Location": answer.status_url}
            )
        if service.queue is not None:
            await service.wait_for_end(job.name)
        else:
            await job.ended.wait()
        result = service.result(job.name)
        if result is None and service.awaiting_approval(job.name):
            answer = accepted(job, job.name).model_copy(update={"status": "awaiting_approval"})
            return JSONResponse(answer.model_dump(), status_code=202)
        if result is None:
            raise job_failure(job)
        return JSONResponse(result.model_dump())

    @router.post("/runs/{name}/resume", tags=["jobs"], status_code=202, response_model=JobAccepted)
    async def resume(name: str) -> JSONResponse:
        """Continue a stopped or failed session (the CLI's --resume)."""
        return JSONResponse(accepted(service.resume(name), name).model_dump(), status_code=202)

    @router.post("/runs/{name}/approve", tags=["jobs"], status_code=202, response_model=JobAccepted)
    async def approve_plan(name: str, body: ApproveRequest | None = None) -> JSONResponse:
        """Approve the plan of a session stopped for approval (approve_plan), edited or not,
        with answers to its open questions, and continue it."""
        job = approve(service, service.roster.name(name), body or ApproveRequest.model_validate({}))
        return JSONResponse(accepted(job, name).model_dump(), status_code=202)

    @router.delete("/runs/{name}", tags=["jobs"], status_code=202)
    async def stop(name: str) -> JSONResponse:
        """Stop the job gracefully (SIGTERM); its state is saved and it stays resumable."""
        outcome = service.stop(name)
        return JSONResponse({"name": name, "status": outcome}, status_code=202)

    return router


REPORT_RESPONSES: dict[int | str, dict[str, object]] = {
    200: {
        "content": {
            "text/markdown": {},
            "text/html": {},
            "application/json": {"schema": SynthesisResponse.model_json_schema()},
        }
    }
}
REPORT_FORMAT = Query(
    None,
    alias="format",
    pattern="^(md|html|json|pdf|docx)$",
    description="md, html (report.html), json, or pdf and docx (written with export).",
)
EXPORT_TYPES = {
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
}


def run_routes(service: Service) -> APIRouter:
    """Views of the sessions: list, detail, report and event streams."""
    router = APIRouter()

    @router.get("/runs", tags=["runs"], response_model=RunList)
    async def runs() -> Response:
        """Every session of the working directory, with its job state."""
        return JSONBytes(service.polled.runs())

    @router.get("/runs/{name}", tags=["runs"], response_model=RunDetail)
    async def run_detail(name: str) -> Response:
        """Phase, iteration, topic tree, last decision, time, calls, tokens, cost, lock."""
        return JSONBytes(service.polled.detail(name))

    @router.get("/runs/{name}/report", tags=["runs"], responses=REPORT_RESPONSES)
    async def run_report(name: str, request: Request, kind: str | None = REPORT_FORMAT) -> Response:
        """The report: Markdown, the SynthesisResponse with `Accept: application/json` (or
        format=json), or the self-contained report.html with format=html."""
        if kind == "html":
            return report_page(service, name)
        if kind in EXPORT_TYPES:
            return export_file(service, name, kind)
        accept = "" if kind == "md" else request.headers.get("accept", "")
        return report_response(service, name, "application/json" if kind == "json" else accept)

    @router.get(
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
        service.roster.snapshot(name)
        last = request.headers.get("last-event-id", "")
        start = int(last) if last.isdigit() else offset
        return StreamingResponse(
            service.feeds.follow(name, start), media_type="text/event-stream", headers=SSE_HEADERS
        )

    @router.get("/events", tags=["runs"], responses={200: {"content": {"text/event-stream": {}}}})
    async def all_events() -> Response:
        """Server-Sent Events: `event: runs` with GET /runs's body whenever it changes."""
        return StreamingResponse(
            watch_runs(service), media_type="text/event-stream", headers=SSE_HEADERS
        )

    return router


def report_response(service: Service, name: str, accept: str) -> Response:
    """A session's report as Markdown, or as JSON when `accept` asks for it."""
    service.roster.snapshot(name)
    text = service.store.report(name)
    if text is None:
        raise service.roster.report_not_ready(name, "has no report yet")
    if "application/json" not in accept:
        return PlainTextResponse(text, media_type="text/markdown; charset=utf-8")
    result = service.result(name)
    if result is None:
        raise service.roster.report_not_ready(name, "is not complete")
    return JSONResponse(result.model_dump())


def export_file(service: Service, name: str, kind: str) -> Response:
    """reports/<name>/report.pdf or report.docx, as a download."""
    service.roster.snapshot(name)
    data = read_export(service.store.paths(name), kind)
    if data is None:
        raise service.roster.report_not_ready(
            name, f'has no report.{kind} (a run asks for it with export: "{kind}")'
        )
    return Response(
        data,
        media_type=EXPORT_TYPES[kind],
        headers={
            "Content-Disposition": f'attachment; filename="{name}.report.{kind}"',
            "X-Content-Type-Options": "nosniff",
        },
    )


def report_page(service: Service, name: str) -> Response:
    """reports/<name>/report.html as written beside the report: it loads nothing and runs
    no script."""
    service.roster.snapshot(name)
    html = service.store.report_html(name)
    if html is None:
        raise service.roster.report_not_ready(name, "has no HTML report yet")
    return HTMLResponse(
        html,
        headers={
            "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; "
            "img-src data:; frame-ancestors 'self'",
            "X-Content-Type-Options": "nosniff",
        },
    )


async def watch_runs(service: Service) -> AsyncIterator[bytes]:
    """The session list stream. Every client compares the same body, computed once per
    interval for all of them. (Starlette ends the stream when the client goes away.)"""
    interval = max(service.config.poll_seconds, 0.5)
    previous = b""
    last_beat = time.monotonic()
    yield b"retry: 1000\n\n"
    while True:
        body = service.polled.shared_runs(max_age=interval)
        if body != previous:
            previous = body
            yield b"event: runs\ndata: " + body + b"\n\n"
        elif time.monotonic() - last_beat > service.config.heartbeat_seconds:
            last_beat = time.monotonic()
            yield b": keep-alive\n\n"
        await asyncio.sleep(interval)

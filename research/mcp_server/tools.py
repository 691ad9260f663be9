"""The MCP tools, over the service's job core: each one a thin call into `Service` whose
errors become MCP tool errors carrying the service's (the CLI's) one-line messages."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable
from typing import Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import ValidationError

from research.mcp_server.schema import first_problem, unknown_arguments
from research.service.approval import approve
from research.service.bodies import detail, summary
from research.service.children import Job
from research.service.errors import ApiError, job_failure
from research.service.models import ApproveRequest, RunDetail, RunRequest
from research.service.search import SearchRequest, as_run
from research.service.service import Service

POLL_SECONDS = 0.5
MAX_WAIT_SECONDS = 600.0
"""The longest one research_status call waits (a client's own request timeout may be
shorter: it can call again)."""
RUN_OPTIONS = tuple(name for name in RunRequest.model_fields if name != "task")
SEARCH_OPTIONS = tuple(name for name in SearchRequest.model_fields if name != "task")
ENDED = ("done", "failed", "stopped", "awaiting_approval", "lost")


_RESUME_ROUTE = re.compile(r"POST /runs/([a-z0-9][a-z0-9._-]*)/resume")


_APPROVE_ROUTE = re.compile(r"POST /runs/[a-z0-9][a-z0-9._-]*/approve")


def tool_error(exc: ApiError) -> ToolError:
    """The service's one-line message; where it names one of its routes, what does the same
    here (the command, or the approve_plan tool), and its `task` field the tools' question."""
    message = _RESUME_ROUTE.sub(r"research --resume --name \1", exc.message)
    message = _APPROVE_ROUTE.sub("the approve_plan tool", message)
    if message.startswith("task: "):
        message = "question: " + message.removeprefix("task: ")
    return ToolError(message)


def refuse_unknown(ctx: Context, known: tuple[str, ...]) -> None:
    """An argument the tool does not take is an error, as in a POST /run body (the SDK
    would drop it silently)."""
    unknown = unknown_arguments(ctx.request_context.params, {"question", *known})
    if unknown:
        raise ToolError(
            f"unknown option {unknown[0]!r}; the options are: {', '.join(sorted(known))}"
        )


def progress_line(view: RunDetail) -> str:
    where = f", {view.phase.replace('_', ' ')}" if view.phase else ""
    return (
        f"{view.name}: {view.state}{where}, iteration {view.iteration} of "
        f"{view.max_iterations}, {view.topics_done} of {view.topics_total} topics done"
    )


class ResearchTools:
    """The six tools, bound to one Service (one working directory)."""

    def __init__(self, service: Service) -> None:
        self.service = service

    def view(self, name: str) -> RunDetail:
        roster = self.service.roster
        try:
            return detail(name, roster.snapshot(roster.name(name)), roster.job(name))
        except ApiError as exc:
            raise tool_error(exc) from None

    async def start_research(self, ctx: Context, question: str, **options: Any) -> dict[str, Any]:
        """Start a research session on `question` and return its name at once; follow it
        with research_status, read it with get_report. The options are `research`'s own
        (POST /run's fields); agent "mock" runs the offline simulated agent."""
        refuse_unknown(ctx, RUN_OPTIONS)
        given = {key: value for key, value in options.items() if value is not None}
        try:
            request = RunRequest.model_validate({"task": question, **given})
        except ValidationError as exc:
            raise ToolError(first_problem(exc, {"task": "question"})) from None
        try:
            job = self.service.new_run(request)
        except ApiError as exc:
            raise tool_error(exc) from None
        return {"name": job.name, "state": job.state if job.state == "queued" else "running"}

    async def research_status(
        self, ctx: Context, name: str, wait_seconds: float = 0.0
    ) -> dict[str, Any]:
        """A session's state, phase, iteration, topics and usage (GET /runs/{name}); with
        the plan and its open questions while it awaits approval. With wait_seconds, waits
        (up to 600 s) until the session is done, failed, stopped or awaiting approval,
        sending progress notifications when the client asks for them."""
        view = self.view(name)
        deadline = time.monotonic() + max(0.0, min(wait_seconds, MAX_WAIT_SECONDS))
        shown: tuple[object, ...] | None = None
        while True:
            key = (view.state, view.phase, view.iteration, view.topics_done, view.topics_total)
            if key != shown and wait_seconds > 0:
                await report(ctx, view)
                shown = key
            if view.state in ENDED or time.monotonic() >= deadline:
                return view.model_dump()
            await asyncio.sleep(POLL_SECONDS)
            view = self.view(name)

    async def get_report(self, name: str) -> str:
        """The session's report as Markdown: the cited answer, its Sources, and the
        Methodology with the sentences the source check could not verify."""
        self.view(name)  # an unknown name: the service's message
        report = self.service.store.report(name)
        if report is None or not self.service.store.snapshot(name).complete:
            raise tool_error(self.service.roster.report_not_ready(name, "has no report yet"))
        return report

    async def approve_plan(
        self, name: str, plan: str | None = None, answers: str | None = None
    ) -> dict[str, Any]:
        """Approve the plan of a session started with approve_plan (it is awaiting
        approval), optionally with an edited plan (the whole research_plan.md) and answers
        to its open questions; the session continues."""
        try:
            body = ApproveRequest.model_validate(
                {key: value for key, value in (("plan", plan), ("answers", answers)) if value}
            )
        except ValidationError as exc:
            raise ToolError(first_problem(exc)) from None
        try:
            job = approve(self.service, name, body)
        except ApiError as exc:
            raise tool_error(exc) from None
        return {"name": name, "state": job.state if job.state == "queued" else "running"}

    async def list_sessions(self) -> dict[str, Any]:
        """Every session of the working directory: name, question, state, progress."""
        roster = self.service.roster
        rows = []
        for name in roster.all_names():
            snap = self.service.store.snapshot(name) if self.service.store.has_state(name) else None
            rows.append(summary(name, snap, roster.job(name)).model_dump())
        return {"sessions": rows}

    async def quick_search(self, ctx: Context, question: str, **options: Any) -> str:
        """A quick cited answer (POST /search): a simple-tier session of one topic level,
        run to its report within a short time budget (`time`, in minutes: 2 unless given);
        returns the report's Markdown."""
        refuse_unknown(ctx, SEARCH_OPTIONS)
        given = {key: value for key, value in options.items() if value is not None}
        try:
            request = as_run(SearchRequest.model_validate({"task": question, **given}))
        except ValidationError as exc:
            raise ToolError(first_problem(exc, {"task": "question"})) from None
        try:
            job = self.service.new_run(request)
            await self.until_ended(ctx, job)
        except ApiError as exc:
            raise tool_error(exc) from None
        result = self.service.result(job.name)
        report = self.service.store.report(job.name)
        if result is None or report is None:
            raise tool_error(job_failure(job))
        return report

    async def until_ended(self, ctx: Context, job: Job) -> None:
        """Wait for the job's session to end, with progress notifications."""
        ended: Awaitable[object] = (
            self.service.wait_for_end(job.name)
            if self.service.queue is not None
            else job.ended.wait()
        )
        waiting = asyncio.ensure_future(ended)
        try:
            while not waiting.done():
                await report(ctx, self.view(job.name))
                await asyncio.wait({waiting}, timeout=POLL_SECONDS * 4)
            waiting.result()
        finally:
            waiting.cancel()


async def report(ctx: Context, view: RunDetail) -> None:
    """A progress notification (a no-op unless the client asked for progress)."""
    total = float(view.max_iterations) if view.max_iterations else None
    await ctx.report_progress(float(view.iteration), total, progress_line(view))

"""Pure functions: a session snapshot (and its job, if any) → the API's response bodies."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from research.core.agentkind import AgentKind, cost_basis
from research.core.errors import INTERRUPTED_CODES, ExitCode
from research.model.plan import render_plan
from research.model.state import RWRState
from research.service.children import Job
from research.service.models import (
    Citation,
    JobState,
    LockState,
    RunDetail,
    RunSummary,
    SynthesisMetadata,
    SynthesisResponse,
    TopicView,
)
from research.service.session_files import Snapshot
from research.service.side_files import outcome_of, source_id


def job_state(snapshot: Snapshot | None, job: Job | None) -> JobState:
    """queued / running / done / failed / stopped / lost, from the files and this server's
    job (lost: a job the task queue no longer holds, whose session does not run)."""
    if job is not None and job.state in ("queued", "lost"):
        return "queued" if job.state == "queued" else "lost"
    if (job is not None and job.state == "running") or (snapshot is not None and snapshot.locked):
        return "running"
    if snapshot is None or snapshot.state is None:
        failed = job is not None and job.exit_code not in (None, 0, *INTERRUPTED_CODES)
        return "failed" if failed else "stopped"
    if snapshot.complete:
        return "done"
    if snapshot.state.progress.awaiting_approval and not (job and job.exit_code):
        return "awaiting_approval"
    if job is not None and job.exit_code is not None:
        return "stopped" if job.exit_code in INTERRUPTED_CODES | {ExitCode.OK} else "failed"
    end = snapshot.last_run_end
    if end is not None and end.get("outcome") == "failed":
        return "failed"
    return "stopped"


def status_url(name: str) -> str:
    return f"/runs/{name}"


def usage_totals(state: RWRState) -> tuple[int | None, int | None, float | None]:
    phases = list(state.usage.phases.values())

    def total(values: list[int | None]) -> int | None:
        known = [v for v in values if v is not None]
        return sum(known) if known else None

    costs = [u.cost for u in phases if u.cost is not None]
    return (
        total([u.input_tokens for u in phases]),
        total([u.output_tokens for u in phases]),
        sum(costs) if costs else None,
    )


SIMULATED_MODEL = "mock (simulated)"
"""What the simulated agent of --mock-mode calls itself: it uses no model."""


def model_used(state: RWRState, *, review: bool = False) -> str:
    """The model the session's calls used: the simulated agent's label for a mock run."""
    if state.config.mock_mode or state.config.agent == AgentKind.MOCK:
        return SIMULATED_MODEL
    return state.config.review_model if review else state.config.model


def summary(name: str, snapshot: Snapshot | None, job: Job | None) -> RunSummary:
    state = snapshot.state if snapshot else None
    plan = state.plan if state else None
    done = len(plan.topics) - len(plan.open_topics()) if plan else 0
    return RunSummary(
        name=name,
        job_id=name,
        topic=state.config.original_topic if state else (job.topic if job else None),
        state=job_state(snapshot, job),
        phase=state.progress.current_phase.value if state else None,
        iteration=state.progress.iteration if state else 0,
        max_iterations=state.config.max_iterations if state else 0,
        topics_done=done,
        topics_total=len(plan.topics) if plan else 0,
        updated=snapshot.updated if snapshot else 0.0,
        report=bool(snapshot and snapshot.report_exists),
        status_url=status_url(name),
    )


def detail(name: str, snapshot: Snapshot | None, job: Job | None) -> RunDetail:
    base = summary(name, snapshot, job).model_dump()
    state = snapshot.state if snapshot else None
    lock = LockState(state="none", detail="")
    if snapshot is not None:
        lock = LockState(
            state=snapshot.lock.state, detail=snapshot.lock.detail, pid=snapshot.lock_pid
        )
    extra: dict[str, Any] = {
        "current_topic": None,
        "topics": [],
        "last_decision": None,
        "stop_reason": None,
        "stop_detail": "",
        "last_error": snapshot.error if snapshot else None,
        "seconds_used": 0.0,
        "seconds_left": None,
        "time_budget_minutes": None,
        "agent_calls": 0,
        "agent_failures": 0,
        "input_tokens": None,
        "output_tokens": None,
        "cost": None,
        "model": None,
        "agent": None,
        "lock": lock,
        "exports": list(snapshot.exports) if snapshot is not None else [],
        "host": snapshot.lock_host if snapshot is not None else None,
        "exit_code": job.exit_code if job else None,
        "message": job.message if job else None,
    }
    if state is not None:
        progress, config = state.progress, state.config
        in_flight = {slug: item.phase.value for slug, item in progress.in_flight.items()}
        if progress.current_topic and not progress.is_complete and not in_flight:
            in_flight[progress.current_topic] = progress.current_phase.value
        budget = config.time_budget_minutes
        tokens_in, tokens_out, cost = usage_totals(state)
        extra.update(
            current_topic=None if progress.is_complete else progress.current_topic,
            topics=[
                TopicView(
                    slug=t.slug,
                    name=t.name,
                    status=t.status.value,
                    depth=t.depth,
                    parent=t.parent,
                    in_flight=in_flight.get(t.slug),
                )
                for t in state.plan.topics
            ],
            last_decision=(progress.last_decision.model_dump() if progress.last_decision else None),
            stop_reason=progress.stop_reason.value if progress.stop_reason else None,
            stop_detail=progress.stop_detail,
            last_error=None if progress.is_complete else progress.last_error,
            seconds_used=round(progress.elapsed_seconds, 3),
            seconds_left=(
                None
                if budget is None
                else round(max(0.0, budget * 60 - progress.elapsed_seconds), 3)
            ),
            time_budget_minutes=budget,
            agent_calls=state.usage.agent_calls,
            agent_failures=state.usage.agent_failures,
            input_tokens=tokens_in,
            output_tokens=tokens_out,
            cost=cost,
            model=model_used(state),
            agent=config.agent,
            models_used=list(state.usage.models_used),
            cost_basis="simulated" if config.mock_mode else cost_basis(config.agent),
            plan=render_plan(state.plan) if progress.awaiting_approval else None,
            open_questions=state.plan.questions,
        )
    return RunDetail(**base, **extra)


def citation_type(location: str) -> str:
    if location.startswith("file:"):
        return "file"
    if location.startswith(("http://", "https://")):
        return "web"
    return "other"


def citations(
    sources: list[dict[str, Any]], cited: list[int] | None, verification: dict[int, str]
) -> list[Citation]:
    """The cited sources (all registered ones when the audit did not record which)."""
    by_id: dict[int, dict[str, Any]] = {}
    for source in sources:
        ident = source_id(source.get("id"))
        if ident is not None:
            by_id.setdefault(ident, source)
    order = cited if cited is not None else sorted(by_id)
    out = []
    for ident in order:
        found = by_id.get(ident)
        if found is None:
            continue
        source = found
        location = str(source.get("url") or source.get("location") or source.get("path") or "")
        out.append(
            Citation(
                id=f"[{ident}]",
                title=str(source.get("title") or location)[:500],
                type=str(source.get("type") or citation_type(location))[:32],
                location=location[:2000],
                verification=verification.get(ident) or outcome_of(source),
            )
        )
    return out


def synthesis(
    state: RWRState, report: str, cites: list[Citation], report_mtime: float | None
) -> SynthesisResponse:
    tokens_in, tokens_out, cost = usage_totals(state)
    stamp = datetime.fromtimestamp(report_mtime or 0.0, UTC).isoformat(timespec="seconds")
    return SynthesisResponse(
        answer=report,
        citations=cites,
        metadata=SynthesisMetadata(
            timestamp=stamp,
            model=model_used(state),
            review_model=model_used(state, review=True),
            token_count=(
                None
                if tokens_in is None and tokens_out is None
                else (tokens_in or 0) + (tokens_out or 0)
            ),
            iterations=state.progress.iteration,
            stop_reason=state.progress.stop_reason.value if state.progress.stop_reason else None,
            cost=cost,
            elapsed_seconds=round(state.progress.elapsed_seconds, 3),
            max_iterations=state.config.max_iterations,
            warnings=run_warnings(state),
        ),
    )


def run_warnings(state: RWRState) -> list[str]:
    """What the session changed in what was asked: a --max-iterations below the floor of
    its tree, raised to it (as the CLI warns)."""
    config = state.config
    asked = config.requested_max_iterations
    if asked is None or asked >= config.max_iterations:
        return []
    return [
        f"max_iterations {asked} was below the iteration floor breadth^(depth+1)+5 of the "
        f"session's tree (breadth {config.breadth}, depth {config.depth}); the run used "
        f"{config.max_iterations}"
    ]

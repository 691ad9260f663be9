"""Approving the plan a run stopped on (--approve-plan).

The user edits `research_plan.md` (topics, criteria, answers under the open questions) and
resumes. The edited plan is checked as any plan the agent writes, before anything is
written (`check_approval`, from the preflight): a broken edit is one clear line, and the
session still awaits approval with the file as the user left it. A good one sets the
tier, breadth and iteration limit again from the approved tree, then replaces the plan
(`take_approval`, under the lock).
"""

from __future__ import annotations

from dataclasses import dataclass

from research.core.budget import LimitRaise, effective_max_iterations, limit_raise
from research.core.defaults import BREADTH_RANGE
from research.core.errors import PlanEditError, PlanParseError
from research.engine.decisions import duplicate_finder
from research.model.artifacts import read_text
from research.model.plan import Plan, ReconcileResult, parse_plan, reconcile
from research.model.questions import has_questions, parse_questions
from research.model.state import RWRState, SessionConfig
from research.model.tiering import settle_from_plan
from research.workspace.events import EventLog
from research.workspace.paths import SessionPaths


@dataclass(frozen=True)
class Approval:
    """The approved plan, and the session's config recomputed from it."""

    result: ReconcileResult
    config: SessionConfig
    previous_limit: int

    @property
    def dropped(self) -> list[str]:
        """One line for each topic of the edit the plan could not take."""
        return [
            f"the plan's topic {event.topic!r} was not taken: {event.detail}"
            for event in self.result.events
            if event.kind in ("rejected", "duplicate")
        ]


def check_approval(state: RWRState, paths: SessionPaths) -> Approval | None:
    """The session's edited plan, checked; None when the session awaits no approval.

    PlanEditError says what is wrong with the edit; nothing is written either way."""
    if not state.progress.awaiting_approval:
        return None
    where = paths.relative(paths.plan_file)
    text = read_text(paths.plan_file)
    if text is None:
        raise _broken(where, "it is missing or not a regular file")
    return check_plan_text(state, text, where)


def check_plan_text(
    state: RWRState, text: str, where: str, retry: str = "fix it and run --resume again"
) -> Approval:
    """The plan `text` checked as the approved plan of `state` (PlanEditError naming `where`
    and saying to `retry` when it cannot be)."""
    try:
        parsed = parse_plan(text)
    except PlanParseError as exc:
        raise _broken(where, str(exc), retry) from None
    config = state.config.model_copy(deep=True)
    settle_from_plan(config, text, Plan(topic=state.plan.topic, breadth=1, depth=config.depth))
    top = {topic.name.casefold() for topic in parsed.topics if _top_level(topic.depth)}
    config.breadth = max(config.breadth, min(len(top), BREADTH_RANGE[1]))
    config.max_iterations = effective_max_iterations(
        config.requested_max_iterations, config.breadth, config.depth
    )[0]
    empty = Plan(topic=state.plan.topic, breadth=config.breadth, depth=config.depth)
    result = reconcile(
        empty, parsed, focus=None, find_duplicate=duplicate_finder(config.duplicate_threshold)
    )
    if not any(topic.depth == 0 for topic in result.plan.topics):
        raise _broken(where, "it has no depth-0 topic the plan can take", retry)
    result.plan.questions = parse_questions(text)
    return Approval(result, config, state.config.max_iterations)


def _top_level(depth: int | None) -> bool:
    return depth is None or depth == 0


def _broken(where: str, why: str, retry: str = "fix it and run --resume again") -> PlanEditError:
    return PlanEditError(
        f"the edited plan {where} cannot be used: {why}; {retry} "
        "(the session still awaits approval, nothing was changed)"
    )


def limit_rule(approval: Approval, *, costs: bool) -> LimitRaise | None:
    """What may happen to the iteration limit the user agreed to, now that the approved
    tree needs a higher one (`core/budget.py`'s one rule); None when it does not."""
    if approval.config.max_iterations <= approval.previous_limit:
        return None
    agreement = approval.config.limit_agreement  # as the session recorded it
    return limit_raise(agreement, approval.config.max_iterations, costs=costs)


def kept_limit_problem(approval: Approval, given: int | None) -> str:
    """Why an approved tree cannot run within a limit the user set (--max-iterations)."""
    limit, config = approval.config.max_iterations, approval.config
    return (
        f"the approved plan needs up to {limit} research iterations (breadth {config.breadth}, "
        f"depth {config.depth}), more than the {given or approval.previous_limit} set with "
        f"--max-iterations; resume with --max-iterations {limit}, or approve fewer topics "
        "(the session still awaits approval, nothing was changed)"
    )


def raised_message(approval: Approval) -> str:
    return (
        f"the approved plan raised the iteration limit from {approval.previous_limit} to "
        f"{approval.config.max_iterations} (breadth {approval.config.breadth}, depth "
        f"{approval.config.depth})"
    )


def take_approval(state: RWRState, approval: Approval) -> None:
    """The approved plan and its recomputed config replace the session's."""
    changes = state.config.limit_changes
    state.config = approval.config.model_copy(deep=True)
    if approval.config.max_iterations > approval.previous_limit:
        state.config.limit_changes = [*changes, raised_message(approval)]
    state.plan = approval.result.plan.model_copy(deep=True)
    state.progress.skipped_topics = [name for name, _ in approval.result.duplicates]
    state.progress.awaiting_approval = False
    state.progress.plan_approved = True


def record_approval(events: EventLog, state: RWRState, approval: Approval) -> None:
    """The approval in the event log, with what the edit could not keep."""
    for event in approval.result.events:
        if event.kind != "added":
            events.emit("plan_repair", action=event.kind, topic=event.topic, detail=event.detail)
    if approval.config.max_iterations > approval.previous_limit:
        events.emit(
            "iteration_limit",
            message=raised_message(approval),
            before=approval.previous_limit,
            wanted=approval.config.max_iterations,
            raised=True,
            max_iterations=state.config.max_iterations,
        )
    events.emit(
        "plan_approved",
        topics=len(state.plan.topics),
        questions=has_questions(state.plan.questions),
        max_iterations=state.config.max_iterations,
        previous_max_iterations=approval.previous_limit,
    )

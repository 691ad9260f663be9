"""The orchestrator's judgements on what an agent proposed or found: the duplicate gate on
new topics (while reconciling the plan), the novelty gate on new notes, and the loop
decision record written after every iteration (`decisions.jsonl`)."""

from __future__ import annotations

import json
from collections.abc import Callable

from research.core.errors import PhaseFailed, PlanParseError
from research.core.similarity import content_words, find_duplicate, novelty
from research.engine.context import RunContext
from research.model import artifacts as phases
from research.model.plan import (
    ReconcileResult,
    Topic,
    TopicStatus,
    parse_plan,
    reconcile,
    render_plan,
)
from research.model.state import LoopDecision, StopReason, Verdict
from research.workspace.events import logger
from research.workspace.fsutil import append_line, atomic_write_text


def duplicate_finder(threshold: float) -> Callable[[str, list[str]], str | None]:
    def finder(name: str, existing: list[str]) -> str | None:
        return find_duplicate(name, existing, threshold)

    return finder


def sync_plan(ctx: RunContext, *, focus: str | None) -> None:
    """Read the agent's plan file and reconcile it with the orchestrator's plan."""
    with ctx.mutex:
        text = phases.read_text(ctx.paths.plan_file)
        if text is None:
            ctx.events.emit("plan_repair", action="restored", detail="the plan file was deleted")
            ctx.write_plan()
            return
        if text == render_plan(ctx.state.plan):  # untouched by the agent: nothing to reconcile
            return
        try:
            parsed = parse_plan(text)
        except PlanParseError as exc:
            ctx.write_plan()
            raise PhaseFailed(
                f"research_plan.md could not be parsed: {exc}", kind="invalid_plan"
            ) from None
        apply_reconcile(
            ctx,
            reconcile(
                ctx.state.plan,
                parsed,
                focus=focus,
                find_duplicate=duplicate_finder(ctx.state.config.duplicate_threshold),
            ),
        )


def apply_reconcile(ctx: RunContext, result: ReconcileResult) -> None:
    """Take the reconciled plan, reporting each repair and each skipped duplicate."""
    with ctx.mutex:
        state = ctx.state
        for event in result.events:
            if event.kind == "added":
                continue
            if event.kind == "duplicate":
                ctx.events.emit(
                    "topic_skipped", topic=event.topic, reason="duplicate", detail=event.detail
                )
                logger.info("skipped duplicate topic %r: %s", event.topic, event.detail)
            else:
                ctx.events.emit(
                    "plan_repair", action=event.kind, topic=event.topic, detail=event.detail
                )
        for name, _ in result.duplicates:
            if name not in state.progress.skipped_topics:
                state.progress.skipped_topics.append(name)
        state.plan = result.plan
        ctx.write_plan()


def measure_novelty(ctx: RunContext, topic: Topic) -> None:
    """Novelty of the new notes against earlier topics' notes."""
    with ctx.mutex:
        state = ctx.state
        text = phases.read_text(ctx.paths.progress_file(topic.slug)) or ""
        seen: set[str] = set()
        for other in state.plan.topics:
            if other.slug != topic.slug and other.slug in state.progress.novelty:
                seen |= content_words(phases.read_text(ctx.paths.progress_file(other.slug)) or "")
        score = novelty(text, seen)
        # The early stop counts topics, not attempts: a topic researched again after a
        # rejection that was already low counts once.
        counted = state.progress.novelty.get(topic.slug, 1.0) < state.config.min_novelty
        state.progress.novelty[topic.slug] = round(score, 4)
        if not state.config.early_termination:
            return
        if score >= state.config.min_novelty:
            state.progress.consecutive_low_novelty = 0
            return
        if not counted:
            state.progress.consecutive_low_novelty += 1
        for child in state.plan.children(topic.slug):
            if child.status is TopicStatus.PENDING:
                child.status = TopicStatus.SKIPPED
                child.note = "low novelty"
                if child.name not in state.progress.skipped_topics:
                    state.progress.skipped_topics.append(child.name)
                ctx.events.emit(
                    "topic_skipped",
                    topic=child.name,
                    reason="low_novelty",
                    detail=f"parent novelty {score:.2f} < {state.config.min_novelty}",
                )
                logger.info("skipped low-novelty subtopic %r", child.name)


def record_decision(
    ctx: RunContext,
    topic: Topic,
    *,
    iteration: int,
    summary: str,
    gaps: list[str],
    verdict: Verdict | None,
    researched: bool,
    stop: tuple[StopReason, str] | None,
) -> LoopDecision:
    """Append the iteration's loop decision as one whole line; `researched` is
    False when this iteration wrote no new notes, so it has no novelty of its own."""
    with ctx.mutex:
        state = ctx.state
        remaining = ctx.now_remaining()
        decision = LoopDecision(
            iteration=iteration,
            topic=topic.name,
            summary=summary,
            gaps=list(gaps),
            shouldContinue=stop is None,
            reason=(
                f"{stop[0].value}: {stop[1]}"
                if stop
                else f"{len(state.plan.open_topics())} open topics remain"
            ),
            nextSearchTopic=verdict.nextSearchTopic if verdict else None,
            urlToSearch=verdict.urlToSearch if verdict else None,
            timeRemainingMinutes=None if remaining is None else round(remaining, 3),
            novelty=state.progress.novelty.get(topic.slug) if researched else None,
            confidence=verdict.confidence if verdict else None,
            new_queries=list(verdict.new_queries) if verdict else [],
        )
        state.progress.last_decision = decision
        append_line(ctx.paths.decisions_file, decision.model_dump_json())
        ctx.events.emit("decision", **decision.model_dump())
        return decision


def forget_unfinished(ctx: RunContext, iterations: set[int]) -> None:
    """Drop decision records of iterations the state says are still in flight.

    A kill between appending an iteration's record and saving the state leaves a record
    of an outcome the state never took; the resumed run makes that iteration again and
    records it then, so each finished iteration keeps exactly one line.
    """
    text = phases.read_text(ctx.paths.decisions_file)
    if not iterations or text is None:
        return
    kept = []
    for line in text.splitlines():
        try:
            iteration = json.loads(line).get("iteration")
        except (json.JSONDecodeError, AttributeError):
            iteration = None
        if iteration not in iterations:
            kept.append(line)
    if len(kept) != len(text.splitlines()):
        atomic_write_text(ctx.paths.decisions_file, "".join(f"{line}\n" for line in kept))

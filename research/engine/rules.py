"""The stop rules of research and what an iteration's outcome does to its topic."""

from __future__ import annotations

from research.core.retries import MAX_TOPIC_ATTEMPTS, breaker_reason
from research.engine import decisions, limits
from research.engine.context import RunContext
from research.model import artifacts as phases
from research.model.plan import Topic, TopicStatus
from research.model.state import Phase, StopReason, Verdict
from research.workspace.fsutil import atomic_write_text


class Rules:
    """The stop rules and what an iteration's outcome does to its topic."""

    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx

    def stop_reason(self) -> tuple[StopReason, str] | None:
        """The rule that ends research now, if any (checked before each RESEARCH)."""
        ctx = self.ctx
        with ctx.mutex:
            state = ctx.state
            plan = state.plan
            breaker = breaker_reason(
                state.progress.consecutive_failed_phases,
                state.usage.phases_run,
                state.usage.breaker_failures,
            )
            if breaker is not None:
                return StopReason.CIRCUIT_BREAKER, breaker
            if not plan.open_topics():
                exhausted = [t for t in plan.topics if t.status is TopicStatus.EXHAUSTED]
                completed = [t for t in plan.topics if t.status is TopicStatus.COMPLETE]
                if exhausted and not completed:
                    return (
                        StopReason.ALL_EXHAUSTED,
                        f"all {len(exhausted)} open topics were exhausted",
                    )
                return StopReason.ALL_DONE, "no open topics remain"
            low = state.progress.consecutive_low_novelty
            if state.config.early_termination and low >= state.config.breadth:
                return (
                    StopReason.LOW_NOVELTY,
                    f"{low} consecutive topics brought novelty below {state.config.min_novelty}",
                )
            if ctx.budget.research_time_over(ctx.now()):
                left = ctx.now_remaining() or 0.0
                return (
                    StopReason.TIME_BUDGET,
                    f"{left:.2f} minutes left, below the synthesis reserve",
                )
            if (usage := limits.usage_stop(ctx)) is not None:
                return usage
            if state.progress.iteration >= state.config.max_iterations:
                return (
                    StopReason.ITERATION_LIMIT,
                    f"iteration limit of {state.config.max_iterations} reached",
                )
            return None

    def stop_research(self, reason: StopReason, detail: str) -> None:
        ctx = self.ctx
        with ctx.mutex:
            ctx.state.progress.stop_reason = reason
            ctx.state.progress.stop_detail = detail
            ctx.events.emit("research_stopped", reason=reason.value, detail=detail)
            if reason is StopReason.ALL_DONE and phases.read_text(ctx.paths.completed_file) is None:
                atomic_write_text(ctx.paths.completed_file, phases.COMPLETION_PROMISE + "\n")
                ctx.events.emit("completion_marker", action="written_by_orchestrator")
            ctx.state.progress.current_phase = Phase.SYNTHESIZE

    def start_iteration(self, topic: Topic) -> int:
        """Count a new iteration and attempt for `topic`; returns the iteration number."""
        with self.ctx.mutex:
            progress = self.ctx.state.progress
            progress.iteration += 1
            topic.attempts += 1
            if topic.status is TopicStatus.PENDING:
                topic.status = TopicStatus.IN_PROGRESS
            self.ctx.events.iteration = progress.iteration
            return progress.iteration

    def topic_failed(self, topic: Topic, why: str) -> None:
        if topic.attempts >= MAX_TOPIC_ATTEMPTS:
            self.exhaust(topic, why)
        else:
            topic.status = TopicStatus.IN_PROGRESS

    def exhaust(self, topic: Topic, why: str) -> None:
        with self.ctx.mutex:
            topic.status = TopicStatus.EXHAUSTED
            topic.note = None
            exhausted = self.ctx.state.progress.exhausted_topics
            if topic.name not in exhausted:
                exhausted.append(topic.name)
        self.ctx.events.emit(
            "topic_exhausted",
            topic=topic.name,
            attempts=topic.attempts,
            reason=why,
            tag="#RETRY_EXHAUSTED",
        )

    def apply_verdict(self, topic: Topic, verdict: Verdict) -> None:
        """Accepted: Complete. Rejected: open again with the feedback, or Exhausted."""
        with self.ctx.mutex:
            progress = self.ctx.state.progress
            if verdict.verdict == "accepted":
                topic.status = TopicStatus.COMPLETE
                progress.review_feedback.pop(topic.slug, None)
                return
            progress.review_feedback[topic.slug] = verdict
        self.ctx.events.emit(
            "topic_rejected", topic=topic.name, summary=verdict.summary, attempt=topic.attempts
        )
        if topic.attempts >= MAX_TOPIC_ATTEMPTS:
            self.exhaust(topic, "rejected by review on its last attempt")
        else:
            topic.status = TopicStatus.IN_PROGRESS

    def check_completion_marker(self) -> None:
        """Never end research on the agent's marker alone while topics remain open."""
        ctx = self.ctx
        with ctx.mutex:
            if phases.read_text(ctx.paths.completed_file) is None:
                return
            open_topics = ctx.state.plan.open_topics()
            if open_topics:
                ctx.archive_files(ctx.paths.completed_file)
                ctx.events.emit(
                    "completion_marker", action="removed_false_marker", open_topics=len(open_topics)
                )
            else:
                ctx.events.emit("completion_marker", action="accepted")

    def decide(
        self,
        topic: Topic,
        *,
        iteration: int,
        summary: str,
        gaps: list[str],
        verdict: Verdict | None,
        researched: bool = True,
    ) -> None:
        with self.ctx.mutex:
            decisions.record_decision(
                self.ctx,
                topic,
                iteration=iteration,
                summary=summary,
                gaps=gaps,
                verdict=verdict,
                researched=researched,
                stop=self.stop_reason(),
            )

"""Which topic runs now and when research stops (SPEC §4.4, §5.2-§5.4).

Sequential mode runs one topic's RESEARCH then its REVIEW, saving after each, so that a
resumed run continues the exact call it lost. The parallel scheduler (`parallel.py`)
runs several topics' iterations at once with the same rules.
"""

from __future__ import annotations

from research.core.budget import breaker_reason
from research.core.settings import MAX_TOPIC_ATTEMPTS
from research.engine import decisions
from research.engine.context import RunContext
from research.engine.outcome import Failed, Ok
from research.engine.topics import TopicPhases
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


class SequentialScheduler:
    """One topic at a time: RESEARCH, save, REVIEW, save (SPEC §5)."""

    def __init__(self, ctx: RunContext, rules: Rules, topics: TopicPhases) -> None:
        self.ctx = ctx
        self.rules = rules
        self.topics = topics

    def current(self) -> Topic | None:
        slug = self.ctx.state.progress.current_topic
        if slug is None:
            return None
        try:
            return self.ctx.state.plan.get(slug)
        except KeyError:  # the state names a topic the plan does not have
            self.ctx.state.progress.current_topic = None
            return None

    def take_over_in_flight(self) -> bool:
        """A topic left in flight by a parallel run continues here; True when its review
        is next."""
        progress = self.ctx.state.progress
        if progress.current_topic is not None or not progress.in_flight:
            return False
        slug, flight = next(iter(progress.in_flight.items()))
        del progress.in_flight[slug]
        progress.current_topic = slug
        if flight.phase is Phase.REVIEW:
            progress.current_phase = Phase.REVIEW
            return True
        return False

    def research(self) -> None:
        ctx, state, rules = self.ctx, self.ctx.state, self.rules
        if self.take_over_in_flight():
            return
        topic = self.current()
        if topic is None:
            stop = rules.stop_reason()
            if stop is not None:
                rules.stop_research(*stop)
                return
            topic = state.plan.next_topic()
            assert topic is not None  # stop_reason() returns ALL_DONE otherwise
            state.progress.current_topic = topic.slug
            rules.start_iteration(topic)
        elif topic.status is TopicStatus.PENDING:
            topic.status = TopicStatus.IN_PROGRESS
        state.progress.current_phase = Phase.RESEARCH
        outcome = self.topics.research(topic)
        topic = state.plan.get(topic.slug)  # reconciling replaced the plan's objects
        if isinstance(outcome, Failed):
            self.failed(topic, "research", outcome, researched=False)
            return
        topic.status = TopicStatus.IN_REVIEW
        decisions.measure_novelty(ctx, topic)
        state.progress.current_phase = Phase.REVIEW

    def review(self) -> None:
        ctx, state, rules = self.ctx, self.ctx.state, self.rules
        topic = self.current()
        if topic is None:  # nothing in review (e.g. state edited): go back to choosing
            state.progress.current_phase = Phase.RESEARCH
            return
        if ctx.budget.research_time_over(ctx.now()):
            self.review_out_of_time(topic)
            return
        outcome = self.topics.review(topic)
        topic = state.plan.get(topic.slug)  # reconciling replaced the plan's objects
        if isinstance(outcome, Failed):
            self.failed(topic, "review", outcome)
            return
        assert isinstance(outcome, Ok)
        verdict: Verdict = outcome.value
        rules.apply_verdict(topic, verdict)
        rules.check_completion_marker()
        rules.decide(
            topic,
            iteration=state.progress.iteration,
            summary=verdict.summary,
            gaps=verdict.gaps,
            verdict=verdict,
        )
        self.done_with_topic()

    def failed(self, topic: Topic, what: str, outcome: Failed, *, researched: bool = True) -> None:
        state = self.ctx.state
        self.rules.topic_failed(topic, f"{what} failed: {outcome.error}")
        self.done_with_topic()
        self.rules.decide(
            topic,
            iteration=state.progress.iteration,
            summary=f"The {what} phase failed.",
            gaps=[outcome.error],
            verdict=None,
            researched=researched,
        )

    def done_with_topic(self) -> None:
        self.ctx.state.progress.current_topic = None
        self.ctx.state.progress.current_phase = Phase.RESEARCH

    def review_out_of_time(self, topic: Topic) -> None:
        """The research call used the last of the research time: the notes stay unreviewed
        and the topic open, without costing it an attempt, and the final cycle starts next
        with the reserve."""
        topic.status = TopicStatus.IN_PROGRESS
        self.ctx.events.emit(
            "warning",
            message=f"the review of {topic.name!r} was not run: the time budget is used up",
        )
        self.rules.decide(
            topic,
            iteration=self.ctx.state.progress.iteration,
            summary="Not reviewed: the time budget ran out.",
            gaps=[],
            verdict=None,
        )
        self.done_with_topic()

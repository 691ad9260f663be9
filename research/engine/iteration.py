"""One topic's iteration, written once: RESEARCH → source check → REVIEW → decision.

The same sequence runs whether one topic is in flight or several; what differs (who keeps
the plan, where the state records the topic) is the mode's (`modes.py`). The state is saved
after each call's outcome is taken, so a kill loses at most the call in flight, and a
resumed run makes that call again.
"""

from __future__ import annotations

from collections.abc import Callable

from research.engine import decisions
from research.engine.context import RunContext
from research.engine.modes import TopicMode
from research.engine.outcome import Failed, Ok
from research.engine.rules import Rules
from research.engine.topics import TopicPhases
from research.model.plan import Topic, TopicStatus
from research.model.state import Phase, Verdict


class TopicIteration:
    """Runs one topic's iteration from its RESEARCH, or from its REVIEW when resuming."""

    def __init__(
        self,
        ctx: RunContext,
        rules: Rules,
        topics: TopicPhases,
        mode: TopicMode,
        research_over: Callable[[], None],
    ) -> None:
        self.ctx = ctx
        self.rules = rules
        self.topics = topics
        self.mode = mode
        self.research_over = research_over
        """Called when a topic's research is over: its subtopics may start."""

    def run(self, slug: str, start: Phase) -> None:
        if start is Phase.RESEARCH and not self.research(slug):
            return
        if self.out_of_time(slug):
            return
        self.review(slug)

    def research(self, slug: str) -> bool:
        """The RESEARCH call, then the novelty of its notes and its proposals; False when
        it failed (the iteration is over)."""
        ctx = self.ctx
        with ctx.mutex:
            topic = ctx.state.plan.get(slug)
            if topic.status is TopicStatus.PENDING:  # resumed from an older state
                topic.status = TopicStatus.IN_PROGRESS
        outcome = self.topics.research(topic, persist=self.mode.persist)
        with ctx.mutex:
            checked = self.mode.after_call(slug, Phase.RESEARCH, outcome)
            topic = ctx.state.plan.get(slug)  # reconciling replaced the plan's objects
            if isinstance(checked, Failed):
                self.failed(topic, "research", checked, researched=False)
                return False
            self.mode.take_proposals(topic)
            topic = ctx.state.plan.get(slug)
            topic.status = TopicStatus.IN_REVIEW
            decisions.measure_novelty(ctx, topic)
            self.mode.reviewing(slug)
            ctx.save()
        self.research_over()
        return True

    def out_of_time(self, slug: str) -> bool:
        """The research call used the last of the research time: the notes stay unreviewed
        and the topic open, without costing it an attempt, and the final cycle starts next
        with the reserve."""
        ctx = self.ctx
        with ctx.mutex:
            if not ctx.budget.research_time_over(ctx.now()):
                return False
            topic = ctx.state.plan.get(slug)
            topic.status = TopicStatus.IN_PROGRESS
            ctx.events.emit(
                "warning",
                message=f"the review of {topic.name!r} was not run: the time budget is used up",
            )
            self.finish(topic, "Not reviewed: the time budget ran out.", [], None)
        return True

    def review(self, slug: str) -> None:
        """The REVIEW call (after the source check of the notes), then its verdict."""
        ctx = self.ctx
        with ctx.mutex:
            topic = ctx.state.plan.get(slug)
        outcome = self.topics.review(topic, persist=self.mode.persist)
        with ctx.mutex:
            checked = self.mode.after_call(slug, Phase.REVIEW, outcome)
            topic = ctx.state.plan.get(slug)  # reconciling replaced the plan's objects
            if isinstance(checked, Failed):
                self.failed(topic, "review", checked)
                return
            assert isinstance(checked, Ok)
            verdict = checked.value
            self.rules.apply_verdict(topic, verdict)
            self.mode.after_verdict()
            self.finish(topic, verdict.summary, verdict.gaps, verdict)

    def failed(self, topic: Topic, what: str, outcome: Failed, *, researched: bool = True) -> None:
        self.rules.topic_failed(topic, f"{what} failed: {outcome.error}")
        self.finish(
            topic, f"The {what} phase failed.", [outcome.error], None, researched=researched
        )

    def finish(
        self,
        topic: Topic,
        summary: str,
        gaps: list[str],
        verdict: Verdict | None,
        *,
        researched: bool = True,
    ) -> None:
        """The iteration is over: its decision is recorded and the state saved."""
        iteration = self.mode.release(topic.slug)
        self.rules.decide(
            topic,
            iteration=iteration,
            summary=summary,
            gaps=gaps,
            verdict=verdict,
            researched=researched,
        )
        self.ctx.save()

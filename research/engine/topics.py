"""The two calls of one topic's iteration, RESEARCH and REVIEW, with their validators.

What the outcome means for the topic (status, attempts, decision) is the iteration's call
(`iteration.py`).
"""

from __future__ import annotations

from research.agents.base import AgentResult
from research.core.errors import PhaseFailed
from research.engine import limits
from research.engine.context import RunContext
from research.engine.modes import TopicMode
from research.engine.outcome import Failed, Outcome
from research.engine.runner import PhaseRunner
from research.engine.sourcecheck import SourceChecker
from research.model import artifacts as phases
from research.model.plan import Topic
from research.model.state import Phase, Verdict
from research.prompts.variables import PromptInput


class TopicPhases:
    """RESEARCH and REVIEW of a topic."""

    def __init__(
        self, ctx: RunContext, runner: PhaseRunner, sources: SourceChecker, mode: TopicMode
    ) -> None:
        self.ctx = ctx
        self.runner = runner
        self.sources = sources
        self.mode = mode

    def prompt(self, topic: Topic, phase: Phase) -> PromptInput:
        """What the topic's RESEARCH or REVIEW prompt is built from."""
        ctx = self.ctx
        with ctx.mutex:
            return PromptInput(
                state=ctx.state,
                paths=ctx.paths,
                phase=phase,
                remaining_minutes=ctx.now_remaining(),
                topic=topic,
                mode=ctx.mode,
                local_documents=(
                    self.sources.local_documents(topic) if phase is Phase.RESEARCH else None
                ),
                source_check=self.sources.review_text(topic) if phase is Phase.REVIEW else None,
            )

    def research(self, topic: Topic, *, persist: bool = True) -> Outcome[None]:
        """The research call; its notes must be new (an earlier attempt's do not count)."""
        ctx = self.ctx
        progress = ctx.paths.progress_file(topic.slug)
        notes_before = phases.modification_stamp(progress)

        def validate(_: AgentResult) -> None:
            self.mode.sync_plan(topic.slug)
            notes = phases.require_file(progress, ctx.paths, what="the progress file")
            if notes_before is not None and phases.modification_stamp(progress) == notes_before:
                raise PhaseFailed(
                    f"the progress file {ctx.paths.relative(progress)} was not "
                    "updated by this research phase",
                    kind="missing_files",
                )
            limits.check_source_cap(
                ctx.state.config.max_sources, notes, ctx.paths.relative(progress)
            )

        def within_cap(failed: Failed) -> None:
            """The cap never costs a topic: its last notes keep the sources they cite."""
            if failed.kind != limits.TOO_MANY_SOURCES:
                raise PhaseFailed(failed.error, kind=failed.kind)
            limits.keep_cited_sources(ctx, topic, progress)

        return self.runner.run(
            Phase.RESEARCH,
            validate,
            prompt=lambda: self.prompt(topic, Phase.RESEARCH),
            topic=topic.slug,
            persist=persist,
            last_resort=within_cap,
        )

    def review(self, topic: Topic, *, persist: bool = True) -> Outcome[Verdict]:
        """The review call: exactly one verdict file with a valid JSON block."""
        ctx = self.ctx
        files = ctx.mode.verdict_files(ctx.paths, topic.slug)
        ctx.archive_files(*files)
        self.sources.check_topic(topic)

        def validate(_: AgentResult) -> Verdict:
            verdict = phases.read_verdict(ctx.paths, *files)
            self.mode.sync_plan(None)
            return verdict

        return self.runner.run(
            Phase.REVIEW,
            validate,
            prompt=lambda: self.prompt(topic, Phase.REVIEW),
            topic=topic.slug,
            persist=persist,
        )

"""The two calls of one topic's iteration, RESEARCH and REVIEW, with their validators.

What the outcome means for the topic (status, attempts, decision) is the scheduler's call.
"""

from __future__ import annotations

from research import phases, prompts
from research.agents.base import AgentResult
from research.engine import decisions
from research.engine.context import RunContext
from research.engine.outcome import Outcome
from research.engine.phases import verdict_files
from research.engine.runner import PhaseRunner
from research.errors import PhaseFailed
from research.plan import Topic
from research.state import Phase, Verdict


class TopicPhases:
    """RESEARCH and REVIEW of a topic."""

    def __init__(self, ctx: RunContext, runner: PhaseRunner) -> None:
        self.ctx = ctx
        self.runner = runner

    def variables(self, topic: Topic) -> dict[str, str]:
        with self.ctx.mutex:
            return prompts.topic_variables(self.ctx.state, self.ctx.paths, topic,
                                           self.ctx.now_remaining())

    def research(self, topic: Topic, *, persist: bool = True) -> Outcome[None]:
        """The research call; its notes must be new (an earlier attempt's do not count)."""
        ctx = self.ctx
        progress = ctx.paths.progress_file(topic.slug)
        notes_before = phases.modification_stamp(progress)

        def validate(_: AgentResult) -> None:
            if ctx.parallel == 1:
                decisions.sync_plan(ctx, focus=topic.slug)
            phases.require_file(progress, ctx.paths, what="the progress file")
            if notes_before is not None and phases.modification_stamp(progress) == notes_before:
                raise PhaseFailed(f"the progress file {ctx.paths.relative(progress)} was not "
                                  "updated by this research phase", kind="missing_files")

        return self.runner.run(Phase.RESEARCH, validate, variables=lambda: self.variables(topic),
                               topic=topic.slug, persist=persist)

    def review(self, topic: Topic, *, persist: bool = True) -> Outcome[Verdict]:
        """The review call: exactly one verdict file with a valid JSON block."""
        ctx = self.ctx
        files = verdict_files(ctx.paths, topic.slug, ctx.parallel > 1)
        ctx.archive_files(*files)

        def validate(_: AgentResult) -> Verdict:
            verdict = phases.read_verdict(ctx.paths, *files)
            if ctx.parallel == 1:
                decisions.sync_plan(ctx, focus=None)
            return verdict

        return self.runner.run(Phase.REVIEW, validate, variables=lambda: self.variables(topic),
                               topic=topic.slug, persist=persist)

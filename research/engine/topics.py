"""The two calls of one topic's iteration, RESEARCH and REVIEW, with their validators.

What the outcome means for the topic (status, attempts, decision) is the scheduler's call.
"""

from __future__ import annotations

from research.agents.base import AgentResult
from research.core.errors import PhaseFailed
from research.engine import decisions
from research.engine.context import RunContext
from research.engine.outcome import Outcome
from research.engine.runner import PhaseRunner
from research.engine.sourcecheck import SourceChecker
from research.engine.specs import verdict_files
from research.model import artifacts as phases
from research.model.plan import Topic
from research.model.state import Phase, Verdict
from research.prompts import variables as prompts


class TopicPhases:
    """RESEARCH and REVIEW of a topic."""

    def __init__(self, ctx: RunContext, runner: PhaseRunner, sources: SourceChecker) -> None:
        self.ctx = ctx
        self.runner = runner
        self.sources = sources

    def variables(self, topic: Topic, phase: Phase = Phase.RESEARCH) -> dict[str, str]:
        with self.ctx.mutex:
            values = prompts.topic_variables(
                self.ctx.state, self.ctx.paths, topic, self.ctx.now_remaining(), phase
            )
            if self.ctx.parallel > 1:
                values.update(parallel_variables(self.ctx, topic, phase))
        if phase is Phase.RESEARCH:
            values["local_sources"] = self.sources.local_sources_text(topic)
        else:
            values["source_check"] = self.sources.review_text(topic) or values["source_check"]
        return values

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
                raise PhaseFailed(
                    f"the progress file {ctx.paths.relative(progress)} was not "
                    "updated by this research phase",
                    kind="missing_files",
                )

        return self.runner.run(
            Phase.RESEARCH,
            validate,
            variables=lambda: self.variables(topic),
            topic=topic.slug,
            persist=persist,
        )

    def review(self, topic: Topic, *, persist: bool = True) -> Outcome[Verdict]:
        """The review call: exactly one verdict file with a valid JSON block."""
        ctx = self.ctx
        files = verdict_files(ctx.paths, topic.slug, ctx.parallel > 1)
        ctx.archive_files(*files)
        self.sources.check_topic(topic)

        def validate(_: AgentResult) -> Verdict:
            verdict = phases.read_verdict(ctx.paths, *files)
            if ctx.parallel == 1:
                decisions.sync_plan(ctx, focus=None)
            return verdict

        return self.runner.run(
            Phase.REVIEW,
            validate,
            variables=lambda: self.variables(topic, Phase.REVIEW),
            topic=topic.slug,
            persist=persist,
        )


def parallel_variables(ctx: RunContext, topic: Topic, phase: Phase) -> dict[str, str]:
    """The prompt values of parallel mode: each call writes only its own topic's files."""
    paths = ctx.paths
    rel = paths.relative
    progress = rel(paths.progress_file(topic.slug))
    accepted, rejected = (rel(p) for p in verdict_files(paths, topic.slug, True))
    rule, room = phases.subtopic_rule(ctx.state.plan, topic)
    proposals = (
        f"Do not edit {rel(paths.plan_file)}: other topics are being researched at the same "
        "time, and the orchestrator alone keeps the plan. "
        + rule
        + (
            f" Propose subtopics in a `## Proposed Subtopics` section at the end of "
            f"{progress}: one `### <subtopic name>` heading per subtopic, each followed by "
            "`- Description: <one line>` and `- Acceptance Criteria:` with indented "
            "`  - <criterion>` lines. The orchestrator adds them to the plan and marks this "
            "topic In Review."
            if room
            else " Leave the plan's statuses to the orchestrator."
        )
    )
    return {
        "parallel": "1",  # not a template variable: a hint for the simulated agent
        "writable_files": (
            f"- `{progress}`"
            if phase is Phase.RESEARCH
            else f"- `{accepted}` or `{rejected}` (exactly one)"
        ),
        "subtopic_instructions": proposals,
        "progress_index_instructions": (
            f"The orchestrator keeps {rel(paths.progress_index)}; do not edit it."
        ),
        "completion_rule": (
            f"Never write {rel(paths.completed_file)}: the orchestrator "
            "decides when research is complete."
        ),
        "accepted_file": accepted,
        "rejected_file": rejected,
    }

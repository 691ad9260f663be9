"""The state machine: INITIAL PLAN → (RESEARCH → REVIEW)* → SYNTHESIZE → FINAL REVIEW → [REVISE].

The loop dispatches on the saved phase and saves the state after every phase, so a kill
loses at most the phase in flight. It drives any `Agent`; it never knows which one.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from research.agents.base import AgentResult
from research.core.errors import PhaseFailed, RunFailed
from research.core.retries import MAX_PHASE_RECOVERIES
from research.engine import decisions, limits
from research.engine.context import RunContext
from research.engine.finalizer import Finalizer
from research.engine.modes import topic_mode
from research.engine.outcome import Failed
from research.engine.rules import Rules
from research.engine.runner import PhaseRunner
from research.engine.scheduler import TopicScheduler
from research.engine.sourcecheck import SourceChecker
from research.engine.topics import TopicPhases
from research.engine.verify import Judge
from research.model import artifacts as phases
from research.model.plan import parse_plan, reconcile
from research.model.questions import parse_questions
from research.model.state import Phase, RWRState, StopReason
from research.prompts.variables import PromptInput
from research.sources.web import Web
from research.workspace import archive
from research.workspace.events import EventLog
from research.workspace.fsutil import NOT_REGULAR, atomic_write_bytes, read_regular


class ResearchLoop:
    """Runs one session from its saved phase to the written report."""

    def __init__(self, ctx: RunContext, web: Callable[[], Web] | None = None) -> None:
        self.ctx = ctx
        self.runner = PhaseRunner(self.ctx)
        self.rules = Rules(self.ctx)
        self.sources = SourceChecker(self.ctx, web, Judge(self.ctx, self.runner.calls))
        mode = topic_mode(self.ctx, self.rules)
        self.topics = TopicPhases(self.ctx, self.runner, self.sources, mode)
        self.scheduler = TopicScheduler(self.ctx, self.rules, self.topics, mode)
        self.finalizer = Finalizer(self.ctx, self.runner, self.sources)

    @property
    def state(self) -> RWRState:
        return self.ctx.state

    @property
    def events(self) -> EventLog:
        return self.ctx.events

    def run(self) -> RWRState:
        """Run phases until the report is written. Saves state after every phase."""
        state = self.state
        steps = {
            Phase.INITIAL_PLAN: self.initial_plan,
            Phase.RESEARCH: self.scheduler.run,
            Phase.REVIEW: self.scheduler.run,
            Phase.SYNTHESIZE: self.finalizer.synthesize,
            Phase.FINAL_REVIEW: self.finalizer.final_review,
            Phase.REVISE: self.finalizer.revise,
        }
        if state.progress.current_phase is not Phase.DONE:
            self.sources.start()
        while state.progress.current_phase is not Phase.DONE:
            if state.progress.awaiting_approval:
                break
            step = steps.get(state.progress.current_phase)
            if step is None:  # a state saved mid-RECOVERY resumes the phase that failed
                state.progress.current_phase = state.progress.failed_phase or Phase.RESEARCH
                continue
            step()
            self.save()
        return state

    def save(self) -> None:
        self.ctx.save()

    def cleanup(self) -> None:
        self.finalizer.cleanup()

    def initial_plan(self) -> None:
        ctx = self.ctx

        def validate(_: AgentResult) -> None:
            text = phases.require_file(ctx.paths.plan_file, ctx.paths, what="the plan")
            result = reconcile(
                ctx.state.plan,
                parse_plan(text),
                focus=None,
                find_duplicate=decisions.duplicate_finder(ctx.state.config.duplicate_threshold),
            )
            if not any(t.depth == 0 for t in result.plan.topics):
                raise PhaseFailed("the plan has no depth-0 topics")
            result.plan.questions = parse_questions(text)
            decisions.apply_reconcile(ctx, result)
            limits.settle_tier(ctx, text)

        outcome = self.runner.run(
            Phase.INITIAL_PLAN,
            validate,
            prompt=lambda: PromptInput(
                state=ctx.state,
                paths=ctx.paths,
                phase=Phase.INITIAL_PLAN,
                remaining_minutes=ctx.now_remaining(),
            ),
        )
        if isinstance(outcome, Failed) and ctx.budget.research_time_over(ctx.now()):
            # The budget ran out before there was a plan: the report says so, from no notes.
            self.rules.stop_research(
                StopReason.TIME_BUDGET, "the time budget ran out during the initial plan"
            )
            return
        if isinstance(outcome, Failed):
            raise RunFailed(
                f"the INITIAL PLAN phase failed after {MAX_PHASE_RECOVERIES} "
                f"recoveries: {outcome.error}"
            )
        ctx.state.progress.current_phase = Phase.RESEARCH
        progress = ctx.state.progress
        if ctx.state.config.approve_plan and not progress.plan_approved:
            progress.awaiting_approval = True  # run() returns; --resume approves
            ctx.events.emit("awaiting_approval", plan=ctx.paths.relative(ctx.paths.plan_file))

    def reopen(self) -> bool:
        """Continue research in a finished session whose limit has since been raised.

        Only a session that ended on a limit with topics still open is reopened, and only
        when that limit no longer holds; the archived notes are put back so the new
        report covers everything.
        """
        ctx, state = self.ctx, self.state
        reopenable = (
            StopReason.ITERATION_LIMIT,
            StopReason.TIME_BUDGET,
            StopReason.LOW_NOVELTY,
            StopReason.TOKEN_BUDGET,
            StopReason.COST_BUDGET,
        )
        previous = state.progress.stop_reason
        if not state.progress.is_complete or previous not in reopenable:
            return False
        if not state.config.early_termination:
            state.progress.consecutive_low_novelty = 0
        if self.rules.stop_reason() is not None:
            return False
        for topic in state.plan.topics:
            copy = archive.latest_archived(ctx.paths.archive_dir, f"{topic.slug}.progress.md")
            target = ctx.paths.progress_file(topic.slug)
            data = None if copy is None else read_regular(copy)
            if data is not None and data != NOT_REGULAR and not os.path.lexists(target):
                atomic_write_bytes(target, data)
        state.progress.is_complete = False
        state.progress.stop_reason = None
        state.progress.stop_detail = ""
        # What the last final cycle did describes the old report, not the next one.
        final = state.final
        final.final_review_accepted = final.final_review_rejected = False
        final.report_fallback = final.revision_failed = final.sources_section_rebuilt = False
        final.citation_ids_removed = []
        final.budget_ran_out = None
        state.progress.current_phase = Phase.RESEARCH
        ctx.events.emit("run_start", reopened=True, previous_stop=previous.value)
        return True

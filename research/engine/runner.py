"""One phase: its rounds, each a prompt, an agent call (`engine/agentcall.py`, with its
transient retries) and the validation of what it left (`engine/validation.py`), with a
RECOVERY call between rounds (level 2 of `core/retries.py`). Returns `Ok(value)` or
`Failed`; agent failures never raise."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TypeVar

from research.agents.base import AgentResult
from research.core.errors import PhaseFailed
from research.core.retries import (
    MAX_PHASE_RECOVERIES,
    MAX_TOPIC_RECOVERIES,
    breaker_reason,
)
from research.engine.agentcall import AgentCaller
from research.engine.context import RunContext
from research.engine.outcome import Failed, Ok, Outcome
from research.engine.specs import FINAL_PHASES, SPECS
from research.engine.staging import Stage
from research.engine.validation import PhaseJob, RoundBook
from research.model.artifacts import read_text
from research.model.state import Phase, StopReason
from research.prompts import variables as prompts
from research.prompts.render import phase_prompt, recovery_prompt, recovery_values
from research.prompts.variables import Failure, PromptInput
from research.sources.registry import extract_sources

T = TypeVar("T")


def sources_in_notes(ctx: RunContext) -> int:
    """The distinct sources the topics' notes list (a resumed run counts what is there)."""
    found: set[str] = set()
    for topic in ctx.state.plan.topics:
        notes = read_text(ctx.paths.progress_file(topic.slug))
        if notes:
            found.update(ref.url for ref in extract_sources(notes))
    return len(found)


class PhaseRunner:
    """Runs phases for the engine; one instance may serve several threads."""

    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx
        self.calls = AgentCaller(ctx)
        self.book = RoundBook(ctx)
        self.sources_found = sources_in_notes(ctx)

    def run(
        self,
        phase: Phase,
        validate: Callable[[AgentResult], T],
        *,
        prompt: Callable[[], PromptInput],
        topic: str | None = None,
        persist: bool = True,
        last_resort: Callable[[Failed], T] | None = None,
    ) -> Outcome[T]:
        """One phase with ralph.py's recovery: up to MAX_PHASE_RECOVERIES retries after a
        RECOVERY call. `persist` keeps the rounds in the state (sequential mode), so a
        resumed run continues the round it was in. `last_resort` may still make a value of
        the last round's failure (it raises PhaseFailed when it cannot)."""
        job = PhaseJob(phase, topic, persist)
        stage = Stage(self.ctx)  # where the phase's calls write (engine/staging.py)
        try:
            return self.rounds_of(job, validate, prompt, stage, last_resort)
        finally:
            stage.discard()

    def rounds_of(
        self,
        job: PhaseJob,
        validate: Callable[[AgentResult], T],
        prompt: Callable[[], PromptInput],
        stage: Stage,
        last_resort: Callable[[Failed], T] | None,
    ) -> Outcome[T]:
        phase, topic, persist = job.phase, job.topic, job.persist
        first, error, rounds = self.rounds(job)
        last: Failed | None = None
        for round_number in range(first, rounds + 1):
            if self.no_time_for_call(job):
                error = "the time budget is used up"
                break
            values, outcome = self.attempt(job, validate, prompt, round_number, error, stage)
            if isinstance(outcome, Ok):
                self.book.succeeded(job, round_number)
                return outcome
            error, last = outcome.error, outcome
            if round_number >= rounds or self.stop_recovering(phase):
                break
            self.recover(
                phase, values, error, round_number, topic=topic, persist=persist, stage=stage
            )
            if self.stop_recovering(phase):
                break
        if last is not None and last_resort is not None:
            try:
                value = last_resort(last)
            except PhaseFailed:
                pass
            else:
                self.book.succeeded(job, rounds)
                return Ok(value)
        self.book.gave_up(job)
        return Failed(error or "unknown error")

    def rounds(self, job: PhaseJob) -> tuple[int, str | None, int]:
        """(the first round, the error it retries after, the last round) of the phase: a
        saved round continues where a killed run left it."""
        ctx, progress = self.ctx, self.ctx.state.progress
        with ctx.mutex:
            if job.persist:
                progress.current_phase = job.phase
            first = progress.retry_count if job.persist else 0
            error = progress.last_error if job.persist and first else None
            rounds = MAX_TOPIC_RECOVERIES if job.spec.topic else MAX_PHASE_RECOVERIES
            if job.spec.final_cycle and progress.stop_reason is StopReason.CIRCUIT_BREAKER:
                rounds = 0  # the agent is failing: one attempt, then the orchestrator's fallback
        return first, error, rounds

    def no_time_for_call(self, job: PhaseJob) -> bool:
        """No call starts that the budget cannot cover (research calls stop at the final
        cycle's reserve)."""
        ctx = self.ctx
        if not ctx.budget.used_up(ctx.now()) and (
            job.spec.final_cycle or not ctx.budget.research_time_over(ctx.now())
        ):
            return False
        ctx.events.emit(
            "warning",
            message=f"the {job.phase.value} phase was not run: the time budget is used up",
        )
        return True

    def attempt(
        self,
        job: PhaseJob,
        validate: Callable[[AgentResult], T],
        prompt: Callable[[], PromptInput],
        round_number: int,
        error: str | None,
        stage: Stage,
    ) -> tuple[dict[str, str], Outcome[T]]:
        """One round: the prompt, the agent call and the validation of what it left.
        Returns the prompt's variables (a recovery call needs them) and the outcome."""
        ctx = self.ctx
        text, values = self.prompt(job, prompt, round_number, error, stage)
        started = ctx.now()
        ctx.events.emit(
            "phase_start",
            phase=job.phase.value,
            topic=values.get("topic_slug"),
            round=round_number,
            **ctx.owner,
            **self.figures(),
        )
        result = self.calls.call_agent(
            job.phase, text, model=self.model(job), context=values, stage=stage
        )
        try:
            value = self.book.validate(result, validate)
        except PhaseFailed as exc:
            self.book.round_failed(job, exc)
            outcome: Outcome[T] = Failed(str(exc), exc.kind)
        else:
            outcome = Ok(value)
        end = (
            {"outcome": "failed", "kind": outcome.kind, "error": outcome.error}
            if isinstance(outcome, Failed)
            else {"outcome": "ok"}
        )
        ctx.events.emit(
            "phase_end",
            phase=job.phase.value,
            **end,
            topic=job.topic,
            duration=round(ctx.now() - started, 3),
            **ctx.owner,
            **self.figures(count_sources=True),
        )
        return values, outcome

    def figures(self, *, count_sources: bool = False) -> dict[str, int | None]:
        """What a phase event carries besides the phase (seed 002 §17): the tokens left of
        the budget (None: no budget) and the distinct sources the notes list so far
        (counted again when a phase ends)."""
        ctx = self.ctx
        with ctx.mutex:
            budget = ctx.state.config.token_budget
            left = None if budget is None else budget - ctx.state.usage.total_tokens()
            if count_sources:
                self.sources_found = sources_in_notes(ctx)
        return {"tokens_left": left, "sources_found": self.sources_found}

    def model(self, job: PhaseJob) -> str:
        config = self.ctx.state.config
        return config.review_model if job.spec.review_model else config.model

    def prompt(
        self,
        job: PhaseJob,
        prompt: Callable[[], PromptInput],
        round_number: int,
        error: str | None,
        stage: Stage,
    ) -> tuple[str, dict[str, str]]:
        """The round's prompt (a retry ends with the recovery block) and its variables,
        naming the files of the phase's scratch area; the round is noted in the state."""
        ctx, progress = self.ctx, self.ctx.state.progress
        with ctx.mutex:
            if job.persist:
                progress.retry_count = round_number
            stage.fresh(job.phase)  # what the prompt reads (the report's audit) is there
            values = prompts.variables(replace(prompt(), paths=stage.paths))
            failure = Failure(job.phase, error, round_number) if round_number > 0 else None
            text = phase_prompt(ctx.templates, job.spec.template, values, failure)
            progress.phase_history.append(job.phase.value)
        return text, values

    def stop_recovering(self, phase: Phase) -> bool:
        """No recovery round starts that the time budget cannot cover. A failing RESEARCH
        or REVIEW also gets none once research time is over (the rest is the final
        cycle's reserve) or the circuit breaker is open: research is about to stop."""
        ctx, state = self.ctx, self.ctx.state
        now = ctx.now()
        with ctx.mutex:
            if ctx.budget.used_up(now):
                why: str | None = "the time budget is used up"
            elif SPECS[phase].final_cycle:
                return False
            elif ctx.budget.research_time_over(now):
                why = "research time is over"
            elif not SPECS[phase].topic:
                return False
            else:
                why = breaker_reason(
                    state.progress.consecutive_failed_phases,
                    state.usage.phases_run,
                    state.usage.breaker_failures,
                )
        if why is None:
            return False
        ctx.events.emit("warning", message=f"no further recovery of the {phase.value} phase: {why}")
        return True

    def recover(
        self,
        phase: Phase,
        values: dict[str, str],
        error: str,
        round_number: int,
        *,
        topic: str | None,
        persist: bool,
        stage: Stage | None = None,
    ) -> None:
        """ralph.py's RECOVERY phase: the agent diagnoses and writes recovery notes."""
        ctx, state = self.ctx, self.ctx.state
        with ctx.mutex:
            state.usage.recoveries += 1
            state.progress.phase_history.append(Phase.RECOVERY.value)
            if persist:
                state.progress.phase_recovered = True
            ctx.archive_files(*ctx.mode.recovery_files(ctx.paths))
            failure = Failure(phase, error, round_number)
            recovery = recovery_values(values, failure)
            prompt = recovery_prompt(ctx.templates, values, failure)
        ctx.events.emit(
            "recovery", phase=phase.value, round=round_number + 1, error=error, topic=topic
        )
        self.calls.call_agent(
            Phase.RECOVERY,
            prompt,
            model=state.config.model,
            context=recovery,
            final_cycle=phase in FINAL_PHASES,
            stage=stage,
        )
        with ctx.mutex:
            ctx.write_plan()
            if phase in (Phase.REVIEW, Phase.FINAL_REVIEW):  # the retry needs a fresh verdict
                ctx.archive_files(*ctx.mode.verdict_files(ctx.paths, topic))
            if persist:
                state.progress.retry_count = round_number + 1
            ctx.save()

"""A phase round's files judged, and what each round's end does to the state: a failed
round (the plan put back, the error kept), a phase that succeeded (the failure streak
ends), a phase that failed for good (counted towards the circuit breaker)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from research.agents.base import AgentResult, FailureKind
from research.core.errors import PhaseFailed
from research.engine.context import RunContext
from research.engine.specs import SPECS, PhaseSpec
from research.model.state import Phase
from research.prompts.text import describe_failure

T = TypeVar("T")


@dataclass(frozen=True)
class PhaseJob:
    """One phase being run: which, for which topic, and whether its rounds are saved."""

    phase: Phase
    topic: str | None
    persist: bool
    """Keep the round in the state (one topic in flight), so a resumed run continues it."""

    @property
    def spec(self) -> PhaseSpec:
        return SPECS[self.phase]


class RoundBook:
    """Judges a round's files and keeps the state's account of rounds and failures."""

    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx

    def validate(self, result: AgentResult, validate: Callable[[AgentResult], T]) -> T:
        """The validator's value, or PhaseFailed; an agent error with valid files passes."""
        if not result.ok and result.failure is not FailureKind.AGENT_ERROR:
            raise PhaseFailed(
                describe_failure(result), kind=(result.failure or FailureKind.NO_OUTPUT).value
            )
        try:
            with self.ctx.mutex:
                value = validate(result)
        except PhaseFailed as exc:
            if result.failure is FailureKind.AGENT_ERROR:
                raise PhaseFailed(
                    f"{describe_failure(result)}; {exc}", kind=FailureKind.AGENT_ERROR.value
                ) from None
            raise
        if result.failure is FailureKind.AGENT_ERROR:
            self.ctx.events.emit(
                "warning",
                message="the agent reported an error but the "
                f"phase's files are valid: {result.error}",
            )
        return value

    def round_failed(self, job: PhaseJob, exc: PhaseFailed) -> None:
        """A round's files were invalid: the plan is put back as the orchestrator has it
        and the error kept for the recovery and the next round."""
        ctx, progress = self.ctx, self.ctx.state.progress
        with ctx.mutex:
            ctx.write_plan()
            progress.last_error = str(exc)
            if job.persist:
                progress.failed_phase = job.phase

    def succeeded(self, job: PhaseJob, round_number: int) -> None:
        """The phase's files were valid: the failure streak ends."""
        ctx, state = self.ctx, self.ctx.state
        with ctx.mutex:
            if job.persist:
                state.progress.retry_count = 0
                state.progress.failed_phase = None
                state.progress.phase_recovered = round_number > 0
            state.usage.phases_run += 1
            state.progress.failing_topics = []
            state.progress.consecutive_failed_phases = 0

    def gave_up(self, job: PhaseJob) -> None:
        """The phase failed for good: counted once per topic towards the circuit breaker."""
        ctx, state, topic = self.ctx, self.ctx.state, job.topic
        with ctx.mutex:
            if job.persist:
                state.progress.retry_count = 0
            state.usage.phases_run += 1
            state.usage.failed_phases += 1
            failing = state.progress.failing_topics
            if topic is not None and topic not in failing:
                failing.append(topic)
            state.progress.consecutive_failed_phases = len(failing)
            if topic is None or topic not in state.usage.failed_topics:
                state.usage.breaker_failures += 1
                if topic is not None:
                    state.usage.failed_topics.append(topic)

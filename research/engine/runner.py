"""One phase: the agent call with its transient retries, validation, recovery rounds and
accounting. Returns `Ok(value)` or `Failed`; agent failures never raise."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from research.agents.base import AgentCall, AgentResult, FailureKind
from research.core.errors import PhaseFailed
from research.core.retries import (
    MAX_PHASE_RECOVERIES,
    MAX_TOPIC_RECOVERIES,
    MAX_TRANSIENT_ATTEMPTS,
    backoff_delay,
    breaker_reason,
)
from research.engine.context import Cancelled, RunContext
from research.engine.outcome import Failed, Ok, Outcome
from research.engine.specs import FINAL_PHASES, SPECS, PhaseSpec
from research.model.state import Phase, PhaseUsage, StopReason
from research.prompts import variables as prompts
from research.prompts.render import phase_prompt, recovery_prompt, recovery_values
from research.prompts.text import describe_failure
from research.prompts.variables import Failure, PromptInput
from research.workspace import strays as workspace
from research.workspace.orphans import session_marker

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


class PhaseRunner:
    """Runs phases for the engine; one instance may serve several threads."""

    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx

    def run(
        self,
        phase: Phase,
        validate: Callable[[AgentResult], T],
        *,
        prompt: Callable[[], PromptInput],
        topic: str | None = None,
        persist: bool = True,
    ) -> Outcome[T]:
        """One phase with ralph.py's recovery: up to MAX_PHASE_RECOVERIES retries after a
        RECOVERY call. `persist` keeps the rounds in the state (sequential mode), so a
        resumed run continues the round it was in."""
        job = PhaseJob(phase, topic, persist)
        first, error, rounds = self.rounds(job)
        for round_number in range(first, rounds + 1):
            if self.no_time_for_call(job):
                error = "the time budget is used up"
                break
            values, outcome = self.attempt(job, validate, prompt, round_number, error)
            if isinstance(outcome, Ok):
                self.succeeded(job, round_number)
                return outcome
            error = outcome.error
            if round_number >= rounds or self.stop_recovering(phase):
                break
            self.recover(phase, values, error, round_number, topic=topic, persist=persist)
            if self.stop_recovering(phase):
                break
        self.gave_up(job)
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
    ) -> tuple[dict[str, str], Outcome[T]]:
        """One round: the prompt, the agent call and the validation of what it left.
        Returns the prompt's variables (a recovery call needs them) and the outcome."""
        ctx = self.ctx
        text, values = self.prompt(job, prompt, round_number, error)
        started = ctx.now()
        ctx.events.emit(
            "phase_start", phase=job.phase.value, topic=values.get("topic_slug"), round=round_number
        )
        result = self.call_agent(job.phase, text, model=self.model(job), context=values)
        try:
            value = self._validate(result, validate)
        except PhaseFailed as exc:
            self.round_failed(job, exc)
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
        )
        return values, outcome

    def model(self, job: PhaseJob) -> str:
        config = self.ctx.state.config
        return config.review_model if job.spec.review_model else config.model

    def prompt(
        self,
        job: PhaseJob,
        prompt: Callable[[], PromptInput],
        round_number: int,
        error: str | None,
    ) -> tuple[str, dict[str, str]]:
        """The round's prompt (a retry ends with the recovery block) and its variables;
        the round is noted in the state."""
        ctx, progress = self.ctx, self.ctx.state.progress
        with ctx.mutex:
            if job.persist:
                progress.retry_count = round_number
            values = prompts.variables(prompt())
            failure = Failure(job.phase, error, round_number) if round_number > 0 else None
            text = phase_prompt(ctx.templates, job.spec.template, values, failure)
            progress.phase_history.append(job.phase.value)
        return text, values

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

    def _validate(self, result: AgentResult, validate: Callable[[AgentResult], T]) -> T:
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
        self.call_agent(
            Phase.RECOVERY,
            prompt,
            model=state.config.model,
            context=recovery,
            final_cycle=phase in FINAL_PHASES,
        )
        with ctx.mutex:
            ctx.write_plan()
            if phase in (Phase.REVIEW, Phase.FINAL_REVIEW):  # the retry needs a fresh verdict
                ctx.archive_files(*ctx.mode.verdict_files(ctx.paths, topic))
            if persist:
                state.progress.retry_count = round_number + 1
            ctx.save()

    def call_agent(
        self,
        phase: Phase,
        prompt: str,
        *,
        model: str,
        context: dict[str, str],
        final_cycle: bool | None = None,
    ) -> AgentResult:
        """One agent call with transient retries (exponential backoff with jitter)."""
        ctx = self.ctx
        if final_cycle is None:
            final_cycle = SPECS[phase].final_cycle
        result = AgentResult(ok=False, exit_code=None, failure=FailureKind.NO_OUTPUT)
        for attempt in range(MAX_TRANSIENT_ATTEMPTS):
            if ctx.cancelled.is_set():
                raise Cancelled
            if ctx.budget.used_up(ctx.now()):
                return AgentResult(
                    ok=False,
                    exit_code=None,
                    failure=FailureKind.TIMEOUT,
                    error="the time budget is used up",
                )
            result = self.call_once(
                phase, prompt, model=model, context=context, final_cycle=final_cycle
            )
            if result.ok or result.failure is None or not result.failure.transient:
                return result
            if attempt + 1 >= MAX_TRANSIENT_ATTEMPTS or not self.wait_to_retry(
                phase, attempt, result.failure, final_cycle=final_cycle
            ):
                break
        return result

    def call_once(
        self, phase: Phase, prompt: str, *, model: str, context: dict[str, str], final_cycle: bool
    ) -> AgentResult:
        """The agent call itself, with its own log, inside the workspace checks; the lock
        is checked before and after (a run that lost it stops)."""
        ctx = self.ctx
        timeout = ctx.budget.call_timeout(
            ctx.state.config.timeout, ctx.now(), final_cycle=final_cycle
        )
        log_path = ctx.new_log_path(phase)
        call = AgentCall(
            phase=phase.value,
            prompt=prompt,
            model=model,
            timeout=timeout,
            cwd=ctx.paths.root,
            log_path=log_path,
            context=context,
            env=session_marker(ctx.paths.session_dir),
        )
        if ctx.lock is not None:  # taken over by another run: stop (exit 3)
            ctx.lock.check_owned()
        kept = ctx.keep_files(phase, context.get("topic_slug") or None)
        before = ctx.now()
        with workspace.watch_for_stray_files(ctx.paths, ctx.events, phase.value):
            result = ctx.run_agent(call, phase, kept)  # then workspace/guard.py checks
        if ctx.lock is not None:  # the lock's keep-alive stopped this call's agent
            ctx.lock.check_owned()
        if ctx.cancelled.is_set():
            raise Cancelled
        self.restore_state_file()
        self.count_call(phase, result, ctx.now() - before)
        self.report_call(call, result)
        return result

    def restore_state_file(self) -> None:
        """Put state.json back if the agent changed or deleted it, and say so."""
        repaired = self.ctx.restore_state_file()
        if repaired is not None:
            self.ctx.events.emit(
                "warning",
                message=f"the agent {repaired} state.json during a "
                "call; the orchestrator restored it",
                file="state.json",
                repair=repaired,
            )

    def report_call(self, call: AgentCall, result: AgentResult) -> None:
        ctx = self.ctx
        ctx.events.emit(
            "agent_call",
            phase=call.phase,
            agent=ctx.agent.name,
            model=call.model,
            timeout=round(call.timeout, 3),
            exit_code=result.exit_code,
            ok=result.ok,
            failure=result.failure.value if result.failure else None,
            error=result.error,
            duration=round(result.duration, 3),
            input_tokens=result.input_tokens,
            output_tokens=result.output_tokens,
            cost=result.cost,
            log=ctx.paths.relative(call.log_path) if call.log_path else None,
        )

    def wait_to_retry(
        self, phase: Phase, attempt: int, failure: FailureKind, *, final_cycle: bool
    ) -> bool:
        """Sleep before retrying a transient failure; False when the budget cannot cover
        the wait and the retry."""
        ctx = self.ctx
        delay = backoff_delay(attempt, ctx.rng)
        if ctx.budget.used_up(ctx.now() + delay) or (
            not final_cycle and ctx.budget.research_time_over(ctx.now() + delay)
        ):
            return False
        ctx.events.emit(
            "retry",
            phase=phase.value,
            attempt=attempt + 1,
            delay=round(delay, 3),
            failure=failure.value,
        )
        ctx.clock.sleep(delay)
        return True

    def count_call(self, phase: Phase, result: AgentResult, seconds: float) -> None:
        with self.ctx.mutex:
            usage = self.ctx.state.usage
            usage.agent_calls += 1
            this = usage.phases.setdefault(phase.value, PhaseUsage())
            this.calls += 1
            this.seconds += seconds
            if not result.ok:
                usage.agent_failures += 1
                this.failures += 1
            if result.input_tokens is not None:
                this.input_tokens = (this.input_tokens or 0) + result.input_tokens
            if result.output_tokens is not None:
                this.output_tokens = (this.output_tokens or 0) + result.output_tokens
            if result.cost is not None:
                this.cost = (this.cost or 0.0) + result.cost

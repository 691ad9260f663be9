"""One phase: the agent call with its transient retries, validation, recovery rounds and
accounting. Returns `Ok(value)` or `Failed`; agent failures never raise."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from research.agents.base import AgentCall, AgentResult, FailureKind
from research.core.budget import MAX_TOPIC_RECOVERIES, backoff_delay, breaker_reason
from research.core.errors import PhaseFailed
from research.core.settings import MAX_PHASE_RECOVERIES, MAX_TRANSIENT_ATTEMPTS
from research.engine.context import Cancelled, RunContext
from research.engine.outcome import Failed, Ok, Outcome
from research.engine.specs import FINAL_PHASES, SPECS
from research.model.state import Phase, PhaseUsage, StopReason
from research.prompts import variables as prompts
from research.prompts.render import phase_prompt, recovery_prompt, recovery_values
from research.prompts.text import describe_failure
from research.prompts.variables import Failure, PromptInput
from research.workspace import strays as workspace
from research.workspace.orphans import session_marker

T = TypeVar("T")


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
        ctx, state = self.ctx, self.ctx.state
        spec = SPECS[phase]
        model = state.config.review_model if spec.review_model else state.config.model
        with ctx.mutex:
            if persist:
                state.progress.current_phase = phase
            first = state.progress.retry_count if persist else 0
            error = state.progress.last_error if persist and first else None
            rounds = MAX_TOPIC_RECOVERIES if spec.topic else MAX_PHASE_RECOVERIES
            if spec.final_cycle and state.progress.stop_reason is StopReason.CIRCUIT_BREAKER:
                rounds = 0  # the agent is failing: one attempt, then the orchestrator's fallback
        for round_number in range(first, rounds + 1):
            if ctx.budget.used_up(ctx.now()) or (
                not spec.final_cycle and ctx.budget.research_time_over(ctx.now())
            ):
                # No call starts that the budget cannot cover.
                error = "the time budget is used up"
                ctx.events.emit(
                    "warning",
                    message=f"the {phase.value} phase was not run: the time budget is used up",
                )
                break
            with ctx.mutex:
                if persist:
                    state.progress.retry_count = round_number
                values = prompts.variables(prompt())
                failure = Failure(phase, error, round_number) if round_number > 0 else None
                text = phase_prompt(ctx.templates, spec.template, values, failure)
                state.progress.phase_history.append(phase.value)
            started = ctx.now()
            ctx.events.emit(
                "phase_start", phase=phase.value, topic=values.get("topic_slug"), round=round_number
            )
            result = self.call_agent(phase, text, model=model, context=values)
            try:
                value = self._validate(result, validate)
            except PhaseFailed as exc:
                error = str(exc)
                with ctx.mutex:
                    ctx.write_plan()
                    state.progress.last_error = error
                    if persist:
                        state.progress.failed_phase = phase
                ctx.events.emit(
                    "phase_end",
                    phase=phase.value,
                    outcome="failed",
                    kind=exc.kind,
                    error=error,
                    topic=topic,
                    duration=round(ctx.now() - started, 3),
                )
                if round_number >= rounds or self.stop_recovering(phase):
                    break
                self.recover(phase, values, error, round_number, topic=topic, persist=persist)
                if self.stop_recovering(phase):
                    break
                continue
            ctx.events.emit(
                "phase_end",
                phase=phase.value,
                outcome="ok",
                topic=topic,
                duration=round(ctx.now() - started, 3),
            )
            with ctx.mutex:
                if persist:
                    state.progress.retry_count = 0
                    state.progress.failed_phase = None
                    state.progress.phase_recovered = round_number > 0
                state.usage.phases_run += 1
                state.progress.failing_topics = []
                state.progress.consecutive_failed_phases = 0
            return Ok(value)
        with ctx.mutex:
            if persist:
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
        return Failed(error or "unknown error")

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
            if ctx.parallel == 1:
                ctx.archive_files(ctx.paths.recovery_notes)
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
        ctx, state = self.ctx, self.ctx.state
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
            timeout = ctx.budget.call_timeout(
                state.config.timeout, ctx.now(), final_cycle=final_cycle
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
            repaired = ctx.restore_state_file()
            if repaired is not None:
                ctx.events.emit(
                    "warning",
                    message=f"the agent {repaired} state.json during a "
                    "call; the orchestrator restored it",
                    file="state.json",
                    repair=repaired,
                )
            self.count_call(phase, result, ctx.now() - before)
            ctx.events.emit(
                "agent_call",
                phase=phase.value,
                agent=ctx.agent.name,
                model=model,
                timeout=round(timeout, 3),
                exit_code=result.exit_code,
                ok=result.ok,
                failure=result.failure.value if result.failure else None,
                error=result.error,
                duration=round(result.duration, 3),
                input_tokens=result.input_tokens,
                output_tokens=result.output_tokens,
                cost=result.cost,
                log=ctx.paths.relative(log_path),
            )
            if result.ok or result.failure is None or not result.failure.transient:
                return result
            if attempt + 1 >= MAX_TRANSIENT_ATTEMPTS:
                break
            delay = backoff_delay(attempt, ctx.rng)
            if ctx.budget.used_up(ctx.now() + delay) or (
                not final_cycle and ctx.budget.research_time_over(ctx.now() + delay)
            ):
                break  # no retry starts that the budget cannot cover
            ctx.events.emit(
                "retry",
                phase=phase.value,
                attempt=attempt + 1,
                delay=round(delay, 3),
                failure=result.failure.value,
            )
            ctx.clock.sleep(delay)
        return result

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

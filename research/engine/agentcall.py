"""One agent call: its own log, the workspace checks around it, the lock checked before and
after, transient failures tried again with backoff (level 1 of `core/retries.py`), and the
call's accounting. Agent failures come back as an `AgentResult`, never raised."""

from __future__ import annotations

from research.agents.base import AgentCall, AgentResult, FailureKind
from research.core.retries import MAX_TRANSIENT_ATTEMPTS, backoff_delay
from research.engine.context import Cancelled, RunContext
from research.engine.specs import SPECS
from research.engine.staging import Stage
from research.model.state import Phase, PhaseUsage
from research.workspace import strays as workspace
from research.workspace.orphans import session_marker


class AgentCaller:
    """Makes the engine's agent calls; one instance may serve several threads."""

    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx

    def call_agent(
        self,
        phase: Phase,
        prompt: str,
        *,
        model: str,
        context: dict[str, str],
        final_cycle: bool | None = None,
        timeout_cap: float | None = None,
        stage: Stage | None = None,
    ) -> AgentResult:
        """One agent call with transient retries (exponential backoff with jitter);
        `timeout_cap` shortens the call's timeout (a judge leaves the final cycle time).
        With a `stage`, the agent works in that scratch area (see engine/staging.py)."""
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
                phase,
                prompt,
                model=model,
                context=context,
                final_cycle=final_cycle,
                timeout_cap=timeout_cap,
                stage=stage,
            )
            if result.ok or result.failure is None or not result.failure.transient:
                return result
            if attempt + 1 >= MAX_TRANSIENT_ATTEMPTS or not self.wait_to_retry(
                phase, attempt, result.failure, final_cycle=final_cycle
            ):
                break
        return result

    def call_once(
        self,
        phase: Phase,
        prompt: str,
        *,
        model: str,
        context: dict[str, str],
        final_cycle: bool,
        timeout_cap: float | None = None,
        stage: Stage | None = None,
    ) -> AgentResult:
        """The agent call itself, with its own log, inside the workspace checks; the lock
        is checked before and after (a run that lost it stops)."""
        ctx = self.ctx
        timeout = ctx.budget.call_timeout(
            ctx.state.config.timeout, ctx.now(), final_cycle=final_cycle
        )
        if timeout_cap is not None:
            timeout = min(timeout, timeout_cap)
        log_path = ctx.new_log_path(phase)
        if ctx.lock is not None:  # taken over by another run: stop (exit 3)
            ctx.lock.check_owned()
        topic = context.get("topic_slug") or None
        kept = ctx.keep_files(phase, topic)
        if stage is not None:
            stage.ready(phase)  # a new area, a fresh copy of the session, for this call
            prompt = stage.repoint(prompt)  # a retry's or RECOVERY's names its own area
            context = {key: stage.repoint(value) for key, value in context.items()}
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
        before = ctx.now()
        taken = None if stage is None else (lambda: stage.take(phase, topic))
        with workspace.watch_for_stray_files(ctx.paths, ctx.events, phase.value):
            # what it wrote taken into the session (fenced), then workspace/guard.py checks
            result = ctx.run_agent(call, phase, kept, taken)
        if ctx.lock is not None:  # the lock's keep-alive stopped this call's agent
            ctx.lock.check_owned()
        if ctx.cancelled.is_set():
            raise Cancelled
        self.restore_state_file()
        seconds = ctx.now() - before
        self.count_call(phase, result, seconds)
        self.report_call(call, result, seconds)
        for warning in result.usage_warnings:  # dropped by agents/base.py's checked_usage
            ctx.events.emit("warning", message=warning, phase=phase.value)
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

    def report_call(self, call: AgentCall, result: AgentResult, seconds: float) -> None:
        """The call's event; its duration is the time the call took here, whatever the
        agent reports (the simulated agent reports none)."""
        ctx = self.ctx
        ctx.events.emit(
            "agent_call",
            phase=call.phase,
            agent=ctx.agent.name,
            model=call.model,
            **({"model_used": result.model} if result.model else {}),
            timeout=round(call.timeout, 3),
            exit_code=result.exit_code,
            ok=result.ok,
            failure=result.failure.value if result.failure else None,
            error=result.error,
            duration=round(seconds, 3),
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
            if result.model and result.model not in usage.models_used:
                usage.models_used.append(result.model)

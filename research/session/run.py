"""A session's life: preflight (read only), the lock, opening the run, and its one ending.

`run_session` is the whole of it; each stage is its own module: `preflight` checks every
input and writes nothing, `locking` holds the session's lock, `Run` opens the run and ends
it, whatever ends it.
"""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from research.agents.base import Agent
from research.core.defaults import KILL_GRACE_SECONDS
from research.core.errors import (
    Interrupted,
    ResearchError,
    RunFailed,
    SessionLockedError,
    UsageError,
)
from research.core.hosts import host_id
from research.core.interrupts import signals_raise_interrupted
from research.core.settings import Settings
from research.engine import Clock, ResearchLoop, RunContext
from research.model import tiering
from research.model.plan import Plan
from research.model.state import (
    RWRState,
    SessionConfig,
    SessionProgress,
    load_saved_state,
    save_state,
)
from research.prompts.templates import PromptTemplates
from research.session.approval import record_approval, take_approval
from research.session.locking import prepare_workspace, session_lock
from research.session.preflight import NoAgent, Preflight, check_own_state, preflight, state_stamp
from research.sources.web import Web
from research.workspace.events import EventLog
from research.workspace.guard import take_away
from research.workspace.lock import Acquired, LockInfo, SessionLock, pid_running
from research.workspace.orphans import agent_process_groups, stop_process_groups
from research.workspace.paths import SessionPaths

log = logging.getLogger("research")


@dataclass
class RunOutcome:
    state: RWRState
    paths: SessionPaths


def build_agent(settings: Settings) -> tuple[Agent, Clock]:
    """The agent the settings ask for, and the clock the loop runs on."""
    if settings.agent_cmd is not None and not settings.agent_cmd.strip():
        raise UsageError(
            "empty agent command: give --agent-cmd (or RESEARCH_AGENT_CMD) a command line, "
            'e.g. --agent-cmd "claude -p --permission-mode acceptEdits --model {model}" '
            "--model sonnet"
        )
    if settings.mock_mode:
        from research.simulation.agent import MockAgent

        return MockAgent(latency=settings.mock_latency), Clock(sleep=lambda _: None)
    if settings.agent_cmd is not None:
        from research.agents.generic import MODEL_PLACEHOLDER, CommandAgent

        if (
            MODEL_PLACEHOLDER in settings.agent_cmd
            and settings.model is None
            and not settings.resume
        ):
            raise UsageError(
                f"the agent command's {MODEL_PLACEHOLDER} needs --model (and, for reviews, "
                "--review-model): a command has no default model"
            )

        agent: Agent = CommandAgent(settings.agent_cmd)
    else:
        from research.agents.kinds import built_in

        agent = built_in(settings.agent, prices=settings.codex_prices)
    agent.check_available()
    return agent, Clock()


def run_session(
    settings: Settings,
    *,
    confirm: Callable[[str], bool],
    warn: Callable[[str], None],
    on_events: Callable[[EventLog, RWRState], None] | None = None,
    agent: tuple[Agent, Clock] | None = None,
    inform: Callable[[str], None] | None = None,
    ask: Callable[[str], bool] | None = None,
) -> RunOutcome:
    """Run (or resume) the session the settings describe, through to the written report.

    `ask` puts a yes/no question to the user during the run (a raised iteration limit);
    without it, or with no terminal, the answer is no. --yes answers yes."""
    checked = preflight(
        settings,
        build_agent=lambda chosen: build_agent(chosen),  # looked up at call time
        confirm=confirm,
        warn=warn,
        agent=agent,
    )
    log.debug("preflight: %s", checked.describe())
    # The lock first: a refused run (a live holder) writes nothing, not even the templates.
    with session_lock(
        checked.paths,
        force=checked.settings.force_resume,
        failover=checked.settings.failover_seconds,
    ) as (lock, acquired):
        done = finished_meanwhile(checked)
        if done is not None:  # a late second delivery: nothing to do, nothing written
            (inform or log.info)(
                f"session {settings.name!r} was completed by another run while this one "
                "waited for its lock; nothing to do"
            )
            return RunOutcome(done, checked.paths)
        templates = prepare_workspace(checked.paths, warn)
        with signals_raise_interrupted():
            run = Run(checked, lock, inform or log.info, _asker(checked.settings, ask))
            with run.ending():
                run.open(acquired, templates, on_events)
                outcome = run.go()
    return outcome


def finished_meanwhile(checked: Preflight) -> RWRState | None:
    """The session's state when a resume finds it complete under the lock though it was
    not when the preflight read it: another run (a job delivered twice, another host)
    finished it while this one waited. Then this run writes nothing into it."""
    saved = checked.saved
    if saved is None or saved.state.progress.is_complete:
        return None
    if state_stamp(checked.paths) == saved.stamp:
        return None
    try:
        state, _ = load_saved_state(checked.paths.state_file)
    except ResearchError:
        return None  # the run reads it again and says what is wrong
    return state if state.progress.is_complete else None


class Run:
    """One run of a session under its lock: opened, run, and ended one way."""

    def __init__(
        self,
        checked: Preflight,
        lock: SessionLock,
        inform: Callable[[str], None],
        ask: Callable[[str], bool] | None = None,
    ):
        self.checked = checked
        self.ask = ask
        self.settings = checked.settings
        self.paths = checked.paths
        self.lock = lock
        self.inform = inform
        self.state: RWRState | None = None
        self.events: EventLog | None = None
        self.loop: ResearchLoop | None = None
        self.approved = False
        """Whether this run took the user's approved plan."""

    # --- opening ------------------------------------------------------------------------

    def open(
        self,
        acquired: Acquired,
        templates: PromptTemplates,
        on_events: Callable[[EventLog, RWRState], None] | None,
    ) -> None:
        """The state (resumed or new), the event log, and the loop that will run."""
        state = self.state = self.resumed_state() if self.settings.resume else self.new_state()
        events = self.events = EventLog(self.paths.events_file, clock=self.checked.clock.now)
        if on_events is not None:
            on_events(events, state)
        events.emit(
            "lock_taken",
            takeover=acquired.took_over is not None,
            reason=acquired.reason,
            **(
                {}
                if acquired.took_over is None
                else {
                    "previous_pid": acquired.took_over.pid,
                    "previous_host": acquired.took_over.host,
                    "host": self.lock.host,
                }
            ),
        )
        if acquired.took_over is not None:
            stop_leftover_agents(acquired.took_over, self.paths, events)
        self.lock.listen(lambda kind, fields: _emit_quietly(events, kind, **fields))
        events.emit(
            "run_start",
            resume=self.settings.resume,
            host=self.lock.host,
            phase=state.progress.current_phase.value,
            agent=self.checked.agent.name,
            max_iterations=state.config.max_iterations,
        )
        unenforceable_budgets(
            state, self.checked.agent, events, lambda m: self.inform(f"warning: {m}")
        )
        if self.approved and self.checked.approval is not None:
            record_approval(events, state, self.checked.approval)
        context = RunContext(
            state=state,
            paths=self.paths,
            agent=self.checked.agent,
            templates=templates,
            events=events,
            lock=self.lock,
            clock=self.checked.clock,
            ask=self.ask,
        )
        self.loop = ResearchLoop(context, web=_web(self.settings))

    def new_state(self) -> RWRState:
        settings, tier = self.settings, self.checked.tier
        assert settings.topic is not None and tier is not None
        state = RWRState(
            name=settings.name,
            config=SessionConfig.from_settings(
                settings, agent=self.checked.agent.name, max_iterations=self.checked.max_iterations
            ),
            plan=Plan(topic=settings.topic, breadth=settings.breadth, depth=settings.depth),
            progress=SessionProgress(start_time=time.time()),
        )
        tiering.record(state.config, tier, settings.max_iterations)
        state.config.limit_agreement = self.checked.agreement
        return state

    def resumed_state(self) -> RWRState:
        """The state the preflight read, with the options the user gave; read again only if
        it changed before the lock was taken (another run ended in between)."""
        saved = self.checked.saved
        assert saved is not None
        state, from_copy = saved.state, saved.from_copy
        if state_stamp(self.paths) != saved.stamp:
            state, from_copy = load_saved_state(self.paths.state_file)
            check_own_state(state, self.settings, self.paths)
        if from_copy is not None:  # what an agent left in place of state.json goes
            take_away(self.paths, self.paths.state_file)
            self.inform(from_copy)
        approval = self.checked.approval
        if approval is not None and state.progress.awaiting_approval:
            take_approval(state, approval)
            self.approved = True
        changes = state.config.apply(self.settings)
        if changes:
            self.inform(f"resuming {state.name!r} with {'; '.join(changes)}")
        save_state(state, self.paths.state_file)
        return state

    # --- running ------------------------------------------------------------------------

    def go(self) -> RunOutcome:
        """Run the loop to the report (or say the session is already complete)."""
        assert self.loop is not None and self.events is not None and self.state is not None
        loop, events, state = self.loop, self.events, self.state
        if state.progress.is_complete and not loop.reopen():
            loop.cleanup()
            events.emit("run_end", outcome="already_complete")
            self.inform(
                f"session {self.settings.name!r} is already complete; its "
                f"report is {self.paths.relative(self.paths.report_file)}"
            )
            return RunOutcome(state, self.paths)
        if isinstance(self.checked.agent, NoAgent):  # reopened: an agent is needed after all
            self.checked.agent.check_available()
        loop.save()
        loop.run()
        if state.progress.awaiting_approval:
            events.emit(
                "run_end",
                outcome="awaiting_approval",
                plan=self.paths.relative(self.paths.plan_file),
            )
            return RunOutcome(state, self.paths)
        events.emit(
            "run_end", outcome="complete", report=self.paths.relative(self.paths.report_file)
        )
        return RunOutcome(state, self.paths)

    # --- the one ending -----------------------------------------------------------------

    @contextmanager
    def ending(self) -> Iterator[None]:
        """However the run ends: the state saved (unless another run took the session), the
        end recorded, the lock released, the event log closed; an unexpected error becomes
        one RunFailed line."""
        try:
            yield
        except (Exception, Interrupted) as exc:
            error = self.failed(exc)
            if error is exc:
                raise
            raise error from (None if isinstance(exc, OSError) else exc)
        finally:
            if self.lock.release():
                _emit_quietly(self.events, "lock_released")
            if self.events is not None:
                self.events.close()

    def failed(self, exc: BaseException) -> BaseException:
        """Record a run ended by `exc`; the error to raise for it."""
        if self.loop is not None and not self.lock.lost.is_set():  # lost: another run's now
            _save_quietly(self.loop)
        if isinstance(exc, (ResearchError, Interrupted)):
            outcome = "interrupted" if isinstance(exc, Interrupted) else "failed"
            _emit_quietly(
                self.events, "run_end", error=str(exc) or type(exc).__name__, outcome=outcome
            )
            return exc
        if isinstance(exc, OSError):
            _emit_quietly(self.events, "run_end", outcome="failed", error=str(exc))
            where = f" ({exc.filename})" if exc.filename else ""
            return RunFailed(
                f"file system error: {exc.strerror or exc}{where}; the session can be "
                "continued with --resume"
            )
        _emit_quietly(self.events, "error", message=str(exc), traceback=traceback.format_exc())
        _emit_quietly(self.events, "run_end", outcome="failed", error=repr(exc))
        return RunFailed(
            f"internal error: {exc!r}; details are in {self.paths.events_file}; "
            "the session can be continued with --resume"
        )


def unenforceable_budgets(
    state: RWRState, agent: Agent, events: EventLog, warn: Callable[[str], None]
) -> None:
    """Say at the start that token and cost budgets cannot hold with an agent that reports
    no usage: the run goes on, but nothing counts against them."""
    config = state.config
    budgets = [
        flag
        for flag, value in (
            ("--token-budget", config.token_budget),
            ("--max-cost", config.max_cost),
        )
        if value is not None
    ]
    unpriced = agent.unpriced_models([config.model, config.review_model])
    if config.max_cost is not None and agent.reports_usage and unpriced:
        message = (
            f"--max-cost cannot be enforced for {', '.join(unpriced)}: the {agent.name} agent "
            "reports no cost and research.py has no price for it (give --codex-prices FILE)"
        )
        warn(message)
        events.emit("warning", message=message)
    if not budgets or agent.reports_usage:
        return
    message = (
        f"{' and '.join(budgets)} cannot be enforced: the {agent.name} agent reports no token "
        "usage or cost, so nothing counts against "
        f"{'them' if len(budgets) > 1 else 'it'} (use --time to bound the run)"
    )
    warn(message)
    events.emit("warning", message=message)


def _asker(settings: Settings, ask: Callable[[str], bool] | None) -> Callable[[str], bool] | None:
    """--yes answers every question of the run yes."""
    return (lambda _question: True) if settings.assume_yes else ask


def _web(settings: Settings) -> Callable[[], Web] | None:
    """The simulated agent cites the simulated web; every other agent the real one."""
    if not settings.mock_mode:
        return None
    from research.simulation.offline_web import simulated_web

    return simulated_web


def _emit_quietly(events: EventLog | None, event_type: str, **fields: object) -> None:
    """Record how the run ended without hiding the error that ended it."""
    if events is None:
        return
    try:
        events.emit(event_type, **fields)
    except OSError as exc:
        log.warning("could not write %s: %s", events.path, exc)
    except SessionLockedError:
        pass  # another run holds the session now: nothing more is written into it


def stop_leftover_agents(previous: LockInfo, paths: SessionPaths, events: EventLog) -> None:
    """A dead run's agent calls run on in process groups of their own: stop them before
    this run starts its own agent on the same files."""
    if previous.host != host_id() or pid_running(previous.pid):
        return
    groups = agent_process_groups(paths.session_dir)
    if groups:
        stop_process_groups(groups, grace=KILL_GRACE_SECONDS)
        events.emit(
            "warning",
            message=f"stopped {len(groups)} agent process group(s) left "
            f"running by the dead run (pid {previous.pid})",
            process_groups=sorted(groups),
        )


def _save_quietly(loop: ResearchLoop) -> None:
    try:
        loop.save()
    except OSError as exc:  # the disk may be why we are here; keep the original error
        log.warning("could not save state: %s", exc)

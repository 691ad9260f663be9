"""Start or resume a session: check inputs, take the lock, build the loop, always clean up."""

from __future__ import annotations

import logging
import signal
import socket
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from research.agents.base import Agent
from research.budget import effective_max_iterations, needs_confirmation
from research.engine import Clock, ResearchLoop
from research.errors import Interrupted, ResearchError, RunFailed, StateError, UsageError
from research.events import EventLog
from research.lock import LockInfo, SessionLock, pid_running
from research.orphans import agent_process_groups, stop_process_groups
from research.paths import SessionPaths
from research.plan import Plan
from research.settings import KILL_GRACE_SECONDS, Settings
from research.state import RWRState, SessionConfig, SessionProgress, load_state, save_state
from research.templates import PromptTemplates, sync_templates, write_newer_defaults

log = logging.getLogger("research")


@dataclass
class Outcome:
    state: RWRState
    paths: SessionPaths


def build_agent(settings: Settings) -> tuple[Agent, Clock]:
    """The agent the settings ask for, and the clock the loop runs on."""
    if settings.mock_mode:
        from research.agents.mock import MockAgent

        return MockAgent(), Clock(sleep=lambda _: None)
    if settings.agent_cmd:
        from research.agents.command import CommandAgent

        agent: Agent = CommandAgent(settings.agent_cmd)
    else:
        from research.agents.opencode import OpenCodeAgent

        agent = OpenCodeAgent()
    agent.check_available()
    return agent, Clock()


def new_state(settings: Settings, agent: Agent, max_iterations: int) -> RWRState:
    assert settings.topic is not None
    return RWRState(
        name=settings.name,
        config=SessionConfig(
            original_topic=settings.topic,
            breadth=settings.breadth,
            depth=settings.depth,
            max_iterations=max_iterations,
            model=settings.model,
            review_model=settings.review_model,
            timeout=settings.timeout,
            mock_mode=settings.mock_mode,
            time_budget_minutes=settings.time_budget_minutes,
            agent=agent.name,
            duplicate_threshold=settings.duplicate_threshold,
            min_novelty=settings.min_novelty,
            early_termination=settings.early_termination,
            parallel=settings.parallel,
        ),
        plan=Plan(topic=settings.topic, breadth=settings.breadth, depth=settings.depth),
        progress=SessionProgress(start_time=time.time()),
    )


def run_session(
    settings: Settings,
    *,
    confirm: Callable[[str], bool],
    warn: Callable[[str], None],
    on_events: Callable[[EventLog, RWRState], None] | None = None,
    agent: tuple[Agent, Clock] | None = None,
) -> Outcome:
    """Run (or resume) the session the settings describe, through to the written report."""
    paths = SessionPaths(settings.root, settings.name)
    if settings.resume:
        if not paths.state_file.exists():
            SessionLock(paths.lock_file).ensure_not_held()  # started elsewhere, not saved yet
            raise StateError(f"no saved session named {settings.name!r} in {paths.research_root}"
                             " to resume; start it without --resume")
        # A corrupt or foreign state is refused before anything is written.
        check_own_state(load_state(paths.state_file), settings, paths)
    elif paths.state_file.exists():
        SessionLock(paths.lock_file).ensure_not_held()  # a second terminal: name the holder
        raise UsageError(f"a session named {settings.name!r} already exists; continue it with "
                         "--resume, or choose another --name")
    elif not settings.topic or not settings.topic.strip():
        raise UsageError("give the research topic or question as an argument")

    the_agent, clock = agent or build_agent(settings)
    templates = load_templates(paths, warn)

    max_iterations, raised = effective_max_iterations(settings.max_iterations, settings.breadth,
                                                      settings.depth)
    if not settings.resume:
        if raised:
            warn(f"--max-iterations {settings.max_iterations} is below the floor "
                 f"{settings.breadth}^({settings.depth}+1)+5 = {max_iterations}; "
                 f"using {max_iterations}")
        if needs_confirmation(max_iterations) and not settings.assume_yes and not confirm(
            f"This session may run up to {max_iterations} research iterations "
            f"(breadth {settings.breadth}, depth {settings.depth}). Continue?"
        ):
            raise UsageError("not confirmed; nothing was started")

    # Both directories now: a report that cannot be written must not wait for hours of research.
    for directory in (paths.session_dir, paths.report_dir):
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise RunFailed(f"cannot create {directory}: {exc.strerror}") from None
    lock = SessionLock(paths.lock_file)
    acquired = lock.acquire(force=settings.force_resume)
    loop: ResearchLoop | None = None
    events: EventLog | None = None
    try:
        with signals_raise_interrupted():
            state = (resume_state(settings, paths) if settings.resume
                     else new_state(settings, the_agent, max_iterations))
            events = EventLog(paths.events_file, clock=clock.now)
            if on_events is not None:
                on_events(events, state)
            if acquired.took_over is not None:
                events.emit("lock_taken", takeover=True, reason=acquired.reason,
                            previous_pid=acquired.took_over.pid)
                stop_leftover_agents(acquired.took_over, paths, events)
            else:
                events.emit("lock_taken", takeover=False, reason=acquired.reason)
            events.emit("run_start", resume=settings.resume, phase=state.progress.current_phase.value,
                        agent=the_agent.name, max_iterations=state.config.max_iterations)
            loop = ResearchLoop(state=state, paths=paths, agent=the_agent, templates=templates,
                                events=events, lock=lock, clock=clock)
            if state.progress.is_complete and not loop.reopen():
                loop.cleanup()
                events.emit("run_end", outcome="already_complete")
                return Outcome(state, paths)
            loop.save()
            loop.run()
            events.emit("run_end", outcome="complete", report=paths.relative(paths.report_file))
            return Outcome(state, paths)
    except (ResearchError, Interrupted) as exc:
        if loop is not None:
            _save_quietly(loop)
        _emit_quietly(events, "run_end", error=str(exc) or type(exc).__name__,
                      outcome="interrupted" if isinstance(exc, Interrupted) else "failed")
        raise
    except OSError as exc:
        if loop is not None:
            _save_quietly(loop)
        _emit_quietly(events, "run_end", outcome="failed", error=str(exc))
        where = f" ({exc.filename})" if exc.filename else ""
        raise RunFailed(f"file system error: {exc.strerror or exc}{where}; the session can be "
                        "continued with --resume") from None
    except Exception as exc:
        if loop is not None:
            _save_quietly(loop)
            loop.events.emit("error", message=str(exc), traceback=traceback.format_exc())
        _emit_quietly(events, "run_end", outcome="failed", error=repr(exc))
        raise RunFailed(f"internal error: {exc!r}; details are in {paths.events_file}; "
                        "the session can be continued with --resume") from exc
    finally:
        lock.release()
        _emit_quietly(events, "lock_released")
        if events is not None:
            events.close()


def _emit_quietly(events: EventLog | None, event_type: str, **fields: object) -> None:
    """Record how the run ended without hiding the error that ended it."""
    if events is None:
        return
    try:
        events.emit(event_type, **fields)
    except OSError as exc:
        log.warning("could not write %s: %s", events.path, exc)


def stop_leftover_agents(previous: LockInfo, paths: SessionPaths, events: EventLog) -> None:
    """A dead run's agent calls run on in process groups of their own: stop them before
    this run starts its own agent on the same files."""
    if previous.host != socket.gethostname() or pid_running(previous.pid):
        return
    groups = agent_process_groups(paths.session_dir)
    if groups:
        stop_process_groups(groups, grace=KILL_GRACE_SECONDS)
        events.emit("warning", message=f"stopped {len(groups)} agent process group(s) left "
                    f"running by the dead run (pid {previous.pid})",
                    process_groups=sorted(groups))


def _save_quietly(loop: ResearchLoop) -> None:
    try:
        loop.save()
    except OSError as exc:  # the disk may be why we are here; keep the original error
        log.warning("could not save state: %s", exc)


def load_templates(paths: SessionPaths, warn: Callable[[str], None]) -> PromptTemplates:
    try:
        synced = sync_templates(paths.templates_dir)
    except OSError as exc:
        raise RunFailed(f"cannot create the templates in {paths.templates_dir}: "
                        f"{exc.strerror}") from None
    templates = PromptTemplates.load(paths.templates_dir)
    try:
        write_newer_defaults(paths.templates_dir, synced.kept)
    except OSError as exc:
        log.warning("could not write the newer default templates: %s", exc)
    for notice in synced.notices(paths.relative(paths.templates_dir)):
        warn(notice)
    return templates


def check_own_state(state: RWRState, settings: Settings, paths: SessionPaths) -> RWRState:
    if state.name != settings.name:
        raise StateError(f"{paths.state_file} belongs to session {state.name!r}, "
                         f"not {settings.name!r}")
    return state


def resume_state(settings: Settings, paths: SessionPaths) -> RWRState:
    state = check_own_state(load_state(paths.state_file), settings, paths)
    overrides = settings.model_fields_set
    if "max_iterations" in overrides and settings.max_iterations is not None:
        state.config.max_iterations = max(settings.max_iterations, state.config.max_iterations)
    if "time_budget_minutes" in overrides:
        state.config.time_budget_minutes = settings.time_budget_minutes
    for field in ("model", "review_model", "timeout", "duplicate_threshold", "min_novelty",
                  "early_termination", "parallel"):
        if field in overrides:
            setattr(state.config, field, getattr(settings, field))
    # Any agent may continue a session, but once part of it was simulated the report says so.
    state.config.mock_mode = state.config.mock_mode or settings.mock_mode
    save_state(state, paths.state_file)
    return state


@contextmanager
def signals_raise_interrupted() -> Iterator[None]:
    """SIGINT and SIGTERM raise Interrupted in the main thread, so every finally runs."""
    if sys.platform == "win32" or not _main_thread():
        yield
        return

    def handler(signum: int, _frame: object) -> None:
        raise Interrupted(signum)

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()

"""Start or resume a session: check inputs, take the lock, build the loop, always clean up."""

from __future__ import annotations

import logging
import os
import socket
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from string import Template

from research.agents.base import Agent, AgentCall, AgentResult
from research.core.budget import effective_max_iterations, needs_confirmation
from research.core.errors import (
    AgentUnavailable,
    Interrupted,
    ResearchError,
    RunFailed,
    StateError,
    TemplateError,
    UsageError,
)
from research.core.interrupts import signals_raise_interrupted
from research.core.settings import KILL_GRACE_SECONDS, Settings
from research.engine import Clock, ResearchLoop, RunContext
from research.model.plan import Plan
from research.model.state import (
    STATE_COPY_NAME,
    RWRState,
    SessionConfig,
    SessionProgress,
    load_saved_state,
    save_state,
    state_entry,
)
from research.prompts.templates import (
    TEMPLATE_NAMES,
    PromptTemplates,
    damage,
    default_templates_dir,
    digest,
    shipped_history,
    sync_templates,
    write_newer_defaults,
)
from research.sources.web import Web
from research.workspace.events import EventLog
from research.workspace.guard import refuse_linked_dirs, remove_temp_files, take_away
from research.workspace.lock import LockInfo, SessionLock, pid_running
from research.workspace.orphans import agent_process_groups, stop_process_groups
from research.workspace.paths import SessionPaths

log = logging.getLogger("research")


@dataclass
class Outcome:
    state: RWRState
    paths: SessionPaths


class NoAgent:
    """Stands in for an agent that is not installed, when a finished session is resumed: it
    needs no agent unless it is reopened, and then this one says what to install."""

    def __init__(self, name: str, missing: AgentUnavailable) -> None:
        self.name = name
        self.missing = missing

    def check_available(self) -> str:
        raise self.missing

    def run(self, call: AgentCall) -> AgentResult:
        raise self.missing


def build_agent(settings: Settings) -> tuple[Agent, Clock]:
    """The agent the settings ask for, and the clock the loop runs on."""
    if settings.agent_cmd is not None and not settings.agent_cmd.strip():
        raise UsageError(
            "empty agent command: give --agent-cmd (or RESEARCH_AGENT_CMD) a "
            'command line, e.g. --agent-cmd "claude -p --model {model}"'
        )
    if settings.mock_mode:
        from research.simulation.agent import MockAgent

        return MockAgent(), Clock(sleep=lambda _: None)
    if settings.agent_cmd is not None:
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
        config=SessionConfig.from_settings(
            settings, agent=agent.name, max_iterations=max_iterations
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
    inform: Callable[[str], None] | None = None,
) -> Outcome:
    """Run (or resume) the session the settings describe, through to the written report."""
    paths = SessionPaths(settings.root, settings.name)
    refuse_linked_dirs(paths)  # never read or written through a link an agent left
    saved: RWRState | None = None
    saved_before = (
        state_entry(paths.state_file) != "missing"
        or state_entry(paths.session_dir / STATE_COPY_NAME) != "missing"
    )
    if settings.resume:
        if not saved_before:
            SessionLock(paths.lock_file).ensure_not_held()  # started elsewhere, not saved yet
            raise StateError(
                f"no saved session named {settings.name!r} in {paths.research_root}"
                " to resume; start it without --resume"
            )
        # A corrupt, foreign or contradicted state is refused before anything is written.
        # (Read only: a state.json replaced by a directory, link or FIFO is read from its
        # copy here, and put back once the lock is held.)
        saved = check_own_state(load_saved_state(paths.state_file)[0], settings, paths)
        check_unchanged_shape(saved, settings)
        settings = remembered_agent(saved, settings)
    elif saved_before:
        SessionLock(paths.lock_file).ensure_not_held()  # a second terminal: name the holder
        raise UsageError(
            f"a session named {settings.name!r} already exists; continue it with "
            "--resume, or choose another --name"
        )
    elif not settings.topic or not settings.topic.strip():
        raise UsageError("give the research topic or question as an argument")
    elif os.path.lexists(paths.report_file):  # never overwrite a report with no session
        raise UsageError(
            f"{paths.relative(paths.report_file)} already exists but there is no "
            f"session {settings.name!r}; move the report away, or choose "
            "another --name"
        )

    finished = saved is not None and saved.progress.is_complete
    try:
        the_agent, clock = agent or build_agent(settings)
    except AgentUnavailable as exc:
        if not finished:
            raise
        # A finished session needs no agent, unless a raised limit reopens it (see below).
        the_agent, clock = NoAgent("command" if settings.agent_cmd else "opencode", exc), Clock()
    check_templates(paths)  # read only: a damaged template is refused before anything is written

    max_iterations, raised = effective_max_iterations(
        settings.max_iterations, settings.breadth, settings.depth
    )
    if not settings.resume:
        if raised:
            warn(
                f"--max-iterations {settings.max_iterations} is below the floor "
                f"{settings.breadth}^({settings.depth}+1)+5 = {max_iterations}; "
                f"using {max_iterations}"
            )
        if (
            needs_confirmation(max_iterations)
            and not settings.assume_yes
            and not confirm(
                f"This session may run up to {max_iterations} research iterations "
                f"(breadth {settings.breadth}, depth {settings.depth}). Continue?"
            )
        ):
            raise UsageError("not confirmed; nothing was started")

    # The lock first: a refused run (a live holder) writes nothing, not even the templates.
    created_session_dir = not paths.session_dir.exists()
    try:
        paths.session_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RunFailed(f"cannot create {paths.session_dir}: {exc.strerror}") from None
    lock = SessionLock(paths.lock_file)
    try:
        acquired = lock.acquire(force=settings.force_resume)
    except BaseException:
        if created_session_dir:
            _remove_empty(paths.session_dir, paths.research_root)
        raise
    try:
        remove_temp_files(paths)  # left by a killed run's atomic writes: ours, and locked
        # Now the report directory: a report that cannot be written must not wait for hours
        # of research. Then the templates, written only once the run is accepted and locked.
        try:
            paths.report_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise RunFailed(f"cannot create {paths.report_dir}: {exc.strerror}") from None
        templates = load_templates(paths, warn)
    except BaseException:
        lock.release()
        raise
    loop: ResearchLoop | None = None
    events: EventLog | None = None
    try:
        with signals_raise_interrupted():
            state = (
                resume_state(settings, paths, inform or log.info)
                if settings.resume
                else new_state(settings, the_agent, max_iterations)
            )
            events = EventLog(paths.events_file, clock=clock.now)
            if on_events is not None:
                on_events(events, state)
            if acquired.took_over is not None:
                events.emit(
                    "lock_taken",
                    takeover=True,
                    reason=acquired.reason,
                    previous_pid=acquired.took_over.pid,
                )
                stop_leftover_agents(acquired.took_over, paths, events)
            else:
                events.emit("lock_taken", takeover=False, reason=acquired.reason)
            lock.listen(lambda kind, fields: _emit_quietly(events, kind, **fields))
            events.emit(
                "run_start",
                resume=settings.resume,
                phase=state.progress.current_phase.value,
                agent=the_agent.name,
                max_iterations=state.config.max_iterations,
            )
            context = RunContext(
                state=state,
                paths=paths,
                agent=the_agent,
                templates=templates,
                events=events,
                lock=lock,
                clock=clock,
            )
            loop = ResearchLoop(context, web=_web(settings))
            if state.progress.is_complete and not loop.reopen():
                loop.cleanup()
                events.emit("run_end", outcome="already_complete")
                (inform or log.info)(
                    f"session {settings.name!r} is already complete; its "
                    f"report is {paths.relative(paths.report_file)}"
                )
                return Outcome(state, paths)
            if isinstance(the_agent, NoAgent):  # reopened: now an agent is needed after all
                the_agent.check_available()
            loop.save()
            loop.run()
            events.emit("run_end", outcome="complete", report=paths.relative(paths.report_file))
            return Outcome(state, paths)
    except (ResearchError, Interrupted) as exc:
        if loop is not None and not lock.lost.is_set():  # lost: the session is another run's
            _save_quietly(loop)
        _emit_quietly(
            events,
            "run_end",
            error=str(exc) or type(exc).__name__,
            outcome="interrupted" if isinstance(exc, Interrupted) else "failed",
        )
        raise
    except OSError as exc:
        if loop is not None:
            _save_quietly(loop)
        _emit_quietly(events, "run_end", outcome="failed", error=str(exc))
        where = f" ({exc.filename})" if exc.filename else ""
        raise RunFailed(
            f"file system error: {exc.strerror or exc}{where}; the session can be "
            "continued with --resume"
        ) from None
    except Exception as exc:
        if loop is not None:
            _save_quietly(loop)
            loop.events.emit("error", message=str(exc), traceback=traceback.format_exc())
        _emit_quietly(events, "run_end", outcome="failed", error=repr(exc))
        raise RunFailed(
            f"internal error: {exc!r}; details are in {paths.events_file}; "
            "the session can be continued with --resume"
        ) from exc
    finally:
        if lock.release():
            _emit_quietly(events, "lock_released")
        if events is not None:
            events.close()


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


def stop_leftover_agents(previous: LockInfo, paths: SessionPaths, events: EventLog) -> None:
    """A dead run's agent calls run on in process groups of their own: stop them before
    this run starts its own agent on the same files."""
    if previous.host != socket.gethostname() or pid_running(previous.pid):
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


def load_templates(paths: SessionPaths, warn: Callable[[str], None]) -> PromptTemplates:
    try:
        synced = sync_templates(paths.templates_dir)
    except OSError as exc:
        raise RunFailed(
            f"cannot create the templates in {paths.templates_dir}: {exc.strerror}"
        ) from None
    templates = PromptTemplates.load(paths.templates_dir)
    try:
        write_newer_defaults(paths.templates_dir, synced.kept)
    except OSError as exc:
        log.warning("could not write the newer default templates: %s", exc)
    for notice in synced.notices(paths.relative(paths.templates_dir)):
        warn(notice)
    return templates


def check_templates(paths: SessionPaths) -> None:
    """Refuse a damaged template before anything is written: the check `load_templates`
    makes once the run is locked, on the templates it would use (the working directory's,
    with missing and unedited older ones taken from the shipped defaults)."""
    if paths.templates_dir.exists() and not paths.templates_dir.is_dir():
        raise RunFailed(
            f"cannot create the templates in {paths.templates_dir}: it is not a directory"
        )
    source = default_templates_dir()
    history = shipped_history(source).sha256
    templates: dict[str, Template] = {}
    for name in TEMPLATE_NAMES:
        path = paths.templates_dir / f"{name}.md"
        try:
            data = path.read_bytes()
        except (FileNotFoundError, NotADirectoryError):  # made (or refused) later
            data = (source / f"{name}.md").read_bytes()
        except OSError as exc:
            raise TemplateError(
                f"template {path} cannot be read: {exc.strerror}; delete "
                "it and run again to restore the default"
            ) from None
        if digest(data) in history.get(name, []):
            data = (source / f"{name}.md").read_bytes()
        problem = damage(name, data)
        if problem:
            raise TemplateError(
                f"template {path} is damaged ({problem}); delete it and "
                "run again to restore the default"
            )
        templates[name] = Template(data.decode("utf-8"))
    PromptTemplates(templates).validate()


def _remove_empty(directory: Path, up_to: Path) -> None:
    """Remove `directory` and its parents up to and including `up_to` while they are empty."""
    for path in (directory, *directory.parents):
        try:
            path.rmdir()
        except OSError:
            return
        if path == up_to:
            return


def check_own_state(state: RWRState, settings: Settings, paths: SessionPaths) -> RWRState:
    if state.name != settings.name:
        raise StateError(
            f"{paths.state_file} belongs to session {state.name!r}, not {settings.name!r}"
        )
    slugs = {topic.slug for topic in state.plan.topics}
    flying = {*state.progress.in_flight}
    if state.progress.current_topic is not None:
        flying.add(state.progress.current_topic)
    strays = sorted(flying - slugs)
    if strays:
        raise StateError(
            f"{paths.state_file} is inconsistent: topic {strays[0]!r} is in "
            "flight but not in its plan; it was left untouched"
        )
    return state


def check_unchanged_shape(state: RWRState, settings: Settings) -> None:
    """A session's question and tree shape are fixed: a resume that asks for others is
    refused rather than silently ignored."""
    changed = []
    if settings.topic is not None and settings.topic.strip() != state.config.original_topic:
        changed.append(f"the topic (it researches {state.config.original_topic!r})")
    changed += state.config.fixed_changes(settings)
    if changed:
        raise UsageError(
            f"session {state.name!r} cannot change {' or '.join(changed)} on "
            "--resume; start a new session with another --name instead"
        )


def remembered_agent(state: RWRState, settings: Settings) -> Settings:
    """A resumed session keeps the agent it was started with unless one is given."""
    if "mock_mode" in settings.given or "agent_cmd" in settings.given:
        return settings
    if state.config.agent == "mock":
        return settings.model_copy(update={"mock_mode": True})
    if state.config.agent_cmd is not None:
        return settings.model_copy(update={"agent_cmd": state.config.agent_cmd})
    return settings


def resume_state(
    settings: Settings, paths: SessionPaths, inform: Callable[[str], None]
) -> RWRState:
    loaded, from_copy = load_saved_state(paths.state_file)
    state = check_own_state(loaded, settings, paths)
    if from_copy is not None:  # what an agent left in place of state.json goes (saved below)
        take_away(paths, paths.state_file)
        inform(from_copy)
    changes = state.config.apply(settings)
    if changes:
        inform(f"resuming {state.name!r} with {'; '.join(changes)}")
    save_state(state, paths.state_file)
    return state

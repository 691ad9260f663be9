"""The first stage of a session: check every input and say what would happen, writing
nothing. A run refused here leaves the working directory exactly as it was."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from string import Template

from research.agents.base import Agent, AgentCall, AgentResult
from research.core.agentkind import AgentKind, agent_name, agent_names
from research.core.budget import (
    LimitAgreement,
    LimitRaise,
    effective_max_iterations,
    needs_confirmation,
)
from research.core.errors import (
    AgentUnavailable,
    PlanEditError,
    RunFailed,
    StateError,
    TemplateError,
    UsageError,
)
from research.core.settings import Settings
from research.engine import Clock
from research.model.state import STATE_COPY_NAME, RWRState, load_saved_state, state_entry
from research.model.tiering import Tiered, with_tier
from research.prompts.templates import (
    TEMPLATE_NAMES,
    PromptTemplates,
    damage,
    default_templates_dir,
    digest,
    shipped_history,
)
from research.session.approval import (
    Approval,
    check_approval,
    kept_limit_problem,
    limit_rule,
    raised_message,
)
from research.workspace.guard import refuse_linked_dirs
from research.workspace.lock import SessionLock
from research.workspace.paths import SessionPaths
from research.workspace.userkey import check_key

AgentFactory = Callable[[Settings], tuple[Agent, Clock]]
Stamp = tuple[tuple[int, int, int] | None, ...]


class NoAgent(Agent):
    """Stands in for an agent that is not installed, when a finished session is resumed: it
    needs no agent unless it is reopened, and then this one says what to install."""

    reports_usage = False

    def __init__(self, name: str, missing: AgentUnavailable) -> None:
        self.name = name
        self.missing = missing

    def check_available(self) -> str:
        raise self.missing

    def run(self, call: AgentCall) -> AgentResult:
        raise self.missing


@dataclass(frozen=True)
class Saved:
    """A saved session as the preflight read it."""

    state: RWRState
    from_copy: str | None
    """The note to give when the state came from its copy (state.json was not a file)."""
    stamp: Stamp
    """What the state files were when read: a change before the lock is taken means the
    state must be read again."""


@dataclass(frozen=True)
class Preflight:
    """What a run would do, once every input is checked."""

    settings: Settings
    """The user's settings, with a resumed session's own agent unless one was given."""
    paths: SessionPaths
    saved: Saved | None
    agent: Agent
    clock: Clock
    max_iterations: int
    """The effective iteration limit of a new session (a resumed one keeps its own)."""
    tier: Tiered | None = None
    """A new session's tier, whose values `settings` already carry."""
    approval: Approval | None = None
    """A session awaiting approval: the user's edited plan, checked."""
    agreement: LimitAgreement = LimitAgreement.UNASKED
    """How the user agreed to a new session's iteration limit."""

    def describe(self) -> str:
        name = self.settings.name
        if self.saved is None:
            return (
                f"start session {name!r}: breadth {self.settings.breadth}, depth "
                f"{self.settings.depth}, up to {self.max_iterations} iterations, agent "
                f"{self.agent.name}"
            )
        progress = self.saved.state.progress
        return (
            f"resume session {name!r} at {progress.current_phase.value} (iteration "
            f"{progress.iteration}), agent {self.agent.name}"
        )


def preflight(
    settings: Settings,
    *,
    build_agent: AgentFactory,
    confirm: Callable[[str], bool],
    warn: Callable[[str], None],
    agent: tuple[Agent, Clock] | None = None,
) -> Preflight:
    """Check the settings, the saved session, the agent and the templates; writes nothing."""
    paths = SessionPaths(settings.root, settings.name)
    refuse_linked_dirs(paths)  # never read or written through a link an agent left
    saved = read_saved(settings, paths) if settings.resume else None
    if saved is None:
        check_new_session(settings, paths)
    else:
        settings = remembered_agent(saved.state, settings)
    the_agent, clock = agent or _agent(settings, build_agent, saved)
    check_templates(paths)
    check_key()  # signs the lock's takeovers and the stored sources
    check_exports(settings, saved)
    tier = None
    if saved is None:
        settings, tier = with_tier(settings)
    max_iterations, raised = effective_max_iterations(
        settings.max_iterations, settings.breadth, settings.depth
    )
    agreement = LimitAgreement.UNASKED
    if saved is None:
        agreement = check_iterations(settings, max_iterations, raised, confirm=confirm, warn=warn)
    approval = None if saved is None else check_approval(saved.state, paths)
    if approval is not None:
        confirm_approval(settings, approval, confirm=confirm, warn=warn)
    return Preflight(
        settings, paths, saved, the_agent, clock, max_iterations, tier, approval, agreement
    )


def confirm_approval(
    settings: Settings,
    approval: Approval,
    *,
    confirm: Callable[[str], bool],
    warn: Callable[[str], None],
) -> None:
    """Say what the approved plan could not keep; a longer run is kept from a limit the
    user set, asked about again or said, by the one rule (`core/budget.py`)."""
    for line in approval.dropped:
        warn(line)
    rule = limit_rule(approval, costs=not settings.mock_mode)
    limit = approval.config.max_iterations
    given = settings.max_iterations if "max_iterations" in settings.given else None
    if rule is None or (given is not None and given >= limit):
        return
    if rule is LimitRaise.KEEP:
        raise PlanEditError(kept_limit_problem(approval, settings.max_iterations))
    if (
        rule is LimitRaise.ASK
        and not settings.assume_yes
        and not confirm(
            f"The approved plan may run up to {limit} research iterations (it was "
            f"{approval.previous_limit}: breadth {approval.config.breadth}, depth "
            f"{approval.config.depth}). Continue?"
        )
    ):
        raise UsageError("not confirmed; the session still awaits approval")
    warn(raised_message(approval))


def _agent(
    settings: Settings, build_agent: AgentFactory, saved: Saved | None
) -> tuple[Agent, Clock]:
    try:
        return build_agent(settings)
    except AgentUnavailable as exc:
        if saved is None or not saved.state.progress.is_complete:
            raise
        # A finished session needs no agent, unless a raised limit reopens it.
        return NoAgent(
            agent_name(mock=False, agent_cmd=settings.agent_cmd, kind=settings.agent), exc
        ), Clock()


def check_exports(settings: Settings, saved: Saved | None) -> None:
    """--export's libraries (the [export] extra) are there: one line saying how to install
    them otherwise, before anything is written."""
    from research.views.exports import export_formats, missing_library

    value = settings.export
    if saved is not None and "export" not in settings.given:
        value = saved.state.config.export
    problem = missing_library(export_formats(value))
    if problem is not None:
        raise UsageError(problem)


def saved_before(paths: SessionPaths) -> bool:
    """Whether the session has a saved state (or something in its place)."""
    return (
        state_entry(paths.state_file) != "missing"
        or state_entry(paths.session_dir / STATE_COPY_NAME) != "missing"
    )


def state_stamp(paths: SessionPaths) -> Stamp:
    """The identity of the state file and its copy (inode, size, mtime), links not followed."""
    stamps: list[tuple[int, int, int] | None] = []
    for path in (paths.state_file, paths.session_dir / STATE_COPY_NAME):
        try:
            info = os.lstat(path)
        except OSError:
            stamps.append(None)
        else:
            stamps.append((info.st_ino, info.st_size, info.st_mtime_ns))
    return tuple(stamps)


def read_saved(settings: Settings, paths: SessionPaths) -> Saved:
    """The saved session to resume, checked: a corrupt, foreign or contradicted state is
    refused before anything is written. (A state.json replaced by a directory, link or FIFO
    is read from its copy here, and put back once the lock is held.)"""
    if not saved_before(paths):
        SessionLock(paths.lock_file).ensure_not_held()  # started elsewhere, not saved yet
        raise StateError(
            f"no saved session named {settings.name!r} in {paths.research_root}"
            " to resume; start it without --resume"
        )
    stamp = state_stamp(paths)
    state, from_copy = load_saved_state(paths.state_file)
    check_own_state(state, settings, paths)
    check_unchanged_shape(state, settings)
    return Saved(state, from_copy, stamp)


def check_new_session(settings: Settings, paths: SessionPaths) -> None:
    """A new session needs a question, a free name, and no report in its place."""
    if saved_before(paths):
        SessionLock(paths.lock_file).ensure_not_held()  # a second terminal: name the holder
        raise UsageError(
            f"a session named {settings.name!r} already exists; continue it with "
            "--resume, or choose another --name"
        )
    if not settings.topic or not settings.topic.strip():
        raise UsageError("give the research topic or question as an argument")
    if os.path.lexists(paths.report_file):  # never overwrite a report with no session
        raise UsageError(
            f"{paths.relative(paths.report_file)} already exists but there is no "
            f"session {settings.name!r}; move the report away, or choose "
            "another --name"
        )


def check_iterations(
    settings: Settings,
    max_iterations: int,
    raised: bool,
    *,
    confirm: Callable[[str], bool],
    warn: Callable[[str], None],
) -> LimitAgreement:
    """A new session says when its limit was raised to the floor, and asks before a long
    run (not when nothing is spent); how the user agreed to the limit."""
    if raised:
        warn(
            f"--max-iterations {settings.max_iterations} is below the floor "
            f"{settings.breadth}^({settings.depth}+1)+5 = {max_iterations}; "
            f"using {max_iterations}"
        )
    asked = not settings.assume_yes and needs_confirmation(
        max_iterations, costs=not settings.mock_mode
    )
    if asked and not confirm(
        f"This session may run up to {max_iterations} research iterations "
        f"(breadth {settings.breadth}, depth {settings.depth}). Continue?"
    ):
        raise UsageError("not confirmed; nothing was started")
    if "max_iterations" in settings.given:
        return LimitAgreement.GIVEN
    if settings.mock_mode:
        return LimitAgreement.FREE
    if settings.assume_yes:
        return LimitAgreement.YES
    return LimitAgreement.CONFIRMED if asked else LimitAgreement.UNASKED


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
        data = _template_bytes(paths.templates_dir / f"{name}.md", source / f"{name}.md")
        if digest(data) in history.get(name, []):
            data = (source / f"{name}.md").read_bytes()
        problem = damage(name, data)
        if problem:
            raise TemplateError(
                f"template {paths.templates_dir / f'{name}.md'} is damaged ({problem}); delete "
                "it and run again to restore the default"
            )
        templates[name] = Template(data.decode("utf-8"))
    PromptTemplates(templates).validate()


def _template_bytes(path: Path, default: Path) -> bytes:
    try:
        return path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):  # made (or refused) later
        return default.read_bytes()
    except OSError as exc:
        raise TemplateError(
            f"template {path} cannot be read: {exc.strerror}; delete "
            "it and run again to restore the default"
        ) from None


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
    if state.config.agent == AgentKind.MOCK:
        return settings.model_copy(update={"mock_mode": True})
    if state.config.agent_cmd is not None:
        return settings.model_copy(update={"agent_cmd": state.config.agent_cmd})
    if state.config.agent in agent_names():
        return settings.model_copy(update={"agent": AgentKind(state.config.agent)})
    return settings

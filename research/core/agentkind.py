"""Which agent runs a session: the one enum of built-in agents, and every name derived from it.

`--agent`'s choices, the service's and the queue's `agent` fields, the defaults and the
name a session records all come from `AgentKind`: to add a built-in agent, add its member
here (and build it in `session/preflight.py`).
"""

from __future__ import annotations

from enum import StrEnum


class AgentKind(StrEnum):
    """The built-in agents `--agent` selects (a generic command goes through --agent-cmd)."""

    OPENCODE = "opencode"
    MOCK = "mock"


DEFAULT_AGENT = AgentKind.OPENCODE
"""The agent of a run that names none."""

COMMAND_AGENT = "command"
"""The name a session records when `--agent-cmd` runs it (not an `--agent` choice)."""


def agent_names() -> tuple[str, ...]:
    """`--agent`'s choices, in the enum's order."""
    return tuple(kind.value for kind in AgentKind)


def agent_name(*, mock: bool, agent_cmd: str | None, kind: AgentKind = DEFAULT_AGENT) -> str:
    """The name a session records for its agent: the simulated one, a command, or `kind`."""
    if mock:
        return AgentKind.MOCK.value
    if agent_cmd:
        return COMMAND_AGENT
    return kind.value


def agent_args(kind: AgentKind, agent_cmd: str | None) -> list[str]:
    """The flags that choose a child `research`'s agent: `kind`, where the runner's own
    --agent-cmd (the server's, the worker's) stands in for the default agent."""
    if kind is DEFAULT_AGENT and agent_cmd:
        return ["--agent-cmd", agent_cmd]
    return ["--agent", kind.value]

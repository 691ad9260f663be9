"""Which agent runs a session: the one enum of built-in agents, and every name derived from it.

`--agent`'s choices, the service's and the queue's `agent` fields, the defaults and the
name a session records all come from `AgentKind`: to add a built-in agent, add its member
here (and build it in `session/preflight.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from research.core import defaults as d


class AgentKind(StrEnum):
    """The built-in agents `--agent` selects (a generic command goes through --agent-cmd)."""

    OPENCODE = "opencode"
    CLAUDE = "claude"
    CODEX = "codex"
    MOCK = "mock"

    @property
    def models(self) -> AgentModels:
        """The agent's own default models and where its cost figures come from."""
        return AGENT_MODELS[self]


@dataclass(frozen=True)
class AgentModels:
    """An agent's default models (in its own naming) and how its cost is known."""

    model: str
    review_model: str
    cost: str
    """"reported" (the CLI reports it), "computed" (from research.py's dated price table),
    or "simulated" (made up by the simulated agent)."""


AGENT_MODELS = {
    AgentKind.OPENCODE: AgentModels(d.DEFAULT_MODEL, d.DEFAULT_REVIEW_MODEL, "reported"),
    AgentKind.CLAUDE: AgentModels(d.CLAUDE_MODEL, d.CLAUDE_REVIEW_MODEL, "reported"),
    AgentKind.CODEX: AgentModels(d.CODEX_MODEL, d.CODEX_REVIEW_MODEL, "computed"),
    AgentKind.MOCK: AgentModels(d.SIMULATED_MODEL, d.SIMULATED_MODEL, "simulated"),
}
COMMAND_MODEL = "default"
"""The model a session records for an --agent-cmd run given no --model: the command's own."""


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


def default_models(agent: str) -> tuple[str, str]:
    """The (model, review model) a session of agent `agent` (a recorded name) runs on when
    none is given: the built-in agent's own, or the command's own default."""
    if agent in AGENT_MODELS:
        models = AgentKind(agent).models
        return models.model, models.review_model
    return COMMAND_MODEL, COMMAND_MODEL


def cost_basis(agent: str) -> str:
    """How a session's cost figures are known: "reported", "computed" or "simulated" ("reported"
    for a command, which reports none)."""
    return AgentKind(agent).models.cost if agent in AGENT_MODELS else "reported"


def agent_args(kind: AgentKind, agent_cmd: str | None) -> list[str]:
    """The flags that choose a child `research`'s agent: `kind`, where the runner's own
    --agent-cmd (the server's, the worker's) stands in for the default agent."""
    if kind is DEFAULT_AGENT and agent_cmd:
        return ["--agent-cmd", agent_cmd]
    return ["--agent", kind.value]

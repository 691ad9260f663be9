"""The built-in agent of each `AgentKind` that runs a CLI (the simulated one lives in
research/simulation)."""

from __future__ import annotations

from research.agents.base import Agent
from research.core.agentkind import AgentKind


def built_in(kind: AgentKind) -> Agent:
    """The agent `--agent kind` drives; ValueError for the simulated agent."""
    if kind is AgentKind.CLAUDE:
        from research.agents.claude import ClaudeAgent

        return ClaudeAgent()
    if kind is AgentKind.OPENCODE:
        from research.agents.opencode import OpenCodeAgent

        return OpenCodeAgent()
    raise ValueError(f"{kind.value} is not an agent CLI")

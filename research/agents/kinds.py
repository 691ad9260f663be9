"""The built-in agent of each `AgentKind` that runs a CLI (the simulated one lives in
research/simulation)."""

from __future__ import annotations

from pathlib import Path

from research.agents.base import Agent
from research.core.agentkind import AgentKind


def built_in(kind: AgentKind, *, prices: Path | None = None) -> Agent:
    """The agent `--agent kind` drives; `prices` is a price file for an agent that reports
    no cost (Codex). ValueError for the simulated agent."""
    if kind is AgentKind.CLAUDE:
        from research.agents.claude import ClaudeAgent

        return ClaudeAgent()
    if kind is AgentKind.CODEX:
        from research.agents.codex import CodexAgent
        from research.core.prices import load_prices

        return CodexAgent(prices=None if prices is None else load_prices(prices))
    if kind is AgentKind.OPENCODE:
        from research.agents.opencode import OpenCodeAgent

        return OpenCodeAgent()
    raise ValueError(f"{kind.value} is not an agent CLI")

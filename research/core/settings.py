"""The Settings model: one run's configuration. Its options' defaults, bounds, flags and
resume rules are declared in `options` (the values themselves live in `defaults`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from research.core.agentkind import AgentKind
from research.core.defaults import JudgeMode
from research.core.options import OPTION
from research.core.tiers import Tier


def _settings_field(name: str) -> Any:
    """The pydantic field of option `name`: its default and bounds, from the option table."""
    option = OPTION[name]
    return Field(option.default, ge=option.minimum, le=option.maximum)


class SavedOptions(BaseModel):
    """The options a session saves (the table's rows not `PER_RUN`) whose value it keeps as
    the run gives it: `Settings` has these fields, and the session's `SessionConfig`
    (model/state.py) is generated from them. A new saved option's typed field goes here;
    the four a session keeps otherwise (the effective `max_iterations`, the models its agent
    chose, the folders as text) are declared in each class."""

    model_config = ConfigDict(extra="forbid")

    breadth: int = _settings_field("breadth")
    depth: int = _settings_field("depth")
    time_budget_minutes: float | None = _settings_field("time_budget_minutes")
    """None means unlimited."""
    timeout: float = _settings_field("timeout")
    parallel: int = _settings_field("parallel")
    """Topics researched at once (--parallel)."""
    verify_sources: bool = _settings_field("verify_sources")
    """Fetch the cited pages and check claims against them (--no-verify-sources)."""
    judge: JudgeMode = _settings_field("judge")
    """Which cited sentences the agent judges after the rules (--judge)."""
    allow_private_sources: bool = _settings_field("allow_private_sources")
    """Also fetch URLs that resolve to loopback, private or link-local addresses."""
    duplicate_threshold: float = _settings_field("duplicate_threshold")
    min_novelty: float = _settings_field("min_novelty")
    early_termination: bool = _settings_field("early_termination")
    tier: Tier | None = _settings_field("tier")
    """The complexity tier (--tier); None: the INITIAL PLAN phase classifies the question."""
    searches: int | None = _settings_field("searches")
    """Web searches per RESEARCH phase (--max-queries); None: the tier's."""
    max_sources: int | None = _settings_field("max_sources")
    """The most sources a topic's notes may list (--max-sources); None: the tier's."""
    token_budget: int | None = _settings_field("token_budget")
    """Tokens the agent's calls may use (--token-budget); None: no limit."""
    max_cost: float | None = Field(None, gt=0, allow_inf_nan=False)  # the table: no default
    """USD the agent's calls may cost (--max-cost); None: no limit."""
    export: str | None = _settings_field("export")
    """The formats --export writes beside report.html ("pdf,docx"); None or "": none."""
    approve_plan: bool = _settings_field("approve_plan")
    """Stop after INITIAL PLAN until the user approves the plan (--approve-plan)."""


class Settings(SavedOptions):
    """One run's configuration, after flags, environment and defaults are merged and checked."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    root: Path
    """The working directory: `.research/` and `reports/` live here."""
    name: str
    topic: str | None = None
    max_iterations: int | None = _settings_field("max_iterations")
    """What the user asked for; the effective limit is never below the floor."""
    model: str | None = _settings_field("model")
    """None: the agent's own default (core/agentkind.py), or the saved one on --resume."""
    review_model: str | None = _settings_field("review_model")
    resume: bool = _settings_field("resume")
    force_resume: bool = _settings_field("force_resume")
    mock_mode: bool = _settings_field("mock_mode")
    mock_latency: float = _settings_field("mock_latency")
    """Seconds each simulated agent call takes (--mock-latency)."""
    failover_seconds: float | None = _settings_field("failover_seconds")
    """The failover bound (--failover); None: RESEARCH_FAILOVER_SECONDS or the default."""
    agent: AgentKind = _settings_field("agent")
    """The built-in agent (--agent); mock_mode and agent_cmd take precedence."""
    agent_cmd: str | None = _settings_field("agent_cmd")
    codex_prices: Path | None = _settings_field("codex_prices")
    """A price file for Codex's computed cost (--codex-prices)."""
    source_dirs: tuple[Path, ...] = ()
    """The user's own document folders (--sources DIR, repeatable)."""
    assume_yes: bool = _settings_field("assume_yes")
    quiet: bool = _settings_field("quiet")
    verbose: bool = _settings_field("verbose")
    given: frozenset[str] = frozenset()
    """The options the user set (by name); every other one has its default. A resumed
    session keeps its saved value of an option the user did not set."""

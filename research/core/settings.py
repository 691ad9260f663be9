"""The Settings model: one run's configuration. Its options' defaults, bounds, flags and
resume rules are declared in `options` (the values themselves live in `defaults`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from research.core.defaults import *  # noqa: F403 - the defaults were first published here
from research.core.options import OPTION
from research.core.tiers import Tier


def _option(name: str) -> Any:
    """The pydantic field of option `name`: its default and bounds, from the option table."""
    option = OPTION[name]
    return Field(option.default, ge=option.minimum, le=option.maximum)


class Settings(BaseModel):
    """One run's configuration, after flags, environment and defaults are merged and checked."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    root: Path
    """The working directory: `.research/` and `reports/` live here."""
    name: str
    topic: str | None = None
    breadth: int = _option("breadth")
    depth: int = _option("depth")
    max_iterations: int | None = _option("max_iterations")
    """What the user asked for; the effective limit is never below the floor."""
    time_budget_minutes: float | None = _option("time_budget_minutes")
    """None means unlimited."""
    model: str = _option("model")
    review_model: str = _option("review_model")
    timeout: float = _option("timeout")
    resume: bool = _option("resume")
    force_resume: bool = _option("force_resume")
    mock_mode: bool = _option("mock_mode")
    mock_latency: float = _option("mock_latency")
    """Seconds each simulated agent call takes (--mock-latency)."""
    failover_seconds: float | None = _option("failover_seconds")
    """The failover bound (--failover); None: RESEARCH_FAILOVER_SECONDS or the default."""
    agent_cmd: str | None = _option("agent_cmd")
    parallel: int = _option("parallel")
    """Topics researched at once (--parallel)."""
    verify_sources: bool = _option("verify_sources")
    """Fetch the cited pages and check claims against them (--no-verify-sources)."""
    allow_private_sources: bool = _option("allow_private_sources")
    """Also fetch URLs that resolve to loopback, private or link-local addresses."""
    source_dirs: tuple[Path, ...] = ()
    """The user's own document folders (--sources DIR, repeatable)."""
    assume_yes: bool = _option("assume_yes")
    duplicate_threshold: float = _option("duplicate_threshold")
    min_novelty: float = _option("min_novelty")
    early_termination: bool = _option("early_termination")
    tier: Tier | None = _option("tier")
    """The complexity tier (--tier); None: the INITIAL PLAN phase classifies the question."""
    searches: int | None = _option("searches")
    """Web searches per RESEARCH phase (--max-queries); None: the tier's."""
    max_sources: int | None = _option("max_sources")
    """The most sources a topic's notes may list (--max-sources); None: the tier's."""
    token_budget: int | None = _option("token_budget")
    """Tokens the agent's calls may use (--token-budget); None: no limit."""
    max_cost: float | None = Field(None, gt=0, allow_inf_nan=False)  # the table: no default
    """USD the agent's calls may cost (--max-cost); None: no limit."""
    quiet: bool = _option("quiet")
    verbose: bool = _option("verbose")
    given: frozenset[str] = frozenset()
    """The options the user set (by name); every other one has its default. A resumed
    session keeps its saved value of an option the user did not set."""

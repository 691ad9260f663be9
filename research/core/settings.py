"""The Settings model: one run's configuration. The defaults themselves live in `defaults`."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from research.core.defaults import *  # noqa: F403 - the defaults were first published here
from research.core.defaults import (
    BREADTH_RANGE,
    DEFAULT_BREADTH,
    DEFAULT_DEPTH,
    DEFAULT_DUPLICATE_THRESHOLD,
    DEFAULT_EARLY_TERMINATION,
    DEFAULT_MIN_NOVELTY,
    DEFAULT_MODEL,
    DEFAULT_REVIEW_MODEL,
    DEFAULT_TIMEOUT_SECONDS,
    DEPTH_RANGE,
)


class Settings(BaseModel):
    """One run's configuration, after flags, environment and defaults are merged and checked."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    root: Path
    """The working directory: `.research/` and `reports/` live here."""
    name: str
    topic: str | None = None
    breadth: int = Field(DEFAULT_BREADTH, ge=BREADTH_RANGE[0], le=BREADTH_RANGE[1])
    depth: int = Field(DEFAULT_DEPTH, ge=DEPTH_RANGE[0], le=DEPTH_RANGE[1])
    max_iterations: int | None = None
    """What the user asked for; the effective limit is never below the floor."""
    time_budget_minutes: float | None = None
    """None means unlimited."""
    model: str = DEFAULT_MODEL
    review_model: str = DEFAULT_REVIEW_MODEL
    timeout: float = DEFAULT_TIMEOUT_SECONDS
    resume: bool = False
    force_resume: bool = False
    mock_mode: bool = False
    agent_cmd: str | None = None
    parallel: int = Field(1, ge=1, le=8)
    """Topics researched at once (--parallel)."""
    verify_sources: bool = True
    """Fetch the cited pages and check claims against them (--no-verify-sources)."""
    allow_private_sources: bool = False
    """Also fetch URLs that resolve to loopback, private or link-local addresses."""
    source_dirs: tuple[Path, ...] = ()
    """The user's own document folders (--sources DIR, repeatable)."""
    assume_yes: bool = False
    duplicate_threshold: float = Field(DEFAULT_DUPLICATE_THRESHOLD, ge=0.0, le=1.0)
    min_novelty: float = Field(DEFAULT_MIN_NOVELTY, ge=0.0, le=1.0)
    early_termination: bool = DEFAULT_EARLY_TERMINATION
    quiet: bool = False
    verbose: bool = False

"""Every default in one place. Layering: built-in < RESEARCH_* environment < command-line flag."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_BREADTH = 3
DEFAULT_DEPTH = 3
BREADTH_RANGE = (1, 10)
DEPTH_RANGE = (1, 6)
DEFAULT_MODEL = "opencode/minimax-m2.1-free"
DEFAULT_REVIEW_MODEL = "opencode/big-pickle"
DEFAULT_TIMEOUT_SECONDS = 1200.0
CONFIRM_ITERATIONS_ABOVE = 20

MAX_TOPIC_ATTEMPTS = 3
MAX_PHASE_RECOVERIES = 3
MAX_TRANSIENT_ATTEMPTS = 3
BACKOFF_CAP_SECONDS = 10.0
BREAKER_CONSECUTIVE_FAILED_PHASES = 3
BREAKER_FAILURE_RATIO = 0.5
BREAKER_MIN_CALLS = 4

DEFAULT_DUPLICATE_THRESHOLD = 0.75
DEFAULT_MIN_NOVELTY = 0.15
DEFAULT_EARLY_TERMINATION = True

HEARTBEAT_INTERVAL_SECONDS = 30.0
KILL_GRACE_SECONDS = 5.0

# Environment variables that give defaults to the flags of the same meaning.
ENV = {
    "breadth": "RESEARCH_BREADTH",
    "depth": "RESEARCH_DEPTH",
    "model": "RESEARCH_MODEL",
    "review_model": "RESEARCH_REVIEW_MODEL",
    "timeout": "RESEARCH_TIMEOUT",
    "time_budget": "RESEARCH_TIME_BUDGET",
    "max_iterations": "RESEARCH_MAX_ITERS",
    "agent_cmd": "RESEARCH_AGENT_CMD",
    "duplicate_threshold": "RESEARCH_DUPLICATE_THRESHOLD",
    "min_novelty": "RESEARCH_MIN_NOVELTY",
    "early_termination": "RESEARCH_EARLY_TERMINATION",
    "mock_script": "RESEARCH_MOCK_SCRIPT",
}


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
    mock_script: Path | None = None
    agent_cmd: str | None = None
    assume_yes: bool = False
    duplicate_threshold: float = Field(DEFAULT_DUPLICATE_THRESHOLD, ge=0.0, le=1.0)
    min_novelty: float = Field(DEFAULT_MIN_NOVELTY, ge=0.0, le=1.0)
    early_termination: bool = DEFAULT_EARLY_TERMINATION
    quiet: bool = False
    verbose: bool = False

"""Every default and limit in one place, and the RESEARCH_* variable of each flag.

Plain constants with no third-party imports, so the command line can declare its options
(and answer `--help` and `--version`) without loading pydantic. Layering: built-in <
RESEARCH_* environment < command-line flag.
"""

from __future__ import annotations

from enum import StrEnum

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
    "agent": "RESEARCH_AGENT",
    "agent_cmd": "RESEARCH_AGENT_CMD",
    "duplicate_threshold": "RESEARCH_DUPLICATE_THRESHOLD",
    "min_novelty": "RESEARCH_MIN_NOVELTY",
    "early_termination": "RESEARCH_EARLY_TERMINATION",
    "verify_sources": "RESEARCH_VERIFY_SOURCES",
    "allow_private_sources": "RESEARCH_ALLOW_PRIVATE_SOURCES",
}


class AgentKind(StrEnum):
    """The built-in agents `--agent` selects (a generic command goes through --agent-cmd)."""

    OPENCODE = "opencode"
    MOCK = "mock"

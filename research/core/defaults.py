"""Every default and limit in one place (the options that use them are in `options`).

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
"""OpenCode's default models; every agent has its own (core/agentkind.py)."""
CLAUDE_MODEL = "sonnet"
CLAUDE_REVIEW_MODEL = "opus"
"""Claude Code's aliases for the latest Sonnet and Opus: a call records the model they
resolved to."""
CODEX_MODEL = "gpt-5.5"
CODEX_REVIEW_MODEL = "gpt-5.5"
"""A model Codex 0.171 knows (it gets Codex's apply_patch tool); Codex's own default,
gpt-6.2-sol, runs in its "code mode" instead."""
SIMULATED_MODEL = "simulated"
"""What the simulated agent's session records as its model: it uses none."""
DEFAULT_TIMEOUT_SECONDS = 1200.0
MAX_TIMEOUT_SECONDS = 7 * 24 * 3600.0
"""A week per agent call: more is a typo (or inf), and would overflow the clock."""
MAX_TIME_BUDGET_MINUTES = 366 * 24 * 60.0
"""A year for the whole run; use 'unlimited' for no limit."""
MAX_ITERATIONS = 1_000_000
DEFAULT_PARALLEL = 1
PARALLEL_RANGE = (1, 8)
DEFAULT_VERIFY_SOURCES = True
DEFAULT_ALLOW_PRIVATE_SOURCES = False
CONFIRM_ITERATIONS_ABOVE = 20
MAX_SEARCHES = 100
"""The most web searches one RESEARCH phase may be asked for."""
MAX_SOURCES = 200
"""The highest cap on the sources one topic's notes may list."""

MIN_CALL_SECONDS = 1.0
"""The shortest timeout an agent call is given; with less time left no call starts."""

DEFAULT_DUPLICATE_THRESHOLD = 0.75
DEFAULT_MIN_NOVELTY = 0.15
DEFAULT_EARLY_TERMINATION = True

DEFAULT_FAILOVER_SECONDS = 120.0
"""Within this bound a dead host's session is resumed on another host (research worker)."""
FAILOVER_RANGE = (4.0, 24 * 3600.0)
MAX_MOCK_LATENCY_SECONDS = 600.0
HEARTBEAT_INTERVAL_SECONDS = 5.0
"""How often a run refreshes its lock's heartbeat: another host judges the lock by whether
it changes (less often than this only when the failover bound is very short)."""
KILL_GRACE_SECONDS = 5.0


class JudgeMode(StrEnum):
    """Which cited sentences of the report the agent judges after the rules (--judge)."""

    ALL = "all"
    """Every sentence with a readable page: the only way to catch a flipped meaning."""
    FLAGGED = "flagged"
    """Only the sentences the rules flagged."""
    OFF = "off"


DEFAULT_JUDGE = JudgeMode.ALL
"""One call per 20 cited sentences (README, "Checking sources"): small beside a session's
calls, and without it a sentence whose figures are right but meaning flipped passes."""

EXPORT_FORMATS = ("pdf", "docx")
"""What --export writes beside report.html: report.pdf (WeasyPrint) and report.docx
(python-docx), both from the [export] extra."""

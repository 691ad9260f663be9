"""The Agent protocol: one call per phase, a typed result, no exceptions for agent failures."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Protocol


class FailureKind(StrEnum):
    """Why an agent call failed, for the retry logic."""

    TIMEOUT = "timeout"
    EXIT_NONZERO = "exit_nonzero"
    AGENT_ERROR = "agent_error"  # exit 0, but an `error` event or a denied permission
    NO_OUTPUT = "no_output"
    MISSING_FILES = "missing_files"  # set by the loop after validating the phase's files
    API_ERROR = "api_error"
    """The model API answered with an error the CLI's own retries did not get past (5xx,
    429, overloaded, a dropped connection)."""
    API_REFUSED = "api_refused"
    """The model API refused the request (401, 403, 400, 404: a key, an account, a model
    name): the same call would be refused again."""

    @property
    def transient(self) -> bool:
        """Worth retrying the same call after a backoff (a non-zero exit, a timeout,
        no output, a server-side API error). An error event with exit 0 is not (the
        phase's files decide), nor is a refused request."""
        return self in (
            FailureKind.TIMEOUT,
            FailureKind.EXIT_NONZERO,
            FailureKind.NO_OUTPUT,
            FailureKind.API_ERROR,
        )

    @staticmethod
    def of_http_status(status: int | None) -> FailureKind:
        """API_REFUSED for a client error the same request would get again, else API_ERROR
        (a server error, 408 or 429, or no status at all: the connection failed)."""
        if status is not None and 400 <= status < 500 and status not in (408, 409, 429):
            return FailureKind.API_REFUSED
        return FailureKind.API_ERROR


@dataclass(frozen=True)
class AgentCall:
    """One phase's request to an agent."""

    phase: str
    prompt: str
    model: str
    timeout: float
    cwd: Path
    log_path: Path | None = None
    # The template variables of the phase. Real agents ignore them; the mock agent uses
    # them to know which files a real agent would have edited.
    context: Mapping[str, str] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)
    """Extra environment variables for the agent's process (on top of ours)."""


@dataclass
class AgentResult:
    """What happened during one agent call."""

    ok: bool
    exit_code: int | None
    output: str = ""
    stderr: str = ""
    duration: float = 0.0
    failure: FailureKind | None = None
    error: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost: float | None = None
    model: str | None = None
    """The model the agent says it used (an alias resolved), when it says."""
    usage_warnings: tuple[str, ...] = ()
    """Usage figures the agent reported that were dropped, and why (see `checked_usage`)."""


@dataclass(frozen=True)
class Usage:
    """The usage figures of one call the budgets may count, and the ones dropped."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cost: float | None = None
    dropped: tuple[str, ...] = ()


def checked_usage(input_tokens: object, output_tokens: object, cost: object) -> Usage:
    """Keep only the figures that are finite, non-negative numbers; say what was dropped.

    Every agent's reported usage passes here (an Infinity, a NaN or a negative count would
    break the budgets, the totals and the report). None means "not reported" and is kept.
    """
    dropped: list[str] = []

    def keep(what: str, value: object) -> float | None:
        if value is None:
            return None
        number = _finite(value)
        if number is None or number < 0:
            dropped.append(f"the agent reported {what} {_shown(value)}; the figure was dropped")
            return None
        return number

    kept_in, kept_out = keep("input tokens", input_tokens), keep("output tokens", output_tokens)
    kept_cost = keep("cost", cost)
    return Usage(
        input_tokens=None if kept_in is None else int(kept_in),
        output_tokens=None if kept_out is None else int(kept_out),
        cost=kept_cost,
        dropped=tuple(dropped),
    )


def _finite(value: object) -> float | None:
    """`value` as a finite float, or None (not a number, a bool, too large, inf or NaN)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:  # an int beyond any float
        return None
    return number if math.isfinite(number) else None


def _shown(value: object) -> str:
    text = f"{value:g}" if isinstance(value, float) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class Agent(Protocol):
    """Anything that can carry out a phase's prompt in a working directory. The agents
    subclass it to inherit the defaults (`unpriced_models`)."""

    name: str
    reports_usage: bool
    """Whether its results carry token counts and cost (the budgets need them)."""

    def check_available(self) -> str:
        """Where the agent runs from (an executable's path, or a label); raises
        `AgentUnavailable` with what to install when it cannot run here."""
        ...

    def run(self, call: AgentCall) -> AgentResult: ...

    def unpriced_models(self, models: Sequence[str]) -> list[str]:
        """Those of `models` whose cost this agent cannot know although it reports usage
        (Codex, which reports tokens, without a price for them). None by default: the
        other agents report their cost themselves, or report no usage at all."""
        return []

"""Iteration floor, time budget, backoff and the circuit breaker: the arithmetic of limits."""

from __future__ import annotations

import random

from research.settings import (
    BACKOFF_CAP_SECONDS,
    BREAKER_CONSECUTIVE_FAILED_PHASES,
    BREAKER_FAILURE_RATIO,
    BREAKER_MIN_CALLS,
    CONFIRM_ITERATIONS_ABOVE,
)

MIN_CALL_SECONDS = 1.0
"""The shortest timeout an agent call is given."""


def iteration_floor(breadth: int, depth: int) -> int:
    """X^(Y+1) + 5: enough RESEARCH-REVIEW cycles for a full tree plus a buffer (SPEC §4.1)."""
    return breadth ** (depth + 1) + 5


def effective_max_iterations(requested: int | None, breadth: int, depth: int) -> tuple[int, bool]:
    """The limit actually used, and whether a lower request was raised to the floor."""
    floor = iteration_floor(breadth, depth)
    if requested is None:
        return floor, False
    if requested < floor:
        return floor, True
    return requested, False


def needs_confirmation(max_iterations: int) -> bool:
    return max_iterations > CONFIRM_ITERATIONS_ABOVE


def synthesis_reserve_minutes(budget_minutes: float | None) -> float:
    """min(1.5, 0.3 × N) minutes kept back for the final cycle; 0 when unlimited."""
    if budget_minutes is None:
        return 0.0
    return min(1.5, 0.3 * budget_minutes)


def parse_time_budget(text: str) -> float | None:
    """'unlimited' → None; a positive number of minutes (fractions allowed) → float."""
    value = text.strip().lower()
    if value == "unlimited":
        return None
    try:
        minutes = float(value)
    except ValueError:
        raise ValueError(
            f"the time budget must be a number of minutes or 'unlimited', not {text!r}"
        ) from None
    if not minutes > 0 or minutes == float("inf"):
        raise ValueError(f"the time budget must be a positive number of minutes, not {text!r}")
    return minutes


class TimeBudget:
    """Wall-clock budget of a run, counting time used by earlier processes of the same session."""

    def __init__(self, budget_minutes: float | None, elapsed_before: float, started: float) -> None:
        self.budget_minutes = budget_minutes
        self.elapsed_before = elapsed_before
        self.started = started

    def elapsed(self, now: float) -> float:
        return self.elapsed_before + max(0.0, now - self.started)

    def remaining_seconds(self, now: float) -> float | None:
        if self.budget_minutes is None:
            return None
        return self.budget_minutes * 60.0 - self.elapsed(now)

    def remaining_minutes(self, now: float) -> float | None:
        left = self.remaining_seconds(now)
        return None if left is None else max(0.0, left) / 60.0

    def research_time_over(self, now: float) -> bool:
        """True when less than the synthesis reserve is left (checked before each RESEARCH)."""
        left = self.remaining_seconds(now)
        if left is None:
            return False
        reserve = synthesis_reserve_minutes(self.budget_minutes) * 60.0
        return left < max(reserve, MIN_CALL_SECONDS)

    def used_up(self, now: float) -> bool:
        """True when less than one second is left: too little to start a research call."""
        left = self.remaining_seconds(now)
        return left is not None and left < MIN_CALL_SECONDS

    def call_timeout(self, timeout: float, now: float, *, final_cycle: bool) -> float:
        """min(--timeout, time left), so one call cannot overrun the budget.

        A final-cycle call always gets at least the synthesis reserve: the report must be
        written even when research used the whole budget.
        """
        left = self.remaining_seconds(now)
        if left is None:
            return timeout
        if final_cycle:
            left = max(left, synthesis_reserve_minutes(self.budget_minutes) * 60.0)
        return max(MIN_CALL_SECONDS, min(timeout, left))


def backoff_delay(attempt: int, rng: random.Random) -> float:
    """min(2**attempt + uniform(0, 1), 10) seconds before retry number `attempt` (0-based)."""
    return min(2**attempt + rng.uniform(0, 1), BACKOFF_CAP_SECONDS)


def breaker_reason(consecutive_failed_phases: int, calls: int, failed_calls: int) -> str | None:
    """Why the circuit breaker opens, or None while it stays closed."""
    if consecutive_failed_phases >= BREAKER_CONSECUTIVE_FAILED_PHASES:
        return f"{consecutive_failed_phases} consecutive phases failed"
    if calls >= BREAKER_MIN_CALLS and failed_calls / calls >= BREAKER_FAILURE_RATIO:
        return f"{failed_calls} of {calls} agent calls failed"
    return None

"""Iteration floor, time, token and cost budgets: the arithmetic of limits (the retries and
the circuit breaker are `retries`)."""

from __future__ import annotations

from enum import StrEnum

from research.core.defaults import (
    CONFIRM_ITERATIONS_ABOVE,
    MAX_TIME_BUDGET_MINUTES,
    MIN_CALL_SECONDS,
)


def iteration_floor(breadth: int, depth: int) -> int:
    """X^(Y+1) + 5: enough RESEARCH-REVIEW cycles for a full tree plus a buffer."""
    return int(breadth ** (depth + 1)) + 5


def effective_max_iterations(requested: int | None, breadth: int, depth: int) -> tuple[int, bool]:
    """The limit actually used, and whether a lower request was raised to the floor."""
    floor = iteration_floor(breadth, depth)
    if requested is None:
        return floor, False
    if requested < floor:
        return floor, True
    return requested, False


def needs_confirmation(max_iterations: int, *, costs: bool = True) -> bool:
    """Whether starting a run this long asks the user first: never when nothing is spent
    (the simulated agent)."""
    return costs and max_iterations > CONFIRM_ITERATIONS_ABOVE


class LimitAgreement(StrEnum):
    """How the user agreed to a session's iteration limit (kept in state.json)."""

    GIVEN = "given"
    """They set it: --max-iterations, RESEARCH_MAX_ITERS or the request's field."""
    CONFIRMED = "confirmed"
    """They answered yes at a terminal."""
    YES = "yes"
    """--yes answered for them."""
    FREE = "free"
    """Nothing is spent (the simulated agent): nobody was asked."""
    UNASKED = "unasked"
    """The limit was small enough not to ask."""


class LimitRaise(StrEnum):
    """What may happen when something (the plan's tier, an approved plan) would raise a
    session's iteration limit."""

    KEEP = "keep"
    """Never raised: the tree keeps the shape the agreed limit covers."""
    ASK = "ask"
    """Raised only if the user says yes again at a terminal; kept otherwise."""
    SAY = "say"
    """Raised, and said on screen, in the events and in the Methodology."""


def limit_raise(agreement: LimitAgreement, after: int, *, costs: bool = True) -> LimitRaise:
    """The one rule for raising an agreed iteration limit to `after`.

    A limit the user set is never raised; one --yes agreed to (or that costs nothing) is
    raised and said; one confirmed at a terminal, or a raise to a limit long enough to need
    confirmation, is asked about again.
    """
    if agreement is LimitAgreement.GIVEN:
        return LimitRaise.KEEP
    if agreement in (LimitAgreement.YES, LimitAgreement.FREE) or not costs:
        return LimitRaise.SAY
    if agreement is LimitAgreement.CONFIRMED or needs_confirmation(after):
        return LimitRaise.ASK
    return LimitRaise.SAY


def synthesis_reserve_minutes(budget_minutes: float | None, *, judge: bool = False) -> float:
    """min(1.5, 0.3 × N) minutes kept back for the final cycle, and min(0.5, 0.1 × N) more
    for the judge's calls (VERIFY) when it judges; 0 when unlimited."""
    if budget_minutes is None:
        return 0.0
    extra = min(JUDGE_RESERVE_MINUTES, 0.1 * budget_minutes) if judge else 0.0
    return min(1.5, 0.3 * budget_minutes) + extra


JUDGE_RESERVE_MINUTES = 0.5
"""The final cycle's extra reserve for the judge: one or two batches of 20 sentences."""


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

    def __init__(
        self,
        budget_minutes: float | None,
        elapsed_before: float,
        started: float,
        *,
        judge: bool = False,
    ) -> None:
        self.budget_minutes = budget_minutes
        self.elapsed_before = elapsed_before
        self.started = started
        self.judge = judge
        """The final cycle's reserve includes the judge's calls."""

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
        """True when a research-stage call could not have MIN_CALL_SECONDS before the
        synthesis reserve (checked before each RESEARCH, REVIEW, retry and recovery)."""
        left = self.remaining_seconds(now)
        if left is None:
            return False
        return left - self.reserve_seconds() < MIN_CALL_SECONDS

    def used_up(self, now: float) -> bool:
        """True when less than one second is left: too little to start a research call."""
        left = self.remaining_seconds(now)
        return left is not None and left < MIN_CALL_SECONDS

    def call_timeout(self, timeout: float, now: float, *, final_cycle: bool) -> float:
        """min(--timeout, time left), so no call can overrun the budget.

        Research-stage calls (plan, research, review, their recoveries) have the time left
        before the synthesis reserve; final-cycle calls have what is left and no more, so
        the whole run ends within the budget. No call starts with less than
        MIN_CALL_SECONDS of its time (`research_time_over`, `used_up`).
        """
        left = self.remaining_seconds(now)
        if left is None:
            return timeout
        if not final_cycle:
            left -= self.reserve_seconds()
        return max(MIN_CALL_SECONDS, min(timeout, left))

    def reserve_seconds(self) -> float:
        return synthesis_reserve_minutes(self.budget_minutes, judge=self.judge) * 60.0


USAGE_RESERVE_FRACTION = 0.25
"""The share of a token or cost budget kept back for the final cycle."""


class UsageBudget:
    """Token and cost budgets, counted from the usage the agent's calls report.

    Research stops once what is left of either budget falls below the final cycle's
    reserve; the final cycle's calls run on the reserve and stop once the budget is spent.
    A call cannot be stopped mid-way for its tokens, so one call may overrun the budget by
    its own size: the budgets bound what is started, not what one call spends.
    """

    def __init__(self, token_budget: int | None, max_cost: float | None) -> None:
        self.token_budget = token_budget
        self.max_cost = max_cost

    @property
    def limited(self) -> bool:
        return self.token_budget is not None or self.max_cost is not None

    def research_over(self, tokens: int, cost: float) -> tuple[str, str] | None:
        """("token_budget" or "cost_budget", why) once research must stop, else None."""
        if self.token_budget is not None:
            left = self.token_budget - tokens
            if left < USAGE_RESERVE_FRACTION * self.token_budget:
                return "token_budget", (
                    f"{tokens:,} of {self.token_budget:,} tokens used; "
                    f"{max(0, left):,} left, below the final cycle's reserve"
                )
        if self.max_cost is not None:
            left_cost = self.max_cost - cost
            if left_cost < USAGE_RESERVE_FRACTION * self.max_cost:
                return "cost_budget", (
                    f"${cost:.4f} of ${self.max_cost:.4f} spent; "
                    f"${max(0.0, left_cost):.4f} left, below the final cycle's reserve"
                )
        return None

    def spent(self, tokens: int, cost: float) -> str | None:
        """ "token_budget" or "cost_budget" once a budget is used up entirely, else None."""
        if self.token_budget is not None and tokens >= self.token_budget:
            return "token_budget"
        if self.max_cost is not None and cost >= self.max_cost:
            return "cost_budget"
        return None


def time_budget_from_env(minutes_text: str | None, seconds_text: str | None) -> str | None:
    """The time budget the environment gives, as --time's text (minutes or 'unlimited').

    RESEARCH_MAX_EXECUTION_TIME_S (seconds) and RESEARCH_TIME_BUDGET (minutes) both give it;
    both set to different budgets is an error (ValueError), since neither can win.
    """
    if seconds_text is None or not seconds_text.strip():
        return minutes_text
    try:
        seconds = float(seconds_text.strip())
    except ValueError:
        raise ValueError(
            f"RESEARCH_MAX_EXECUTION_TIME_S must be a number of seconds, not {seconds_text!r}"
        ) from None
    given = f"RESEARCH_MAX_EXECUTION_TIME_S={seconds_text.strip()}"
    if not seconds / 60.0 > 0 or seconds == float("inf"):  # 5e-324 s is no minutes at all
        raise ValueError(f"{given}: the time budget must be a positive number of seconds")
    if seconds / 60.0 > MAX_TIME_BUDGET_MINUTES:
        raise ValueError(
            f"{given}: the time budget must be at most {MAX_TIME_BUDGET_MINUTES * 60:.0f} "
            "seconds (a year); unset it for no limit"
        )
    from_seconds = repr(seconds / 60.0)
    if minutes_text is not None and minutes_text.strip():
        minutes = parse_time_budget(minutes_text)
        if minutes is None or abs(minutes * 60.0 - seconds) > 1e-6:
            raise ValueError(
                f"RESEARCH_MAX_EXECUTION_TIME_S={seconds_text} and "
                f"RESEARCH_TIME_BUDGET={minutes_text} give different time budgets; set one"
            )
    return from_seconds

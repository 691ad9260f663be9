"""The pure parts of complexity tiers and the token and cost budgets."""

from __future__ import annotations

from typing import Any

import pytest

from research.core.budget import UsageBudget, time_budget_from_env
from research.core.tiers import TIERS, Tier, TierSource, apply_tier, parse_tier


@pytest.mark.parametrize(
    ("tier", "breadth", "depth", "searches", "sources", "minutes"),
    [
        (Tier.SIMPLE, 2, 1, 3, 5, 15.0),
        (Tier.STANDARD, 3, 3, 10, 15, None),
        (Tier.DEEP, 4, 3, 15, 20, None),
    ],
)
def test_each_tier_gives_what_it_states(tier, breadth, depth, searches, sources, minutes) -> None:
    choice = apply_tier(tier, TierSource.USER)
    assert (choice.breadth, choice.depth, choice.searches, choice.max_sources) == (
        breadth,
        depth,
        searches,
        sources,
    )
    assert choice.time_budget_minutes == minutes
    assert (choice.tier, choice.source) == (tier, TierSource.USER)


def test_the_seeds_query_and_source_counts_are_kept() -> None:
    assert (TIERS[Tier.SIMPLE].searches, TIERS[Tier.SIMPLE].max_sources) == (3, 5)
    assert (TIERS[Tier.STANDARD].searches, TIERS[Tier.STANDARD].max_sources) == (10, 15)
    assert TIERS[Tier.DEEP].searches >= 15 and TIERS[Tier.DEEP].max_sources >= 20


def test_explicit_values_override_the_tier() -> None:
    choice = apply_tier(
        Tier.SIMPLE,
        TierSource.PLAN,
        breadth=5,
        depth=2,
        searches=7,
        max_sources=9,
        time_budget_minutes=None,
        time_budget_given=True,
    )
    assert (choice.breadth, choice.depth, choice.searches, choice.max_sources) == (5, 2, 7, 9)
    assert choice.time_budget_minutes is None  # "unlimited" given explicitly wins


def test_an_unset_time_budget_takes_the_tiers() -> None:
    assert apply_tier(Tier.SIMPLE, TierSource.USER).time_budget_minutes == 15.0
    assert (
        apply_tier(
            Tier.SIMPLE, TierSource.USER, time_budget_minutes=2.0, time_budget_given=True
        ).time_budget_minutes
        == 2.0
    )


@pytest.mark.parametrize(
    ("text", "tier"),
    [
        ("simple", Tier.SIMPLE),
        ("Simple — a single fact", Tier.SIMPLE),
        ("**deep** (many angles)", Tier.DEEP),
        ("Standard research", Tier.STANDARD),
        ("simple | standard | deep", Tier.SIMPLE),
        ("complicated", None),
        ("", None),
    ],
)
def test_parse_tier(text: str, tier: Tier | None) -> None:
    assert parse_tier(text) == tier


def test_research_stops_when_the_tokens_left_fall_below_a_quarter() -> None:
    budget = UsageBudget(token_budget=10_000, max_cost=None)
    assert budget.research_over(7_500, 0.0) is None
    stop = budget.research_over(7_501, 0.0)
    assert stop is not None and stop[0] == "token_budget"
    assert "7,501 of 10,000 tokens" in stop[1]
    assert budget.spent(9_999, 0.0) is None
    assert budget.spent(10_000, 0.0) == "token_budget"


def test_research_stops_when_the_money_left_falls_below_a_quarter() -> None:
    budget = UsageBudget(token_budget=None, max_cost=2.0)
    assert budget.research_over(10**9, 1.5) is None
    stop = budget.research_over(0, 1.51)
    assert stop is not None and stop[0] == "cost_budget"
    assert budget.spent(0, 2.0) == "cost_budget"


def test_no_budget_never_stops() -> None:
    budget = UsageBudget(None, None)
    assert not budget.limited
    assert budget.research_over(10**12, 10**6) is None
    assert budget.spent(10**12, 10**6) is None


@pytest.mark.parametrize(
    ("minutes", "seconds", "expected"),
    [
        (None, None, None),
        ("5", None, "5"),
        (None, "90", repr(1.5)),
        ("1.5", "90", repr(1.5)),
        ("unlimited", None, "unlimited"),
    ],
)
def test_time_budget_from_env(minutes, seconds, expected) -> None:
    assert time_budget_from_env(minutes, seconds) == expected


@pytest.mark.parametrize(
    ("minutes", "seconds", "message"),
    [
        ("2", "90", "give different time budgets"),
        ("unlimited", "90", "give different time budgets"),
        (None, "soon", "number of seconds"),
        (None, "-4", "positive number of seconds"),
        (None, "nan", "positive number of seconds"),
    ],
)
def test_time_budget_from_env_refuses(minutes, seconds, message) -> None:
    with pytest.raises(ValueError, match=message):
        time_budget_from_env(minutes, seconds)


PLAN = """# Research Plan

## Metadata
- Topic: What is the boiling point of water?
- Breadth: 3
- Depth: 3
{line}

## Topics

### Boiling point (Depth: 0)
- Status: Pending
- Complexity: deep (a topic field, not the plan's)
"""


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("- Complexity: simple — one fact to look up", (Tier.SIMPLE, "one fact to look up")),
        ("- **Complexity**: Deep (many angles)", (Tier.DEEP, "many angles")),
        ("* Complexity: standard", (Tier.STANDARD, "no reason given")),
        ("- Complexity: simple | standard | deep — <reason>", None),
        ("- Complexity: hard", None),
        ("", None),
    ],
)
def test_the_plans_complexity_line(line: str, expected) -> None:
    from research.model.plan import parse_complexity

    assert parse_complexity(PLAN.format(line=line)) == expected


def _planned(breadth: int = 3, depth: int = 3, explicit: list[str] | None = None) -> Any:
    from helpers import new_state

    from research.model.plan import Plan

    plan = Plan(topic="q", breadth=breadth, depth=depth)
    for name in ("One", "Two", "Three"):
        plan.add_topic(name, parent=None)
    state = new_state(plan, name="s", max_iterations=86, timeout=60)
    state.config.explicit = explicit or []
    return state


def test_a_plan_without_a_class_gets_the_standard_tier_by_default() -> None:
    from research.model.tiering import settle_from_plan

    state = _planned()
    settled = settle_from_plan(state.config, PLAN.format(line=""), state.plan)
    assert settled is not None and (settled.tier, settled.source) == (Tier.STANDARD, "default")
    assert (state.config.tier, state.config.tier_source) == (Tier.STANDARD, "default")
    assert (state.config.searches, state.config.max_sources) == (10, 15)
    assert settled.trimmed == []


def test_a_simple_plan_skips_the_topics_beyond_its_breadth_and_lowers_the_limit() -> None:
    from research.model.tiering import settle_from_plan

    state = _planned()
    line = "- Complexity: simple — one fact"
    settled = settle_from_plan(state.config, PLAN.format(line=line), state.plan)
    assert settled is not None and settled.trimmed == ["Three"]
    assert [t.status.value for t in state.plan.topics] == ["Pending", "Pending", "Skipped"]
    assert state.plan.topics[2].note == "beyond the simple tier's 2 topics"
    assert (state.plan.breadth, state.plan.depth) == (2, 1)
    assert (state.config.max_iterations, state.config.time_budget_minutes) == (9, 15.0)
    assert state.config.tier_reason == "one fact"


def test_the_plans_class_keeps_what_the_user_set_and_never_overrides_the_users_tier() -> None:
    from research.model.tiering import settle_from_plan

    state = _planned(explicit=["breadth", "depth"])
    settle_from_plan(state.config, PLAN.format(line="- Complexity: simple"), state.plan)
    assert (state.config.breadth, state.config.depth, state.config.searches) == (3, 3, 3)
    assert [t.status.value for t in state.plan.topics] == ["Pending"] * 3
    chosen = _planned()
    chosen.config.tier, chosen.config.tier_source = Tier.DEEP, TierSource.USER
    deep = "- Complexity: simple"
    assert settle_from_plan(chosen.config, PLAN.format(line=deep), chosen.plan) is None
    assert chosen.config.tier is Tier.DEEP


def test_the_time_budget_in_seconds_is_declared_with_the_time_option() -> None:
    from research.core.options import OPTION, seconds_from_environment

    option = OPTION["time_budget_minutes"]
    assert option.env_seconds == "RESEARCH_MAX_EXECUTION_TIME_S"
    assert seconds_from_environment(option, {}) is None
    assert seconds_from_environment(option, {"RESEARCH_MAX_EXECUTION_TIME_S": "90"}) == 1.5
    with pytest.raises(ValueError, match="different time budgets"):
        seconds_from_environment(
            option, {"RESEARCH_MAX_EXECUTION_TIME_S": "90", "RESEARCH_TIME_BUDGET": "2"}
        )


def test_the_iteration_floor_of_a_request_follows_its_tier() -> None:
    from research.core.options import iteration_floor_note

    assert iteration_floor_note({"max_iterations": 9, "tier": "simple"}) is None
    problem = iteration_floor_note({"max_iterations": 9})
    assert problem is not None and "86" in problem

"""A session's complexity tier: chosen at the start, or settled from the plan's class.

The tier's values go into the session's config wherever the user gave none. When the user
chose no tier, the session starts with the standard tier's values and the INITIAL PLAN
phase's classification (the plan's `- Complexity:` line) settles it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from research.core.budget import effective_max_iterations
from research.core.settings import Settings
from research.core.tiers import DEFAULT_TIER, Tier, TierChoice, TierSource, apply_tier
from research.model.plan import Plan, TopicStatus, parse_complexity
from research.model.state import SessionConfig

TIER_FIELDS = ("breadth", "depth", "searches", "max_sources", "time_budget_minutes")
"""The settings a tier gives defaults to, by their SessionConfig names."""


def choose(tier: Tier | None, given: Mapping[str, Any], *, user_tier: bool) -> TierChoice:
    """The tier's values (the standard tier's when None) with the `given` ones kept: the
    settings the user set, by their TIER_FIELDS names.

    Searches per research phase: --max-queries if given; else, when the user gave the
    breadth X and chose no tier, X (SPEC §5.1's "up to X searches"); else the tier's."""
    source = TierSource.USER if user_tier else TierSource.DEFAULT
    searches = given.get("searches")
    if searches is None and not user_tier:
        searches = given.get("breadth")
    return apply_tier(
        tier or DEFAULT_TIER,
        source,
        breadth=given.get("breadth"),
        depth=given.get("depth"),
        searches=searches,
        max_sources=given.get("max_sources"),
        time_budget_minutes=given.get("time_budget_minutes"),
        time_budget_given="time_budget_minutes" in given,
    )


def apply_choice(config: SessionConfig, choice: TierChoice, reason: str = "") -> None:
    """Write the tier and its values into the config; the iteration limit follows."""
    config.tier, config.tier_source, config.tier_reason = choice.tier, choice.source, reason
    config.breadth, config.depth = choice.breadth, choice.depth
    config.searches, config.max_sources = choice.searches, choice.max_sources
    config.time_budget_minutes = choice.time_budget_minutes
    config.max_iterations = effective_max_iterations(
        config.requested_max_iterations, choice.breadth, choice.depth
    )[0]


@dataclass(frozen=True)
class LimitChange:
    """The tier would raise the iteration limit from `before` to `wanted`; `raised` says
    whether it did (otherwise the tree kept the breadth and depth `before` covers)."""

    before: int
    wanted: int
    raised: bool


@dataclass(frozen=True)
class Settled:
    """What settling the tier from the plan did."""

    tier: Tier
    source: TierSource
    reason: str
    trimmed: list[str]
    """Names of depth-0 topics beyond the tier's breadth, set to Skipped."""
    limit: LimitChange | None = None
    """Set when the tier would raise the iteration limit."""


MayRaise = Callable[[int, int], bool]
"""Whether the iteration limit may go from the first figure to the second."""


def settle_from_plan(
    config: SessionConfig, plan_text: str, plan: Plan, may_raise: MayRaise | None = None
) -> Settled | None:
    """After INITIAL PLAN: apply the plan's class unless the user chose a tier; None then.

    `plan` is the reconciled Plan; its breadth and depth follow the tier, and depth-0
    topics beyond the new breadth are skipped (the planner wrote them for a wider tier).
    A tier that would raise the iteration limit does so only if `may_raise` agrees;
    otherwise the tree keeps the breadth and depth the limit covers.
    """
    if config.tier_source is TierSource.USER:
        return None
    parsed = parse_complexity(plan_text)
    tier, reason = parsed if parsed else (DEFAULT_TIER, "the plan gave no complexity")
    source = TierSource.PLAN if parsed else TierSource.DEFAULT
    given = {key: getattr(config, key) for key in TIER_FIELDS if key in config.explicit}
    choice = replace(choose(tier, given, user_tier=False), source=source)
    before = (config.breadth, config.depth, config.max_iterations)
    apply_choice(config, choice, reason)
    limit = None
    if config.max_iterations > before[2]:
        raised = may_raise is None or may_raise(before[2], config.max_iterations)
        limit = LimitChange(before[2], config.max_iterations, raised)
        if not raised:
            config.breadth, config.depth, config.max_iterations = before
    plan.breadth, plan.depth = config.breadth, config.depth
    trimmed = []
    for topic in [t for t in plan.topics if t.depth == 0][config.breadth :]:
        if topic.status is TopicStatus.PENDING:
            topic.status = TopicStatus.SKIPPED
            topic.note = f"beyond the {tier.value} tier's {config.breadth} topics"
            trimmed.append(topic.name)
    return Settled(tier, source, reason, trimmed, limit)


@dataclass(frozen=True)
class Tiered:
    """A new session's tier, and the tier-set settings the user gave explicitly."""

    choice: TierChoice
    explicit: list[str]


def with_tier(settings: Settings) -> tuple[Settings, Tiered]:
    """The settings with the tier's values wherever the user gave none."""
    explicit = [key for key in TIER_FIELDS if key in settings.given]
    choice = choose(
        settings.tier,
        {key: getattr(settings, key) for key in explicit},
        user_tier=settings.tier is not None,
    )
    tiered = {key: getattr(choice, key) for key in TIER_FIELDS}
    return settings.model_copy(update=tiered), Tiered(choice, explicit)


def record(config: SessionConfig, tiered: Tiered, requested_max_iterations: int | None) -> None:
    """A new session's config takes its tier, who chose it, and what the user set."""
    config.explicit = tiered.explicit
    config.requested_max_iterations = requested_max_iterations
    apply_choice(config, tiered.choice)

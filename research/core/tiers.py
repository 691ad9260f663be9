"""Complexity tiers: the defaults a simple, standard or deep question gets.

A tier sets the shape of the topic tree, the searches per research phase, the sources a
topic's notes may list and the time budget. Each of them is only a default: an explicit
flag, variable or request field wins over the tier. The user may choose the tier
(`--tier`); otherwise the INITIAL PLAN phase classifies the question, and a plan that
gives no class gets the standard tier.

The seed's own table counts loop iterations (simple 2, standard 5, deep 10+), but here an
iteration is one topic's RESEARCH → REVIEW and the iteration limit is never below
breadth^(depth+1)+5, so no tier can cap iterations at 2 or 5. The tiers map the seed's
amount of work onto the tree instead: simple is two topics and no subtopics (two
iterations' worth), standard keeps the 3 × 3 tree runs had before tiers existed, deep
is wider (4 × 3, up to 84 topics).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Tier(StrEnum):
    SIMPLE = "simple"
    STANDARD = "standard"
    DEEP = "deep"


class TierSource(StrEnum):
    """Who chose a session's tier."""

    USER = "user"
    """--tier, RESEARCH_TIER or the request's complexity_tier."""
    PLAN = "plan"
    """The INITIAL PLAN phase classified the question."""
    DEFAULT = "default"
    """Nobody did: the plan gave no class (or the session predates tiers)."""


@dataclass(frozen=True)
class TierSpec:
    """What one tier sets."""

    breadth: int
    depth: int
    searches: int
    """Web searches per RESEARCH phase (the prompt's count)."""
    max_sources: int
    """The most sources one topic's notes may list."""
    time_budget_minutes: float | None
    """None is unlimited."""


TIERS: dict[Tier, TierSpec] = {
    Tier.SIMPLE: TierSpec(breadth=2, depth=1, searches=3, max_sources=5, time_budget_minutes=15.0),
    Tier.STANDARD: TierSpec(
        breadth=3, depth=3, searches=10, max_sources=15, time_budget_minutes=None
    ),
    Tier.DEEP: TierSpec(breadth=4, depth=3, searches=15, max_sources=20, time_budget_minutes=None),
}
DEFAULT_TIER = Tier.STANDARD


@dataclass(frozen=True)
class TierChoice:
    """The settings a tier leaves after explicit values have overridden it."""

    tier: Tier
    source: TierSource
    breadth: int
    depth: int
    searches: int
    max_sources: int
    time_budget_minutes: float | None


def apply_tier(
    tier: Tier,
    source: TierSource,
    *,
    breadth: int | None = None,
    depth: int | None = None,
    searches: int | None = None,
    max_sources: int | None = None,
    time_budget_minutes: float | None = None,
    time_budget_given: bool = False,
) -> TierChoice:
    """The tier's values, each replaced by the explicit one where there is one.

    `time_budget_given` says that `time_budget_minutes` was set explicitly: its None then
    means "unlimited", not "not given".
    """
    spec = TIERS[tier]
    return TierChoice(
        tier=tier,
        source=source,
        breadth=spec.breadth if breadth is None else breadth,
        depth=spec.depth if depth is None else depth,
        searches=spec.searches if searches is None else searches,
        max_sources=spec.max_sources if max_sources is None else max_sources,
        time_budget_minutes=(
            time_budget_minutes if time_budget_given else spec.time_budget_minutes
        ),
    )


def parse_tier(text: str) -> Tier | None:
    """A tier from a plan's Complexity value ("Simple", "deep research", ...), or None."""
    words = text.strip().lower().replace("-", " ").split()
    if not words:
        return None
    first = words[0].strip("*_`.,;:()")
    for tier in Tier:
        if first == tier.value or first == f"{tier.value}s":
            return tier
    return None


def tier_table() -> str:
    """The tiers as the INITIAL PLAN prompt shows them."""
    rows = []
    for tier, spec in TIERS.items():
        rows.append(
            f"- `{tier.value}`: up to {spec.breadth} topics per level, "
            f"{spec.depth} topic level{'s' if spec.depth > 1 else ''}, "
            f"{spec.searches} searches and {spec.max_sources} sources per topic"
        )
    return "\n".join(rows)

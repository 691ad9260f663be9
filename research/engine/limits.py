"""The knobs settled during a run: the tier the plan chose, and the token and cost budgets."""

from __future__ import annotations

from research.core.budget import UsageBudget
from research.core.errors import PhaseFailed
from research.engine.context import RunContext
from research.model.state import StopReason
from research.model.tiering import settle_from_plan
from research.sources.registry import extract_sources


def settle_tier(ctx: RunContext, plan_text: str) -> None:
    """After INITIAL PLAN: the plan's class sets the tier unless the user chose one."""
    with ctx.mutex:
        config = ctx.state.config
        settled = settle_from_plan(config, plan_text, ctx.state.plan)
        if settled is None:
            return
        ctx.budget.budget_minutes = config.time_budget_minutes
        for name in settled.trimmed:
            if name not in ctx.state.progress.skipped_topics:
                ctx.state.progress.skipped_topics.append(name)
        ctx.events.emit(
            "tier",
            tier=settled.tier.value,
            source=settled.source.value,
            reason=settled.reason,
            breadth=config.breadth,
            depth=config.depth,
            searches=config.searches,
            max_sources=config.max_sources,
            time_budget_minutes=config.time_budget_minutes,
            max_iterations=config.max_iterations,
            skipped=settled.trimmed,
        )
        ctx.write_plan()


def usage_budget(ctx: RunContext) -> UsageBudget:
    return UsageBudget(ctx.state.config.token_budget, ctx.state.config.max_cost)


def usage_stop(ctx: RunContext) -> tuple[StopReason, str] | None:
    """The token or cost budget's stop, once what is left is below the final reserve."""
    usage = ctx.state.usage
    over = usage_budget(ctx).research_over(usage.total_tokens(), usage.total_cost())
    return None if over is None else (StopReason(over[0]), over[1])


def usage_spent_kind(ctx: RunContext) -> str | None:
    """ "token_budget" or "cost_budget" once that budget is used up: no further final-cycle
    call starts."""
    usage = ctx.state.usage
    return usage_budget(ctx).spent(usage.total_tokens(), usage.total_cost())


def check_source_cap(max_sources: int | None, notes: str, where: str) -> None:
    """Notes that list more distinct sources than the cap are sent back with what to trim."""
    if max_sources is None:
        return
    count = len(extract_sources(notes))
    if count > max_sources:
        raise PhaseFailed(
            f"{where} lists {count} sources, more than the cap of {max_sources}: keep the "
            f"{max_sources} primary sources that back the findings and remove "
            f"{count - max_sources} (with the findings that rest only on them)",
            kind="too_many_sources",
        )

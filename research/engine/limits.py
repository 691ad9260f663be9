"""The knobs settled during a run: the tier the plan chose, and the token and cost budgets."""

from __future__ import annotations

from pathlib import Path

from research.core.budget import LimitAgreement, LimitRaise, UsageBudget, limit_raise
from research.core.errors import PhaseFailed
from research.engine.context import RunContext
from research.model.artifacts import read_text
from research.model.plan import Topic
from research.model.state import StopReason
from research.model.tiering import LimitChange, Settled, settle_from_plan
from research.sources.registry import extract_sources
from research.sources.sourcecap import keep_cited_sources as keep_cited_sources_of
from research.workspace.fsutil import atomic_write_text


def settle_tier(ctx: RunContext, plan_text: str) -> None:
    """After INITIAL PLAN: the plan's class sets the tier unless the user chose one."""
    with ctx.mutex:
        config = ctx.state.config
        settled = settle_from_plan(
            config, plan_text, ctx.state.plan, lambda before, after: may_raise(ctx, before, after)
        )
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
        if settled.limit is not None:
            say_limit(ctx, settled, settled.limit)
        ctx.write_plan()


def may_raise(ctx: RunContext, before: int, after: int) -> bool:
    """Whether the plan's tier may raise the iteration limit the user agreed to
    (`core/budget.py`'s `limit_raise`): asked again at a terminal where the rule says so."""
    config = ctx.state.config
    rule = limit_raise(config.limit_agreement, after, costs=not config.mock_mode)
    if rule is LimitRaise.ASK:
        return ctx.ask(
            f"The plan classes the question {config.tier.value if config.tier else ''} and "
            f"may run up to {after} research iterations (breadth {config.breadth}, depth "
            f"{config.depth}), not the {before} agreed to. Continue with {after}?"
        )
    return rule is LimitRaise.SAY


def say_limit(ctx: RunContext, settled: Settled, change: LimitChange) -> None:
    """A raised (or kept) iteration limit on screen, in the events and in the Methodology."""
    config = ctx.state.config
    tier = f"the plan's {settled.tier.value} tier"
    if change.raised:
        message = f"{tier} raised the iteration limit from {change.before} to {change.wanted}"
        if config.limit_agreement is LimitAgreement.YES:
            message += " (--yes)"
    else:
        why = (
            "--max-iterations set it"
            if config.limit_agreement is LimitAgreement.GIVEN
            else "it was not confirmed again"
        )
        message = (
            f"{tier} would raise the iteration limit from {change.before} to "
            f"{change.wanted}; kept at {change.before} ({why}), with breadth "
            f"{config.breadth} and depth {config.depth}"
        )
    config.limit_changes.append(message)
    ctx.events.emit(
        "iteration_limit",
        message=message,
        before=change.before,
        wanted=change.wanted,
        raised=change.raised,
        max_iterations=config.max_iterations,
    )


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


TOO_MANY_SOURCES = "too_many_sources"


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
            kind=TOO_MANY_SOURCES,
        )


def keep_cited_sources(ctx: RunContext, topic: Topic, progress: Path) -> None:
    """After the last try: the notes keep the first N sources their findings cite, and
    the dropped ones are said (in the notes, an event and a warning)."""
    cap = ctx.state.config.max_sources
    notes = read_text(progress)
    if cap is None or notes is None:
        raise PhaseFailed("the progress file is gone", kind="missing_files")
    trimmed = keep_cited_sources_of(notes, cap)
    atomic_write_text(progress, trimmed.text)
    where = ctx.paths.relative(progress)
    ctx.events.emit(
        "sources_dropped",
        topic=topic.slug,
        file=where,
        cap=cap,
        kept=trimmed.kept,
        dropped=trimmed.dropped,
        findings_dropped=trimmed.findings_dropped,
    )
    ctx.events.emit(
        "warning",
        message=f"{where} still listed {len(trimmed.kept) + len(trimmed.dropped)} sources, "
        f"more than the cap of {cap}: kept the {len(trimmed.kept)} the findings cite first, "
        f"dropped {len(trimmed.dropped)} ({', '.join(trimmed.dropped)}) and "
        f"{trimmed.findings_dropped} finding line(s) citing only them",
        topic=topic.slug,
    )

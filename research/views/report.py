"""The parts of the report the orchestrator writes itself: banners, methodology, tree picture.

Every figure here comes from the state, never from the agent, so the report's account of
how it was made is exactly true.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from research import __version__
from research.core.agentkind import cost_basis
from research.core.defaults import JudgeMode
from research.core.retries import MAX_TOPIC_ATTEMPTS
from research.core.tiers import TierSource
from research.model.plan import RETRY_EXHAUSTED_TAG, Plan, Topic, TopicStatus
from research.model.state import RWRState, StopReason, VerificationSummary
from research.sources.registry import (
    SourceRegistry,
    audit_report,
    enforce_citations,
    parse_citations,
    render_sources_section,
    strip_citations,
)
from research.views.notices import FLAG_MARK, UNREACHED_NOTICE
from research.workspace.paths import SessionPaths

BANNER_MARK = "⚠️ **WARNING:"
METHODOLOGY_HEADING = "## Methodology"
LOW_NOVELTY_NOTE = "low novelty"

STOP_TEXT = {
    StopReason.ALL_DONE: "every topic was completed, skipped or exhausted",
    StopReason.ALL_EXHAUSTED: "every remaining topic was exhausted after repeated failures",
    StopReason.ITERATION_LIMIT: "the iteration limit was reached",
    StopReason.TIME_BUDGET: "the time budget ran out (the synthesis reserve was kept for the "
    "final cycle)",
    StopReason.LOW_NOVELTY: "new findings added too little that was new (novelty rule: an "
    "early stop)",
    StopReason.CIRCUIT_BREAKER: "too many agent calls failed (circuit breaker: degraded mode)",
    StopReason.TOKEN_BUDGET: "the token budget ran low (a quarter was kept for the final cycle)",
    StopReason.COST_BUDGET: "the cost budget ran low (a quarter was kept for the final cycle)",
}


def planned_total(plan: Plan) -> int:
    """Topics that were to be researched: everything but the skipped ones."""
    return sum(1 for t in plan.topics if t.status is not TopicStatus.SKIPPED)


def limit_note(state: RWRState) -> str:
    """Why research ended, in words for the SYNTHESIZE prompt."""
    if state.progress.stop_reason is None:
        return "Research is still in progress."
    counts = state.plan.counts()
    note = (
        f"Research ended because {STOP_TEXT[state.progress.stop_reason]}. "
        f"Topics completed: {counts[TopicStatus.COMPLETE]} of {planned_total(state.plan)}."
    )
    if state.progress.stop_reason is StopReason.CIRCUIT_BREAKER:
        note += (
            " Search capabilities were limited; the answer is based on partial "
            "information. Say so in the report."
        )
    elif state.progress.stop_reason is not StopReason.ALL_DONE:
        note += " Coverage is incomplete: say so plainly where it matters."
    return note


def banners(state: RWRState) -> list[str]:
    """The warning banners to prepend: the seed's for the iteration limit, and its kin."""
    reason = state.progress.stop_reason
    counts = state.plan.counts()
    lines = [
        f"- Topics completed: {counts[TopicStatus.COMPLETE]} of {planned_total(state.plan)}",
        f"- Iterations executed: {state.progress.iteration} (limit: {state.config.max_iterations})",
    ]
    if state.final.time_ran_out and reason is not StopReason.ITERATION_LIMIT:
        reason = StopReason.TIME_BUDGET
    budget_out = state.final.budget_ran_out
    if budget_out is not None and reason not in (
        StopReason.ITERATION_LIMIT,
        StopReason.TIME_BUDGET,
    ):
        reason = StopReason(budget_out)
    builder = _BANNERS.get(reason) if reason is not None else None
    return [] if builder is None else [builder(state, lines)]


def _iteration_banner(state: RWRState, lines: list[str]) -> str:
    return _banner(
        "ITERATION LIMIT REACHED",
        "This report was generated before all research topics were completed due to "
        "reaching the maximum iteration limit. Some findings may be incomplete or missing.",
        [
            *lines,
            "- To complete this research, resume with higher "
            "--max-iterations or run again without the limit",
        ],
    )


def _time_banner(state: RWRState, lines: list[str]) -> str:
    return _banner(
        "TIME BUDGET REACHED",
        "This report was generated before all research topics were completed because the "
        "time budget ran out. Some findings may be incomplete or missing.",
        [
            *lines,
            f"- Time used: {time_used(state)} (budget: {time_budget(state)})",
            "- To complete this research, resume with a larger --time budget",
        ],
    )


def _token_banner(state: RWRState, lines: list[str]) -> str:
    budget = state.config.token_budget or 0
    used = f"- Tokens used: {state.usage.total_tokens():,} (budget: {budget:,})"
    return _budget_banner("TOKEN", "token", used, "--token-budget", lines)


def _cost_banner(state: RWRState, lines: list[str]) -> str:
    used = f"- Cost: ${state.usage.total_cost():.4f} (budget: ${state.config.max_cost or 0:.4f})"
    return _budget_banner("COST", "cost", used, "--max-cost", lines)


def _budget_banner(title: str, budget: str, used: str, flag: str, lines: list[str]) -> str:
    """The banner of a usage budget that ran low: what was used, and how to go on."""
    return _banner(
        f"{title} BUDGET REACHED",
        "This report was generated before all research topics were completed because the "
        f"{budget} budget ran low (a quarter is kept for the final cycle). Some findings may "
        "be incomplete or missing.",
        [*lines, used, f"- To complete this research, resume with a larger {flag}"],
    )


def _novelty_banner(state: RWRState, lines: list[str]) -> str:
    return _banner(
        "RESEARCH STOPPED EARLY",
        "Research stopped before all topics were completed because the latest topics "
        "added little new information (novelty below "
        f"{state.config.min_novelty:g} for {state.progress.consecutive_low_novelty} "
        "topics in a row). "
        "Some findings may be incomplete or missing.",
        [*lines, "- To research the remaining topics, resume with --no-early-termination"],
    )


def _breaker_banner(state: RWRState, lines: list[str]) -> str:
    return _banner(
        "DEGRADED MODE: SEARCHING WAS LIMITED",
        "Search capabilities were limited; this report is based on partial information. "
        "Research stopped because "
        f"{state.progress.stop_detail or 'too many agent calls failed'}.",
        [
            *lines,
            f"- Agent calls failed in the whole run: {state.usage.agent_failures} of "
            f"{state.usage.agent_calls}",
            "- To complete this research, fix the agent's problem (see events.jsonl) and run again",
        ],
    )


def _exhausted_banner(state: RWRState, lines: list[str]) -> str:
    return _banner(
        "NO TOPIC COULD BE COMPLETED",
        "Every research topic was abandoned after repeated failed or rejected attempts. "
        "This report rests on unreviewed notes at best and may be incomplete or wrong.",
        [
            *lines,
            f"- Topics abandoned ({RETRY_EXHAUSTED_TAG}): "
            f"{state.plan.counts()[TopicStatus.EXHAUSTED]}",
        ],
    )


_BANNERS: dict[StopReason, Callable[[RWRState, list[str]], str]] = {
    StopReason.ITERATION_LIMIT: _iteration_banner,
    StopReason.TIME_BUDGET: _time_banner,
    StopReason.TOKEN_BUDGET: _token_banner,
    StopReason.COST_BUDGET: _cost_banner,
    StopReason.LOW_NOVELTY: _novelty_banner,
    StopReason.CIRCUIT_BREAKER: _breaker_banner,
    StopReason.ALL_EXHAUSTED: _exhausted_banner,
}


def _banner(title: str, body: str, lines: list[str]) -> str:
    return "\n".join(["---", f"{BANNER_MARK} {title}**", "", body, "", *lines, "---"])


def time_used(state: RWRState) -> str:
    """`state.progress.elapsed_seconds` in words: seconds under a minute, else minutes."""
    seconds = state.progress.elapsed_seconds
    return f"{seconds:.1f} seconds" if seconds < 60 else f"{seconds / 60:.1f} minutes"


def time_budget(state: RWRState) -> str:
    """The time budget in words: "unlimited", "4 seconds", "15 minutes", "1.5 minutes"."""
    minutes = state.config.time_budget_minutes
    if minutes is None:
        return "unlimited"
    seconds = round(minutes * 60, 1)
    if seconds < 60:
        return f"{seconds:g} seconds"
    return f"{round(minutes, 1):g} minutes"


# --- the topic-tree picture -----------------------------------------------------------------

MERMAID_LABEL_LIMIT = 60
# Characters that would end a quoted Mermaid label, start an entity code, a markdown
# string, or HTML, written as Mermaid entity codes ("#" first: the codes contain it).
_MERMAID_ESCAPES = (
    ("#", "#35;"),
    ('"', "#quot;"),
    ("`", "#96;"),
    ("<", "#lt;"),
    (">", "#gt;"),
    ("&", "#amp;"),
)


def mermaid_tree(plan: Plan) -> str:
    """The topic tree as a Mermaid flowchart, one colour per status."""
    ids = {topic.slug: f"t{index}" for index, topic in enumerate(plan.topics)}
    lines = ["```mermaid", "flowchart TD", f'    root["{mermaid_text(plan.topic)}"]']
    for topic in plan.topics:
        status = topic.status.value + (f": {topic.note}" if topic.note else "")
        if topic.status is TopicStatus.EXHAUSTED:
            status += f" {RETRY_EXHAUSTED_TAG}"
        label = f"{mermaid_text(topic.name)}<br/><i>{mermaid_text(status)}</i>"
        lines.append(f'    {ids[topic.slug]}["{label}"]')
        parent = ids.get(topic.parent, "root") if topic.parent else "root"
        lines.append(f"    {parent} --> {ids[topic.slug]}")
        lines.append(f"    class {ids[topic.slug]} {_status_class(topic.status)}")
    lines += [
        "    classDef complete fill:#d4f7d4,stroke:#2e7d32",
        "    classDef open fill:#fff4c2,stroke:#b08900",
        "    classDef skipped fill:#eeeeee,stroke:#888888,stroke-dasharray: 4 3",
        "    classDef exhausted fill:#ffd6d6,stroke:#c62828",
        "```",
    ]
    return "\n".join(lines)


def _status_class(status: TopicStatus) -> str:
    return {
        TopicStatus.COMPLETE: "complete",
        TopicStatus.SKIPPED: "skipped",
        TopicStatus.EXHAUSTED: "exhausted",
    }.get(status, "open")


def mermaid_text(text: str, limit: int = MERMAID_LABEL_LIMIT) -> str:
    """Text safe inside a quoted Mermaid label: one line, at most `limit` characters
    (before escaping), with the label-breaking characters as entity codes."""
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "\u2026"
    for char, code in _MERMAID_ESCAPES:
        text = text.replace(char, code)
    return text


# --- methodology ----------------------------------------------------------------------------


def _usage_figures(state: RWRState) -> tuple[str, str]:
    tokens_in = [u.input_tokens for u in state.usage.phases.values() if u.input_tokens is not None]
    tokens_out = [
        u.output_tokens for u in state.usage.phases.values() if u.output_tokens is not None
    ]
    costs = [u.cost for u in state.usage.phases.values() if u.cost is not None]
    tokens = (
        f"{sum(tokens_in):,} in / {sum(tokens_out):,} out"
        if tokens_in or tokens_out
        else "unknown (the agent reported none)"
    )
    cost = f"${sum(costs):.4f}" if costs else "unknown (the agent reported none)"
    return _with_budgets(state, tokens, cost, simulated=bool(tokens_in or costs))


def _with_budgets(state: RWRState, tokens: str, cost: str, *, simulated: bool) -> tuple[str, str]:
    """The usage figures with their budgets, labelled when the simulated agent made them."""
    config = state.config
    if config.token_budget is not None:
        tokens += f" (budget: {config.token_budget:,})"
    if config.max_cost is not None:
        cost += f" (budget: ${config.max_cost:.4f})"
    if config.mock_mode and simulated:
        tokens, cost = f"{tokens} [simulated]", f"{cost} [simulated]"
    elif cost_basis(config.agent) == "computed" and simulated:
        cost += f" [computed: the {config.agent} agent reports no cost; see --codex-prices]"
    return tokens, cost


def skipped_kinds(plan: Plan) -> tuple[list[Topic], list[Topic], list[Topic]]:
    """Skipped topics split into (duplicates, low novelty, other reasons)."""
    skipped = [t for t in plan.topics if t.status is TopicStatus.SKIPPED]
    duplicates = [t for t in skipped if (t.note or "").startswith("duplicate")]
    low_novelty = [t for t in skipped if t.note == LOW_NOVELTY_NOTE]
    other = [t for t in skipped if t not in duplicates and t not in low_novelty]
    return duplicates, low_novelty, other


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _prose(text: str) -> str:
    """Agent-written text (topic names, notes) made inert: a "[2020]" in a topic name must
    not read as a citation in the report."""
    return " ".join(text.split()).replace("[", "\\[").replace("]", "\\]")


def _final_review_line(state: RWRState) -> str:
    if state.final.report_fallback:
        return (
            "- Synthesis failed; the orchestrator compiled this report from the research "
            "notes without the agent"
        )
    if state.final.final_review_rejected and state.final.revision_failed:
        return (
            "- Final review: rejected the first draft; the revision failed, so this is "
            "the first draft"
        )
    if state.final.final_review_rejected:
        return "- Final review: rejected the first draft; the report was revised"
    if state.final.final_review_accepted:
        return "- Final review: accepted"
    return "- Final review: could not be completed"


def _ended_line(state: RWRState) -> str:
    if state.progress.stop_reason is None:
        return "- Research ended: unknown"
    detail = f" ({state.progress.stop_detail})" if state.progress.stop_detail else ""
    return f"- Research ended because {STOP_TEXT[state.progress.stop_reason]}{detail}"


TIER_CHOSEN_BY = {
    TierSource.USER: "chosen by the user",
    TierSource.PLAN: "classified by the plan",
    TierSource.DEFAULT: "the default: the plan gave no class",
}


def tier_text(state: RWRState) -> str | None:
    """The tier and who chose it ("simple, classified by the plan: one fact"), or None for
    a session from before tiers."""
    config = state.config
    if config.tier is None:
        return None
    chosen = TIER_CHOSEN_BY[config.tier_source or TierSource.DEFAULT]
    reason = f": {config.tier_reason}" if config.tier_source is TierSource.PLAN else ""
    return f"{config.tier.value} ({chosen}{reason})"


def _tier_lines(state: RWRState) -> list[str]:
    tier = tier_text(state)
    if tier is None:
        return []
    config = state.config
    cap = "no cap" if config.max_sources is None else f"at most {config.max_sources}"
    return [
        f"- Complexity tier: {_prose(tier)}; up to {config.searches or config.breadth} "
        f"searches per research phase; {cap} sources per topic"
    ]


def _citation_check_line(state: RWRState) -> str:
    if state.final.citation_ids_removed:
        # Plain numbers: a bracketed id here would itself read as an unresolvable citation.
        removed = ", ".join(str(i) for i in state.final.citation_ids_removed)
        return (
            f"- Citation check: the orchestrator removed the citation "
            f"{'ids' if len(state.final.citation_ids_removed) > 1 else 'id'} {removed}, "
            "which matched no recorded source, and rebuilt the Sources section"
        )
    if state.final.sources_section_rebuilt:
        return (
            "- Citation check: every citation resolves to a recorded source; the "
            "orchestrator rebuilt the Sources section to list exactly the cited sources"
        )
    return (
        "- Citation check: every citation resolves to a recorded source, and the "
        "Sources section lists exactly the cited sources"
    )


def _limit_changes(state: RWRState) -> str:
    """ "; the plan's deep tier raised the iteration limit from 86 to 261 (--yes)" or ""."""
    return "".join(f"; {change}" for change in state.config.limit_changes)


def _models_used(state: RWRState) -> str:
    """The models the agent was asked to use; the simulated agent uses none."""
    if state.config.mock_mode:
        return "no model (the simulated agent answers without one)"
    asked = f"model `{state.config.model}`, review model `{state.config.review_model}`"
    used = state.usage.models_used
    if used and set(used) != {state.config.model, state.config.review_model}:
        asked += " (the agent ran on " + ", ".join(f"`{name}`" for name in used) + ")"
    return asked


def methodology(state: RWRState) -> str:
    """The `## Methodology` section, every figure taken from the state."""
    plan = state.plan
    counts = plan.counts()
    duplicates, low_novelty, other = skipped_kinds(plan)
    exhausted = [t for t in plan.topics if t.status is TopicStatus.EXHAUSTED]
    tokens, cost = _usage_figures(state)
    agent = state.config.agent + (
        " (simulated: --mock-mode, no real research was done)" if state.config.mock_mode else ""
    )
    skipped_detail = f"{len(duplicates)} duplicate, {len(low_novelty)} low novelty"
    if other:
        skipped_detail += f", {len(other)} other"
    lines = [
        METHODOLOGY_HEADING,
        "",
        f"This section was written by research.py {__version__} from its own records "
        "(`state.json`), not by the agent.",
        "",
        f"- Agent: {agent}; {_models_used(state)}",
        f"- Breadth: {state.config.breadth}; depth: {_plural(state.config.depth, 'topic level')}",
        *_tier_lines(state),
        f"- Iterations: {state.progress.iteration} used of a limit of "
        f"{state.config.max_iterations}{_limit_changes(state)}",
        f"- Time: {time_used(state)} used; budget: {time_budget(state)}",
        f"- Topics: {len(plan.topics)} in the plan: {counts[TopicStatus.COMPLETE]} complete, "
        f"{counts[TopicStatus.SKIPPED]} skipped ({skipped_detail}), "
        f"{counts[TopicStatus.EXHAUSTED]} exhausted, {len(plan.open_topics())} not finished",
        _ended_line(state),
        f"- Agent calls: {state.usage.agent_calls} ({state.usage.agent_failures} failed); "
        "failed phases: "
        f"{state.usage.failed_phases}; recoveries: {state.usage.recoveries}",
        f"- Tokens: {tokens}; cost: {cost}",
        f"- Sources: {state.final.sources_found} found in the research notes, "
        f"{state.final.sources_cited} cited in this report",
    ]
    lines += [_citation_check_line(state), _final_review_line(state)]
    lines += _source_check_lines(state)
    lines += _skipped_document_lines(state)
    if exhausted:
        lines += ["", f"Topics abandoned after {MAX_TOPIC_ATTEMPTS} attempts:", ""]
        lines += [f"- {_prose(t.name)} {RETRY_EXHAUSTED_TAG}" for t in exhausted]
    skipped = [*duplicates, *low_novelty, *other]
    if skipped:
        lines += ["", "Topics skipped:", ""]
        lines += [f"- {_prose(t.name)} ({_prose(t.note or 'skipped')})" for t in skipped]
    lines += ["", "### Topic tree", "", mermaid_tree(plan)]
    lines += _unverified_appendix(state)
    return "\n".join(lines) + "\n"


def _source_check_lines(state: RWRState) -> list[str]:
    """What the source check did: sources fetched and kept, dead, and claims checked."""
    if not state.config.verify_sources:
        return [
            "- Source check: off (--no-verify-sources): the cited pages were not fetched "
            "and no claim was checked against them"
        ]
    found = state.final.verification
    if found is None:
        return [
            "- Source check: no cited sentence was checked (the report was written without one)"
        ]
    local = (
        f", {_plural(found.local_documents, 'local document')} read from --sources"
        if found.local_documents
        else ""
    )
    marks = (
        [
            f"- A {FLAG_MARK} after a citation marks a sentence its cited page does not "
            "(fully) support, or whose page could not be read; each is listed under "
            "Sentences that could not be verified below"
        ]
        if found.flagged
        else []
    )
    unreached = (
        [
            f"- Not checked: {_plural(found.not_reached, 'source')}: "
            + UNREACHED_NOTICE.replace("--no-verify-sources", "`--no-verify-sources`")
        ]
        if found.not_reached
        else []
    )
    return [
        *unreached,
        *marks,
        f"- Sources checked: {found.sources_cited} cited in the notes; {found.snapshotted} "
        f"fetched or read with a text snapshot kept{local}; {found.dead} dead (not found, "
        f"unreachable or timed out); {found.not_checked} blocked, refused or without text"
        + (f"; {found.not_reached} not checked (no web access)" if found.not_reached else ""),
        f"- Claims checked against their pages: {found.claims_checked} cited sentences: "
        f"{found.supported} supported, {found.weak} weak, {found.unsupported} unsupported, "
        f"{found.unverifiable} unverifiable (no snapshot)",
        *_judge_lines(state, found),
    ]


def _skipped_document_lines(state: RWRState) -> list[str]:
    """The --sources documents that were not read, and why."""
    from research.sources.local import skipped_lines

    ledger = state.sources
    found = skipped_lines(ledger.skipped_documents, ledger.documents_over_cap)
    return [f"- Your documents (--sources): {_prose(line)}" for line in found]


APPENDIX_HEADING = "### Sentences that could not be verified"
SENTENCE_WORDS = 24
"""A flagged sentence longer than this is quoted by its first words."""


def _first_words(sentence: str) -> str:
    words = sentence.split()
    if len(words) <= SENTENCE_WORDS:
        return " ".join(words)
    return " ".join(words[:SENTENCE_WORDS]) + " \u2026"


def _unverified_appendix(state: RWRState) -> list[str]:
    """One line per sentence the source check flagged: the sentence, its citations, the
    outcome, the reason and the page's best passage (plain numbers: a bracketed id here
    would read as a citation)."""
    found = state.final.verification
    if found is None or not found.flagged:
        return []
    lines = [
        "",
        APPENDIX_HEADING,
        "",
        f"Each is marked {FLAG_MARK} in the text after its citation.",
        "",
    ]
    judge = judge_label(state)
    for item in found.flagged:
        ids = ", ".join(str(i) for i in item.ids)
        line = f'- "{_prose(_first_words(item.sentence))}" (source {ids}): {item.outcome}: '
        if item.decided_by == "judge":
            line += f"{judge}: {_prose(item.reason)}"
            line += f': "{_prose(item.passage)}"' if item.passage else ""
        else:
            line += f"rules: {_prose(item.reason)}"
            line += f'; the page says: "{_prose(item.passage)}"' if item.passage else ""
        lines.append(line)
    return lines


def judge_label(state: RWRState) -> str:
    """Who "the judge" was: the review model, or the simulated agent (--mock-mode)."""
    return "judge (simulated)" if state.config.mock_mode else "judge"


def _judge_lines(state: RWRState, found: VerificationSummary) -> list[str]:
    """Who decided the checked sentences: the rules, the judge, and the void judgements."""
    if found.judge == JudgeMode.OFF.value:
        return [
            f"- Decided by: the rules alone, for all {found.claims_checked} checked sentences "
            "(the judge was off: --judge off)"
        ]
    sent = "every checked sentence" if found.judge == JudgeMode.ALL.value else "flagged ones"
    who = "the simulated agent" if state.config.mock_mode else "the review model"
    decided = (
        f"- Decided by: the rules for {_plural(found.decided_by_rules, 'sentence')}, "
        f"the judge for {found.decided_by_judge}; "
        f"{_plural(found.judge_voided, 'judgement')} voided (its quote was not on the page, "
        "so the rules decided)"
    )
    judge = (
        f"- The judge: {who} (--judge {found.judge}: {sent} with a readable page), asked "
        f"for a verbatim quote of the page, in {_plural(found.judge_calls, 'call')}; a call "
        "that fails or leaves no valid answers is never taken as support: its sentences keep "
        f"the rules' verdicts ({found.judge_failed} did)"
    )
    if found.judge_skipped:
        judge += f"; not asked about some sentences: {_prose(found.judge_skipped)}"
    return [decided, judge]


# --- the final report -----------------------------------------------------------------------

_METHODOLOGY_TITLE = re.compile(
    r"^#{1,2}\s+(?:\d+\.?\s+)?(?:research\s+)?methodology\s*:?\s*#*$", re.IGNORECASE
)


# The source check's marks: the orchestrator writes them again each time it finalises.
_FLAG_AFTER_CITATION = re.compile("(\\[[^\\[\\]\\n]{1,60}\\])" + FLAG_MARK + "+")


def strip_orchestrator_parts(text: str) -> str:
    """Remove banners and any Methodology section: the orchestrator writes its own.

    Running it on a finalised report gives back the body it was made from, so finalising
    twice (a crash before the state was saved, then --resume) never duplicates them.
    """
    body = text.lstrip("\ufeff")
    while True:
        match = re.match(
            r"\s*---\r?\n" + re.escape(BANNER_MARK) + r".*?\n---[ \t]*(?:\r?\n|$)", body, re.DOTALL
        )
        if match is None:
            break
        body = body[match.end() :]
    kept: list[str] = []
    skipping = False
    fence: str | None = None
    for line in body.splitlines():
        stripped = line.strip()
        if fence is None and _METHODOLOGY_TITLE.match(stripped):
            skipping = True
            continue
        if fence is None and skipping and re.match(r"^#{1,2}\s", stripped):
            skipping = False
        if stripped.startswith(("```", "~~~")):
            marker = stripped[:3]
            fence = None if fence == marker else (fence or marker)
        if not skipping:
            kept.append(line)
    return _FLAG_AFTER_CITATION.sub(r"\1", "\n".join(kept)).strip() + "\n"


@dataclass(frozen=True)
class FinalBody:
    """The agent's report made true: what the orchestrator keeps of it."""

    text: str
    """Without banners or Methodology; unknown ids removed; Sources rebuilt if wrong."""
    removed: list[int]
    """Unknown ids the orchestrator removed."""
    rebuilt: bool
    """Whether the Sources section was rewritten from the registry."""
    cited: list[int]
    """Registry ids the text cites, in order of first appearance."""


def final_body(text: str, registry: SourceRegistry) -> FinalBody:
    """Strip the orchestrator's parts and enforce the citations: every id the report keeps
    is a recorded source."""
    body = strip_orchestrator_parts(text)
    removed: list[int] = []
    rebuilt = not audit_report(body, registry).ok
    if rebuilt:
        body, removed = enforce_citations(body, registry)
    known = registry.ids()
    cited = [i for i in parse_citations(body) if i in known]
    return FinalBody(text=body, removed=removed, rebuilt=rebuilt, cited=cited)


def assemble_report(body: str, state: RWRState) -> str:
    """Banners first, the body, then the methodology: the report as written to disk."""
    parts = [*banners(state), body, methodology(state)]
    return "\n\n".join(part.strip("\n") for part in parts) + "\n"


def fallback_report(state: RWRState, paths: SessionPaths, registry: SourceRegistry) -> str:
    """A plain compilation of the notes, used only when the agent could not synthesize."""
    from research.model.artifacts import read_text, tree_order

    lines = [
        f"# {state.config.original_topic}",
        "",
        "The agent could not synthesize this report, so research.py compiled it directly from "
        "the research notes. It is a faithful but unpolished collection of the findings.",
    ]
    cited: list[int] = []
    for topic in tree_order(state.plan):
        notes = read_text(paths.progress_file(topic.slug))
        if not notes:
            continue
        ids = [s.id for s in registry.sources if topic.slug in s.topics]
        cited += ids
        # The notes' own "[n]" numbering would point at the wrong registry entries.
        findings = strip_citations(_section(notes, "Findings") or "(no findings recorded)")
        lines += ["", f"{'#' * min(topic.depth + 2, 6)} {_prose(topic.name)}", "", findings.strip()]
        if ids:
            lines += ["", f"Sources recorded for this topic: [{', '.join(map(str, ids))}]."]
    lines += ["", render_sources_section(cited, registry)]
    return "\n".join(lines) + "\n"


def _section(markdown: str, title: str) -> str | None:
    match = re.search(
        rf"^##\s+{title}\s*$(.*?)(?=^##\s|\Z)", markdown, re.MULTILINE | re.DOTALL | re.IGNORECASE
    )
    return match.group(1).strip() if match else None

"""The parts of the report the orchestrator writes itself: banners, methodology, tree picture.

Every figure here comes from the state, never from the agent, so the report's account of
how it was made is exactly true.
"""

from __future__ import annotations

import re

from research import __version__
from research.paths import SessionPaths
from research.plan import RETRY_EXHAUSTED_TAG, Plan, TopicStatus
from research.sources import SourceRegistry, audit_report, enforce_citations, render_sources_section
from research.state import RWRState, StopReason

BANNER_MARK = "⚠️ **WARNING:"
METHODOLOGY_HEADING = "## Methodology"

STOP_TEXT = {
    StopReason.ALL_DONE: "every topic was completed, skipped or exhausted",
    StopReason.ALL_EXHAUSTED: "every remaining topic was exhausted after repeated failures",
    StopReason.ITERATION_LIMIT: "the iteration limit was reached",
    StopReason.TIME_BUDGET: "the time budget ran out (the synthesis reserve was kept for the "
    "final cycle)",
    StopReason.LOW_NOVELTY: "research stopped early because new findings added too little "
    "that was new (novelty rule)",
    StopReason.CIRCUIT_BREAKER: "research stopped in degraded mode because too many agent "
    "calls failed (circuit breaker)",
}


def topic_counts(plan: Plan) -> dict[TopicStatus, int]:
    return plan.counts()


def planned_total(plan: Plan) -> int:
    """Topics that were to be researched: everything but the skipped ones."""
    return sum(1 for t in plan.topics if t.status is not TopicStatus.SKIPPED)


def limit_note(state: RWRState) -> str:
    """Why research ended, in words for the SYNTHESIZE prompt."""
    if state.stop_reason is None:
        return "Research is still in progress."
    counts = state.plan.counts()
    note = (f"Research ended because {STOP_TEXT[state.stop_reason]}. "
            f"Topics completed: {counts[TopicStatus.COMPLETE]} of {planned_total(state.plan)}.")
    if state.stop_reason is StopReason.CIRCUIT_BREAKER:
        note += (" Search capabilities were limited; the answer is based on partial "
                 "information. Say so in the report.")
    elif state.stop_reason is not StopReason.ALL_DONE:
        note += " Coverage is incomplete: say so plainly where it matters."
    return note


def banners(state: RWRState) -> list[str]:
    """The warning banners to prepend: the seed's for the iteration limit, and its kin."""
    reason = state.stop_reason
    counts = state.plan.counts()
    completed = f"- Topics completed: {counts[TopicStatus.COMPLETE]} of {planned_total(state.plan)}"
    iterations = f"- Iterations executed: {state.iteration} (limit: {state.max_iterations})"
    if reason is StopReason.ITERATION_LIMIT:
        return [_banner(
            "ITERATION LIMIT REACHED",
            "This report was generated before all research topics were completed due to "
            "reaching the maximum iteration limit. Some findings may be incomplete or missing.",
            [completed, iterations, "- To complete this research, resume with higher "
             "--max-iterations or run again without the limit"],
        )]
    if reason is StopReason.TIME_BUDGET:
        budget = state.time_budget_minutes or 0.0
        return [_banner(
            "TIME BUDGET REACHED",
            "This report was generated before all research topics were completed because the "
            "time budget ran out. Some findings may be incomplete or missing.",
            [completed, iterations,
             f"- Time used: {state.elapsed_seconds / 60:.1f} minutes (budget: {budget:g} minutes)",
             "- To complete this research, resume with a larger --time budget"],
        )]
    if reason is StopReason.LOW_NOVELTY:
        return [_banner(
            "RESEARCH STOPPED EARLY",
            "Research stopped before all topics were completed because the latest topics "
            "added little new information (novelty below "
            f"{state.min_novelty:g} for {state.consecutive_low_novelty} topics in a row).",
            [completed, iterations,
             "- To research the remaining topics, resume with --no-early-termination"],
        )]
    if reason is StopReason.CIRCUIT_BREAKER:
        return [_banner(
            "DEGRADED MODE: SEARCHING WAS LIMITED",
            "Search capabilities were limited; this report is based on partial information. "
            f"Research stopped because {state.stop_detail or 'too many agent calls failed'}.",
            [completed, iterations,
             f"- Agent calls failed: {state.agent_failures} of {state.agent_calls}"],
        )]
    return []


def _banner(title: str, body: str, lines: list[str]) -> str:
    return "\n".join(["---", f"{BANNER_MARK} {title}**", "", body, "", *lines, "---"])


def mermaid_tree(plan: Plan) -> str:
    """The topic tree as a Mermaid flowchart, one colour per status."""
    ids = {topic.slug: f"t{index}" for index, topic in enumerate(plan.topics)}
    lines = ["```mermaid", "flowchart TD", f'    root["{_mermaid_text(plan.topic)}"]']
    for topic in plan.topics:
        status = topic.status.value + (f": {topic.note}" if topic.note else "")
        if topic.status is TopicStatus.EXHAUSTED:
            status += f" {RETRY_EXHAUSTED_TAG}"
        label = f"{_mermaid_text(topic.name)}<br/><i>{_mermaid_text(status)}</i>"
        lines.append(f'    {ids[topic.slug]}["{label}"]')
        parent = ids[topic.parent] if topic.parent else "root"
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


def _mermaid_text(text: str) -> str:
    return (text.replace("&", "&amp;").replace('"', "#quot;").replace("<", "&lt;")
            .replace(">", "&gt;").replace("\n", " "))


def _usage_figures(state: RWRState) -> tuple[str, str]:
    tokens_in = [u.input_tokens for u in state.usage.values() if u.input_tokens is not None]
    tokens_out = [u.output_tokens for u in state.usage.values() if u.output_tokens is not None]
    costs = [u.cost for u in state.usage.values() if u.cost is not None]
    tokens = (f"{sum(tokens_in):,} in / {sum(tokens_out):,} out"
              if tokens_in or tokens_out else "unknown (the agent reported none)")
    cost = f"${sum(costs):.4f}" if costs else "unknown (the agent reported none)"
    return tokens, cost


def methodology(state: RWRState, registry: SourceRegistry, cited: list[int]) -> str:
    """The `## Methodology` section, every figure taken from the state."""
    plan = state.plan
    counts = plan.counts()
    skipped = [t for t in plan.topics if t.status is TopicStatus.SKIPPED]
    duplicates = [t for t in skipped if (t.note or "").startswith("duplicate")]
    low_novelty = [t for t in skipped if t not in duplicates]
    exhausted = [t for t in plan.topics if t.status is TopicStatus.EXHAUSTED]
    budget = ("unlimited" if state.time_budget_minutes is None
              else f"{state.time_budget_minutes:g} minutes")
    tokens, cost = _usage_figures(state)
    agent = state.agent + (" (simulated: --mock-mode, no real research was done)"
                           if state.mock_mode else "")
    known_cited = [i for i in cited if registry.get(i) is not None]
    lines = [
        METHODOLOGY_HEADING,
        "",
        f"This section was written by research.py {__version__} from its own records "
        "(`state.json`), not by the agent.",
        "",
        f"- Agent: {agent}; model `{state.model}`, review model `{state.review_model}`",
        f"- Breadth: {state.breadth}; depth: {state.depth} topic levels",
        f"- Iterations: {state.iteration} used of a limit of {state.max_iterations}",
        f"- Time: {state.elapsed_seconds / 60:.1f} minutes used; budget: {budget}",
        f"- Topics: {len(plan.topics)} in the plan — {counts[TopicStatus.COMPLETE]} complete, "
        f"{counts[TopicStatus.SKIPPED]} skipped ({len(duplicates)} duplicates, "
        f"{len(low_novelty)} low novelty), {counts[TopicStatus.EXHAUSTED]} exhausted, "
        f"{len(plan.open_topics())} not finished",
        f"- Research ended because {STOP_TEXT[state.stop_reason]}"
        + (f" ({state.stop_detail})" if state.stop_detail else "")
        if state.stop_reason else "- Research ended: unknown",
        f"- Agent calls: {state.agent_calls} ({state.agent_failures} failed); failed phases: "
        f"{state.failed_phases}; recoveries: {state.recoveries}",
        f"- Tokens: {tokens}; cost: {cost}",
        f"- Sources: {len(registry.sources)} found in the research notes, "
        f"{len(known_cited)} cited in this report",
    ]
    if state.citation_ids_removed:
        removed = ", ".join(f"[{i}]" for i in state.citation_ids_removed)
        lines.append(f"- Citation check: the orchestrator removed citations {removed}, which "
                     "matched no recorded source, and rebuilt the Sources section")
    else:
        lines.append("- Citation check: every citation resolves to a recorded source")
    if state.report_fallback:
        lines.append("- Synthesis failed; the orchestrator compiled this report from the "
                     "research notes without the agent")
    elif state.final_review_rejected:
        lines.append("- Final review: rejected the first draft; the report was revised")
    elif state.final_review_accepted:
        lines.append("- Final review: accepted")
    else:
        lines.append("- Final review: could not be completed")
    if exhausted:
        lines += ["", "Topics abandoned after 3 attempts:", ""]
        lines += [f"- {t.name} {RETRY_EXHAUSTED_TAG}" for t in exhausted]
    if skipped:
        lines += ["", "Topics skipped:", ""]
        lines += [f"- {t.name} ({t.note or 'skipped'})" for t in skipped]
    lines += ["", "### Topic tree", "", mermaid_tree(plan)]
    return "\n".join(lines) + "\n"


def strip_orchestrator_parts(text: str) -> str:
    """Remove banners and any Methodology section: the orchestrator writes its own."""
    body = text.lstrip("\ufeff")
    while True:
        match = re.match(r"\s*---\n" + re.escape(BANNER_MARK) + r".*?\n---[ \t]*\n", body,
                         re.DOTALL)
        if match is None:
            break
        body = body[match.end():]
    lines = body.splitlines()
    kept: list[str] = []
    skipping = False
    for line in lines:
        if re.match(r"^#{1,2}\s+Methodology\s*$", line.strip(), re.IGNORECASE):
            skipping = True
            continue
        if skipping and re.match(r"^#{1,2}\s", line):
            skipping = False
        if not skipping:
            kept.append(line)
    return "\n".join(kept).strip() + "\n"


def finalize_report(text: str, state: RWRState, registry: SourceRegistry) -> tuple[str, list[int]]:
    """The report as written to disk: true citations, banners first, methodology last."""
    body = strip_orchestrator_parts(text)
    audit = audit_report(body, registry)
    removed: list[int] = []
    if not audit.ok:
        body, removed = enforce_citations(body, registry)
        audit = audit_report(body, registry)
    parts = [*banners(state), body.rstrip() + "\n", methodology(state, registry, audit.cited)]
    return "\n\n".join(part.strip("\n") for part in parts) + "\n", removed


def fallback_report(state: RWRState, paths: SessionPaths, registry: SourceRegistry) -> str:
    """A plain compilation of the notes, used only when the agent could not synthesize."""
    from research.phases import read_text, tree_order

    lines = [
        f"# {state.original_topic}",
        "",
        "The agent could not synthesize this report, so research.py compiled it directly from "
        "the research notes. It is a faithful but unpolished collection of the findings.",
    ]
    for topic in tree_order(state.plan):
        notes = read_text(paths.progress_file(topic.slug))
        if not notes:
            continue
        ids = [s.id for s in registry.sources if topic.slug in s.topics]
        cite = f" [{', '.join(str(i) for i in ids)}]" if ids else ""
        findings = _section(notes, "Findings") or "(no findings recorded)"
        lines += ["", f"{'#' * min(topic.depth + 2, 6)} {topic.name}", "",
                  findings.strip() + cite]
    cited = sorted({i for s in registry.sources for i in [s.id]})
    lines += ["", render_sources_section(cited, registry)]
    return "\n".join(lines) + "\n"


def _section(markdown: str, title: str) -> str | None:
    match = re.search(rf"^##\s+{title}\s*$(.*?)(?=^##\s|\Z)", markdown,
                      re.MULTILINE | re.DOTALL | re.IGNORECASE)
    return match.group(1).strip() if match else None

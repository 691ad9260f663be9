"""The prose of prompt values: each turns what the orchestrator knows into the lines an
agent reads (a topic's criteria, the last review's feedback, the topic tree, the local
documents, why a call failed) and the orchestrator's own `progress.md` summary."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from research.agents.base import AgentResult, FailureKind
from research.core.tiers import TierSource, tier_table
from research.model.artifacts import tree_order
from research.model.plan import Plan, Topic, TopicStatus
from research.model.state import SessionConfig, Verdict
from research.workspace.paths import SessionPaths

NO_SOURCE_CHECK = "(source checking is off for this session)"
NO_LOCAL_SOURCES = "none"
NO_REPORT_YET = "No report has been written yet."


def subtopic_rule(plan: Plan, topic: Topic) -> tuple[str, int]:
    """The sentence telling the agent which subtopics it may propose, and how many."""
    if topic.depth + 1 >= plan.depth:
        return ("Do not propose subtopics: this topic is at the deepest level of the plan.", 0)
    existing = [t for t in plan.children(topic.slug) if t.status is not TopicStatus.SKIPPED]
    room = max(0, plan.breadth - len(existing))
    if room == 0:
        return ("Do not propose more subtopics: this topic already has the maximum number.", 0)
    return (
        f"You may propose up to {room} subtopics of this topic at depth {topic.depth + 1}, "
        f"each with `- Parent: {topic.name}`; propose fewer (or none) if fewer are worth "
        "researching, and never one that repeats an existing topic.",
        room,
    )


def review_feedback_text(verdict: Verdict | None) -> str:
    if verdict is None:
        return "none"
    lines = [f"The previous review rejected this topic: {verdict.summary}"]
    lines += [f"- Gap: {gap}" for gap in verdict.gaps]
    if verdict.nextSearchTopic:
        lines.append(f"- Suggested search: {verdict.nextSearchTopic}")
    if verdict.urlToSearch:
        lines.append(f"- Suggested URL: {verdict.urlToSearch}")
    return "\n".join(lines)


def topic_tree_text(plan: Plan, paths: SessionPaths) -> str:
    """The plan as an indented list with statuses and progress files, for final-cycle prompts."""
    lines = []
    for topic in tree_order(plan):
        note = f" ({topic.note})" if topic.note else ""
        progress = paths.relative(paths.progress_file(topic.slug))
        lines.append(
            f"{'  ' * topic.depth}- [{topic.status.value}{note}] {topic.name} — {progress}"
        )
    return "\n".join(lines) if lines else "(the plan has no topics)"


def criteria_text(topic: Topic) -> str:
    return "\n".join(f"- {item}" for item in topic.criteria) or "- (none given)"


@dataclass(frozen=True)
class LocalDocuments:
    """The user's documents (--sources) a research prompt lists: how many there are, and
    the (location, title) of those that bear on the topic, best first."""

    total: int
    chosen: Sequence[tuple[str, str | None]]


def local_sources_text(documents: LocalDocuments | None) -> str:
    """RESEARCH's `local_sources`: the user's documents most relevant to the topic."""
    if documents is None or not documents.total:
        return NO_LOCAL_SOURCES
    lines = [
        f"The user gave {documents.total} local documents. Read the ones below that bear on "
        "this topic (with your file tools) before searching the web, and cite each as "
        "`file:<path>` exactly as written here, like a URL:"
    ]
    for location, title in documents.chosen:
        lines.append(f"- `{location}` ({title or location})")
    if len(documents.chosen) < documents.total:
        lines.append(
            f"({documents.total - len(documents.chosen)} other local documents seem unrelated "
            "to this topic.)"
        )
    return "\n".join(lines)


def describe_failure(result: AgentResult) -> str:
    """One line for a failed call, fed to the RECOVERY prompt."""
    kind = result.failure.value if result.failure else "failure"
    detail = result.error or (result.stderr.strip().splitlines() or [""])[-1]
    if result.failure is FailureKind.TIMEOUT:
        return "the agent call timed out"
    if result.exit_code not in (None, 0):
        said = f"the agent exited with code {result.exit_code}"
        if detail.strip() in ("", f"exited with code {result.exit_code}"):  # said once
            return said
        return f"{said}: {detail}"
    return f"the agent call failed ({kind}): {detail}".rstrip(": ")


def progress_index_text(existing: str | None, *, iteration: int, completed: int, total: int) -> str:
    """`progress.md` with a true `## Summary` (seed format); the agent's activity is kept."""
    summary = f"## Summary\n- Iteration: {iteration}\n- Topics Completed: {completed} of {total}\n"
    text = (existing or "").strip("\n")
    if re.search(r"^## Summary\s*$", text, re.MULTILINE):
        return (
            re.sub(
                r"^## Summary\s*$.*?(?=^## |\Z)",
                summary + "\n",
                text,
                count=1,
                flags=re.MULTILINE | re.DOTALL,
            ).rstrip("\n")
            + "\n"
        )
    body = re.sub(r"^# Research Progress\s*$", "", text, count=1, flags=re.MULTILINE).strip()
    if body and not re.search(r"^## Recent Activity\s*$", body, re.MULTILINE):
        body = "## Recent Activity\n" + body
    body = body or "## Recent Activity"
    return f"# Research Progress\n\n{summary}\n{body}\n"


def source_cap_text(max_sources: int | None) -> str:
    """The research prompt's limit on `## Sources`."""
    if max_sources is None:
        return "the ones that back the findings"
    return (
        f"at most {max_sources} sources (notes that list more are sent back, and after the "
        f"last try cut to the first {max_sources} the findings cite): keep the primary ones "
        "that back the findings"
    )


def complexity_instructions(config: SessionConfig) -> str:
    """INITIAL PLAN: the complexity line the plan's Metadata gets, and who decides it."""
    if config.tier is not None and config.tier_source is TierSource.USER:
        return (
            f"The user chose the `{config.tier.value}` tier: write "
            f"`- Complexity: {config.tier.value} — chosen by the user` in the Metadata."
        )
    return (
        "Classify the question and write the class with a one-line reason in the "
        "Metadata's `- Complexity:` line. The class sets the research's size:\n\n"
        f"{tier_table()}\n\n"
        "Choose `simple` for a lookup with one clear answer, `deep` for a question that needs "
        "many angles or a thorough comparison, `standard` otherwise. Create no more depth-0 "
        "topics than your class allows (and no more than the limit above)."
    )

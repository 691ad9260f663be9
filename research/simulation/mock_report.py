"""The simulated agent's report: built from the topics' progress notes, citing the source
registry's ids, and its revision (the main trade-off stated, marked revised)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from research.agents.base import AgentCall
from research.core.names import slugify
from research.model.plan import ParsedTopic, parse_plan

REVISED_MARK = (
    "The main trade-off across the simulated sources is between up-front cost and "
    "long-run efficiency."
)
"""The sentence a revision adds; the simulated final review looks for it (no hidden
comment: the report a reader gets has nothing of the simulation's own bookkeeping)."""


def simulated_report(call: AgentCall, cited_sources: Callable[[list[int]], list[int]]) -> str:
    """A report built from the progress files, citing the registry's ids (`cited_sources`
    chooses which of a topic's)."""
    ctx = call.context
    registry = _parse_registry(ctx.get("source_registry", ""))
    urls = _registry_urls(ctx.get("source_registry", ""))
    all_ids = sorted(registry)
    cited = set(all_ids[:1])
    sections: list[str] = []
    highlight = ""
    progress_dir = call.cwd / ctx["progress_dir"]
    for topic in _plan_topics(call.cwd / ctx["plan_file"]):
        notes_path = progress_dir / f"{slugify(topic.name)}.md"
        if not notes_path.exists():
            continue
        ids = cited_sources(_topic_ids(registry, topic.name))
        cited.update(ids)
        sentences = cite_findings(notes_findings(notes_path.read_text()), ids, urls)
        level = "##" if (topic.depth or 0) == 0 else "###"
        sections += ["", f"{level} {topic.name}", "", " ".join(sentences)]
        highlight = highlight or _first_cited(sentences)
    lines = [f"# {ctx['original_topic']}", "", _report_summary(highlight, all_ids, urls)]
    lines += sections + (_sources_section(urls, cited) if all_ids else [])
    return "\n".join(lines) + "\n"


def with_trade_off(text: str) -> str:
    """The report with the main trade-off stated before its first section, marked revised."""
    lines = text.splitlines()
    insert_at = next((i for i, line in enumerate(lines) if line.startswith("## ")), len(lines))
    lines[insert_at:insert_at] = [REVISED_MARK, ""]
    return "\n".join(lines) + "\n"


REVISION_VERDICT = (
    "# Revision (simulated)\n\nStated the main trade-off in the summary.\n\n```json\n"
    + json.dumps(
        {
            "verdict": "accepted",
            "summary": "Revised.",
            "gaps": [],
            "nextSearchTopic": None,
            "urlToSearch": None,
        }
    )
    + "\n```\n"
)
"""The reviser's verdict file."""


def _plan_topics(plan_path: Path) -> list[ParsedTopic]:
    """The plan's topics in report order; none if the plan cannot be read."""
    try:
        return _tree_order(parse_plan(plan_path.read_text(encoding="utf-8")).topics)
    except Exception:  # noqa: BLE001 - fall back to the progress files alone
        return []


_FINDING = re.compile(r"^- \[simulated\] (.+?) \(source: (\S+?)\)\.?$", re.MULTILINE)


def notes_findings(notes: str) -> list[tuple[str, str]]:
    """(finding, source URL) for each simulated finding in a topic's progress notes."""
    return _FINDING.findall(notes)


def cite_findings(
    findings: list[tuple[str, str]], ids: list[int], urls: dict[int, tuple[str, str]]
) -> list[str]:
    """A topic's findings as report sentences, citing the registry ids `ids`.

    Each finding cites its own source where the registry has it among `ids`; the topic's
    other sources go on its last sentence.
    """
    own = {url: i for i, (url, _) in urls.items() if i in ids}
    sentences, used = [], set()
    for text, url in findings:
        ident = own.get(url)
        used.add(ident)
        sentences.append(text.rstrip(".") + (f" [{ident}]." if ident else "."))
    rest = [i for i in ids if i not in used]
    if rest and sentences:
        sentences[-1] = sentences[-1][:-1] + f" [{', '.join(str(i) for i in rest)}]."
    return sentences


def _report_summary(highlight: str, all_ids: list[int], urls: dict[int, tuple[str, str]]) -> str:
    """The report's opening line: it leads with a cited finding or, with the notes gone
    (archived), a source."""
    line = (
        "[simulated] This report was written by the simulated agent of --mock-mode "
        "from simulated findings; it contains no real research."
    )
    if highlight:
        return f"{line} Among the simulated findings: {highlight}"
    if all_ids:
        return f"{line} The simulated sources include {urls[all_ids[0]][1]} [{all_ids[0]}]."
    return line


def _topic_ids(registry: dict[int, list[str]], name: str) -> list[int]:
    """The registry ids listed for the topic named `name`."""
    return [i for i, slugs in registry.items() if slugify(name) in slugs]


def _first_cited(sentences: list[str]) -> str:
    """The first sentence with a citation, or ""."""
    return next((s for s in sentences if "[" in s), "")


def _sources_section(urls: dict[int, tuple[str, str]], cited: set[int]) -> list[str]:
    """The report's Sources list: the cited registry entries, in id order."""
    entries = [f"[{i}] {title} — {url}" for i, (url, title) in sorted(urls.items()) if i in cited]
    return ["", "## Sources", "", *entries]


def _tree_order(topics: list[ParsedTopic]) -> list[ParsedTopic]:
    """Each topic followed by its subtopics, as the report's sections should be."""
    ordered: list[ParsedTopic] = []

    def visit(parent: str | None) -> None:
        for topic in topics:
            if topic.parent_name == parent and topic not in ordered:
                ordered.append(topic)
                visit(topic.name)

    visit(None)
    return ordered + [t for t in topics if t not in ordered]


REGISTRY_LINE = re.compile(r"^\[(\d+)\]\s+(.*?)\s+—\s+(\S+)(?:\s+\(topics:\s*(.*?)\))?\s*$")


def _parse_registry(text: str) -> dict[int, list[str]]:
    found = {}
    for line in text.splitlines():
        match = REGISTRY_LINE.match(line.strip())
        if match:
            found[int(match.group(1))] = [s.strip() for s in (match.group(4) or "").split(",")]
    return found


def _registry_urls(text: str) -> dict[int, tuple[str, str]]:
    found = {}
    for line in text.splitlines():
        match = REGISTRY_LINE.match(line.strip())
        if match:
            found[int(match.group(1))] = (match.group(3), match.group(2))
    return found

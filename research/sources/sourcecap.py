"""The source cap's last resort: notes that still list more sources than the cap after
their last try keep the first N sources their findings cite, and say what was dropped.

The research is never lost to the cap: findings that cite a kept source stay (a dropped
source's link in them goes), findings that rest only on dropped sources go, and the notes
end with a section naming the dropped sources (in a code block, so nothing counts them
as sources again).
"""

from __future__ import annotations

from dataclasses import dataclass

from research.sources.registry import extract_sources, url_lines, without_urls

DROPPED_HEADING = "## Sources dropped by the orchestrator"


@dataclass(frozen=True)
class Trimmed:
    """Notes within the cap, and what was kept and dropped."""

    text: str
    kept: list[str]
    """The kept sources' URLs, in the order the notes list them."""
    dropped: list[str]
    """The dropped sources' URLs, in the order the notes list them."""
    findings_dropped: int
    """Lines of the findings that rested only on dropped sources."""


def keep_cited_sources(notes: str, cap: int) -> Trimmed:
    """The notes with at most `cap` sources: the first the findings cite, in the order they
    cite them, then (if room is left) the first listed ones no finding cites."""
    listed = [ref.url for ref in extract_sources(notes)]
    if len(listed) <= cap:
        return Trimmed(notes, listed, [], 0)
    lines = url_lines(notes)
    cited: list[str] = []
    for line in lines:
        if line.findings:
            cited += [url for url in line.urls if url not in cited]
    order = cited + [url for url in listed if url not in cited]
    kept = set(order[:cap])
    dropped = {url for url in listed if url not in kept}
    out: list[str] = []
    findings_dropped = 0
    for line in lines:
        gone = dropped.intersection(line.urls)
        if not gone:
            out.append(line.text)
        elif kept.intersection(line.urls):
            out.append(without_urls(line.text, gone))
        elif line.findings:
            findings_dropped += 1
    text = "".join(out)
    names = [url for url in listed if url in dropped]
    text = text.rstrip("\n") + "\n\n" + _dropped_section(names, len(listed), cap)
    return Trimmed(text, [url for url in listed if url in kept], names, findings_dropped)


def _dropped_section(dropped: list[str], listed: int, cap: int) -> str:
    return (
        f"{DROPPED_HEADING}\n\n"
        f"The notes listed {listed} sources, more than the cap of {cap}. The orchestrator "
        f"kept the first {cap} the findings cite and dropped these, with the findings that "
        "cited only them:\n\n```text\n" + "\n".join(dropped) + "\n```\n"
    )

"""What the reader is told about the source check, written in one place: the notice that
the web could not be reached, the mark after a flagged sentence's citations, and what each
Sources entry says about its page's snapshot."""

from __future__ import annotations

import re
from collections.abc import Iterable

from research.sources.claims import claim_key, rewrite_report_citations
from research.sources.registry import Source, SourceRegistry, rewrite_source_entries
from research.sources.verification import CitedClaim, flagged_keys

UNREACHED_NOTICE = (
    "this machine could not reach the web (names do not resolve, the network is "
    "unreachable or the proxy refuses), so the cited sources were not checked; run with "
    "--no-verify-sources where there is no web access"
)
"""Said once on the terminal and in the events, and in the Methodology."""

FLAG_MARK = "\u2020"
"""Written right after each citation of a sentence its pages do not support: `[2]\u2020`."""


def mark_flagged(report: str, claims: Iterable[CitedClaim]) -> str:
    """The report with FLAG_MARK after each citation of every flagged sentence."""
    flagged = flagged_keys(claims)
    if not flagged:
        return report

    def mark(owner: str, group: str, _: list[int]) -> str:
        return group + FLAG_MARK if claim_key(owner) in flagged else group

    return rewrite_report_citations(report, mark)


_SNAPSHOT_MARK = re.compile(r"\s+\((?:snapshot kept|no snapshot: [^()]*)\)\s*$")


def snapshot_mark(source: Source) -> str:
    """What a Sources entry says about the page's snapshot ('' when sources were not
    checked)."""
    if source.fetch is None:
        return ""
    if source.fetch.snapshot:
        return "(snapshot kept)"
    return f"(no snapshot: {source.fetch.status.value.replace('_', ' ')})"


def mark_snapshots(markdown: str, registry: SourceRegistry) -> str:
    """Say on each entry of the Sources section whether a snapshot of its page was kept
    (the snapshots outlive link rot). Marking again replaces the earlier mark."""

    def mark(text: str, source: Source) -> str:
        found = snapshot_mark(source)
        text = _SNAPSHOT_MARK.sub("", text)
        return f"{text.rstrip()} {found}" if found else text

    return rewrite_source_entries(markdown, registry, mark)

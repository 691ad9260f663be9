"""The claims of notes and reports: which sentences, rows and findings cite what, and
rewriting a report's citation groups in place (pure: standard library only)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from research.sources.figures import claim_numbers, claim_text, without_references
from research.sources.linemarks import LIST_MARK
from research.sources.registry import (
    _CITATION,
    _FENCE,
    _HEADING,
    _MD_LINK,
    _THEMATIC_BREAK,
    _citations_in,
    _closes,
    _find_urls,
    _heading_title,
    normalize_url,
)
from research.sources.rowlines import pipe_cells
from research.sources.words import split_sentences, stems_of


@dataclass(frozen=True)
class Claim:
    """A statement to check and what it cites."""

    text: str
    sources: tuple[str, ...]
    """Findings: normalised URLs or file:<path>; report sentences: citation ids ("3", "5")."""


_LIST_ITEM = re.compile(rf"^\s*{LIST_MARK}\s+")  # a bullet too, unlike the registry's
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_SOURCE_WRAPPER = re.compile(
    r"[(\[]\s*(?:sources?|refs?|references?|via|see)\s*:[^()\[\]]*(?:\([^()]*\)[^()\[\]]*)*[)\]]",
    re.IGNORECASE,
)
_SOURCE_LABEL = re.compile(r"[\s\u2013\u2014:;,-]*\b(?:sources?|refs?|via)\s*:[\s,;]*$", re.I)
_DANGLING = re.compile(r"[\s,;]+(?:and|or|per|via|see|at|from)$", re.IGNORECASE)
_EMPTY_BRACKETS = re.compile(r"\(\s*[,;]*\s*\)|\[\s*[,;]*\s*\]|<\s*>")
_EMPHASIS = re.compile(r"\*\*|__|`")
_LINK_WORDS = frozenset({"source", "link", "here", "pdf", "url", "website", "page"})

NON_FINDINGS_PREFIXES: tuple[str, ...] = (
    "sources", "references", "bibliography", "knowledge gaps", "gaps", "queries",
    "search queries", "proposed subtopics", "notes for subtopics", "subtopics",
    "open questions", "next steps", "methodology",
)  # fmt: skip
"""Sections of a progress file whose lines are not findings (title prefixes, lowercase)."""
REPORT_SKIPPED_PREFIXES: tuple[str, ...] = (
    "sources", "references", "bibliography", "methodology", "contents", "table of contents",
)  # fmt: skip
"""Sections of a report whose sentences are not checked."""


def _title(raw: str) -> str:
    return re.sub(r"\s+", " ", _heading_title(raw))


def _units(markdown: str, skipped: tuple[str, ...]) -> Iterator[tuple[str, bool]]:
    """(text, is_table_row) of each paragraph, list item and table row outside `skipped`
    sections, code fences, headings and HTML comments."""
    lines = markdown.splitlines()
    for indices, is_row in unit_lines(lines, skipped):
        yield _unit_text(lines, indices), is_row


def _unit_text(lines: Sequence[str], indices: Sequence[int]) -> str:
    return " ".join(_line_text(lines[index]) for index in indices)


def _line_text(line: str) -> str:
    stripped = line.strip()
    return stripped.lstrip("> ").strip() if stripped.startswith(">") else stripped


class _Sections:
    """The heading stack while reading Markdown: is the current line in a skipped section?"""

    def __init__(self, skipped: tuple[str, ...]) -> None:
        self.skipped = skipped
        self.stack: list[tuple[int, bool]] = []

    def enter(self, heading: re.Match[str]) -> None:
        level = len(heading.group(1))
        while self.stack and self.stack[-1][0] >= level:
            self.stack.pop()
        title = _title(heading.group(2) or "")
        self.stack.append((level, title.startswith(self.skipped)))

    @property
    def skipping(self) -> bool:
        return any(skip for _, skip in self.stack)


def unit_lines(lines: Sequence[str], skipped: tuple[str, ...]) -> Iterator[tuple[list[int], bool]]:
    """(line indices, is_table_row) of each paragraph, list item and table row outside
    `skipped` sections, code fences, headings and HTML comments."""
    fence: str | None = None
    sections = _Sections(skipped)
    unit: list[int] = []

    def flush() -> Iterator[tuple[list[int], bool]]:
        if unit:
            yield list(unit), False
            unit.clear()

    for index, line in enumerate(lines):
        fence_match = _FENCE.match(line)
        if fence is not None:
            if _closes(fence_match, fence):
                fence = None
            continue
        if fence_match and not (fence_match.group(1)[0] == "`" and "`" in fence_match.group(2)):
            yield from flush()
            fence = fence_match.group(1)
            continue
        heading = _HEADING.match(line)
        if heading or sections.skipping:
            if heading:
                yield from flush()
                sections.enter(heading)
            continue
        stripped = line.strip()
        if not stripped or _THEMATIC_BREAK.match(stripped) or stripped.startswith("<!--"):
            yield from flush()
            continue
        if stripped.startswith("|"):
            yield from flush()
            if not _TABLE_SEPARATOR.match(stripped):
                yield [index], True
            continue
        if _LIST_ITEM.match(line):
            yield from flush()
        unit.append(index)
    yield from flush()


def _locations(text: str) -> list[str]:
    """Normalised http(s) URLs and file:<path> references of `text`, in order, deduplicated
    (as the registry reads them: `extract_sources`)."""
    found: dict[str, None] = {}
    for _, raw, _ in _find_urls(text):
        if raw.startswith("file:"):
            if raw != "file:":
                found[raw] = None
        elif urlsplit(url := normalize_url(raw)).netloc:
            found[url] = None
    return list(found)


def _link_text(match: re.Match[str]) -> str:
    label = match.group(2).strip()
    if match.group(1) or not label or "://" in label or label.lower() in _LINK_WORDS:
        return " "
    return label


def _tidy(text: str) -> str:
    text = _EMPTY_BRACKETS.sub(" ", text)
    text = _EMPHASIS.sub("", text)
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s+([.,;:!?])", r"\1", text)
    return text.strip(" \t-\u2013\u2014:;,|")


def _finding_text(unit: str) -> str:
    text = _LIST_ITEM.sub("", unit, count=1)
    text = _MD_LINK.sub(_link_text, text)
    text = _SOURCE_WRAPPER.sub(" ", text)
    text = re.sub(r"<(?:https?://|file:)[^<>\s]*>", " ", text)
    text = _tidy(without_references(text))
    text = _SOURCE_LABEL.sub("", text)
    return _tidy(_DANGLING.sub("", _tidy(text)))


def _uncite(text: str) -> str:
    """`text` without citation markers, nor the source check's marks after them ("[2]\u2020")."""
    return _AFTER_CITATION_MARK.sub(" ", _CITATION.sub(" ", text))


_AFTER_CITATION_MARK = re.compile(r"(?<= )\u2020+")


def _row_text(row: str) -> str:
    cells = [_tidy(_uncite(cell)) for cell in pipe_cells(row)]
    return "; ".join(cell for cell in cells if cell)


def finding_claims(progress_markdown: str) -> list[Claim]:
    """Each finding of a progress file that cites a URL or file:<path>, with its sources.

    A finding is a list item, paragraph or table row outside fenced code and outside the
    sections named by NON_FINDINGS_PREFIXES (Sources, Knowledge Gaps, Queries Tried,
    Proposed Subtopics, ...). Its text loses the URLs, "(Source: ...)" wrappers, link
    targets (link text stays) and list markers; findings left with nothing to check are
    dropped.
    """
    claims: list[Claim] = []
    for unit, is_row in _units(progress_markdown, NON_FINDINGS_PREFIXES):
        sources = _locations(unit)
        if not sources:
            continue
        text = _row_text(_finding_text(unit)) if is_row else _finding_text(unit)
        if stems_of(text) or claim_numbers(text):
            claims.append(Claim(text=text, sources=tuple(sources)))
    return claims


def _cited(text: str) -> list[str]:
    ids: dict[str, None] = {}
    for _, group in _citations_in(text):
        ids.update(dict.fromkeys(str(i) for i in group))
    return list(ids)


def report_claims(report_markdown: str) -> list[Claim]:
    """Each sentence of a report that cites [n], and each table row with a citation.

    Citation groups follow the registry ([3], [1, 3], [2-4]); the claim's sources are the
    ids as strings, in order. Headings, fenced code, and the Sources/References/
    Bibliography, Methodology and Contents sections are skipped; a table row's cells are
    joined with "; ".
    """
    claims: list[Claim] = []
    for unit, is_row in _units(report_markdown, REPORT_SKIPPED_PREFIXES):
        if is_row:
            ids = _cited(unit)
            text = _row_text(unit)
            if ids and text:
                claims.append(Claim(text=text, sources=tuple(ids)))
            continue
        body = _LIST_ITEM.sub("", unit, count=1)
        for sentence in split_sentences(body):
            ids = _cited(sentence)
            if not ids:
                continue
            text = _sentence_claim(sentence)
            if text:
                claims.append(Claim(text=text, sources=tuple(ids)))
    return claims


def _sentence_claim(sentence: str) -> str:
    return _tidy(_MD_LINK.sub(_link_text, _uncite(sentence)))


def claim_key(text: str) -> str:
    """How a checked claim names itself (`ClaimCheck.claim`) for a claim's text."""
    return claim_text(text)


CitationRewrite = Callable[[str, str, list[int]], str]
"""(claim key of the sentence, the citation group as written, its ids) -> replacement."""


def rewrite_report_citations(markdown: str, rewrite: CitationRewrite) -> str:
    """`markdown` with each citation group of the sentences and table rows `report_claims`
    reads replaced by `rewrite(...)`; every other character is kept as it was."""
    lines = markdown.splitlines(keepends=True)
    bare = [line.rstrip("\r\n") for line in lines]
    for indices, is_row in unit_lines(bare, REPORT_SKIPPED_PREFIXES):
        owners = _group_owners(_unit_text(bare, indices), is_row)
        ordinal = 0
        for index in indices:
            text = bare[index]
            out: list[str] = []
            pos = 0
            for match, ids in _citations_in(text):
                owner = owners.get(ordinal)
                ordinal += 1
                if owner is None:
                    continue
                out += [text[pos : match.start()], rewrite(owner, match.group(0), ids)]
                pos = match.end()
            lines[index] = "".join(out) + text[pos:] + lines[index][len(text) :]
    return "".join(lines)


def _group_owners(unit: str, is_row: bool) -> dict[int, str]:
    """Ordinal of each citation group of a unit -> the claim key of its sentence or row."""
    if is_row:
        sentences = [(unit, _row_text(unit))]
    else:
        body = _LIST_ITEM.sub("", unit, count=1)
        sentences = [(s, _sentence_claim(s)) for s in split_sentences(body)]
    owners: dict[int, str] = {}
    ordinal = 0
    for sentence, text in sentences:
        for _ in _citations_in(sentence):
            if text:
                owners[ordinal] = claim_key(text)
            ordinal += 1
    return owners

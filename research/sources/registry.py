"""The numbered source registry built from progress files, and the report's citation audit.

Pure functions over strings: the loop reads the files and writes the results.

Markdown is read line by line with a few deliberate simplifications: fenced code blocks
(``` or ~~~) and single-line inline code spans are code; headings are ATX (`#` ...) only;
indented code blocks are not recognised (they collide with nested list items).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field

from research.sources.records import SourceRecord

TRACKING_PREFIXES: tuple[str, ...] = ("utm_", "pk_", "mtm_", "hsa_")
TRACKING_NAMES: frozenset[str] = frozenset(
    {
        "fbclid", "gclid", "gclsrc", "dclid", "gbraid", "wbraid", "msclkid", "yclid",
        "twclid", "ttclid", "li_fat_id", "mc_cid", "mc_eid", "_ga", "_gl", "_hsenc",
        "_hsmi", "mkt_tok", "igshid", "spm", "ref", "ref_src", "ref_url", "vero_id",
        "oly_anon_id", "oly_enc_id", "rb_clickid", "s_cid", "wt.mc_id",
    }
)  # fmt: skip

SOURCES_TITLES: frozenset[str] = frozenset({"sources", "references", "bibliography"})
# Sections whose paragraphs are not findings, so they need no citations.
NON_FINDINGS_TITLES: frozenset[str] = SOURCES_TITLES | {
    "methodology",
    "summary",
    "executive summary",
    "conclusion",
    "conclusions",
    "contents",
    "table of contents",
}
# Sections that say what the research could not establish: not claims, so no citations.
NON_CLAIM_PREFIXES: tuple[str, ...] = ("limitation", "knowledge gap", "gaps", "caveat")
MAX_RANGE = 50
# A bracketed number in this range that is not a registry id is most likely a year
# ("in [2020]"): the final enforcement unbrackets it instead of deleting it.
YEAR_LIKE = range(1500, 2101)

_DEFAULT_PORTS = {"http": 80, "https": 443}
_TRAILING_PROSE = ".,;:!?'\"*"
_CLOSERS = {")": "(", "]": "["}

_URL_BODY = r"(?:[^\s<>\"'`()\[\]]|\([^\s<>\"'`()]*\))+"
_BARE_URL = re.compile(r"https?://" + _URL_BODY, re.IGNORECASE)
_MD_LINK = re.compile(
    r"(!?)\[([^\]]*)\]\(\s*<?(https?://" + _URL_BODY + r")>?(?:\s+\"[^\"]*\")?\s*\)",
    re.IGNORECASE,
)
# A local document cited as file:<path> (--sources); file:<path with spaces> in brackets.
_FILE_REF = re.compile(r"(?<![\w/.-])file:(?:<([^<>\n]+)>|([^\s<>\"'`()\[\],;]+))")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_HEADING_DECOR = re.compile(r"^(?:\d+(?:\.\d+)*\.?\s+)?[*_]*\s*(.*?)\s*[*_]*:?$")
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_SOURCE_PREFIX = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:\d+[.)]\s+)?(?:\[\d+\]:?\s*)?(?:source\s*\d*\s*[:.-]\s*)?",
    re.IGNORECASE,
)
_TITLE_JUNK = " \t-\u2013\u2014:|,;(<\"'*_"
_LISTED_ID = re.compile(r"^\s*(?:[-*+]\s+)?\[(\d+)\]|^\s*(\d+)\.\s")
_THEMATIC_BREAK = re.compile(r"^\s*([-*_])(?:\s*\1){2,}\s*$")

_ID = r"\d{1,6}"
_ITEM = rf"\s*{_ID}\s*(?:[-\u2013\u2014]\s*{_ID}\s*)?"
# A citation group: not escaped, not an image, not followed by "(" (a link's target).
_CITATION = re.compile(rf"(?<![\\!])\[(?P<body>{_ITEM}(?:[,;]{_ITEM})*)\](?!\()")
_RANGE_SPLIT = re.compile(r"[-\u2013\u2014]")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class SourceRef(_Model):
    """One source as found in a progress file."""

    url: str
    """The normalised URL (see `normalize_url`)."""
    title: str = ""
    """Best-effort title; empty when the file gave none."""


class Source(_Model):
    """One entry of the session's source registry."""

    id: int
    """The citation number, 1..n in first-seen order."""
    url: str
    """The normalised URL."""
    title: str = ""
    topics: list[str] = Field(default_factory=list)
    """Slugs of the topics whose progress files recorded this source, in plan order."""
    fetch: SourceRecord | None = None
    """What fetching (or reading) it gave; None when sources were not checked."""


class SourceRegistry(_Model):
    """Every source recorded by the progress files, numbered for citation."""

    sources: list[Source] = Field(default_factory=list)

    def get(self, id: int) -> Source | None:
        """The source numbered `id`, or None."""
        return next((s for s in self.sources if s.id == id), None)

    def ids(self) -> set[int]:
        """All registered ids."""
        return {s.id for s in self.sources}


# --- URLs ---------------------------------------------------------------------------------


def _trim_url(url: str) -> str:
    """Strip <>, and the trailing punctuation or unbalanced brackets that prose adds."""
    url = url.strip().lstrip("<([\"'")
    while url:
        last = url[-1]
        if last in _TRAILING_PROSE or last == ">":
            url = url[:-1]
        elif last in _CLOSERS and url.count(last) > url.count(_CLOSERS[last]):
            url = url[:-1]
        else:
            break
    return url


def _is_tracking(param: str) -> bool:
    name = unquote(param.split("=", 1)[0]).lower()
    return name in TRACKING_NAMES or name.startswith(TRACKING_PREFIXES)


def normalize_url(url: str) -> str:
    """A canonical form of `url` for deduplication.

    Lower-cases scheme and host, drops the default port, the fragment, tracking parameters
    (other parameters keep their order and encoding) and a trailing slash of the path, and
    strips <> and trailing prose punctuation. Idempotent. Text that is not an absolute URL
    is returned trimmed.
    """
    url = _trim_url(url)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return url
    scheme = parts.scheme.lower()
    if not scheme or not parts.netloc:
        return url
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    userinfo = parts.netloc.rpartition("@")[0]
    netloc = f"{userinfo}@{host}" if userinfo else host
    if port is not None and port != _DEFAULT_PORTS.get(scheme):
        netloc += f":{port}"
    query = "&".join(p for p in parts.query.split("&") if p and not _is_tracking(p))
    return urlunsplit((scheme, netloc, parts.path.rstrip("/"), query, ""))


# --- Markdown scanning --------------------------------------------------------------------


@dataclass(frozen=True)
class _Line:
    text: str
    """The line without its line ending."""
    end: str
    code: bool
    """Inside (or delimiting) a fenced code block."""
    heading: int
    """ATX heading level, 0 if not a heading."""
    in_sources: bool
    """The heading of, or a line inside, a Sources/References/Bibliography section."""
    findings: bool
    """Under a level-2+ heading and outside every non-findings section."""


def _heading_title(raw: str) -> str:
    match = _HEADING_DECOR.match(raw.strip())
    return (match.group(1) if match else raw).strip().lower()


def _scan(markdown: str) -> list[_Line]:
    """Classify every line: code, heading, Sources section, findings section."""
    lines: list[_Line] = []
    fence: str | None = None
    stack: list[tuple[int, str]] = []
    for raw in markdown.splitlines(keepends=True):
        text = raw.rstrip("\r\n")
        end = raw[len(text) :]
        fence_match = _FENCE.match(text)
        if fence is not None:
            if _closes(fence_match, fence):
                fence = None
            lines.append(_line(text, end, stack, code=True))
            continue
        if fence_match and not (fence_match.group(1)[0] == "`" and "`" in fence_match.group(2)):
            fence = fence_match.group(1)
            lines.append(_line(text, end, stack, code=True))
            continue
        heading = _HEADING.match(text)
        level = 0
        if heading:
            level = len(heading.group(1))
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, _heading_title(heading.group(2) or "")))
        lines.append(_line(text, end, stack, heading=level))
    return lines


def _closes(match: re.Match[str] | None, fence: str) -> bool:
    """Whether a fence line closes the open `fence` (same character, at least as long)."""
    if match is None or match.group(2).strip():
        return False
    marker = match.group(1)
    return marker[0] == fence[0] and len(marker) >= len(fence)


def _line(
    text: str, end: str, stack: list[tuple[int, str]], *, code: bool = False, heading: int = 0
) -> _Line:
    titles = {title for _, title in stack}
    return _Line(
        text=text,
        end=end,
        code=code,
        heading=heading,
        in_sources=bool(titles & SOURCES_TITLES),
        findings=any(level >= 2 for level, _ in stack)
        and not titles & NON_FINDINGS_TITLES
        and not any(title.startswith(NON_CLAIM_PREFIXES) for title in titles),
    )


def _prose_segments(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) spans of `text` outside inline code spans."""
    pos = 0
    for match in _CODE_SPAN.finditer(text):
        yield pos, match.start()
        pos = match.end()
    yield pos, len(text)


def _find_urls(text: str) -> list[tuple[int, str, str]]:
    """(position, raw url, link text) of every markdown link and bare URL, in order."""
    found: list[tuple[int, str, str]] = []
    masked = list(text)
    for match in _MD_LINK.finditer(text):
        masked[match.start() : match.end()] = " " * (match.end() - match.start())
        if not match.group(1):
            found.append((match.start(), match.group(3), match.group(2).strip()))
    masked_text = "".join(masked)
    for match in _BARE_URL.finditer(masked_text):
        found.append((match.start(), match.group(0), ""))
    for match in _FILE_REF.finditer(masked_text):
        found.append((match.start(), file_location(match.group(1) or match.group(2)), ""))
    return sorted(found)


def file_location(path: str) -> str:
    """A local document's citation form: `file:<path>`, without trailing prose punctuation."""
    return "file:" + path.strip().rstrip(_TRAILING_PROSE)


# --- Progress files and the registry ------------------------------------------------------


def _clean_title(text: str) -> str:
    text = re.sub(r"\s+", " ", re.sub(r"[*`]+", "", text)).strip(_TITLE_JUNK).rstrip(".")
    return text.removeprefix("[").removesuffix("]").strip(_TITLE_JUNK)


def _item_title(line: str, position: int, raw_url: str) -> str:
    """The title around a bare URL in a Sources item: the text before it, else after it."""
    before = _SOURCE_PREFIX.sub("", line[:position], count=1)
    title = _clean_title(before)
    if not title:
        title = _clean_title(line[position + len(raw_url) :].lstrip(").>"))
    return title


def extract_sources(progress_markdown: str) -> list[SourceRef]:
    """Every http(s) source and local document (`file:<path>`) of a progress file,
    deduplicated by normalised URL, in order.

    Titles come from markdown link text, or from the text around a URL in the Sources
    section ("Source 1: Title — url", "Title (url)", "url — Title"); URLs elsewhere in
    the file (findings) get a title only from link text. URLs in fenced code are ignored.
    """
    refs: dict[str, SourceRef] = {}
    for line in _scan(progress_markdown):
        if line.code or line.heading:
            continue
        items = _find_urls(line.text)
        for index, (position, raw_url, link_text) in enumerate(items):
            url = raw_url if raw_url.startswith("file:") else normalize_url(raw_url)
            if url == "file:" or not (url.startswith("file:") or urlsplit(url).netloc):
                continue
            title = link_text
            if not title and line.in_sources and index == 0:
                title = _item_title(line.text, position, raw_url)
            ref = refs.get(url)
            if ref is None:
                refs[url] = SourceRef(url=url, title=title)
            elif not ref.title and title:
                ref.title = title
    return list(refs.values())


@dataclass(frozen=True)
class UrlLine:
    """One line of a progress file with the sources it names (normalised, in order)."""

    text: str
    """The line with its line ending."""
    urls: tuple[str, ...]
    findings: bool
    """A line of the findings (not a heading, code, or a Sources or other non-findings
    section)."""


def url_lines(progress_markdown: str) -> list[UrlLine]:
    """Every line of a progress file with the sources `extract_sources` would take from it
    (none from code or headings)."""
    lines = []
    for line in _scan(progress_markdown):
        urls: list[str] = []
        if not (line.code or line.heading):
            for _, raw_url, _ in _find_urls(line.text):
                url = raw_url if raw_url.startswith("file:") else normalize_url(raw_url)
                if url != "file:" and (url.startswith("file:") or urlsplit(url).netloc):
                    urls.append(url)
        findings = line.findings and not line.in_sources and not line.code and not line.heading
        lines.append(UrlLine(line.text + line.end, tuple(urls), findings))
    return lines


def without_urls(text: str, urls: set[str]) -> str:
    """`text` with its links to `urls` reduced to their link text and bare `urls` removed."""

    def link(match: re.Match[str]) -> str:
        return match.group(2) if normalize_url(match.group(3)) in urls else match.group(0)

    def bare(match: re.Match[str]) -> str:
        return "" if normalize_url(match.group(0)) in urls else match.group(0)

    return _BARE_URL.sub(bare, _MD_LINK.sub(link, text))


def build_registry(progress_by_topic: Sequence[tuple[str, str]]) -> SourceRegistry:
    """Number the sources of (topic slug, progress markdown) pairs, given in plan order."""
    by_url: dict[str, Source] = {}
    for slug, markdown in progress_by_topic:
        for ref in extract_sources(markdown):
            source = by_url.get(ref.url)
            if source is None:
                by_url[ref.url] = Source(
                    id=len(by_url) + 1, url=ref.url, title=ref.title, topics=[slug]
                )
                continue
            if slug not in source.topics:
                source.topics.append(slug)
            if not source.title and ref.title:
                source.title = ref.title
    return SourceRegistry(sources=list(by_url.values()))


def _entry(source: Source) -> str:
    title = source.title.replace("\n", " ").strip()
    return f"[{source.id}] {title} \u2014 {source.url}" if title else f"[{source.id}] {source.url}"


def format_registry(registry: SourceRegistry) -> str:
    """The registry for the SYNTHESIZE prompt, one source a line."""
    if not registry.sources:
        return "(no sources were recorded)"
    return "\n".join(
        f"{_entry(source)} (topics: {', '.join(source.topics)})" for source in registry.sources
    )


# --- Citations ----------------------------------------------------------------------------


def _group_ids(body: str) -> list[int] | None:
    """The ids of a citation group's body, or None if it is not a citation."""
    ids: list[int] = []
    for item in re.split(r"[,;]", body):
        bounds = [int(part) for part in _RANGE_SPLIT.split(item)]
        if len(bounds) == 1:
            ids.append(bounds[0])
            continue
        low, high = bounds
        if high < low or high - low + 1 > MAX_RANGE:
            return None
        ids.extend(range(low, high + 1))
    return ids


def _is_definition(text: str, match: re.Match[str]) -> bool:
    """A reference-style link definition: `[1]: https://...` at the start of a line."""
    before = text[: match.start()]
    return text[match.end() : match.end() + 1] == ":" and len(before) <= 3 and not before.strip()


def _citations_in(text: str) -> Iterator[tuple[re.Match[str], list[int]]]:
    for start, end in _prose_segments(text):
        for match in _CITATION.finditer(text, start, end):
            ids = _group_ids(match.group("body"))
            if ids is not None and not _is_definition(text, match):
                yield match, ids


def parse_citations(markdown: str) -> list[int]:
    """Every cited id in order of first appearance, outside code and the Sources section.

    Citation forms: [3], [1, 4], [1,4], [2-5] / [2–5] (ranges expand), [2][3]. Links,
    images, link definitions `[1]: url`, footnotes `[^1]`, escaped brackets and ranges
    that are reversed or span more than MAX_RANGE ids are not citations.
    """
    seen: dict[int, None] = {}
    for line in _scan(markdown):
        if line.code or line.in_sources:
            continue
        for _, ids in _citations_in(line.text):
            seen.update(dict.fromkeys(ids))
    return list(seen)


def _listed_id(line: _Line) -> int | None:
    """The id a line of the Sources section lists ("[3] ...", "- [3] ...", "3. ..."), if any."""
    if not line.in_sources or line.code or line.heading:
        return None
    match = _LISTED_ID.match(line.text)
    return None if match is None else int(match.group(1) or match.group(2))


def _sources_listing(lines: list[_Line]) -> dict[int, str | None]:
    """Ids listed in the Sources section(s), each with the first URL on its line."""
    listed: dict[int, str | None] = {}
    for line in lines:
        id_ = _listed_id(line)
        if id_ is None:
            continue
        urls = _find_urls(line.text)
        listed.setdefault(id_, normalize_url(urls[0][1]) if urls else None)
    return listed


def _has_prose(text: str) -> bool:
    return any(ch.isalpha() for ch in text)


def _uncited_paragraphs(lines: list[_Line]) -> int:
    """Count findings paragraphs and list items that cite nothing.

    A unit is a run of non-blank lines, split at every list item; it counts when it lies
    under a level-2+ heading outside the non-findings sections (NON_FINDINGS_TITLES), is
    not code, a heading, a table, an HTML comment or a thematic break, has letters in it,
    does not end with ":" (a lead-in to a list), and contains no citation.
    """
    count = 0
    unit: list[str] = []

    def close() -> None:
        nonlocal count
        text = " ".join(unit).strip()
        unit.clear()
        if not text or not _has_prose(text) or text.endswith(":"):
            return
        if text.startswith(("|", "<!--")):
            return
        if not any(True for _ in _citations_in(text)):
            count += 1

    for line in lines:
        stripped = line.text.strip()
        if (
            line.code
            or line.heading
            or not line.findings
            or not stripped
            or _THEMATIC_BREAK.match(stripped)
        ):
            close()
            continue
        if _LIST_ITEM.match(line.text):
            close()
        unit.append(stripped)
    close()
    return count


class CitationAudit(_Model):
    """What the orchestrator found when checking a report's citations against the registry."""

    cited: list[int]
    """Every cited id, in order of first appearance."""
    unknown: list[int]
    """Cited ids that are not in the registry."""
    never_cited: list[int]
    """Registered ids the report does not cite."""
    sources_section_present: bool
    sources_listed: list[int]
    """Ids listed in the Sources section (lines starting "[n]", "- [n]" or "n.")."""
    sources_missing_from_section: list[int]
    """Cited, registered ids the Sources section does not list."""
    sources_extra_in_section: list[int]
    """Listed ids that are not cited, or not registered."""
    sources_wrong_url: list[int]
    """Listed, cited, registered ids whose URL is missing or differs from the registry's."""
    uncited_paragraphs: int
    """Findings paragraphs with no citation (see `_uncited_paragraphs`)."""

    @property
    def ok(self) -> bool:
        """No unknown ids, and the Sources section lists exactly the cited ids, correctly."""
        return not (
            self.unknown
            or not self.sources_section_present
            or self.sources_missing_from_section
            or self.sources_extra_in_section
            or self.sources_wrong_url
        )

    @property
    def defects(self) -> list[str]:
        """Human-readable problems for the FINAL REVIEW prompt; empty when clean.

        Uncited paragraphs are reported here but do not affect `ok`, which covers only
        what the orchestrator can check exactly.
        """
        out: list[str] = []
        if self.unknown:
            out.append(
                f"Cites {_ids(self.unknown)}, which are not in the source registry: remove "
                "these citations or replace them with registered sources (a year or other "
                "number in square brackets counts as a citation: write it without brackets)."
            )
        if not self.sources_section_present:
            out.append("Has no Sources section.")
        if self.sources_missing_from_section:
            missing = _ids(self.sources_missing_from_section)
            out.append(f"The Sources section does not list cited {missing}.")
        if self.sources_extra_in_section:
            out.append(
                f"The Sources section lists {_ids(self.sources_extra_in_section)}, which the "
                "report does not cite or which are not registered."
            )
        if self.sources_wrong_url:
            out.append(
                f"The Sources section gives a missing or wrong URL for "
                f"{_ids(self.sources_wrong_url)}; use the registry's URLs."
            )
        if self.uncited_paragraphs:
            out.append(
                f"{self.uncited_paragraphs} findings paragraph(s) or list item(s) cite no source."
            )
        return out


def _ids(ids: Iterable[int]) -> str:
    return ", ".join(f"[{i}]" for i in ids)


def audit_report(markdown: str, registry: SourceRegistry) -> CitationAudit:
    """Check a report's citations and Sources section against the registry."""
    lines = _scan(markdown)
    cited = parse_citations(markdown)
    known = {s.id: s.url for s in registry.sources}
    cited_set = set(cited)
    listed = _sources_listing(lines)
    return CitationAudit(
        cited=cited,
        unknown=[i for i in cited if i not in known],
        never_cited=sorted(set(known) - cited_set),
        sources_section_present=any(line.heading and line.in_sources for line in lines),
        sources_listed=list(listed),
        sources_missing_from_section=[i for i in cited if i in known and i not in listed],
        sources_extra_in_section=[i for i in listed if i not in cited_set or i not in known],
        sources_wrong_url=[
            i for i, url in listed.items() if i in known and i in cited_set and url != known[i]
        ],
        uncited_paragraphs=_uncited_paragraphs(lines),
    )


def render_sources_section(ids: Iterable[int], registry: SourceRegistry) -> str:
    """The report's Sources section for `ids` (registered ones only), in id order.

    Entries are separated by blank lines so that each renders as its own paragraph.
    """
    entries = [_entry(s) for i in sorted(set(ids)) if (s := registry.get(i)) is not None]
    body = "\n\n".join(entries) if entries else "(no sources were cited)"
    return f"## Sources\n\n{body}\n"


def _strip_unknown(text: str, known: set[int], removed: dict[int, None]) -> str:
    """Remove unknown ids from the citation groups of one line's prose."""
    out: list[str] = []
    pos = 0
    for match, ids in _citations_in(text):
        keep = [i for i in ids if i in known]
        if len(keep) == len(ids):
            continue
        removed.update(dict.fromkeys(i for i in ids if i not in known))
        out.append(text[pos : match.start()])
        pos = match.end()
        if keep:
            out.append("[" + ", ".join(map(str, keep)) + "]")
            continue
        if all(i in YEAR_LIKE for i in ids):
            out.append(match.group("body").strip())
            continue
        built = "".join(out)
        if not built.strip() or _LIST_ITEM.fullmatch(built):
            # The group began the line or list item: drop the spaces after it instead.
            while text[pos : pos + 1] in (" ", "\t"):
                pos += 1
        elif text[pos : pos + 1] != "[":
            out = [built.rstrip(" \t")]
    out.append(text[pos:])
    return "".join(out)


def enforce_citations(markdown: str, registry: SourceRegistry) -> tuple[str, list[int]]:
    """Drop unknown ids from every citation and rewrite the Sources section from the registry.

    Returns the new markdown and the removed ids (in order of appearance). A group made
    only of unknown year-like numbers (YEAR_LIKE, e.g. "[2020]" or "[2019-2021]") loses its
    brackets instead of its text, so a year in prose survives. Code is left untouched;
    every existing Sources section is replaced by one rendered section at the place of the
    first (appended at the end if there was none). Idempotent.
    """
    known = registry.ids()
    removed: dict[int, None] = {}
    lines = _scan(markdown)
    texts = [
        line.text if line.code or line.in_sources else _strip_unknown(line.text, known, removed)
        for line in lines
    ]

    body = "".join(
        text + line.end for text, line in zip(texts, lines, strict=True) if not line.in_sources
    )
    section = render_sources_section((i for i in parse_citations(body) if i in known), registry)

    out: list[str] = []
    placed = False
    for index, (text, line) in enumerate(zip(texts, lines, strict=True)):
        if not line.in_sources:
            out.append(text + line.end)
            continue
        if placed:
            continue
        placed = True
        out.append(section)
        follows = any(not other.in_sources for other in lines[index + 1 :])
        if follows:
            out.append("\n")
    if not placed:
        head = "".join(out).rstrip()
        out = [head + "\n\n" if head else "", section]
    return "".join(out), list(removed)


def strip_citations(markdown: str) -> str:
    """`markdown` without any citation group (code untouched; year-like groups unbracketed).

    For quoting research notes whose own "[n]" numbering means nothing in the report.
    """
    removed: dict[int, None] = {}
    return "".join(
        (line.text if line.code else _strip_unknown(line.text, set(), removed)) + line.end
        for line in _scan(markdown)
    )


def rewrite_source_entries(
    markdown: str, registry: SourceRegistry, rewrite: Callable[[str, Source], str]
) -> str:
    """`markdown` with each entry of its Sources section that names a recorded source
    replaced by `rewrite(entry line, source)` (the line without its line end)."""
    out: list[str] = []
    for line in _scan(markdown):
        text = line.text
        id_ = _listed_id(line)
        source = None if id_ is None else registry.get(id_)
        if source is not None:
            text = rewrite(text, source)
        out.append(text + line.end)
    return "".join(out)

"""Check a claim against the text of the page it cites (pure: no I/O, standard library + pydantic).

`index_page` reads a page's text once: sentences, passages (windows of up to
`PASSAGE_SENTENCES` consecutive sentences and `PASSAGE_WORDS` words), each sentence's
content words (stems) and figures, the title block, and an inverted index stem ->
passages. `check_claim` then scores one claim against that index (about 0.2 ms).

The rule, in two sentences: a claim is SUPPORTED when one passage holds at least
`SUPPORTED_COVERAGE` (60%) of its content words and every figure it states; it is
UNSUPPORTED when a figure is nowhere on the page, when no passage holds `WEAK_COVERAGE`
(35%) of its words, or when the passage that does match its words (>= 60%) gives a
different figure of the same kind (a percentage, a year, another number) instead of the
claim's. Anything between is WEAK (the words only partly there, or a figure that is on
the page but not in the matching passage); with no page text it is UNVERIFIABLE.

Three kinds of context count as part of every passage:
- the title block: up to HEAD_SENTENCES leading lines of at most HEAD_WORDS words that do
  not end like a sentence (title, publisher, dateline), so "The Energy Observatory's May
  2024 trial found ..." is not penalised for naming the publisher and the date;
- a year that the page states when neither the matching passage nor the title block gives
  a year of its own: it may come from a heading or from "this year";
- a numbered name ("phase 3", "round 5", "table 2": a figure right after such a word),
  which must be on the page but need not be in the passage.

Issue 21 added three rules:
- a figure after "version", "section", "level", "page" or "table" (kind "pinned") must be
  in the supporting passage after the same word ("LGPL version 2.3" is not supported by a
  page with version 2.1 and a section 2.3);
- careful phrasing is read as such (`research.sources.phrasing`): number words ("a
  fifth", "one in five", "three million") become figures marked as rounded, a figure
  marked as rounded ("about 12%") matches a page figure within its rounding, a figure
  with a unit also means the same quantity in the other units of its kind (5 km, 5,000 m),
  and an ISO date ("2021-03") reads as "March 2021";
- a claim that keeps the figures but flips their meaning in the clause that holds them
  (increase/decrease, more/less, above/below, a negation, or two figures given to each
  other's subjects) is UNSUPPORTED ("meaning flipped: ...").

How the best passage is chosen: the passages holding the most of the claim's words (those
not already in the title block), then within them the shortest run of sentences that
still holds those words (a neighbouring sentence that adds no words of the claim cannot
lend it a figure), then the run holding the most of the claim's figures, then the
shortest, then the first. Known blind spot: figures swapped within one passage ("10.9%
of recipients vs 3.3% on placebo" told the other way round) still come out SUPPORTED.

Words: `research.core.similarity.content_words` (lowercase, stopwords and one-letter tokens
dropped, plurals folded), pure digits dropped, a few hedges ("approximately", "according")
dropped, then a light stem: "-ing"/"-ed" and a final "e" removed, a doubled final
consonant undoubled, "y" -> "i", and the result cut to `STEM_CHARS` characters, so
"installed"/"installation" and "increase"/"increasing" match.

Figures (`claim_numbers`): digits, with
- thousands separators "1,200", "1 200" (thin, narrow or no-break space only) and the
  European "1.200.000" / "1.200,5"; a single comma followed by one, two or four or more
  digits is a decimal comma ("2,5" = 2.5), while three digits after a comma are always
  thousands ("2,500" = 2500, never 2.5);
- scales "thousand", "million"/"mn"/"mln", "billion"/"bn", "trillion"/"tn", and the
  glued single letters "1.2k", "1.2m", "3.5b", which may also be a unit (metres), so they
  match either reading;
- percentages "12%", "12 %", "12 percent", "12 per cent", "12 pct", "0.25 percentage
  points"; a percentage in a claim must be a percentage on the page;
- ranges lend their scale or percent sign to their first figure ("1.2-1.5 million",
  "10 to 12%"), and "2019/20" also means 2020;
- no sign: "-5%" and "5%" are the same figure ("fell 5%" is how pages say it);
- numbered names ("phase 3") are kind "label" (see above);
- not figures: citation markers "[3]", list ordinals "1." at the start of a line,
  ordinals "21st", identifiers glued to letters ("CO2", "R290", "COVID-19", but
  "mid-2022", "pre-2020" are years); a figure
  glued to a unit ("20kWh") is a figure; dotted versions "3.12.1" compare as text.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from functools import lru_cache
from types import MappingProxyType
from typing import TypeAlias, TypeVar
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field

from research.core.similarity import content_words
from research.sources.phrasing import (
    clause_around,
    flipped,
    rounding_before,
    spell_numbers,
    swapped,
    tolerance,
    unit_values,
)
from research.sources.registry import (
    _BARE_URL,
    _CITATION,
    _FENCE,
    _FILE_REF,
    _HEADING,
    _MD_LINK,
    _THEMATIC_BREAK,
    _citations_in,
    _closes,
    _find_urls,
    _heading_title,
    normalize_url,
)

SUPPORTED_COVERAGE = 0.6
"""Share of the claim's content words one passage must hold for SUPPORTED."""
WEAK_COVERAGE = 0.35
"""Below this share in every passage the claim is UNSUPPORTED."""
PASSAGE_SENTENCES = 3
PASSAGE_WORDS = 80
HEAD_SENTENCES = 3
"""The title block: up to this many leading title-like lines (see `_title_like`)."""
HEAD_WORDS = 25
EVIDENCE_CHARS = 300
STEM_CHARS = 6
MAX_TIED_PASSAGES = 16
"""Passages tied for the most claim words that are examined for the best run."""

T = TypeVar("T")
Value: TypeAlias = Decimal | str
"""A figure's value: a Decimal, or the text of a dotted version such as "3.12.1"."""


class Support(StrEnum):
    """How well the cited page backs a claim."""

    SUPPORTED = "supported"
    WEAK = "weak"
    UNSUPPORTED = "unsupported"
    UNVERIFIABLE = "unverifiable"


class ClaimCheck(BaseModel):
    """One claim checked against the text of the page it cites."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    claim: str
    """The claim as checked (citation markers and URLs removed)."""
    source: str
    """The URL or file:<path> checked against."""
    support: Support
    coverage: float
    """Share of the claim's content words found in the best passage, 0..1."""
    missing_numbers: list[str] = Field(default_factory=list)
    """The claim's figures (as written) that are nowhere on the page."""
    numbers_elsewhere: list[str] = Field(default_factory=list)
    """The claim's figures that are on the page but not in the best passage."""
    evidence: str = ""
    """The best-matching passage, trimmed to about 300 characters."""
    reason: str = ""
    """One short human line: why this outcome."""


# --- Figures ------------------------------------------------------------------------------

_SEP = "\u00a0\u2007\u2009\u202f"  # no-break, figure, thin and narrow no-break spaces
_NOT_LETTER = r"(?![^\W\d_])"
_NUMBER = re.compile(
    rf"(?<![\w.,{_SEP}])(?P<glued>(?<=[^\W\d_][-\u2010\u2011]))?"
    rf"(?P<body>\d+(?:[.,{_SEP}]\d+)*)"
    rf"(?:(?P<pct>[ {_SEP}-]?(?:%|per[ -]?cent(?:age[ -]points?)?{_NOT_LETTER}"
    rf"|pct{_NOT_LETTER}|percentage[ -]points?{_NOT_LETTER}))"
    rf"|[ {_SEP}]?(?P<word>thousand|million|billion|trillion|mln|mn|bn|tn){_NOT_LETTER}"
    rf"|(?P<letter>[kmb]){_NOT_LETTER})?"
    r"(?P<tail>[^\W\d_]*)"
)
_SCALES = {
    "thousand": 3, "k": 3, "million": 6, "mn": 6, "mln": 6, "m": 6,
    "billion": 9, "bn": 9, "b": 9, "trillion": 12, "tn": 12,
}  # fmt: skip
_ORDINALS = frozenset({"st", "nd", "rd", "th"})
_DATE_PREFIX = re.compile(
    r"(?<![^\W\d_])(?:mid|pre|post|early|late|end|start)[-\u2010\u2011]$", re.I
)
_SPACED_THOUSANDS = re.compile(rf"\d{{1,3}}(?:[{_SEP}]\d{{3}})+(?:[.,]\d+)?")
_COMMA_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_DOT_THOUSANDS = re.compile(r"\d{1,3}(?:\.\d{3})+,\d+|\d{1,3}(?:\.\d{3}){2,}")
_DECIMAL_POINT = re.compile(r"\d+\.\d+")
_DECIMAL_COMMA = re.compile(r"\d+,(?:\d{1,2}|\d{4,})")  # never three digits: 2,500 is thousands
_VERSION = re.compile(r"\d+(?:\.\d+){2,}")
_RANGE_JOIN = re.compile(r"\s*(?:-|\u2013|\u2014|to|and)\s*[$\u20ac\u00a3\u00a5]?\s*")
_YEAR_TAIL_JOIN = frozenset({"/", "-", "\u2013"})
_LINE_MARKER = re.compile(r"^[ \t]*(?:(?:[-*+\u2022]|\d+[.)])[ \t]+)+", re.MULTILINE)
# A figure right after one of these words names something ("phase 3", "round 5").
# After these it names the very thing the claim is about ("LGPL version 2.1", "page 48"):
# such a figure must be in the supporting passage, not just somewhere on the page.
_PINNED_BEFORE = re.compile(r"\b(version|section|level|page|table)\.?\s*$", re.IGNORECASE)
_LABEL_BEFORE = re.compile(
    r"\b(?:phase|round|stage|step|tier|level|grade|type|version|release|wave|category|class"
    r"|article|section|chapter|table|figure|fig|page|no|number|series|generation)\.?\s*$",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class StatedNumber:
    """A figure a text states."""

    text: str
    """As written, e.g. "1.2 million", "12 %"."""
    value: Value
    """The normalised value (1.2 million -> 1200000; a percentage keeps its number)."""
    kind: str
    """"percent", "year" (a bare 4-digit 1800-2100), "label" (a numbered name such as
    "phase 3"), "version" or "number"."""
    candidates: frozenset[Value]
    """Every value it may mean ("1.2m": 1200000 or 1.2; "2019/20": 20 or 2020)."""
    tolerance: Decimal | None = field(default=None, compare=False)
    """How far a page's figure may be for a figure marked as rounded ("about 12%")."""
    span: tuple[int, int] = field(default=(0, 0), compare=False)
    """Where it is in the (normalised) text it was read from."""

    def accepts(self, values: Collection[Value]) -> bool:
        """Whether one of `values` (a set or a mapping's keys) may be this figure (within
        its rounding, if marked)."""
        if any(value in values for value in self.candidates):
            return True
        return self.tolerance is not None and any(True for _ in self.near(values))

    def near(self, values: Iterable[Value]) -> Iterator[Value]:
        """The values within this figure's rounding (none when it is not marked rounded)."""
        if self.tolerance is None:
            return
        targets = [c for c in self.candidates if isinstance(c, Decimal)]
        for value in values:
            if isinstance(value, Decimal) and any(
                abs(value - c) <= self.tolerance for c in targets
            ):
                yield value


def _body_values(body: str) -> list[tuple[str, Value]]:
    """(text, value) of the figure(s) a run of digits and separators stands for."""
    if body.isdigit():
        return [(body, Decimal(body))]
    if any(ch in _SEP for ch in body):
        if _SPACED_THOUSANDS.fullmatch(body):
            return _body_values(re.sub(f"[{_SEP}]", "", body))
        return [pair for part in re.split(f"[{_SEP}]+", body) for pair in _body_values(part)]
    if _COMMA_THOUSANDS.fullmatch(body):
        return [(body, Decimal(body.replace(",", "")))]
    if _DOT_THOUSANDS.fullmatch(body):
        return [(body, Decimal(body.replace(".", "").replace(",", ".")))]
    if _DECIMAL_POINT.fullmatch(body):
        return [(body, Decimal(body))]
    if _DECIMAL_COMMA.fullmatch(body):
        whole, _, frac = body.partition(",")
        return [(body, Decimal(f"{whole}.{frac}"))]
    if _VERSION.fullmatch(body):
        return [(body, body)]
    parts = [part for part in re.split(r"[.,]", body) if part]
    return [(part, Decimal(part)) for part in parts]


@dataclass(slots=True)
class _Raw:
    start: int
    end: int
    text: str
    value: Value
    kind: str
    scale: int | None
    letter: bool
    candidates: set[Value]
    tolerance: Decimal | None = None


def _raw_numbers(text: str, *, claim: bool = False) -> list[_Raw]:
    """The figures of `text`, in order (see the module docstring for the forms); a claim's
    also with their rounding and their values in other units."""
    found: list[_Raw] = []
    for match in _NUMBER.finditer(text):
        if not _is_identifier(text, match):
            found.extend(_figures_of(text, match))
    _join_ranges(text, found)
    _pin(text, found, claim=claim)
    if claim:
        _mark_rounding_and_units(text, found)
    return found


def _pin(text: str, found: list[_Raw], *, claim: bool) -> None:
    """A figure after version, section, level, page or table means "<word> <figure>": a
    claim's matches only the page's figure after the same word (a page's also matches the
    bare figure, "GPL 3" for "GPL version 3")."""
    for raw in found:
        if raw.kind != "pinned" or not isinstance(raw.value, Decimal):
            continue
        label = _PINNED_BEFORE.search(text, max(0, raw.start - 24), raw.start)
        if label is None:
            continue
        pinned = f"{label.group(1).lower()} {_normal(raw.value)}"
        raw.candidates = {pinned} if claim else raw.candidates | {pinned}


def _is_identifier(text: str, match: re.Match[str]) -> bool:
    """An ordinal ("21st") or a figure glued to letters (COVID-19, Scope-3; not mid-2022)."""
    if match.group("tail").lower() in _ORDINALS and not (match.group("pct") or match.group("word")):
        return True
    return match.group("glued") is not None and not _DATE_PREFIX.search(
        text, max(0, match.start() - 8), match.start()
    )


def _kind(text: str, match: re.Match[str], part: str, value: Value, index: int, last: bool) -> str:
    """The kind of the `index`-th figure a number match stands for."""
    scale = match.group("word") or match.group("letter")
    if isinstance(value, str):
        return "version"
    if match.group("pct") is not None and last:
        return "percent"
    if part.isdigit() and len(part) == 4 and 1800 <= value <= 2100 and not scale:
        return "year"
    before = text[max(0, match.start() - 24) : match.start()]
    if index == 0 and not scale and _LABEL_BEFORE.search(before):
        return "pinned" if _PINNED_BEFORE.search(before) else "label"
    return "number"


def _figures_of(text: str, match: re.Match[str]) -> list[_Raw]:
    """The figure(s) one number match stands for ("1.200,5"; "3.12.1"; "1 200 and 300")."""
    tail = match.group("tail")
    pairs = _body_values(match.group("body"))
    scale_word = match.group("word") or match.group("letter")
    scale = _SCALES[scale_word.lower()] if scale_word else None
    written = match.group(0)[: match.end() - match.start() - len(tail)].strip()
    out: list[_Raw] = []
    for index, (part, value) in enumerate(pairs):
        last = index == len(pairs) - 1
        kind = _kind(text, match, part, value, index, last)
        candidates: set[Value] = {value}
        if scale is not None and last and isinstance(value, Decimal):
            candidates = {value.scaleb(scale)}
            if match.group("letter"):
                candidates.add(value)
            value = value.scaleb(scale)
        out.append(
            _Raw(
                start=match.start(),
                end=match.end() - len(tail),
                text=written if len(pairs) == 1 else part,
                value=value,
                kind=kind,
                scale=scale if last else None,
                letter=bool(match.group("letter")) and last,
                candidates=candidates,
            )
        )
    return out


def _mark_rounding_and_units(text: str, found: list[_Raw]) -> None:
    """Figures marked as rounded ("about 12%") get their tolerance; a figure with a unit
    also means the same quantity in the other units of its kind (5 km: 5,000 m)."""
    for raw in found:
        if not isinstance(raw.value, Decimal):
            continue
        if rounding_before(text, raw.start):
            raw.tolerance = tolerance(raw.text, raw.value, percent=raw.kind == "percent")
        if raw.kind == "number":
            raw.candidates |= set(unit_values(text, raw.end, raw.value))


def _join_ranges(text: str, found: list[_Raw]) -> None:
    """Ranges lend their scale or percent sign to their first figure; "2019/20" is 2020 too."""
    for first, second in zip(found, found[1:], strict=False):
        between = text[first.end : second.start]
        bare = first.scale is None and first.kind in ("number", "year")
        if bare and _RANGE_JOIN.fullmatch(between) and isinstance(first.value, Decimal):
            if second.kind == "percent":
                first.kind = "percent"
            elif second.scale is not None:
                scaled = first.value.scaleb(second.scale)
                first.candidates = {scaled, first.value}
                first.value = scaled
                first.kind = "number"
        if (
            first.kind == "year"
            and between in _YEAR_TAIL_JOIN
            and second.text.isdigit()
            and len(second.text) == 2
            and isinstance(first.value, Decimal)
        ):
            century = int(first.value) // 100 * 100
            second.candidates.add(Decimal(century + int(second.text)))


def _without_references(text: str) -> str:
    """`text` without URLs, file references and citation markers."""
    if "://" in text:
        text = _BARE_URL.sub(" ", text)
    if "file:" in text:
        text = _FILE_REF.sub(" ", text)
    if "[" in text:
        text = _CITATION.sub(" ", text)
    return text


def _clean_for_numbers(text: str) -> str:
    """`text` without URLs, file references, citation markers and list markers."""
    return _LINE_MARKER.sub(" ", _without_references(text))


def _normal(value: Value) -> Value:
    """1200.0 -> 1200, 1.50 -> 1.5 (no exponent notation)."""
    return Decimal(format(value.normalize(), "f")) if isinstance(value, Decimal) else value


def claim_numbers(text: str) -> list[StatedNumber]:
    """The figures `text` states, normalised (see the module docstring for the forms)."""
    return [_stated(raw) for raw in _raw_numbers(_clean_for_numbers(text), claim=True)]


def _stated(raw: _Raw) -> StatedNumber:
    return StatedNumber(
        text=raw.text,
        value=_normal(raw.value),
        kind=raw.kind,
        candidates=frozenset(raw.candidates),
        tolerance=raw.tolerance,
        span=(raw.start, raw.end),
    )


# --- Words --------------------------------------------------------------------------------

_HEDGES = frozenset(
    {"according", "approximately", "roughly", "around", "nearly", "almost", "reportedly",
     "respectively", "percent", "cent", "percentage", "pct", "some", "circa", "approx",
     "report", "reports", "reported", "say", "says", "said", "find", "finds", "found",
     "show", "shows", "showed", "shown"}
)  # fmt: skip


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    """A light stem: -ing/-ed and a final e off, doubled consonant undoubled, y -> i, cut."""
    stem = word
    if len(stem) > 5 and stem.endswith("ing"):
        stem = stem[:-3]
    elif len(stem) > 4 and stem.endswith("ed"):
        stem = stem[:-2]
    if stem != word and len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
        stem = stem[:-1]
    if len(stem) > 3 and stem.endswith("e"):
        stem = stem[:-1]
    if len(stem) > 3 and stem.endswith("y"):
        stem = stem[:-1] + "i"
    return stem[:STEM_CHARS]


def _stems(text: str) -> frozenset[str]:
    """Stems of the content words of `text` (figures already blanked out)."""
    return frozenset(
        _stem(word) for word in content_words(text) if not word.isdigit() and word not in _HEDGES
    )


def _blank_numbers(text: str, numbers: Sequence[_Raw]) -> str:
    if not numbers:
        return text
    out: list[str] = []
    pos = 0
    for raw in numbers:
        out.append(text[pos : raw.start])
        out.append(" ")
        pos = max(pos, raw.end)
    out.append(text[pos:])
    return "".join(out)


# --- Sentences ----------------------------------------------------------------------------

_ENDER = re.compile(r"[.!?\u3002\uff01\uff1f]+[\"'\u201d\u2019)\]]*(?:\s*\[[^\[\]\n]{1,40}\])*")
_ABBREVIATIONS = frozenset(
    """e.g i.e etc al vs cf fig figs no nos dr mr mrs ms prof st inc ltd co corp approx
    jan feb mar apr jun jul aug sep sept oct nov dec vol pp ca est dept gov univ""".split()
)
_INITIALS = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]")


def _split_sentences(text: str) -> list[str]:
    """Sentences of one line or paragraph; a period after an abbreviation does not end one."""
    sentences: list[str] = []
    start = 0
    for match in _ENDER.finditer(text):
        end = match.end()
        if match.group(0)[0] not in "\u3002\uff01\uff1f" and end < len(text):
            rest = text[end:]
            if not (rest[0].isspace() and _starts_sentence(rest.lstrip())):
                continue
            if match.group(0)[0] == "." and _abbreviation(text, match.start()):
                continue
        piece = text[start:end].strip()
        if piece:
            sentences.append(piece)
        start = end
    rest = text[start:].strip()
    if rest:
        sentences.append(rest)
    return sentences


def _starts_sentence(text: str) -> bool:
    first = text[:1]
    return bool(first) and (first.isupper() or first.isdigit() or first in "\"'\u201c\u2018([*_")


def _abbreviation(text: str, period: int) -> bool:
    word = text[:period].rsplit(None, 1)[-1] if text[:period].strip() else ""
    word = word.lstrip("(\"'\u201c")
    if not word:
        return False
    if len(word) == 1 and word.isalpha():
        return True
    return word.lower() in _ABBREVIATIONS or _INITIALS.fullmatch(word) is not None


# --- The page index -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Sentence:
    text: str
    norm: str
    """The text its figures were read from (number words as figures); spans refer to it."""
    words: int
    stems: frozenset[str]
    numbers: tuple[StatedNumber, ...]
    values: frozenset[Value]
    percents: frozenset[Value]


@dataclass(frozen=True, slots=True, eq=False)
class PageIndex:
    """A page's text prepared for many claim checks; immutable once built (`index_page`)."""

    sentences: tuple[_Sentence, ...]
    head: int
    """How many leading sentences form the title block (title, publisher, date)."""
    head_stems: frozenset[str]
    """The title block's stems."""
    passages: tuple[tuple[int, int], ...]
    """(first sentence, end sentence) of each window after the title block, maximal."""
    postings: Mapping[str, tuple[int, ...]]
    """Stem -> the passages that hold it."""
    figure_postings: Mapping[Value, tuple[int, ...]]
    """Value -> the passages with a figure that may mean it."""
    percent_postings: Mapping[Value, tuple[int, ...]]
    """The same, for percentages only."""

    @property
    def empty(self) -> bool:
        """Whether the page has no words to match (no text, or only figures and symbols)."""
        return not self.postings and not self.head_stems

    def states(self, number: StatedNumber) -> bool:
        """Whether the page states `number` anywhere (a percentage must be one here too)."""
        pool = self.percent_postings if number.kind == "percent" else self.figure_postings
        return number.accepts(pool.keys()) or _holds(self.sentences[: self.head], number)

    def passages_stating(self, number: StatedNumber) -> set[int]:
        """The passages with a figure that may be `number`."""
        pool = self.percent_postings if number.kind == "percent" else self.figure_postings
        found: set[int] = set()
        for value in (*number.candidates, *number.near(pool.keys())):
            found.update(pool.get(value, ()))
        return found


def _chunks(sentence: str) -> Iterator[str]:
    """`sentence`, or pieces of PASSAGE_WORDS // 2 words when it is longer than a passage."""
    words = sentence.split()
    if len(words) <= PASSAGE_WORDS:
        yield sentence
        return
    step = PASSAGE_WORDS // 2
    for index in range(0, len(words), step):
        yield " ".join(words[index : index + step])


def _sentence(text: str) -> _Sentence:
    norm = spell_numbers(_LINE_MARKER.sub(" ", text))
    raw = _raw_numbers(norm)
    numbers = tuple(_stated(r) for r in raw)
    return _Sentence(
        text=text,
        norm=norm,
        words=len(text.split()),
        stems=_stems(_blank_numbers(norm, raw)),
        numbers=numbers,
        values=frozenset(v for n in numbers for v in n.candidates),
        percents=frozenset(v for n in numbers if n.kind == "percent" for v in n.candidates),
    )


def _union(sets: Iterable[frozenset[T]]) -> set[T]:
    out: set[T] = set()
    for part in sets:
        out |= part
    return out


def _title_like(sentence: _Sentence) -> bool:
    """A title, a byline or a dateline: short, and not ended like a sentence."""
    return sentence.words <= HEAD_WORDS and not sentence.text.endswith((".", "!", "?", ":"))


def _postings(groups: Iterable[Iterable[T]]) -> Mapping[T, tuple[int, ...]]:
    """Key -> the positions of the groups that hold it."""
    found: dict[T, list[int]] = {}
    for position, keys in enumerate(groups):
        for key in keys:
            found.setdefault(key, []).append(position)
    return MappingProxyType({key: tuple(ids) for key, ids in found.items()})


def _page_sentences(text: str) -> tuple[_Sentence, ...]:
    return tuple(
        _sentence(chunk)
        for line in text.splitlines()
        if line.strip()
        for piece in _split_sentences(line.strip())
        for chunk in _chunks(piece)
    )


def _title_block(sentences: Sequence[_Sentence]) -> int:
    """How many leading sentences are title-like (at most HEAD_SENTENCES, never all)."""
    head = 0
    while head < min(HEAD_SENTENCES, len(sentences) - 1) and _title_like(sentences[head]):
        head += 1
    return head


def _passages(sentences: Sequence[_Sentence], head: int) -> list[tuple[int, int]]:
    """(first, end) of each maximal window of up to PASSAGE_SENTENCES sentences and
    PASSAGE_WORDS words after the title block."""
    passages: list[tuple[int, int]] = []
    for first in range(head, len(sentences)):
        end, words = first, 0
        while (
            end < len(sentences)
            and end - first < PASSAGE_SENTENCES
            and (end == first or words + sentences[end].words <= PASSAGE_WORDS)
        ):
            words += sentences[end].words
            end += 1
        if not passages or end > passages[-1][1]:
            passages.append((first, end))
    return passages


def index_page(text: str) -> PageIndex:
    """Index a page's readable text: sentences, passages, stems, figures (see the module)."""
    sentences = _page_sentences(text)
    head = _title_block(sentences)
    passages = _passages(sentences, head)
    spans = [sentences[first:end] for first, end in passages]
    return PageIndex(
        sentences=sentences,
        head=head,
        head_stems=frozenset(_union(s.stems for s in sentences[:head])),
        passages=tuple(passages),
        postings=_postings(_union(s.stems for s in span) for span in spans),
        figure_postings=_postings(_union(s.values for s in span) for span in spans),
        percent_postings=_postings(_union(s.percents for s in span) for span in spans),
    )


# --- Checking a claim ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Run:
    first: int
    end: int
    held: frozenset[str]
    """The claim's stems its sentences hold."""
    figures: int
    """How many of the claim's figures its sentences hold."""
    words: int

    @property
    def score(self) -> int:
        return len(self.held) + self.figures


_NO_RUN = _Run(0, 0, frozenset(), 0, 0)


def _holds(run: Sequence[_Sentence], number: StatedNumber) -> bool:
    if number.kind == "percent":
        return any(number.accepts(s.percents) for s in run)
    return any(number.accepts(s.values) for s in run)


def _best_run(page: PageIndex, stems: frozenset[str], numbers: Sequence[StatedNumber]) -> _Run:
    """The best run of sentences for a claim (see the module docstring).

    The passages holding the most of the claim's words and figures, at most
    MAX_TIED_PASSAGES of them in page order; in each, every shortest run of sentences that
    still holds all the claim words the passage holds; of those, the run holding the most
    words and figures, then the shortest, then the first.
    """
    counts: Counter[int] = Counter()
    for stem in stems:
        counts.update(page.postings.get(stem, ()))
    for number in numbers:
        counts.update(page.passages_stating(number))
    if not counts:
        return _NO_RUN
    best = max(counts.values())
    tied = sorted(pid for pid, count in counts.items() if count == best)[:MAX_TIED_PASSAGES]
    sentences = page.sentences
    hits: dict[int, frozenset[str]] = {}  # sentence -> the claim stems it holds
    runs: dict[tuple[int, int], frozenset[str]] = {}
    for pid in tied:
        first, end = page.passages[pid]
        for index in range(first, end):
            if index not in hits:
                hits[index] = sentences[index].stems & stems
        target = len(_union(hits[index] for index in range(first, end)))
        stop_of: dict[int, int] = {}  # start -> end of the shortest run holding `target`
        for start in range(first, end):
            held: set[str] = set()
            for stop in range(start, end):
                held |= hits[stop]
                if len(held) == target:
                    stop_of[start] = stop + 1
                    break
        for a, b in stop_of.items():
            if not any(stop_of.get(later, b + 1) <= b for later in range(a + 1, b)):
                runs[a, b] = frozenset(_union(hits[index] for index in range(a, b)))
    candidates = [
        _Run(
            first=a,
            end=b,
            held=held,
            figures=sum(_holds(sentences[a:b], n) for n in numbers),
            words=sum(s.words for s in sentences[a:b]),
        )
        for (a, b), held in runs.items()
    ]
    return min(candidates, key=lambda r: (-r.score, r.words, r.first))


def _evidence(page: PageIndex, run: _Run, focus: Sequence[str] = ()) -> str:
    """The run's text, cut to about EVIDENCE_CHARS around the first `focus` figure (the
    page's own figure where the claim's differs) so that the reader sees it."""
    text = " ".join(s.text for s in page.sentences[run.first : run.end])
    if len(text) <= EVIDENCE_CHARS:
        return text
    at = min((found for f in focus if (found := text.find(f)) >= 0), default=0)
    start = 0
    if at + EVIDENCE_CHARS // 4 > EVIDENCE_CHARS:
        start = max(0, at - EVIDENCE_CHARS // 2)
        start = text.find(" ", start) + 1 or start
    cut = text[start : start + EVIDENCE_CHARS - 2]
    if start + len(cut) < len(text) and " " in cut[EVIDENCE_CHARS // 2 :]:
        cut = cut.rsplit(" ", 1)[0]
    prefix = "\u2026" if start else ""
    suffix = "\u2026" if start + len(cut) < len(text) else ""
    return prefix + cut.strip().rstrip(" ,;:") + suffix


def _conflicts(
    run: Sequence[_Sentence], numbers: Sequence[StatedNumber], absent: Sequence[StatedNumber]
) -> list[str]:
    """Figures of the run, of the same kind as an absent claim figure, that the claim lacks."""
    kinds = {n.kind for n in absent}
    claimed = frozenset(v for n in numbers for v in n.candidates)
    out: dict[str, None] = {}
    for sentence in run:
        for number in sentence.numbers:
            if number.kind in kinds and number.candidates.isdisjoint(claimed):
                out[number.text] = None
    return list(out)


def _percent(share: float) -> str:
    return f"{round(share * 100)}%"


def _claim_text(text: str) -> str:
    """The claim as checked: without URLs, file references and citation markers."""
    return re.sub(r"\s+", " ", _without_references(text)).strip()


@dataclass(frozen=True, slots=True)
class _Parsed:
    """A claim's text, figures and content words."""

    text: str
    norm: str
    """The text its figures were read from (number words as figures, ISO dates in words)."""
    numbers: list[StatedNumber]
    stems: frozenset[str]


def _parse(claim: str) -> _Parsed:
    text = _claim_text(claim)
    norm = spell_numbers(_LINE_MARKER.sub(" ", text))
    raw = _raw_numbers(norm, claim=True)
    return _Parsed(text, norm, [_stated(r) for r in raw], _stems(_blank_numbers(norm, raw)))


def _unverifiable(page: PageIndex | None, parsed: _Parsed, unavailable: str) -> str | None:
    """Why the claim cannot be checked against `page`, or None when it can."""
    if page is None:
        return unavailable
    if page.empty:
        return "the page has no readable text"
    if not (parsed.stems or parsed.numbers):
        return "no content words or figures to check"
    return None


@dataclass(frozen=True, slots=True)
class _Match:
    """Where a claim's words and figures are on the page."""

    run: _Run
    coverage: float
    matched: int
    missing: list[StatedNumber]
    """The claim's figures that are nowhere on the page."""
    elsewhere: list[StatedNumber]
    """On the page, but not in the passage nor the title block."""
    absent: list[StatedNumber]
    """Of `elsewhere`, those the passage must hold (a year only when the passage or title
    block gives a year of its own)."""
    conflicts: list[str]
    """The passage's own figures of the kinds the claim's absent or missing ones have."""


def _match(page: PageIndex, parsed: _Parsed) -> _Match:
    stems, numbers = parsed.stems, parsed.numbers
    head = page.sentences[: page.head]  # title, publisher, date: context for every passage
    run = _best_run(page, stems, numbers)
    if run.end == run.first and stems & page.head_stems:
        run = _Run(0, page.head, frozenset(), 0, 0)  # only the title block matches
    in_run = page.sentences[run.first : run.end]
    matched = len(run.held | (stems & page.head_stems))
    missing = [n for n in numbers if not page.states(n)]
    elsewhere = [
        n
        for n in numbers
        if n not in missing and n.kind != "label" and not _holds(in_run, n) and not _holds(head, n)
    ]
    dated = any(m.kind == "year" for sentence in (*head, *in_run) for m in sentence.numbers)
    absent = [n for n in elsewhere if n.kind != "year" or dated]
    return _Match(
        run=run,
        coverage=matched / len(stems) if stems else 0.0,
        matched=matched,
        missing=missing,
        elsewhere=elsewhere,
        absent=absent,
        conflicts=_conflicts(in_run, numbers, [*absent, *missing]),
    )


def check_claim(
    claim: str,
    page: PageIndex | None,
    source: str = "",
    *,
    unavailable_reason: str = "no snapshot",
) -> ClaimCheck:
    """Score `claim` against the indexed text of the page it cites (None: no snapshot)."""
    parsed = _parse(claim)
    why = _unverifiable(page, parsed, unavailable_reason)
    if why is not None or page is None:
        return ClaimCheck(
            claim=parsed.text,
            source=source,
            support=Support.UNVERIFIABLE,
            coverage=0.0,
            reason=why or unavailable_reason,
        )
    found = _match(page, parsed)
    support, reason = _verdict(
        parsed.numbers,
        found.missing,
        found.absent,
        found.conflicts,
        parsed.stems,
        found.coverage,
        found.matched,
    )
    flip = _meaning_flip(parsed, page.sentences[found.run.first : found.run.end])
    if flip is not None and support in (Support.SUPPORTED, Support.WEAK):
        support, reason = Support.UNSUPPORTED, f"meaning flipped: {flip}"
    context = [n for n in found.elsewhere if n not in found.absent]
    if context and support is Support.SUPPORTED:
        reason += f"; {_listed(context)} stated elsewhere on the page"
    run = found.run
    return ClaimCheck(
        claim=parsed.text,
        source=source,
        support=support,
        coverage=round(found.coverage, 3),
        missing_numbers=[n.text for n in found.missing],
        numbers_elsewhere=[n.text for n in found.elsewhere],
        evidence=_evidence(page, run, found.conflicts) if run.end > run.first else "",
        reason=reason,
    )


def _figure_in(
    run: Sequence[_Sentence], number: StatedNumber
) -> tuple[_Sentence, StatedNumber] | None:
    """The sentence of the run, and its figure, that state `number` (`run` ordered with
    the sentences holding most of the claim's figures first)."""
    for sentence in run:
        for stated in sentence.numbers:
            if (stated.kind == "percent") == (number.kind == "percent") and number.accepts(
                stated.candidates
            ):
                return sentence, stated
    return None


def _meaning_flip(parsed: _Parsed, run: Sequence[_Sentence]) -> str | None:
    """How the claim turns around what the passage says about the figures they share:
    the opposite direction, a negation, or figures given to each other's subjects."""
    mine: list[frozenset[str]] = []
    theirs: list[frozenset[str]] = []
    run = sorted(run, key=lambda s: -sum(_holds((s,), n) for n in parsed.numbers))
    for number in parsed.numbers:
        hit = _figure_in(run, number)
        if hit is None:
            continue
        sentence, stated = hit
        claim_clause = clause_around(parsed.norm, *number.span)
        page_clause = clause_around(sentence.norm, *stated.span)
        why = flipped(claim_clause, page_clause)
        if why is not None:
            return why
        mine.append(_stems(claim_clause))
        theirs.append(_stems(page_clause))
    if len(mine) >= 2 and swapped(mine, theirs):
        return "the page gives these figures to each other's subjects"
    return None


def _listed(numbers: Sequence[StatedNumber]) -> str:
    return ", ".join(n.text for n in numbers)


def _verdict(
    numbers: Sequence[StatedNumber],
    missing: Sequence[StatedNumber],
    elsewhere: Sequence[StatedNumber],
    conflicts: Sequence[str],
    stems: frozenset[str],
    coverage: float,
    matched: int,
) -> tuple[Support, str]:
    """The rule of the module docstring, with its one-line reason."""
    share = _percent(coverage)
    if missing:
        return Support.UNSUPPORTED, f"{_listed(missing)} not on the page"
    if not stems:
        return Support.WEAK, "no words to check; its figures are on the page"
    if coverage < WEAK_COVERAGE:
        if not matched:
            return Support.UNSUPPORTED, "none of the claim's words are on the page"
        return Support.UNSUPPORTED, f"only {share} of the claim's words in any passage"
    if coverage >= SUPPORTED_COVERAGE:
        if not elsewhere:
            figures = "every figure and " if numbers else ""
            return Support.SUPPORTED, f"{figures}{share} of the words in one passage"
        if conflicts:
            given = ", ".join(conflicts)
            return (
                Support.UNSUPPORTED,
                f"the matching passage gives {given}, not {_listed(elsewhere)}",
            )
    parts: list[str] = []
    if elsewhere:
        parts.append(f"{_listed(elsewhere)} on the page but not in the matching passage")
    if coverage < SUPPORTED_COVERAGE:
        parts.append(f"only {share} of the claim's words in the best passage")
    return Support.WEAK, "; ".join(parts)


# --- Claims in notes and reports ----------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    """A statement to check and what it cites."""

    text: str
    sources: tuple[str, ...]
    """Findings: normalised URLs or file:<path>; report sentences: citation ids ("3", "5")."""


_LIST_ITEM = re.compile(r"^\s*(?:[-*+\u2022]|\d+[.)])\s+")  # a bullet too, unlike the registry's
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
    text = _tidy(_without_references(text))
    text = _SOURCE_LABEL.sub("", text)
    return _tidy(_DANGLING.sub("", _tidy(text)))


def _uncite(text: str) -> str:
    """`text` without citation markers, nor the source check's marks after them ("[2]\u2020")."""
    return _AFTER_CITATION_MARK.sub(" ", _CITATION.sub(" ", text))


_AFTER_CITATION_MARK = re.compile(r"(?<= )\u2020+")


def _row_text(row: str) -> str:
    cells = [_tidy(_uncite(cell)) for cell in row.strip().strip("|").split("|")]
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
        if _stems(text) or claim_numbers(text):
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
        for sentence in _split_sentences(body):
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
    return _claim_text(text)


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
        sentences = [(s, _sentence_claim(s)) for s in _split_sentences(body)]
    owners: dict[int, str] = {}
    ordinal = 0
    for sentence, text in sentences:
        for _ in _citations_in(sentence):
            if text:
                owners[ordinal] = claim_key(text)
            ordinal += 1
    return owners

"""Check a claim against the text of the page it cites (pure: no I/O, standard library +
pydantic): the verdict and its reason.

`index_page` (`research.sources.pageindex`) reads a page's text once; `check_claim`
then scores one claim against that index (about 0.2 ms).

The rule, in two sentences: a claim is SUPPORTED when one passage holds at least
`SUPPORTED_COVERAGE` (60%) of its content words and every figure it states; it is
UNSUPPORTED when a figure is nowhere on the page, when no passage holds `WEAK_COVERAGE`
(35%) of its words, or when the passage that does match its words (>= 60%) gives a
different figure of the same kind (a percentage, a year, another number; a quantity of
the same dimension for a quantity, a bare figure for a bare one) instead of the claim's.
Anything between is WEAK (the words only partly there, or a figure that is on the page
but not in the matching passage); with no page text it is UNVERIFIABLE. One
exception to "the words only partly there": a passage holding every figure of the claim,
one of them a figure the page states in at most PINNING_SENTENCES sentences, with no other
sentence of it giving a figure of that sort the claim lacks, is SUPPORTED from
PINNED_COVERAGE (20%) of its words on (the figures say which passage the claim restates;
a paraphrase changes its words). When the passage holding the most of the claim's words
lacks one of its figures and gives no rival, the passage holding every figure is read
instead if it holds WEAK_COVERAGE of the words (SUPPORTED_COVERAGE without such a rare
figure) and is SUPPORTED there (`research.sources.figurerun`: "Time (mean): 854.8 ms").

Five kinds of context count as part of every passage:
- the date the cited address gives in its path ("/2017/09/05/": `pageindex.dateline`), a
  blog's or newspaper's dateline that its template shows and its text need not repeat;
- the title block: up to HEAD_SENTENCES leading lines of at most HEAD_WORDS words that do
  not end like a sentence (title, publisher, dateline), so "The Energy Observatory's May
  2024 trial found ..." is not penalised for naming the publisher and the date;
- a year or a date that the page states when neither the matching passage nor the title
  block gives a year or date of its own: it may come from a heading or from "this year";
- a numbered name ("phase 3", "round 5", "table 2": a figure right after such a word),
  which must be on the page but need not be in the passage.
- the page's subject figure: one it states in at least SUBJECT_SENTENCES sentences, one
  of them among the first LEAD_SENTENCES after the title block ("Go 1.21", the survey's
  year), which must be on the page but need not be in the passage, unless the passage
  gives a figure of its sort the claim lacks (a swapped "2 instructions" for "5000").

Issue 21 added three rules:
- a figure after "version", "section", "level", "page" or "table" (kind "pinned") must be
  in the supporting passage after the same word ("LGPL version 2.3" is not supported by a
  page with version 2.1 and a section 2.3);
- careful phrasing is read as such (issue 26 replaced the hand-written tables with
  libraries): a figure is a quantity (`research.sources.quantities`: its unit through pint,
  how exact it claims to be, the band of a hedge before it such as "about" or "more
  than"), number words, fractions and dates are written as figures first
  (`research.sources.spelling`: text2num, the project's fraction table, python-dateutil),
  and a claim's figure computed from others (a share, a multiple, a difference, a
  duration of a day or more between two dates or two years) is
  supported when the matching passage holds two figures it is computed from
  (`research.sources.derived`), or, when it is nowhere on the page, figures tied to the
  claim's words do (`research.sources.computed`: one sentence of those holding the most
  of them, the one figure of such a sentence with one of a neighbour, or one column of two
  rows of a table whose first cells the claim names); the word "times" after a multiple is
  part of the figure; and a count the claim enumerates right after it ("three built-in
  functions: min, max and clear") when each item is on the page
  (`research.sources.slots.enumerated`);
- a claim that keeps the figures but flips their meaning in the clause that holds them
  (increase/decrease, more/less, above/below, a negation, or two figures given to each
  other's subjects) is UNSUPPORTED ("meaning flipped: ...").

A claim found SUPPORTED is then UNSUPPORTED when the page gives one of its figures to other
words: another sentence holds more of the claim's words and other figures than the
sentence stating that figure, and gives a figure of the same sort there instead
(`research.sources.slots`); so is one whose figure a parenthesis ties, in the sentence
that states it, to other words than a figure of the same sort the claim lacks ("VS Code
(43%) and GoLand (33%)" for a claim that VS Code had 33%; "100, 250 (the default) or
1000" for a default of 1000), and, in a sentence without such a parenthesis (and not a
table row), one whose figure is next to other words than the claim puts next to it while
a figure of the same sort the claim lacks is next to them ("~500 msi files and ~50 dmg
files" for a claim of 500 dmg files: `slots.NEAR_WORDS` words either side of a page's
figure, `slots.CLAIM_NEAR_WORDS` content words of the claim's, neither past another figure
or a clause break). The other way round, a figure that is on the page but not in
the matching passage is not held against the claim when the sentence stating it carries
the words the passage lacks and no sentence giving a figure of the same sort instead
carries as much (a count two sentences after the survey it counts, a table row far below
its description); nor when it is in a table row or a line that the matching passage
introduces (`Sentence.lead`: the sentences before the table back to a heading, or the
sentence ending with a colon) and that row holds more of the claim's words the passage
lacks than any other row it introduces giving a figure of the same sort
(`slots.introduced`: "| ripgrep | 0.082s |" under the paragraph describing the benchmark);
nor when a sentence stating it (not a list: no other figure of its sort the claim lacks)
holds, with its neighbours and the sentences introducing it, at least `binding.BOUND_SHARE`
(half) of the claim's words, each weighted by how rare it is on the page, and no sentence
giving a figure of that sort the claim lacks (of any magnitude; the other rows of its
table included) holds as much (`binding.bound`: a plain restatement of the sentence that
states the figure, while another paragraph happens to hold more of its common words);
nor, when the matching passage gives no figure of its sort instead, when a sentence
stating it (not a table row) holds `binding.LOOSE_SHARE` (a quarter) of those weighted
words, unless it is a version or a label, or a bare count whose counted word ("16
entries") the page puts after another figure of its sort and never after this one
(`binding.loosely_bound`: a careful paraphrase matches another paragraph better than the
sentence it restates, and nothing there contradicts it). A figure found outside the
passage is checked like one in it for being given to other words in the sentences
stating it, and in a parallel list two counts of the same word are rivals whatever
their magnitudes ("zip files with 58,774 archives, and cpio files with 3,265 archives").
A figure a table gives to another row or column than the claim names is given to other
words too (`research.sources.rows`; "strtod : 190.94 MB/s" lines are rows:
`research.sources.rowlines`), and so is a bare count whose noun the matching passage puts
after another count ("averaged over 32 runs" for "32 logical cores ... averaged over 10
runs": `research.sources.counted`).
The first two read a sentence with its neighbours, and leave out the page's topic words (in
30% of its sentences), which bind no figure to a place.

How the best passage is chosen: the passages holding the most of the claim's words (those
not already in the title block), then within them the shortest run of sentences that
still holds those words (a neighbouring sentence that adds no words of the claim cannot
lend it a figure), then the run holding the most of the claim's figures, then the
shortest, then the first. Known blind spot: figures swapped within one passage when the
words that tell them apart lie between them, which belong to both ("10.9% of recipients
vs 3.3% on placebo" told the other way round; a claim of 50 msi files above) still come
out SUPPORTED.

The parts: `figures` (the figures a text states), `figuretable` (a page's figures for
lookups), `words` (content words, sentences), `pageindex` (a page read once), `flips` (a
meaning turned around), `claimtext` (the claims of notes and reports); this module keeps
the verdict and re-exports what the engine uses.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from research.sources.binding import Weights, bound, loosely_bound
from research.sources.bitsets import lowest, most_covered
from research.sources.claimtext import (
    NON_FINDINGS_PREFIXES,
    REPORT_SKIPPED_PREFIXES,
    CitationRewrite,
    Claim,
    claim_key,
    finding_claims,
    report_claims,
    rewrite_report_citations,
    unit_lines,
)
from research.sources.comparisons import contradicted
from research.sources.computed import (
    computed_elsewhere,
    computed_from_rows,
    derived_here,
    rows_next_to,
)
from research.sources.figurerun import figure_passage
from research.sources.figures import (
    LINE_MARKER,
    StatedNumber,
    claim_numbers,
    claim_text,
    claimed_values,
    raw_numbers,
    stated_number,
)
from research.sources.figuretable import same_sort
from research.sources.flipcheck import meaning_flip
from research.sources.flips import Clauses
from research.sources.given import given_elsewhere
from research.sources.names import glued_name
from research.sources.pageindex import PageIndex, Sentence, dateline, holds, index_page
from research.sources.paragraphs import lent_by_later
from research.sources.points import counts_things, derivable_as_read
from research.sources.rows import (
    caption_words,
    ends_before_caption,
    in_named_row,
    named_row,
    table_headers,
)
from research.sources.slots import (
    anchored,
    enumerated,
    introduced,
)
from research.sources.spelling import spell_numbers
from research.sources.words import blank_numbers, stems_of

__all__ = [
    "EVIDENCE_CHARS",
    "NON_FINDINGS_PREFIXES",
    "REPORT_SKIPPED_PREFIXES",
    "CitationRewrite",
    "Claim",
    "ClaimCheck",
    "PageIndex",
    "StatedNumber",
    "Support",
    "check_claim",
    "claim_key",
    "claim_numbers",
    "finding_claims",
    "index_page",
    "quote_holds_quantity",
    "report_claims",
    "rewrite_report_citations",
    "unit_lines",
]

SUPPORTED_COVERAGE = 0.6
"""Share of the claim's content words one passage must hold for SUPPORTED."""
WEAK_COVERAGE = 0.35
"""Below this share in every passage the claim is UNSUPPORTED."""
EVIDENCE_CHARS = 300
MAX_TIED_PASSAGES = 16
"""Passages tied for the most claim words that are examined for the best run."""


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


@dataclass(frozen=True, slots=True)
class _Run:
    first: int
    end: int
    held: frozenset[str]
    """The claim's stems its sentences hold."""
    figures: int
    """How many of the claim's figures its sentences hold."""
    words: int
    cut: bool = False
    """Cut short of a later paragraph that gave the claim words (`_own_paragraphs`)."""

    @property
    def score(self) -> int:
        return len(self.held) + self.figures


_NO_RUN = _Run(0, 0, frozenset(), 0, 0)


def _best_run(
    page: PageIndex,
    stems: frozenset[str],
    numbers: Sequence[StatedNumber],
    stating: Sequence[Collection[int]],
) -> _Run:
    """The best run of sentences for a claim (see the module docstring).

    The passages holding the most of the claim's words and figures, at most
    MAX_TIED_PASSAGES of them in page order; in each, every shortest run of sentences that
    still holds all the claim words the passage holds; of those, the run holding the most
    words and figures, then the shortest, then the first.
    """
    masks = [page.posting_masks.get(stem, 0) for stem in stems]
    masks += [page.passages_mask(s) for s in stating]  # the passages stating each figure
    best, most = most_covered(masks)
    if not best:
        return _NO_RUN
    tied = lowest(most, MAX_TIED_PASSAGES)
    sentences = page.sentences
    hits: dict[int, frozenset[str]] = {}  # sentence -> the claim stems it holds
    runs: dict[tuple[int, int], frozenset[str]] = {}
    for pid in tied:
        first, end = page.passages[pid]
        parts: list[frozenset[str]] = []
        for index in range(first, end):
            part = hits.get(index)
            if part is None:
                part = hits[index] = sentences[index].stems & stems
            parts.append(part)
        _shortest_runs(first, parts, runs)
    stated: dict[int, int] = {}
    best_key: tuple[int, int, int] | None = None
    for (a, b), held in runs.items():  # the first of the best, as min() picks it
        figures = _figures_in(sentences, a, b, numbers, stated)
        words = sum(s.words for s in sentences[a:b])
        key = (-(len(held) + figures), words, a)  # `_Run.score`, then the shortest, the first
        if best_key is None or key < best_key:
            best_key, chosen = key, (a, b, held, figures, words)
    return _Run(*chosen)


def _figures_in(
    sentences: Sequence[Sentence],
    first: int,
    end: int,
    numbers: Sequence[StatedNumber],
    stated: dict[int, int],
) -> int:
    """How many of `numbers` sentences first..end state; `stated`: sentence -> which of
    them it states (bit k: numbers[k]), filled in as sentences are first asked about."""
    found = 0
    for index in range(first, end):
        bits = stated.get(index)
        if bits is None:
            one = (sentences[index],)
            bits = stated[index] = sum(1 << k for k, n in enumerate(numbers) if holds(one, n))
        found |= bits
    return found.bit_count()


def _shortest_runs(
    first: int, parts: Sequence[frozenset[str]], runs: dict[tuple[int, int], frozenset[str]]
) -> None:
    """Add to `runs` every shortest run of the passage starting at sentence `first` (its
    sentences holding `parts` of the claim's stems) that holds all the stems it holds."""
    target = len(frozenset().union(*parts))
    count = len(parts)
    stops: list[int] = []  # start -> end of the shortest run holding `target`, or count + 1
    for start in range(count):
        held, stop = parts[start], start + 1
        while len(held) < target and stop < count:
            held, stop = held | parts[stop], stop + 1
        stops.append(stop if len(held) == target else count + 1)
    for a, b in enumerate(stops):
        if b > count:
            break  # no run from here on holds them all
        if min(stops[a + 1 : b], default=b + 1) > b:  # no later start ends by b
            runs[first + a, first + b] = frozenset().union(*parts[a:b])


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
    run: Sequence[Sentence], numbers: Sequence[StatedNumber], absent: Sequence[StatedNumber]
) -> list[str]:
    """Figures of the run of the sort of an absent claim figure (`figuretable.same_sort`: 3.3
    GHz is no rival of 0.41 s, "2.8x better" none of "Windows 8.1"), that the claim lacks."""
    claimed = claimed_values(numbers)
    out: dict[str, None] = {}
    for sentence in run:
        for number in sentence.numbers:
            if number.candidates.isdisjoint(claimed) and any(same_sort(a, number) for a in absent):
                out[number.text] = None
    return list(out)


def _percent(share: float) -> str:
    return f"{round(share * 100)}%"


@dataclass(frozen=True, slots=True)
class _Parsed:
    """A claim's text, figures and content words."""

    text: str
    norm: str
    """The text its figures were read from (number words as figures, ISO dates in words)."""
    numbers: list[StatedNumber]
    stems: frozenset[str]
    clauses: Clauses
    """`norm`'s clauses around its figures, read as this check asks."""


def _parse(claim: str) -> _Parsed:
    text = claim_text(claim)
    norm = spell_numbers(LINE_MARKER.sub(" ", text))
    raw = raw_numbers(norm, claim=True)
    numbers = [stated_number(r, count=counts_things(norm, r)) for r in raw]
    return _Parsed(text, norm, numbers, stems_of(blank_numbers(norm, raw)), Clauses(norm))


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
    stating: list[set[int]]
    """For each of the claim's figures, the sentences that state it."""


SUBJECT_SENTENCES = 3
"""A figure the page states in at least this many sentences, one of them in its lead (the
first LEAD_SENTENCES after the title block), is what the page is about ("Go 1.21"):
context for every passage, like the title block."""
LEAD_SENTENCES = 3


def _subject(page: PageIndex, stating: Collection[int]) -> bool:
    return len(stating) >= SUBJECT_SENTENCES and min(stating) < page.head + LEAD_SENTENCES


def _match(
    page: PageIndex, parsed: _Parsed, dated: Sequence[Sentence] = (), run: _Run | None = None
) -> _Match:
    """The passage matching the claim (or `run`) and where its figures are; `dated`: the
    dateline the cited address gives (`dateline`), context for every passage like the title
    block."""
    stems, numbers = parsed.stems, parsed.numbers
    head = (*page.sentences[: page.head], *dated)  # title, publisher, date
    stating = [page.figures.sentences_stating(n) for n in numbers]
    if run is None:
        run = _best_run(page, stems, numbers, stating)
    if run.end == run.first and stems & page.head_stems:
        run = _Run(0, page.head, frozenset(), 0, 0)  # only the title block matches
    tables = table_headers(page, run.first, run.end)  # "| Size | CPython 2.6.4 |"
    head = (*head, *tables)
    cut = lent_by_later(page.sentences, stems, numbers, stating, run.first, run.end, run.held)
    if cut is not None:  # a later paragraph lent it words: they are its own figure's
        run = _Run(run.first, cut[0], cut[1], run.figures, cut[2], cut=True)
    in_run = page.sentences[run.first : run.end]
    lent: list[frozenset[str]] = []  # words of sentences far off a figure is computed from
    context = (*head, *in_run, *rows_next_to(page, run.first, run.end, stems))
    shown = [holds(in_run, n) or holds(head, n) for n in numbers]  # in the passage or head
    derived = [
        n
        for n, s, here in zip(numbers, stating, shown, strict=True)
        if not here
        and (
            derived_here(n, context, parsed.norm, stems, numbers)
            or enumerated(page, parsed.norm, n)
            or (not s and computed_elsewhere(page, stems, parsed.norm, n, lent, numbers))
            or (s and computed_from_rows(page, stems, parsed.norm, n, lent))
        )
    ]
    held = run.held.union(stems & page.head_stems, *lent)
    if len(held) < SUPPORTED_COVERAGE * len(stems):  # a row's caption's words are its own
        held |= caption_words(page, run.first, run.end, stems)
    matched = len(held)
    missing = [
        n
        for n, s in zip(numbers, stating, strict=True)
        if not s
        and n not in derived
        and not holds(dated, n)
        and not glued_name(page, parsed.norm, n)  # "Visual Studio 2017" for "vs2017"
    ]
    elsewhere = [
        n
        for n, here in zip(numbers, shown, strict=True)
        if n not in missing and n not in derived and n.kind != "label" and not here
    ]
    absent = _absent(page, parsed, run, elsewhere, stating)
    return _Match(
        run=run,
        coverage=matched / len(stems) if stems else 0.0,
        matched=matched,
        missing=missing,
        elsewhere=elsewhere,
        absent=absent,
        conflicts=_conflicts(in_run, numbers, [*absent, *missing]),
        stating=stating,
    )


def _dated_next_door(n: StatedNumber, stating: Collection[int], run: _Run) -> bool:
    """Whether `n` is a year or a date stated right before or after the passage, which
    gives none the claim lacks: the next sentence goes on with the same account ("The
    crash rate was 0.8 in 2022. In 2023 it was 0.2.")."""
    return n.kind in ("year", "date") and bool({run.first - 1, run.end} & set(stating))


def _absent(
    page: PageIndex,
    parsed: _Parsed,
    run: _Run,
    elsewhere: Sequence[StatedNumber],
    stating: list[set[int]],
) -> list[StatedNumber]:
    """The figures stated outside the matching passage that count against the claim: a
    year or date only when the passage or title block gives one; the page's subject figure,
    or a year stated next to the passage, only when the passage gives a rival; and then
    when the passage gives a rival (`_conflicts`) or nothing binds the figure to the claim
    (`slots`)."""
    numbers, stems = parsed.numbers, parsed.stems
    head = page.sentences[: page.head]
    in_run = page.sentences[run.first : run.end]
    dated = any(
        m.kind in ("year", "date") for sentence in (*head, *in_run) for m in sentence.numbers
    )
    rest = stems - run.held
    passage = range(run.first, run.end)
    out: list[StatedNumber] = []
    for n, s in zip(numbers, stating, strict=True):
        if n not in elsewhere or (n.kind in ("year", "date") and not dated):
            continue
        if in_named_row(page, passage, stems, s):
            continue  # a row the claim names, of a table the passage shows, states it
        if _conflicts(in_run, numbers, [n]):
            out.append(n)
            continue
        if _subject(page, s) or _dated_next_door(n, s, run):
            continue
        weights = Weights(page, n, stems, numbers)
        if not (  # each is pure: the cheapest, and the most often true, asked first
            introduced(page, n, passage, rest, numbers, s)
            or loosely_bound(page, n, parsed.norm, numbers, s, weights)
            or anchored(page, n, rest, numbers, stating)
            or bound(page, n, numbers, s, weights)
        ):
            out.append(n)
    return out


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
    dated = dateline(source)
    found = _match(page, parsed, dated)
    support, reason = _judged(page, parsed, found)
    if support is not Support.SUPPORTED:
        chosen = _by_figures(page, parsed, found, dated)
        if chosen is not None:
            found, support, reason = chosen
    run = found.run
    numbers, stating = parsed.numbers, found.stating
    row = None
    if support is not Support.SUPPORTED:
        row = named_row(page, parsed.stems, numbers, stating, parsed.text)
    if row is not None:
        support, run = Support.SUPPORTED, _Run(row, row + 1, frozenset(), 0, 0)
        reason = "every figure in the table row the claim names"
    if support in (Support.SUPPORTED, Support.WEAK):  # a flip only turns these around
        flip = meaning_flip(parsed.numbers, parsed.clauses, page, range(run.first, run.end))
        flip = flip or contradicted(parsed.norm, parsed.numbers)  # "faster: 1.5 vs 1.7 GB/s"
        if flip is not None:
            support, reason = Support.UNSUPPORTED, f"meaning flipped: {flip}"
    focus = found.conflicts
    if support is Support.SUPPORTED:
        given = given_elsewhere(
            page,
            parsed.clauses,
            parsed.stems,
            parsed.numbers,
            found.stating,
            found.elsewhere,
            range(run.first, run.end),
        )
        if given is not None:
            support, reason = Support.UNSUPPORTED, given.reason
            run = _Run(given.sentence, given.sentence + 1, frozenset(), 0, 0)
            focus = [given.page_figure.text]
    context = [n for n in found.elsewhere if n not in found.absent]
    if context and support is Support.SUPPORTED:
        reason += f"; {_listed(context)} stated elsewhere on the page"
    return ClaimCheck(
        claim=parsed.text,
        source=source,
        support=support,
        coverage=round(found.coverage, 3),
        missing_numbers=[n.text for n in found.missing],
        numbers_elsewhere=[n.text for n in found.elsewhere],
        evidence=_evidence(page, run, focus) if run.end > run.first else "",
        reason=reason,
    )


def _by_figures(
    page: PageIndex, parsed: _Parsed, found: _Match, dated: Sequence[Sentence]
) -> tuple[_Match, Support, str] | None:
    """The match and verdict of the passage holding every figure (`figure_passage`) when
    that passage supports the claim (see the module)."""
    if found.missing:
        return None
    run = found.run
    if found.conflicts and found.coverage >= SUPPORTED_COVERAGE:
        if not ends_before_caption(page, run.first, run.end):
            return None  # the passage holding the claim's words gives other figures
    least = (WEAK_COVERAGE, SUPPORTED_COVERAGE, PINNING_SENTENCES)
    window = figure_passage(page, parsed.stems, parsed.numbers, found.stating, found, least)
    if window is None:
        return None
    other = _match(page, parsed, dated, _Run(*window, 0, 0))
    support, reason = _judged(page, parsed, other)
    return (other, support, reason) if support is Support.SUPPORTED else None


def _judged(page: PageIndex, parsed: _Parsed, found: _Match) -> tuple[Support, str]:
    """The verdict on a match (`_verdict`, then `_pinned_by_figures`) and its reason."""
    support, reason = _verdict(
        parsed.numbers,
        found.missing,
        found.absent,
        found.conflicts,
        parsed.stems,
        found.coverage,
        found.matched,
    )
    if support in (Support.WEAK, Support.UNSUPPORTED) and _pinned_by_figures(page, parsed, found):
        support = Support.SUPPORTED
        share = _percent(found.coverage)
        reason = f"every figure (one stated almost nowhere else) and {share} of the words"
    return support, reason


PINNING_SENTENCES = 2
"""A figure the page states in at most this many sentences pins the passage that holds it."""
PINNED_COVERAGE = 0.2
"""The share of the claim's words a passage pinned by such a figure needs."""


def _pinned_by_figures(page: PageIndex, parsed: _Parsed, found: _Match) -> bool:
    """Whether the passage holds every figure of the claim, one of them a figure the page
    states almost nowhere else, and at least PINNED_COVERAGE of its words, and no other
    sentence of the passage gives a figure of that sort the claim lacks: the figures then
    say which passage the claim restates, and the words only need to be partly there."""
    if found.missing or found.absent or found.conflicts or found.coverage < PINNED_COVERAGE:
        return False
    if found.run.cut:
        return False  # a later paragraph gave the claim words its figure's passage lacks
    pins = [
        (n, s)
        for n, s in zip(parsed.numbers, found.stating, strict=True)
        if n.kind not in ("year", "label", "version")
        and 0 < len(s) <= PINNING_SENTENCES
        and n not in found.elsewhere
    ]
    return bool(pins) and not any(
        _conflicts([page.sentences[i]], parsed.numbers, [n])
        for n, s in pins
        for i in range(found.run.first, found.run.end)
        if i not in s
    )


def quote_holds_quantity(quote: str, claim: str, *figures: str) -> bool:
    """Whether `quote` (say, a passage a judge quotes from the page) holds a quantity equal
    to each of the claim's `figures` (as the claim writes them: a check's
    `missing_numbers`), or, without `figures`, to every figure the claim states. False when
    the claim states none of a given figure, or no figure at all. Equal as the check
    compares figures: the same value (or within the claim's marked rounding), a percentage
    only as a percentage. The claim is parsed and the quote indexed once for all figures."""
    parsed = _parse(claim)
    numbers = parsed.numbers
    if figures:
        if not set(figures) <= {n.text for n in numbers}:
            return False
        numbers = [n for n in numbers if n.text in figures]
    if not numbers:
        return False
    page = index_page(quote)
    return all(
        page.states(n) or derivable_as_read(n, page.sentences, parsed.stems) for n in numbers
    )


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

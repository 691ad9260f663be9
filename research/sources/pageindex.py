"""A page's text prepared for many claim checks (pure: standard library only).

`index_page` reads a page's text once: sentences, passages (windows of up to
`PASSAGE_SENTENCES` consecutive sentences and `PASSAGE_WORDS` words), each sentence's
content words (stems) and figures, the title block, and inverted indexes stem ->
passages, stem -> sentences, and figure -> sentences.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from types import MappingProxyType
from typing import TypeVar
from urllib.parse import urlsplit

from research.sources.bitsets import mask_of
from research.sources.figures import (
    LINE_MARKER,
    StatedNumber,
    claimed_values,
    raw_numbers,
    stated_number,
)
from research.sources.figuretable import FigureTable
from research.sources.flips import Clause, clause_around, clause_breaks, read_clause
from research.sources.linemarks import BLOCK_MARK
from research.sources.quantities import unit_of
from research.sources.rawfigure import Value
from research.sources.rowlines import (
    block_header,
    cell_columns,
    first_cell,
    pipe_cells,
    row_lines,
    token_columns,
)
from research.sources.spelling import spell_numbers
from research.sources.words import blank_numbers, split_sentences, stems_of

PASSAGE_SENTENCES = 3
PASSAGE_WORDS = 80
HEAD_SENTENCES = 3
"""The title block: up to this many leading title-like lines (see `_title_like`)."""
HEAD_WORDS = 25
LEAD_SENTENCES = 6
"""A table is introduced by the sentences right before it, back to a heading or another
table, at most this many (its caption)."""

T = TypeVar("T")
_MARGIN = ("±", "+/-")
"""What an error margin is written after."""


@dataclass(frozen=True, slots=True)
class Sentence:
    text: str
    norm: str
    """The text its figures were read from (number words as figures); spans refer to it."""
    words: int
    stems: frozenset[str]
    numbers: tuple[StatedNumber, ...]
    values: frozenset[Value]
    """Every value its figures may mean (a fast path for `holds`)."""
    percents: frozenset[Value]
    """The same, of its percentages."""
    counts: frozenset[Value]
    """The same, of its figures that are no percentage (and every figure's `tokens`)."""
    label: frozenset[str] = frozenset()
    """A table row's (not its header's) first cell's stems: what its figures belong to."""
    lead: tuple[int, ...] = ()
    """The sentences that introduce it (`LEAD_SENTENCES`): a table row's, the sentences
    right before its table; a line's after a line ending with a colon, that line's last
    sentence."""
    line: int = 0
    """Which of the page's lines (`_lines`: a paragraph, a table row, a list item, a
    heading) it is part of."""
    columns: tuple[frozenset[str], ...] = ()
    """A table row's: for each of its figures, the stems of its column's header (empty
    when no header is known: `rowlines.cell_columns`, `rowlines.token_columns`)."""

    def inputs(self) -> tuple[StatedNumber, ...]:
        """Its figures less its error margins ("± 1.6%", "(+/- 9.9 %)"): a margin says how
        sure a figure is, it is no figure to compute another from (`research.sources.derived`)."""
        if "±" not in self.norm and "+/-" not in self.norm:
            return self.numbers
        norm = self.norm
        return tuple(f for f in self.numbers if not norm[: f.span[0]].rstrip().endswith(_MARGIN))


@dataclass(slots=True)
class PageMemo:
    """Answers about a page's own sentences and words that claim checks ask again and again,
    kept once computed: each depends on the page alone, never on the claim that asked."""

    clauses: dict[tuple[int, int], tuple[Clause, frozenset[str]]] = field(default_factory=dict)
    """(sentence, figure) -> `PageIndex.clause_of`."""
    clause_reads: dict[str, tuple[Clause, frozenset[str]]] = field(default_factory=dict)
    """A clause's text -> it read, and its stems (two figures of one clause share it)."""
    breaks: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    """Sentence -> where it breaks into clauses (`flips.clause_breaks`)."""
    rarities: dict[str, float] = field(default_factory=dict)
    """Stem -> its weight (`binding._rarity`)."""
    near: dict[int, list[frozenset[str]]] = field(default_factory=dict)
    """Sentence -> the words next to each of its figures (`slots._near_words`)."""
    reach: dict[str, frozenset[int]] = field(default_factory=dict)
    """Stem -> the sentences whose context may hold it (`binding._reach`)."""
    rows: object = None
    """The rows a claim may name (`namedrows.named_rows`), once built."""
    prose_with: dict[tuple[str, ...], dict[int, bool]] = field(default_factory=dict)
    """Kinds of figure -> sentence -> whether it is after the title block, no table row, and
    gives one of those kinds (`computed._prose_with`), for the sentences asked about."""
    introduces: dict[int, tuple[int, ...]] | None = None
    """Sentence -> the table rows it introduces (`PageIndex.rows_introduced_by`), once built."""
    derived: dict[object, dict[object, tuple[float, ...]]] = field(default_factory=dict)
    """(way, cues) -> sentences -> the values `derived.derivable` computes from the
    sentences' figures, sorted (`computed._derives`)."""
    parts: dict[int, tuple[object, ...]] = field(default_factory=dict)
    """Sentence -> its clauses that state a figure, read (`roles._Part`)."""


@dataclass(frozen=True, slots=True, eq=False)
class PageIndex:
    """A page's text prepared for many claim checks; immutable once built (`index_page`) but
    for `memo`."""

    sentences: tuple[Sentence, ...]
    head: int
    """How many leading sentences form the title block (title, publisher, date)."""
    head_stems: frozenset[str]
    """The title block's stems."""
    passages: tuple[tuple[int, int], ...]
    """(first sentence, end sentence) of each window after the title block, maximal."""
    postings: Mapping[str, tuple[int, ...]]
    """Stem -> the passages that hold it."""
    posting_masks: Mapping[str, int]
    """The same as sets (`research.sources.bitsets`)."""
    figures: FigureTable
    """The figures of every sentence, the title block's included."""
    sentence_passages: tuple[tuple[int, ...], ...]
    """Sentence -> the passages that hold it."""
    sentence_masks: tuple[int, ...]
    """The same as sets (`research.sources.bitsets`)."""
    sentence_postings: Mapping[str, tuple[int, ...]]
    """Stem -> the sentences that hold it (a table row's header stems included)."""
    label_postings: Mapping[str, tuple[int, ...]]
    """Stem -> the table rows with a `lead` whose first cell (`Sentence.label`) holds it."""
    labelled: frozenset[int] = frozenset()
    """The table rows with a label (`Sentence.label`)."""
    memo: PageMemo = field(default_factory=PageMemo, repr=False)
    """What claims have asked of its sentences and words."""

    @property
    def empty(self) -> bool:
        """Whether the page has no words to match (no text, or only figures and symbols)."""
        return not self.postings and not self.head_stems

    def states(self, number: StatedNumber) -> bool:
        """Whether the page states `number` anywhere (a percentage must be one here too)."""
        return bool(self.figures.sentences_stating(number))

    def clause_of(self, index: int, figure: int) -> tuple[Clause, frozenset[str]]:
        """The clause of sentence `index` around its `figure`-th figure, read for
        `flips.flipped_clauses`, and its stems."""
        memo = self.memo
        found = memo.clauses.get((index, figure))
        if found is None:
            sentence = self.sentences[index]
            breaks = memo.breaks.get(index)
            if breaks is None:
                breaks = memo.breaks[index] = clause_breaks(sentence.norm)
            text = clause_around(sentence.norm, *sentence.numbers[figure].span, breaks)
            found = memo.clause_reads.get(text)
            if found is None:
                found = memo.clause_reads[text] = (read_clause(text), stems_of(text))
            memo.clauses[index, figure] = found
        return found

    def passages_mask(self, sentences: Iterable[int]) -> int:
        """The passages that hold any of `sentences`, as a set (`research.sources.bitsets`)."""
        found = 0
        for index in sentences:
            found |= self.sentence_masks[index]
        return found

    def rows_introduced_by(self, index: int) -> tuple[int, ...]:
        """The table rows whose `Sentence.lead` holds sentence `index` (a table's caption,
        the paragraph ending with a colon above a program's output)."""
        found = self.memo.introduces
        if found is None:
            built: dict[int, list[int]] = {}
            for row in sorted(self.labelled):
                for lead in self.sentences[row].lead:
                    built.setdefault(lead, []).append(row)
            found = self.memo.introduces = {k: tuple(v) for k, v in built.items()}
        return found.get(index, ())

    def passages_of(self, sentences: Iterable[int]) -> set[int]:
        """The passages that hold any of `sentences`."""
        found: set[int] = set()
        for index in sentences:
            found.update(self.sentence_passages[index])
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


def _sentence(text: str, line: int = 0, reading: str | None = None) -> Sentence:
    """A sentence of the page; `reading`: the text its figures are read from, when that
    differs from what the page shows (a table cell with its column's unit)."""
    norm = spell_numbers(LINE_MARKER.sub(" ", text if reading is None else reading))
    raw = raw_numbers(norm)
    numbers = tuple(stated_number(r) for r in raw)
    return Sentence(
        text=text,
        norm=norm,
        words=len(text.split()),
        stems=stems_of(blank_numbers(norm, raw)),
        numbers=numbers,
        values=claimed_values(numbers),
        percents=frozenset(
            v for n in numbers for v in n.candidates if n.kind == "percent" or v in n.tokens
        ),
        counts=frozenset(
            v for n in numbers for v in n.candidates if n.kind != "percent" or v in n.tokens
        ),
        line=line,
    )


def union(sets: Iterable[frozenset[T]]) -> set[T]:
    out: set[T] = set()
    for part in sets:
        out |= part
    return out


def _title_like(sentence: Sentence) -> bool:
    """A title, a byline or a dateline: short, not ended like a sentence, no table row and
    no list item (a schedule's "- alpha 1: Tuesday, 2021-10-05" is content)."""
    return (
        sentence.words <= HEAD_WORDS
        and not sentence.text.endswith((".", "!", "?", ":"))
        and not sentence.text.startswith("|")
        and not LINE_MARKER.match(sentence.text)
    )


def _postings(groups: Iterable[Iterable[T]]) -> Mapping[T, tuple[int, ...]]:
    """Key -> the positions of the groups that hold it."""
    found: dict[T, list[int]] = {}
    for position, keys in enumerate(groups):
        for key in keys:
            found.setdefault(key, []).append(position)
    return MappingProxyType({key: tuple(ids) for key, ids in found.items()})


_TABLE_RULE = re.compile(r"\|?(?:\s*:?-{2,}:?\s*\|)+\s*:?-*:?\s*")
_GRID_RULE = re.compile(r"\+(?:[-=:]{2,}\+)+\s*")
"""A reStructuredText grid table's rule line ("+=====+=====+" under its header)."""


def _headed(first: str, after: Sequence[tuple[str, str | None]]) -> bool:
    """Whether a pipe table's first line (`first`, with the line after it) is its header:
    a rule line follows it ("|---|", "+===+"), or no cell but its first is a bare figure
    (a table converted without its header, "| PostgreSQL: | 4.373 |", starts with a row)."""
    if after and (_TABLE_RULE.fullmatch(after[0][0]) or _GRID_RULE.fullmatch(after[0][0])):
        return True
    return not any(_BARE_CELL.fullmatch(cell) for cell in pipe_cells(first)[1:])


_BLOCK_LINE = re.compile(rf"^\s*{BLOCK_MARK}")


def _lines(text: str) -> Iterator[tuple[str, str | None]]:
    """The page's lines, a hard-wrapped paragraph's joined into one (a line that does not
    end a sentence, followed by a line that starts in lowercase, continues it); table
    rows, list items, headings and rows written without pipes (`rowlines`) stay lines of
    their own. Each with its row label (`rowlines.row_lines`) or None."""
    raws = [raw.strip() for raw in text.splitlines()]
    labels = row_lines(raws)
    pending = ""
    pending_row: str | None = None
    for line, label in zip(raws, labels, strict=True):
        if not line:
            if pending:
                yield pending, pending_row
            pending, pending_row = "", None
            continue
        continues = (
            pending
            and label is None
            and pending_row is None
            and not pending.endswith((".", "!", "?", ":", "|"))
            and not _BLOCK_LINE.match(pending)
            and not _BLOCK_LINE.match(line)
            and (line[0].islower() or line[0].isdigit() or line[0] in "(~\"'\u201c")
        )
        if continues:
            pending = f"{pending} {line}"
            continue
        if pending:
            yield pending, pending_row
        pending, pending_row = line, label
    if pending:
        yield pending, pending_row


def _page_sentences(text: str) -> tuple[Sentence, ...]:
    """The page's sentences; a table row's words include its header row's (a row says
    "| memcpy | 13700 MB/s |", its header what the figure is: "Decompression"), a bare
    figure in a column whose header gives a unit ("Memory (MB)") is read with that unit,
    and each row and each line after a colon knows the sentences that introduce it
    (`lead`)."""
    out: list[Sentence] = []
    header: frozenset[str] | None = None
    heading: str | None = (
        None  # a table's header line, or a block of rows' (`rowlines.block_header`)
    )
    units: list[str | None] = []
    lead: tuple[int, ...] = ()
    in_rows = False  # the previous line was a row written without pipes
    lines = list(_lines(text))
    for number, (line, row) in enumerate(lines):
        if _GRID_RULE.fullmatch(line):
            continue  # a grid table's "+----+----+" between its rows: no words, no figures
        if not line.startswith("|"):
            header = None
        elif _TABLE_RULE.fullmatch(line):
            continue  # "|---|---|": no words, no figures; it would only push rows apart
        if line.startswith("|") and header is None:
            lead, units, heading = _caption(out), column_units(line), line
            if not _headed(line, lines[number + 1 : number + 2]):
                header, units, heading = frozenset(), [], None  # its first line is a row
        elif row is not None and not in_rows:
            lead, heading = _row_caption(out), _row_header(out)
        elif row is None and not line.startswith("|"):
            lead = (len(out) - 1,) if out and out[-1].text.endswith(":") else ()
        in_rows = row is not None
        reading = with_units(line, units) if header is not None and any(units) else None
        for piece in split_sentences(line):
            for chunk in _chunks(piece):
                read = reading if chunk == line else None  # a row read with its units
                sentence = replace(_sentence(chunk, number, read), lead=lead)
                if header is None and line.startswith("|"):
                    header = sentence.stems
                elif header is not None and line.startswith("|"):
                    label = stems_of(first_cell(line))
                    sentence = replace(sentence, stems=sentence.stems | header, label=label)
                    sentence = _with_columns(sentence, cell_columns, heading)
                elif row is not None:
                    sentence = replace(sentence, label=stems_of(row))
                    sentence = _with_columns(sentence, token_columns, heading)
                out.append(sentence)
    return tuple(out)


def _with_columns(
    sentence: Sentence,
    columns: Callable[[str, str, Sequence[tuple[int, int]]], tuple[str, ...]],
    heading: str | None,
) -> Sentence:
    """`sentence` (a table row) with its figures' column headers read by `columns`."""
    if not heading or not sentence.numbers:
        return sentence
    found = columns(heading, sentence.norm, [n.span for n in sentence.numbers])
    return replace(sentence, columns=tuple(stems_of(c) for c in found)) if found else sentence


def _row_header(before: Sequence[Sentence]) -> str | None:
    """The header line of a block of rows written without pipes starting after `before`."""
    near = before[max(0, len(before) - LEAD_SENTENCES) :]
    return block_header([(s.text, _title_like(s), bool(s.numbers)) for s in reversed(near)])


def _row_caption(before: Sequence[Sentence]) -> tuple[int, ...]:
    """The sentences that introduce a block of rows written without pipes (`rowlines`):
    back over rule lines (no words), at most LEAD_SENTENCES, to a heading (included: a
    program's output is often introduced by its command or a comment, with what introduces
    that line in turn, "Let's time find:") or a row."""
    first = len(before)
    while first > 0 and not before[first - 1].stems and not before[first - 1].numbers:
        first -= 1
    end = first
    while first > max(0, end - LEAD_SENTENCES):
        previous = before[first - 1]
        if previous.label or previous.text.startswith("|"):
            break
        first -= 1
        if _title_like(previous):
            return (*_heading_lead(before, first, end), *range(first, end))
    return tuple(range(first, end))


def _heading_lead(before: Sequence[Sentence], first: int, end: int) -> tuple[int, ...]:
    """What introduces the heading `before[first]` of a block of rows: its own `lead` (the
    line ending with a colon right above it), or that of the title-like lines right above
    it, back to the first that has one, within LEAD_SENTENCES of the block (a program's
    output under "Importing crunch_primes" under "cmd: run_benchmarks.py crunch_primes.py"
    under "The third test sums the primes below 100000::")."""
    index = first
    while index >= max(0, end - LEAD_SENTENCES):
        sentence = before[index]
        if sentence.lead:
            return (*sentence.lead, *range(index, first))
        if index == 0 or not _title_like(before[index - 1]) or before[index - 1].label:
            break
        index -= 1
    return ()


_HEADER_UNIT = re.compile(r"[(\[]\s*([^()\[\]]{1,16}?)\s*[)\]]")
_BARE_CELL = re.compile(r"\s*~?\d[\d,]*(?:\.\d+)?\s*")


def column_units(header: str) -> list[str | None]:
    """The unit each column's header gives in parentheses or brackets ("Memory (MB)",
    "Time [s]") or after its last comma ("Compile Time, s", "Release,MB/s"), or None, for
    the cells of a table row ("| a | b |")."""
    cells = pipe_cells(header)
    out: list[str | None] = []
    for cell in cells:
        named = [m.group(1) for m in _HEADER_UNIT.finditer(cell) if unit_of(m.group(1))]
        if not named and "," in cell:
            tail = cell.rsplit(",", 1)[1].strip()
            named = [tail] if tail and unit_of(tail) else []
        out.append(named[-1] if len(named) == 1 else None)
    return out


def with_units(row: str, units: Sequence[str | None]) -> str:
    """`row` with each bare figure cell followed by its column's unit ("| 512 |" under
    "Memory (MB)" reads "| 512 MB |"); cells that say more are left as they are."""
    cells = pipe_cells(row)
    if len(cells) != len(units):
        return row
    read = [
        f"{cell.rstrip()} {unit} " if unit and _BARE_CELL.fullmatch(cell) else cell
        for cell, unit in zip(cells, units, strict=True)
    ]
    return "|" + "|".join(read) + "|"


def _caption(before: Sequence[Sentence]) -> tuple[int, ...]:
    """The sentences that introduce a table after `before`: back to a heading or a table
    row, at most LEAD_SENTENCES."""
    first = len(before)
    while (
        first > max(0, len(before) - LEAD_SENTENCES)
        and not before[first - 1].text.startswith("|")
        and not _title_like(before[first - 1])
    ):
        first -= 1
    if first == len(before) and first > 0 and _title_like(before[first - 1]):
        first -= 1  # the table's own title right above it ("iPhone (Apple A14, clang 12)")
        return (*_heading_lead(before, first, len(before)), *range(first, len(before)))
    return tuple(range(first, len(before)))


def _title_block(sentences: Sequence[Sentence]) -> int:
    """How many leading sentences are title-like (at most HEAD_SENTENCES, never all)."""
    head = 0
    while head < min(HEAD_SENTENCES, len(sentences) - 1) and _title_like(sentences[head]):
        head += 1
    return head


def _passages(sentences: Sequence[Sentence], head: int) -> list[tuple[int, int]]:
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
    postings = _postings(union(s.stems for s in span) for span in spans)
    sentence_passages = _sentence_passages(len(sentences), passages)
    return PageIndex(
        sentences=sentences,
        head=head,
        head_stems=frozenset(union(s.stems for s in sentences[:head])),
        passages=tuple(passages),
        postings=postings,
        posting_masks=MappingProxyType({k: mask_of(v) for k, v in postings.items()}),
        figures=FigureTable.of([s.numbers for s in sentences]),
        sentence_passages=sentence_passages,
        sentence_masks=tuple(mask_of(pids) for pids in sentence_passages),
        sentence_postings=_postings(s.stems for s in sentences),
        label_postings=_postings(s.label if s.lead else () for s in sentences),
        labelled=frozenset(i for i, s in enumerate(sentences) if s.label),
    )


def _sentence_passages(
    count: int, passages: Sequence[tuple[int, int]]
) -> tuple[tuple[int, ...], ...]:
    found: list[list[int]] = [[] for _ in range(count)]
    for pid, (first, end) in enumerate(passages):
        for index in range(first, end):
            found[index].append(pid)
    return tuple(tuple(pids) for pids in found)


_PATH_DATE = re.compile(r"/((?:19|20)\d\d)(?:/(0[1-9]|1[0-2])(?:/(0[1-9]|[12]\d|3[01]))?)?(?=/|$)")


def dateline(address: str) -> tuple[Sentence, ...]:
    """The date a cited address states in its path ("/2017/09/05/", "/2019/"): a blog's or
        a newspaper's dateline, which its template shows beside the text and the text need
        not repeat. Read as sentences (the year, then the date), context for every passage like
    the title block."""
    found = _PATH_DATE.search(urlsplit(address).path) if address else None
    if found is None:
        return ()
    year, month, day = found.groups()
    if month is None:
        return (_date_sentence(year),)
    text = f"{year}-{month}-{day}" if day else f"{year}-{month}"
    return (_date_sentence(year), _date_sentence(text))


@lru_cache(maxsize=1024)
def _date_sentence(text: str) -> Sentence:
    """A date of a cited address read as a sentence (immutable), once: the claims citing
    an address each ask for its date."""
    return _sentence(text)


def holds(run: Sequence[Sentence], number: StatedNumber) -> bool:
    """Whether a sentence of `run` states `number`."""
    if number.quantity is None and number.band is None and not number.multiple:
        if number.kind == "percent":
            return any(not number.candidates.isdisjoint(s.percents) for s in run)
        if number.count:
            return any(not number.candidates.isdisjoint(s.counts) for s in run)
        return any(not number.candidates.isdisjoint(s.values) for s in run)
    return any(number.matches(figure) for sentence in run for figure in sentence.numbers)

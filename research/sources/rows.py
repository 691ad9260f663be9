"""A claim's figure that a table gives to another row than the one the claim names (pure:
standard library only).

A table binds each figure to its row's label (`Sentence.label`: a pipe row's first cell, a
row written without pipes' label, `rowlines`) and to its column. A changed figure taken
from a table is usually the next row's, same column: "strtod parsed 225.35 MB/s" where
the page's output says "doubleconversion : 225.35 MB/s" and "strtod : 190.94 MB/s". The
check (`other_row`): a claim figure that the page states only in table rows, none of which
the claim names (all the label's words among the claim's), while a row of the same table
that the claim does name gives, in the same place, a figure of the same sort the claim
lacks: the page gives that figure to the claim's row. Magnitudes are not compared: the
column says the two figures are of one sort. The same the other way (`other_column`): a
figure of a row the claim names, in a column whose header it does not name, while it
names one other column of the row, holding a figure of the same sort it lacks
(`Sentence.columns`). And `passage_row`: a figure stated only in rows outside the
matching passage, while a row the passage introduces, with the same label, gives another.
And `other_table`: a figure of a row the claim names, while the row with that label in
another table, whose caption names more of the claim's words and figures, gives another
(the same benchmark on the machine the claim names). Two of the claim's cells swapped: a
row it names states them in the columns other than those its words next to each name
(`swapped_cells`), or rows of one table state them that its words next to each name the
other way round (`swapped_rows`); the words next to a figure are its clause's, or those
on the side of it where the claim writes the names.
The other way round (`named_row`), the only row the claim names that holds all its
figures is the passage the claim restates; and a figure stated outside the matching
passage in a row the claim names, whose label no other row of its table has, of a table
the passage introduces or holds a row of, is bound to the claim (`in_named_row`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator, Sequence
from itertools import zip_longest

from research.sources.figures import StatedNumber, claimed_values
from research.sources.figuretable import same_sort
from research.sources.flips import clause_breaks, clause_span
from research.sources.namedrows import SQUASHED_LETTERS
from research.sources.pageindex import LEAD_SENTENCES, PageIndex, Sentence
from research.sources.rawfigure import Value
from research.sources.slots import Given, same_lead_side
from research.sources.words import stems_of

_SKIPPED = frozenset({"year", "label"})
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


def given_by_table(
    page: PageIndex,
    passage: range,
    claim: tuple[str, frozenset[str]],
    numbers: Sequence[StatedNumber],
    stating: Sequence[Collection[int]],
) -> Given | None:
    """`other_row`, `other_column`, `other_table`, `swapped_cells`, `swapped_rows` or
    `passage_row`, for a
    claim (its text as its figures were read, its content words) with a figure stated in a
    table row (none of them reads any other)."""
    if all(page.labelled.isdisjoint(mine) for mine in stating):
        return None
    text, stems = claim
    names = stems | squashed_stems(text)  # "in-situ", "in-place" name "insitu", "_inplace"
    return (
        other_row(page, names, numbers, stating)
        or other_column(page, names, numbers, stating)
        or other_table(page, stems, numbers, stating)
        or swapped_cells(page, text, names, numbers, stating)
        or swapped_rows(page, text, numbers, stating)
        or passage_row(page, passage, stems, numbers, stating)
    )


def other_row(
    page: PageIndex,
    stems: frozenset[str],
    numbers: Sequence[StatedNumber],
    stating: Sequence[Collection[int]],
) -> Given | None:
    """The first of the claim's figures that the page states only in rows the claim does not
    name, with the figure a row it names gives in the same place. `stems`: the claim's
    content words (and its words squashed, `squashed_stems`); `stating`: the sentences
    stating each of `numbers`."""
    claimed = claimed_values(numbers)
    counts = claimed_values([n for n in numbers if n.count])
    for number, mine in zip(numbers, stating, strict=True):
        if number.kind in _SKIPPED or not mine or not page.labelled.issuperset(mine):
            continue  # stated in prose too
        if any(_names(page, i, stems) for i in mine):
            continue  # stated in a row the claim names
        for index in sorted(mine):
            found = _named_rival(page, index, number, stems, (claimed, counts))
            if found is not None:
                return found
    return None


def passage_row(
    page: PageIndex,
    run: range,
    stems: frozenset[str],
    numbers: Sequence[StatedNumber],
    stating: Sequence[Collection[int]],
) -> Given | None:
    """The first of the claim's figures stated only in rows that the matching passage
    (`run`) does not introduce (`Sentence.lead`; they may be in it, the last rows of the
    table before its caption), while a row it does introduce with the same label gives a
    figure of the same sort in the same place: the passage describes another run of the
    same program ("Time (mean ± σ): 14.210 s" of the first benchmark for a claim that
    matches the second's description)."""
    sentences = page.sentences
    ours = [
        i
        for i in range(run.stop, min(len(sentences), run.stop + 2 * LEAD_SENTENCES))
        if sentences[i].label and not set(sentences[i].lead).isdisjoint(run)
    ]
    if not ours:
        return None
    claimed = claimed_values(numbers)
    for number, mine in zip(numbers, stating, strict=True):
        if number.kind in _SKIPPED or not mine:
            continue
        if any(
            i not in page.labelled or i in ours or not set(sentences[i].lead).isdisjoint(run)
            for i in mine
        ):
            continue  # stated in prose too, or in a row the passage introduces
        given = _same_label_row(page, number, mine, ours, claimed)
        if given is not None and not _captioned_as_well(page, mine, given.sentence, stems):
            return given
    return None


def _captioned_as_well(
    page: PageIndex, mine: Collection[int], other: int, stems: frozenset[str]
) -> bool:
    """Whether a row of `mine` has a title (the last sentence of its `Sentence.lead`, right
    above its table) holding more of the claim's words (`stems`) than row `other`'s: the
    passage ends with the next table's title ("twitter.json deserialization") while the
    claim names the table its rows are in ("Serializing twitter.json")."""
    theirs = len(_title_words(page, other, stems))
    return any(
        len(_title_words(page, index, stems)) > theirs
        for index in mine
        if page.sentences[index].lead
    )


def _title_words(page: PageIndex, index: int, stems: frozenset[str]) -> frozenset[str]:
    """The claim's words (`stems`) that the title of row `index`'s table holds (the last
    sentence of its `Sentence.lead`; `caption_words` reads all of it)."""
    lead = page.sentences[index].lead
    return stems & page.sentences[lead[-1]].stems if lead else frozenset()


def _same_label_row(
    page: PageIndex,
    number: StatedNumber,
    mine: Collection[int],
    ours: Sequence[int],
    claimed: frozenset[Value],
) -> Given | None:
    """The first row of `ours` (those the passage introduces) with the label of a row of
    `mine` (those stating `number`) that gives a figure of its sort in its place."""
    sentences = page.sentences
    for index in sorted(mine):
        row = sentences[index]
        for other in ours:
            if sentences[other].label == row.label:
                found = _in_place(row, number, sentences[other], claimed)
                if found is not None:
                    return Given(number, found, other)
    return None


def other_column(
    page: PageIndex,
    stems: frozenset[str],
    numbers: Sequence[StatedNumber],
    stating: Sequence[Collection[int]],
) -> Given | None:
    """The first of the claim's figures stated in a row the claim names, in a column it does
    not name, while it names another column of that row (the one whose header's words the
    claim holds the most of, `Sentence.columns`) holding a figure of the same sort the
    claim lacks, and no row it names states it in the column it names: "On x86, SIGUSR1 is
    signal 30" where 30 is its Alpha number and 10 its x86 one; "compact ms" names
    "compact (ms)" rather than "pretty (ms)"."""
    claimed = claimed_values(numbers)
    for number, mine in zip(numbers, stating, strict=True):
        if number.kind in _SKIPPED:
            continue
        found: Given | None = None
        for index in sorted(page.labelled.intersection(mine)):
            row = page.sentences[index]
            if not row.columns or not row.label <= stems:
                continue
            named, places = _named_columns(row, number, stems)
            if places & named:
                found = None  # a row it names states it where it says
                break
            if found is None and named:
                theirs = _in_column(row, places, named, claimed)
                found = None if theirs is None else Given(number, theirs, index)
        if found is not None:
            return found
    return None


def _named_columns(
    row: Sentence, number: StatedNumber, stems: frozenset[str]
) -> tuple[set[int], set[int]]:
    """(the columns of `row` the claim names: those whose header's words, other than the
    row's label's, it holds the most of, when they have one header; the places where `row`
    states `number`)."""
    told = stems - row.label  # the words naming the row do not name a column
    held = [len(words & told) for words in row.columns]
    most = max(held, default=0)
    named = {i for i, count in enumerate(held) if count == most and count}
    places = {i for i, figure in enumerate(row.numbers) if number.matches(figure)}
    if len({row.columns[i] for i in named}) != 1 or any(i >= len(row.columns) for i in places):
        named = set()  # several headers named as much, or a figure past the header
    return named, places


def _in_column(
    row: Sentence, places: set[int], named: set[int], claimed: frozenset[Value]
) -> StatedNumber | None:
    """The figure of a named column of `row` of the sort of the claim's (at `places`)."""
    for place in sorted(places):
        for column in sorted(named):
            theirs = row.numbers[column]
            if same_sort(row.numbers[place], theirs) and theirs.candidates.isdisjoint(claimed):
                return theirs
    return None


def _named_rival(
    page: PageIndex,
    index: int,
    number: StatedNumber,
    stems: frozenset[str],
    values: tuple[frozenset[Value], frozenset[Value]],
) -> Given | None:
    """The figure in `number`'s place in a row of `index`'s table that the claim names.
    `values`: the values of the claim's figures, and of those it states as counts."""
    row = page.sentences[index]
    claimed, counts = values
    for other in _same_table(page, index):
        if _names(page, other, stems) and _keeps_claimed(
            row, number, page.sentences[other], counts
        ):
            found = _in_place(row, number, page.sentences[other], claimed)
            if found is not None:
                return Given(number, found, other)
    return None


def _keeps_claimed(
    row: Sentence, number: StatedNumber, other: Sentence, counts: frozenset[Value]
) -> bool:
    """Whether row `other` states a count of the claim (`counts`: "eight threads") wherever
    `row` states one but `number`: "threaded (8 threads) 5.109192 seconds" is the row of a
    claim about eight threads, "threaded (4 threads) 2.455215 seconds" is not, though both
    are labelled "threaded"."""
    if not counts:
        return True
    for place, figure in enumerate(row.numbers):
        if figure.candidates & counts and not number.matches(figure):
            theirs = _same_column(row, place, other)
            if theirs is None or not theirs.candidates & counts:
                return False
    return True


def _names(page: PageIndex, index: int, stems: frozenset[str]) -> bool:
    """Whether the claim (its `stems`) names row `index`: all its label's words, and no row
    of its table with more words that the claim names too ("monotonic_ns()" names that
    row, not "monotonic()", whose words it also holds)."""
    label = page.sentences[index].label
    if not label or not label <= stems:
        return False
    return not any(
        label < page.sentences[other].label <= stems for other in _same_table(page, index)
    )


def _in_place(
    row: Sentence, number: StatedNumber, other: Sentence, claimed: frozenset[Value]
) -> StatedNumber | None:
    """The figure of row `other` in the place where `row` states `number`, when it is of the
    same sort and the claim lacks it: in the same column (`Sentence.columns`: "| Boost
    Format 1.88 | boost::format | 3.89 |" has a figure in its first cell that "| Folly
    Format | folly::format | 1.28 |" lacks), or, without headers, at the same position of
    a row of the same shape."""
    for place, figure in enumerate(row.numbers):
        if not number.matches(figure):
            continue
        theirs = _same_column(row, place, other)
        if (
            theirs is not None
            and same_sort(figure, theirs)
            and theirs.candidates.isdisjoint(claimed)
        ):
            return theirs
    return None


def _same_column(row: Sentence, place: int, other: Sentence) -> StatedNumber | None:
    """The figure of `other` in the column of `row`'s figure at `place` (by its header
    when that names one column only, else by position in rows of the same shape)."""
    same_shape = len(other.numbers) == len(row.numbers)
    if same_shape and other.columns == row.columns:
        return other.numbers[place]  # the common case: one table's rows alike
    if len(row.columns) == len(row.numbers) and len(other.columns) == len(other.numbers):
        header = row.columns[place]
        if header and row.columns.count(header) == 1:
            if other.columns.count(header) != 1:
                return None
            return other.numbers[other.columns.index(header)]
    if not same_shape:
        return None
    return other.numbers[place]


def _same_table(page: PageIndex, index: int) -> Iterator[int]:
    """The other rows of `index`'s table: the rows next to it with the same introduction
    (`Sentence.lead`) and a label (`slots.same_lead_side`), nearest first."""
    before, after = (same_lead_side(page, index, step, labelled=True) for step in (-1, 1))
    for pair in zip_longest(before, after):
        yield from (other for other in pair if other is not None)


def named_row(
    page: PageIndex,
    stems: frozenset[str],
    numbers: Sequence[StatedNumber],
    stating: Sequence[Collection[int]],
    text: str,
) -> int | None:
    """A table row whose first cell the claim names (all its words, or its words squashed:
    "in-place" names "rapidjson_inplace") and that holds every figure of the claim but its
    years, itself or in its caption (`Sentence.lead`: "with g++ 8.2:"), one of them
    itself, the only row with that first cell: the row is the passage, whatever else the
    claim says around it ("a plain memcpy ran at 13.7 GB/s" for "| memcpy | 13700 MB/s
    |"). `stems`: the claim's content words; `text`: the claim; `stating`: the sentences
    stating each of `numbers`."""
    figures = [s for n, s in zip(numbers, stating, strict=True) if n.kind != "year"]
    if not figures or any(not s for s in stating):
        return None
    own = set().union(*figures)
    rows = set.intersection(*(_with_introduced(page, s) for s in figures)) & own
    if not rows:
        return None
    names = stems | squashed_stems(text)
    for index in sorted(rows):
        label = page.sentences[index].label
        if label and label <= names and _one_row_named(page, label):
            return index
    return None


_JOINED = re.compile(r"[^\W_]+(?:[-_.][^\W_]+)+")
"""A word joined by hyphens, underscores or dots ("in-situ", "compile_commands.json")."""


def squashed_stems(text: str) -> frozenset[str]:
    """A claim's joined words squashed ("in-situ": "insitu") and their stems ("in-place":
    "inplac", as "rapidjson_inplace" is read), of at least SQUASHED_LETTERS."""
    joined = _JOINED.findall(text)
    if not joined:
        return frozenset()
    squashed = [_NOT_ALNUM.sub("", word.lower()) for word in joined]
    kept = [word for word in squashed if len(word) >= SQUASHED_LETTERS]
    return frozenset(kept) | stems_of(" ".join(kept)) if kept else frozenset()


def _with_introduced(page: PageIndex, stating: Collection[int]) -> set[int]:
    """The sentences stating a figure and the pipe table rows they introduce (a caption's
    figure; a block of rows written without pipes has its header line among its caption,
    whose figures name columns: "Version 3.10 cold 3.10 hot 3.11")."""
    out = set(stating)
    for index in stating:
        out.update(i for i in page.rows_introduced_by(index) if page.sentences[i].text[:1] == "|")
    return out


def _one_row_named(page: PageIndex, label: frozenset[str]) -> bool:
    """Whether only one table row of the page has this first cell (a tool in one table, not
    in each of several benchmarks)."""
    rarest = min(label, key=lambda stem: len(page.sentence_postings.get(stem, ())))
    named = page.sentence_postings.get(rarest, ())
    return sum(page.sentences[i].label == label for i in named) == 1


def in_named_row(
    page: PageIndex, passage: range, stems: frozenset[str], mine: Collection[int]
) -> bool:
    """Whether a claim figure stated outside the matching passage (`passage`) is stated in a
    table row the claim names (all its label's words), of a table the passage introduces or
    holds a row of, and no other row of that table has the label: the row binds the figure
    to the claim, whatever another row of the passage gives ("| json | 17 |" below "|
    orjson | 0 |" for a claim about json's 17). `mine`: the sentences stating the figure."""
    sentences = page.sentences
    for index in sorted(page.labelled.intersection(mine)):
        row = sentences[index]
        if not row.lead or not _names(page, index, stems):
            continue
        if any(sentences[i].label == row.label for i in _same_table(page, index)):
            continue  # rows told apart by figures only ("zlib -1", "zlib -6")
        if not set(row.lead).isdisjoint(passage) or any(
            sentences[i].lead == row.lead for i in passage
        ):
            return True
    return False


def swapped_cells(
    page: PageIndex,
    text: str,
    stems: frozenset[str],
    numbers: Sequence[StatedNumber],
    stating: Sequence[Collection[int]],
) -> Given | None:
    """The first of the claim's figures that a row it names states in one column while the
    claim's words next to that figure name another column of the row, of two or more
    figures it states in that row: two cells swapped ("parsed at 1.42 GB/s and
    stringified at 1.72 GB/s" for "| yyjson | 1.72 | 1.42 |" under "| parse | stringify
    |"). The words next to a figure are those after the claim's figure before it
    (`_sides`), or, when the claim writes each column after its figure ("1.72 GB/s
    parsing"), those before the next figure."""
    rows: dict[int, list[StatedNumber]] = {}
    for number, where in zip(numbers, stating, strict=True):
        if number.kind not in _SKIPPED:
            for index in page.labelled.intersection(where):
                rows.setdefault(index, []).append(number)
    for index in sorted(rows):
        row, mine = page.sentences[index], rows[index]
        if len(mine) < 2 or not row.columns or not row.label <= stems:
            continue
        told = frozenset().union(*row.columns) - frozenset.intersection(*row.columns)
        told -= row.label  # words every header has (a unit) or the label's name no column
        sides = _sides(text, mine, told.__and__)
        if sides is None:
            continue
        for number, words in zip(mine, sides, strict=True):
            named, places = _named_columns(row, number, words)
            if named and not places & named:
                theirs = row.numbers[min(named)]
                if same_sort(theirs, number) and not number.matches(theirs):
                    return Given(number, theirs, index)
    return None


def _sides(
    text: str, mine: Sequence[StatedNumber], names: Callable[[frozenset[str]], object]
) -> list[frozenset[str]] | None:
    """For each of `mine` (claim figures a table states), the claim's words that name its
    column or row (`names`: whether words name one): those of its clause when each is in
    a clause of its own that names one (`flips.clause_span`: "forks took 3.1 s, against
    0.7 s for threads"), else those on the side of it that names them: before it (back to
    the one of them before it) when the words before the first of them name one, else
    after it (to the next of them) when the words after the last of them do; None when
    neither or both do."""
    breaks = clause_breaks(text)
    spans = [clause_span(text, *n.span, breaks) for n in mine]
    own = [stems_of(text[a:b]) for a, b in spans]
    if len(set(spans)) == len(spans) and all(names(words) for words in own):
        return own
    ends = sorted(n.span for n in mine)
    before = [_between(text, ends, n.span, -1) for n in mine]
    after = [_between(text, ends, n.span, 1) for n in mine]
    leads, trails = bool(names(before[0])), bool(names(after[-1]))
    if leads == trails:
        return None
    return before if leads else after


def _between(
    text: str, spans: Sequence[tuple[int, int]], span: tuple[int, int], side: int
) -> frozenset[str]:
    """The stems of `text` between `span` and the nearest of `spans` on `side` (-1: before
    it, back to the start; 1: after it, to the end)."""
    if side < 0:
        start = max((end for _, end in spans if end <= span[0]), default=0)
        return stems_of(text[start : span[0]])
    stop = min((start for start, _ in spans if start >= span[1]), default=len(text))
    return stems_of(text[span[1] : stop])


def swapped_rows(
    page: PageIndex,
    text: str,
    numbers: Sequence[StatedNumber],
    stating: Sequence[Collection[int]],
) -> Given | None:
    """The first of the claim's figures stated in one row of a table only, while the
    claim's words next to it (`_sides`) name another row of that table stating another of
    its figures, and not its own row: two rows' figures swapped ("processes took 5.1 s
    against 1.08 s for threads" for "threads 5.1 s" and "processes 1.08 s")."""
    placed: list[tuple[StatedNumber, int]] = []
    for number, mine in zip(numbers, stating, strict=True):
        rows = page.labelled.intersection(mine)
        if number.kind not in _SKIPPED and len(rows) == 1 and len(mine) == 1:
            placed.append((number, next(iter(rows))))
    sentences = page.sentences
    labels = {index: sentences[index].label for _, index in placed}
    if len(set(labels.values())) < 2:
        return None
    named = set(labels.values())
    sides = _sides(text, [n for n, _ in placed], lambda words: any(x <= words for x in named))
    if sides is None:
        return None
    for (number, index), words in zip(placed, sides, strict=True):
        if labels[index] <= words:
            continue
        for other in labels:
            if labels[other] != labels[index] and labels[other] <= words:
                if set(sentences[other].lead) == set(sentences[index].lead):
                    return Given(number, _swapped_with(sentences[other], placed), other)
    return None


def _swapped_with(row: Sentence, placed: Sequence[tuple[StatedNumber, int]]) -> StatedNumber:
    """The claim's figure that `row` states (one of `placed`)."""
    return next(f for f in row.numbers for n, _ in placed if n.matches(f))


def table_headers(page: PageIndex, first: int, end: int) -> tuple[Sentence, ...]:
    """The header rows and the captions (`Sentence.lead`) of the tables that rows
    first..end (a passage's) are in: what a header states ("| Binary size | CPython 2.6.4
    | CPython 3.1.1 |") or a caption ("The third test sums the primes below 100000::") is
    said of every row of its table, as a header's words are (`pageindex`)."""
    sentences = page.sentences
    out: dict[int, None] = {}
    for index in range(first, end):
        if not sentences[index].label:
            continue
        out.update(dict.fromkeys(i for i in sentences[index].lead if not first <= i < end))
        if not sentences[index].text.startswith("|"):
            continue
        top = index
        while top > 0 and sentences[top - 1].text.startswith("|") and top - 1 not in out:
            top -= 1
        if top < index and not sentences[top].label:
            out[top] = None
    return tuple(sentences[i] for i in out)


def other_table(
    page: PageIndex,
    stems: frozenset[str],
    numbers: Sequence[StatedNumber],
    stating: Sequence[Collection[int]],
) -> Given | None:
    """The first of the claim's figures that the page states only in rows, while a row
    with the label of one of them (one the claim names) in another table, whose caption
    (`Sentence.lead`) names more of the claim's words (but the labels') and figures than
    any of theirs,
    gives a figure of its sort in its place: the same benchmark on another machine ("On
    the 64-bit machine, nbody ran 1.84x faster" where 1.84x is the row under "32-bit; gcc
    4.0.3" and 2.86x the one under "64-bit"). Rows told apart by a count only the one
    with the claim's counts ("threaded (8 threads)")."""
    claimed = claimed_values(numbers)
    counts = claimed_values([n for n in numbers if n.count])
    for number, mine in zip(numbers, stating, strict=True):
        if number.kind in _SKIPPED or not mine or not page.labelled.issuperset(mine):
            continue
        told = stems - frozenset().union(*(page.sentences[i].label for i in mine))
        own = max(_caption_named(page, index, told, claimed) for index in mine)
        best: tuple[int, Given] | None = None
        for index in sorted(mine):
            row = page.sentences[index]
            if not row.lead or not row.label <= stems:
                continue
            for other in _label_rows(page, row.label):
                theirs = page.sentences[other]
                score = _caption_named(page, other, told, claimed)
                if theirs.lead == row.lead or score <= own or (best and score <= best[0]):
                    continue
                found = _in_place(row, number, theirs, claimed)
                if found is not None and _keeps_claimed(row, number, theirs, counts):
                    best = (score, Given(number, found, other))
        if best is not None:
            return best[1]
    return None


def _label_rows(page: PageIndex, label: frozenset[str]) -> list[int]:
    """The table rows (with a caption) labelled `label`."""
    rarest = min(label, key=lambda stem: len(page.label_postings.get(stem, ())))
    return [i for i in page.label_postings.get(rarest, ()) if page.sentences[i].label == label]


def _caption_named(
    page: PageIndex, index: int, stems: frozenset[str], claimed: frozenset[Value]
) -> int:
    """How many of the claim's words and figures (`stems`, `claimed`) the caption of row
    `index` holds."""
    sentences = page.sentences
    lead = [sentences[i] for i in sentences[index].lead]
    words = stems & frozenset().union(*(s.stems for s in lead))
    figures = {v for s in lead for f in s.numbers for v in f.candidates & claimed}
    return len(words) + len(figures)


def ends_before_caption(page: PageIndex, first: int, end: int) -> bool:
    """Whether the passage first..end is the last rows of a table and then (a part of) the
    caption of the next one: its figures are another table's ("processes (8 procs)
    0.417899 seconds" above "The third test sums the primes below 100000::")."""
    sentences = page.sentences
    rows = [i for i in range(first, end) if sentences[i].label]
    if not rows:
        return False
    leads = {i for row in rows for i in sentences[row].lead}
    return any(
        i > rows[-1] and i not in leads and page.rows_introduced_by(i) for i in range(first, end)
    )


def caption_words(page: PageIndex, first: int, end: int, stems: frozenset[str]) -> frozenset[str]:
    """The claim's words (`stems`) that the captions of the passage's table rows hold (a
    row's words are its caption's too), unless a row with the same label in another
    table has a caption holding a word of the claim that none of these holds: which
    table the claim restates is then for the words the passage holds to say."""
    sentences = page.sentences
    rows = [i for i in range(first, end) if sentences[i].label and sentences[i].lead]
    if not rows:
        return frozenset()
    leads = {i for row in rows for i in sentences[row].lead}
    held = stems & frozenset().union(*(sentences[i].stems for i in leads))
    if not held:
        return held
    for row in rows:
        for other in _label_rows(page, sentences[row].label):
            theirs = sentences[other].lead
            if theirs == sentences[row].lead:
                continue
            words = stems & frozenset().union(*(sentences[i].stems for i in theirs))
            if words - held - sentences[row].label:
                return frozenset()
    return held

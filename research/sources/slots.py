"""A claim's figure that the page gives to other words (pure: standard library only).

A changed figure is usually another figure of the same page: the claim's figure is on the
page, even in the passage that matches the claim's words, but it belongs to something
else ("3.11.0 candidate 2: 2022-09-12" when the claim says the final release came out on
2022-09-12). The check: for each of the claim's figures, the page sentence that states it
and shares the most of the claim's words (the words of the claim's clause around the
figure when the claim states several figures) is its own slot. When another sentence
shares strictly more of those words (and at least `MIN_RIVAL_SHARE` of them) and gives a
figure of the same kind and unit that the claim does not state, instead of the claim's,
the page gives that figure to the claim's words: the claim is not supported.

Years, versions, numbered names and figures the page states in more than
`MAX_SLOT_SENTENCES` sentences are left out (they are context or the page's subject more
often than they are the point); a rival figure must be of the same sort (`same_slot`);
and a sentence that also states another of the claim's figures of that kind is no rival (a
list of several figures is not one slot). Only a claim the other rules find supported is
checked: a weak one is already flagged.

Beside that rule (`given_to_others`), the readings the figure rules share: the words
around a figure that tie a sentence to it (`sentence_context`, `anchored`), a claim told
the other way round in the sentence stating its figure (`told_the_other_way`), a figure
one of a list (`enumerated`), the rows a sentence introduces (`introduced`,
`introduced_with`, `same_lead_side`), and the noun a bare count counts (`word_after`,
`counted_after`, `counted_in`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal

from research.sources.figures import StatedNumber, claimed_values
from research.sources.flips import Clauses
from research.sources.pageindex import PageIndex, Sentence, holds
from research.sources.quantities import unit_of
from research.sources.rawfigure import Value
from research.sources.words import stems_of, token_stems

MIN_RIVAL_SHARE = 0.5
"""A rival sentence shares at least this share of the words it is compared on (and two)."""
MAGNITUDE_RATIO = 10.0
"""A rival figure (not a percentage or a date) is within this factor of the claim's: a
changed figure is another figure of the same sort ("9,433 completions", not "December 5")."""
MAX_SLOT_SENTENCES = 2
"""A figure the page states in more sentences than this is its subject ("PEP 527", "Go
1.21"), not a slot."""
TOPIC_SHARE = 0.3
"""A word the page uses in at least this share of its sentences (and in at least
`TOPIC_MIN` of them) is its topic ("rust" on a Rust survey): it binds no figure to a slot,
so these rules do not count it."""
TOPIC_MIN = 5
SKIPPED_KINDS = frozenset({"year", "version", "label"})
_NAMES = frozenset({"version", "label"})


@dataclass(frozen=True, slots=True)
class Given:
    """A figure the page gives to the claim's words instead of the claim's own."""

    claim_figure: StatedNumber
    page_figure: StatedNumber
    sentence: int
    """The page sentence that gives it."""

    @property
    def reason(self) -> str:
        return (
            f"the page gives {self.page_figure.text} for these words; "
            f"{self.claim_figure.text} is stated for other words"
        )


def _words_of(
    clauses: Clauses,
    stems: frozenset[str],
    number: StatedNumber,
    several: bool,
    figures: frozenset[str],
) -> frozenset[str]:
    """The claim's words a figure is compared on: its clause's, when the claim states
    several figures and the clause has two words or more; else the whole claim's."""
    if several:
        clause = (clauses.around(number.span)[1] & stems) - figures
        if len(clause) >= 2:
            return clause
    return stems - figures


def _slot_words(page: PageIndex, words: frozenset[str]) -> frozenset[str]:
    """`words` without the page's topic words (`TOPIC_SHARE`)."""
    least = max(TOPIC_MIN, TOPIC_SHARE * len(page.sentences))
    return frozenset(w for w in words if len(page.sentence_postings.get(w, ())) < least)


def same_slot(mine: StatedNumber, theirs: StatedNumber, *, lenient: bool = False) -> bool:
    """Whether a page figure could stand where the claim's does: the same kind, a multiple
    only for a multiple, the same dimension when both carry a unit (a bare figure only for
    a bare one, unless `lenient`: within one sentence a list writes its unit once, "100,
    250 or 1000 rpm"), and a magnitude within `MAGNITUDE_RATIO` of the claim's."""
    if mine.kind != theirs.kind or mine.multiple != theirs.multiple:
        return False
    if mine.quantity is not None and theirs.quantity is not None:
        if mine.quantity.unit.dimension != theirs.quantity.unit.dimension:
            return False
    elif (mine.quantity is None) != (theirs.quantity is None):
        if not lenient:
            return False
        a, b = _plain(mine), _plain(theirs)
        return a is not None and b is not None and _near(a, b)
    if mine.kind == "percent":
        return True
    a, b = mine.magnitude, theirs.magnitude
    if a is None or b is None:
        return a is None and b is None  # dates with dates
    return _near(a, b)


def _plain(figure: StatedNumber) -> float | None:
    return float(figure.value) if isinstance(figure.value, Decimal) else None


def _near(a: float, b: float) -> bool:
    return a > 0 and b > 0 and max(a, b) <= MAGNITUDE_RATIO * min(a, b)


def _held_words(
    page: PageIndex, index: int, words: frozenset[str], number: StatedNumber
) -> tuple[list[Sentence], int]:
    """A sentence with its context (`sentence_context`), and how many of `words` they hold."""
    window = [page.sentences[i] for i in sentence_context(page, index, number)]
    held: set[str] = set()
    for sentence in window:
        held |= sentence.stems & words
    return window, len(held)


def _scores(
    page: PageIndex,
    index: int,
    words: frozenset[str],
    others: Sequence[StatedNumber],
    number: StatedNumber,
    least: int,
) -> bool:
    """Whether a sentence holds with its context (`sentence_context`) at least `least` of the
    claim's `words` and other figures; the figures are looked for only when its words
    could reach it with them."""
    window, held = _held_words(page, index, words, number)
    return held + len(others) >= least and held + sum(holds(window, n) for n in others) >= least


def _best_score(
    page: PageIndex,
    indexes: Collection[int],
    words: frozenset[str],
    others: Sequence[StatedNumber],
    number: StatedNumber,
) -> int:
    """The most of the claim's `words` and other figures any of `indexes` (at least one)
    holds with its context (`sentence_context`); the figures are looked for only in sentences
    whose words could get them past the most found so far."""
    ordered = sorted(indexes)  # ties in page order
    read = sorted((_held_words(page, i, words, number) for i in ordered), key=lambda r: -r[1])
    best = -1
    for window, held in read:
        if held + len(others) <= best:
            break
        best = max(best, held + sum(holds(window, n) for n in others))
    return best


def sentence_context(page: PageIndex, index: int, number: StatedNumber) -> list[int]:
    """A sentence and its neighbours outside the title block that give no figure of the
    sort of `number` (one that does is a slot of its own: the next line of a list, the
    next row of a table), so "This corresponds to 82.5%" is read with the sentence
    before it; a table row's, not the title of the table after it (a line introducing
    the next sentence: "64-bit; gcc 12.1" above the next machine's table)."""
    out = [index]
    sort = page.figures.of_sort(number)  # the sentences that may give such a figure
    sentences = page.sentences
    for near in (index - 1, index + 1):
        if page.head <= near < len(sentences) and (
            near not in sort or not any(same_slot(number, f) for f in sentences[near].numbers)
        ):
            out.append(near)
    after = index + 2
    if out[-1] == index + 1 and sentences[index].label and after < len(sentences):
        if index + 1 in sentences[after].lead:
            out.pop()  # the caption of the next table is none of this row's
    return out


def _rival(
    page: PageIndex,
    number: StatedNumber,
    words: frozenset[str],
    stating: Collection[int],
    others: Sequence[StatedNumber],
) -> Given | None:
    if not words:
        return None
    own = _best_score(page, stating, words, others, number)
    if own >= len(words) + len(others):
        return None  # no sentence can hold more of the claim
    least = max(1, math.ceil(MIN_RIVAL_SHARE * len(words)))
    claimed = claimed_values((number, *others))
    counts: Counter[int] = Counter()
    for stem in words:
        counts.update(page.sentence_postings.get(stem, ()))
    sort = page.figures.of_sort(number)  # the sentences that may give such a figure
    held = sorted(i for i, count in counts.items() if count >= least)
    for index in held:  # page order: the same rival for any hash seed
        if index in stating or index < page.head or index not in sort:
            continue
        same = [f for f in page.sentences[index].numbers if same_slot(number, f)]
        if not same or any(not f.candidates.isdisjoint(claimed) for f in same):
            continue  # no such figure, or one of the claim's too: a list, not a slot
        if _scores(page, index, words, others, number, own + 1):
            return Given(number, same[0], index)
    return None


def given_to_others(
    page: PageIndex,
    clauses: Clauses,
    stems: frozenset[str],
    numbers: Sequence[StatedNumber],
    stating: Sequence[Collection[int]],
) -> Given | None:
    """The first of the claim's figures (stated on the page: `stating` gives the sentences
    for each) that the page gives to other words, with the figure it gives instead.
    `clauses`: those of the claim's text. A year is checked only in a claim that states
    nothing but years (it dates an event: "open sourced in 2017" where the page says "In
    2017, ... presented ... In 2018, ... was open sourced"); beside other figures a year
    is more often their context."""
    skipped = SKIPPED_KINDS if any(n.kind != "year" for n in numbers) else _NAMES
    checked = [n for n in numbers if n.kind not in skipped]
    figures: frozenset[str] | None = None
    for number, sentences in zip(numbers, stating, strict=True):
        if number not in checked or not 0 < len(sentences) <= MAX_SLOT_SENTENCES:
            continue
        if min(sentences) < page.head:
            continue  # the title block states it: context for every passage
        if figures is None:
            figures = stems_of(" ".join(n.text for n in numbers)) | page.head_stems
        words = _slot_words(page, _words_of(clauses, stems, number, len(checked) > 1, figures))
        others = [n for n in numbers if n is not number]
        found = _rival(page, number, words, sentences, others)
        if found is not None:
            return found
    return None


def anchored(
    page: PageIndex,
    number: StatedNumber,
    rest: frozenset[str],
    numbers: Sequence[StatedNumber],
    stating: Sequence[Collection[int]],
) -> bool:
    """Whether a claim figure that is not in the matching passage is stated in a place of
    its own that carries the rest of the claim: some sentence stating it holds at least
    `MIN_RIVAL_SHARE` of `rest` (the claim's words the matching passage lacks, at least
    one), and no sentence giving a figure of the same sort instead (among those holding a
    word of `rest` or another of the claim's figures) holds as much of the claim (`rest`,
    and the claim's other figures). `stating`: the sentences stating each of `numbers`."""
    mine = next(s for n, s in zip(numbers, stating, strict=True) if n is number)
    rest = _slot_words(page, rest)
    if number.kind in SKIPPED_KINDS or not rest or not mine:
        return False
    if len(rest & _stems_of(page, mine)) < max(1, math.ceil(MIN_RIVAL_SHARE * len(rest))):
        return False
    others = [n for n in numbers if n is not number]
    own = _best_score(page, mine, rest, others, number)
    claimed = claimed_values(numbers)
    nearby: set[int] = set()
    for stem in rest:
        nearby.update(page.sentence_postings.get(stem, ()))
    for n, sentences in zip(numbers, stating, strict=True):
        if n is not number:
            nearby.update(sentences)
    for index in (nearby - set(mine)) & page.figures.of_sort(number):
        same = [f for f in page.sentences[index].numbers if same_slot(number, f)]
        if not same or any(not f.candidates.isdisjoint(claimed) for f in same):
            continue
        if _scores(page, index, rest, others, number, own):
            return False
    return True


def _stems_of(page: PageIndex, sentences: Collection[int]) -> frozenset[str]:
    out: set[str] = set()
    for index in sentences:
        out |= page.sentences[index].stems
    return frozenset(out)


_BREAK = re.compile(r"[(),;:]")


def _attached_words(sentence: Sentence) -> list[set[str] | None]:
    """For each figure of the sentence, the words a parenthesis ties to it, or None: a
    figure in parentheses belongs to the words just before them, back to the previous
    figure or punctuation ("GoLand (33%)"); words in parentheses right after a figure
    belong to it ("250 (the default)")."""
    text = sentence.norm
    spans = [figure.span for figure in sentence.numbers]
    out: list[set[str] | None] = []
    for index, (start, end) in enumerate(spans):
        before, after = text[:start].rstrip(), text[end:].lstrip()
        if before.endswith("(") and after.startswith(")"):
            left = before[:-1]
            stops = [m.end() for m in _BREAK.finditer(left)]
            stops += [e for s, e in spans[:index] if e <= len(left)]
            out.append(set(stems_of(left[max(stops, default=0) :])))
        elif after.startswith("(") and ")" in after:
            out.append(set(stems_of(after[1 : after.index(")")])))
        else:
            out.append(None)
    return out


NEAR_WORDS = 6
"""A figure of a page sentence belongs to up to this many words on either side of it."""
CLAUSE_WORDS = 20
"""A figure outside parentheses, in a sentence where a parenthesis ties another to words,
has up to this many words on either side (`told_the_other_way`)."""
CLAIM_NEAR_WORDS = 2
"""The claim's words next to its figure: up to this many content words on either side."""
_WORD = re.compile(r"[^\W\d_][\w'-]*")
_NEAR_BREAK = re.compile(r"[;:()]|\s(?:while|whereas|but)\s|\.\s")


def _near_words(
    text: str, figures: Sequence[StatedNumber], reach: int, *, content: bool = False
) -> list[frozenset[str]]:
    """For each figure (its span in `text`), the stems of the words next to it: up to
    `reach` words (content words only, if `content`) on either side, not past another
    figure or a clause break (; : parentheses, "while", "but"); two figures of the same
    sort with no content word but a unit between them ("from 30% to 45%", "every two
    months for 18 months", past the years that date them: "from 41% in 2022 to 53%") share
    their words."""
    figures = sorted(figures, key=lambda f: f.span)
    spans = [f.span for f in figures]
    gaps = [text[: spans[0][0]] if spans else ""]
    gaps += [text[a[1] : b[0]] for a, b in zip(spans, spans[1:], strict=False)]
    gaps.append(text[spans[-1][1] :] if spans else "")

    def side(gap: str, before: bool) -> frozenset[str]:
        parts = _NEAR_BREAK.split(gap) if gap.strip() else ("",)
        words = [token_stems(t) for t in _WORD.findall(parts[-1] if before else parts[0])]
        if content:
            words = [w for w in words if w]
        return frozenset().union(*(words[-reach:] if before else words[:reach]))

    near = [side(gaps[i], True) | side(gaps[i + 1], False) for i in range(len(spans))]
    for i in range(len(spans) - 1):
        j = i + 1  # past the years that date a series ("from 41% in 2022 to 53% in 2023")
        while j < len(spans) - 1 and figures[j].kind in _DATING and figures[i].kind not in _DATING:
            j += 1
        if same_slot(figures[i], figures[j], lenient=True) and not any(
            token_stems(t) and unit_of(t) is None
            for t in _WORD.findall(text[spans[i][1] : spans[j][0]])
        ):
            near[i] = near[j] = near[i] | near[j]
    return near


_DATING = frozenset({"year", "date"})


_GAP = re.compile(r"[^\w.;:,]*")
_CLAUSE_END = re.compile(r"[.;:,()]")
_NOUN = re.compile(r"[^\W\d_][\w'-]*")
_ONE_NOUN = re.compile(r"[^\w.;:,]*(?:[\d_]|[^\w.;:,()])*([^\W\d_][\w'-]*)")
"""`counted_in` for one word: the gap, then what is no word and ends no clause, then the word."""


_NEXT_WORD = re.compile(r"[^\w]*([^\W\d_][\w'-]*)")


def word_after(text: str, figure: StatedNumber) -> frozenset[str]:
    """The stems of the word after a bare count in `text` (a number with no unit, a
    multiple too), whatever is between them that is no word: what a parallel list's items
    count ("X with 444,338 sdists, Y with 58,774 sdists"). Looser than `counted_in`, which
    stops at the clause's end: the binding rule reads a count this way (read the other way,
    three swapped figures of the self-check in code lines, '"10"; double', go unflagged)."""
    if figure.kind != "number" or figure.quantity is not None:
        return frozenset()
    after = _NEXT_WORD.match(text, figure.span[1])
    return token_stems(after.group(1)) if after else frozenset()


def counted_after(sentence: Sentence, index: int) -> frozenset[str]:
    """What a sentence's bare count counts (`word_after`: "58,774 sdists")."""
    return word_after(sentence.norm, sentence.numbers[index])


def counted_in(text: str, figure: StatedNumber, reach: int = 1) -> frozenset[str]:
    """The stems of up to `reach` words right after a bare count in `text` (a number with
    no unit, not a multiple), within 60 characters and before the clause ends: what it
    counts ("58,774 sdists", "32 logical cores"). Empty for no bare count, and for one the
    clause ends after ("On Windows 8.1, time.time() ...": a comma, colon, semicolon or
    period first)."""
    if figure.kind != "number" or figure.quantity is not None or figure.multiple:
        return frozenset()
    end = figure.span[1]
    if reach == 1:  # the same reading in one match: most counts are read for one word
        one = _ONE_NOUN.match(text, end, end + 60)
        return token_stems(one.group(1)) if one else frozenset()
    gap = _GAP.match(text, end, end + 60)
    rest = text[gap.end() if gap else end : end + 60]
    out: set[str] = set()
    for word in _NOUN.findall(_CLAUSE_END.split(rest, maxsplit=1)[0])[:reach]:
        out |= token_stems(word)
    return frozenset(out)


def _same_noun(sentence: Sentence, mine: Sequence[int], rival: int) -> bool:
    """Whether a sentence's `rival` count counts what one of the claim's figures there
    counts: a parallel list ("X with 444,338 sdists, Y with 58,774 sdists, Z with 3,265
    sdists") whose items may differ by more than `MAGNITUDE_RATIO`."""
    theirs = counted_after(sentence, rival)
    return bool(theirs) and any(counted_after(sentence, i) == theirs for i in mine)


_ITEM_BREAK = re.compile(r"[,;]|\s(?:and|or)\s")


def _closest(sentence: Sentence, rivals: Sequence[int], claim_words: frozenset[str]) -> int:
    """Of the rivals next to the claim's words, the one whose item of the sentence (between
    commas, "and", "or") holds most of them (the first of a tie): what the reason names."""

    def held(index: int) -> int:
        start, end = sentence.numbers[index].span
        before = _ITEM_BREAK.split(sentence.norm[:start])[-1]
        after = _ITEM_BREAK.split(sentence.norm[end:])[0]
        return len(stems_of(f"{before} {after}") & claim_words)

    return max(rivals, key=lambda i: (held(i), -i))


def _next_to_another(
    near: Sequence[frozenset[str]], mine: Sequence[int], rival: int, claim_words: frozenset[str]
) -> bool:
    """Whether the words the claim puts next to its figure are next to a sentence's
    `rival` figure and not to the claim's own (`mine`): some of them only beside the rival,
    none only beside the claim's figure (`near`: the sentence's `_near_words`)."""
    own = frozenset().union(*(near[i] for i in mine))
    return bool((near[rival] - own) & claim_words) and not (own - near[rival]) & claim_words


def told_the_other_way(
    page: PageIndex,
    run: Sequence[int],
    clauses: Clauses,
    stems: frozenset[str],
    numbers: Sequence[StatedNumber],
) -> Given | None:
    """A claim figure that a sentence of `run` stating it gives to other words than the
    claim's, while a figure of the same sort in that sentence, which the claim lacks, is
    tied to the claim's words: by a parenthesis, to more of them (`_attached_words`: "VS
    Code (43%) and GoLand (33%)" for a claim that VS Code had 33%); in a sentence without
    one (not a table row, whose cells belong to its first cell and its header), by being
    next to them (`_next_to_another`: "~500 bdist_msi files and ~50 bdist_dmg files" for
    a claim of about 500 bdist_dmg files). `clauses`: those of the claim's text."""
    norm = clauses.text
    checked = [n for n in numbers if n.kind not in SKIPPED_KINDS]
    shared = [i for i in run if len(page.sentences[i].numbers) > 1]
    if not checked or not shared:
        return None
    claimed = claimed_values(numbers)
    # a figure the claim states in another unit or rounded ("about 1.02 GB" for
    # "1,024,512,000 bytes") is the claim's too, not a rival
    converted = [n for n in numbers if n.quantity is not None or n.band is not None]
    figures = stems_of(" ".join(n.text for n in numbers))
    spans = sorted(n.span for n in numbers)
    beside: list[frozenset[str]] = []  # the claim's words next to each figure, when needed
    for number in checked:
        for index in shared:
            sentence = page.sentences[index]
            mine = [i for i, f in enumerate(sentence.numbers) if number.matches(f)]
            rivals = _rivals(sentence, number, mine, claimed, converted) if mine else []
            if not rivals:
                continue
            tied = _attached_words(sentence) if "(" in sentence.norm else []
            if any(t is not None for t in tied):
                words = _words_of(clauses, stems, number, len(checked) > 1, figures)
                tie = _tied_rival(sentence, tied, mine, rivals, words)
                if tie is not None:
                    return Given(number, sentence.numbers[tie], index)
            elif not sentence.text.startswith("|"):  # a row's cells: its first cell's, header's
                beside = beside or _near_words(norm, numbers, CLAIM_NEAR_WORDS, content=True)
                next_to_mine = beside[spans.index(number.span)]
                found = _next_to_rivals(page, index, mine, rivals, next_to_mine)
                if found:
                    return Given(
                        number, sentence.numbers[_closest(sentence, found, next_to_mine)], index
                    )
    return None


def _rivals(
    sentence: Sentence,
    number: StatedNumber,
    mine: Sequence[int],
    claimed: frozenset[Value],
    converted: Sequence[StatedNumber],
) -> list[int]:
    """The figures of `sentence` that could stand where the claim's `number` (its `mine`)
    does, of the same sort or counting the same noun, that the claim lacks in any unit."""
    return [
        i
        for i, f in enumerate(sentence.numbers)
        if (same_slot(number, f, lenient=True) or _same_noun(sentence, mine, i))
        and f.candidates.isdisjoint(claimed)
        and not any(other.matches(f) for other in converted)
    ]


def _next_to_rivals(
    page: PageIndex,
    index: int,
    mine: Sequence[int],
    rivals: Sequence[int],
    next_to_mine: frozenset[str],
) -> list[int]:
    """The `rivals` of sentence `index` next to the claim's words (`_next_to_another`),
    the words next to its figures read once per page (`page.memo.near`)."""
    near = page.memo.near
    if index not in near:
        sentence = page.sentences[index]
        near[index] = _near_words(sentence.norm, sentence.numbers, NEAR_WORDS)
    return [i for i in rivals if _next_to_another(near[index], mine, i, next_to_mine)]


def _tied_rival(
    sentence: Sentence,
    tied: Sequence[set[str] | None],
    mine: Sequence[int],
    rivals: Sequence[int],
    words: frozenset[str],
) -> int | None:
    """The rival a parenthesis ties to more of the claim's `words` than the claim's own
    figure holds: a figure in parentheses has the words it is tied to, one outside them the
    words of its clause up to the next figure (`CLAUSE_WORDS`), which must hold strictly
    more ("including 14% who said ... in production" against "using it in their code
    (26%)"; not "250 (the default) or 1000, yielding a jiffies value" for a default of
    1000)."""
    free: list[frozenset[str]] = []
    best, outside = -1, False
    for i in mine:
        held = tied[i]
        if held is None:
            free = free or _near_words(sentence.norm, sentence.numbers, CLAUSE_WORDS)
            held, outside = set(free[i]), True
        best = max(best, len(held & words))
    for i in rivals:
        theirs = len((tied[i] or set()) & words)
        if theirs > best or (outside and theirs and theirs >= best):
            return i
    return None


MAX_ENUMERATED = 12
"""The largest count read from the items a claim lists after it."""
_LIST_AFTER = re.compile(r"^[^:.;()]{0,60}:\s*([^.;:()]+)")
_ITEM_SPLIT = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+")


def enumerated(page: PageIndex, norm: str, number: StatedNumber) -> bool:
    """Whether the claim's figure counts the items it lists right after it ("three
    built-in functions: min, max and clear") and every item is on the page: the count is
    then read from the items, which the page need not number."""
    value = number.value
    if number.kind != "number" or number.quantity is not None or number.band is not None:
        return False
    if not isinstance(value, Decimal) or value != int(value) or not 2 <= value <= MAX_ENUMERATED:
        return False
    found = _LIST_AFTER.match(norm[number.span[1] :])
    if found is None:
        return False
    items = [item for item in _ITEM_SPLIT.split(found.group(1).strip()) if item]
    if len(items) != int(value):
        return False
    for item in items:
        stems = stems_of(item)
        if not stems or any(stem not in page.sentence_postings for stem in stems):
            return False
    return True


def introduced(
    page: PageIndex,
    number: StatedNumber,
    run: range,
    rest: frozenset[str],
    numbers: Sequence[StatedNumber],
    mine: Collection[int],
) -> bool:
    """Whether a claim figure that is not in the matching passage (`run`) is stated in a
    table row or a line that the passage introduces (`Sentence.lead`: the caption before a
    table, the sentence ending with a colon) and holds more of `rest` (the claim's words
    the passage lacks) than any other row or line it introduces that gives a figure of the
    same sort the claim lacks: the figure is where the passage points ("| ripgrep |
    0.082s |" under the paragraph that describes the benchmark; not "| hypergrep | 0.167s
    |" for a claim about ripgrep). `mine`: the sentences stating `number`."""
    if number.kind in SKIPPED_KINDS:
        return False
    claimed = claimed_values(numbers)
    sentences = page.sentences
    for index in mine:
        lead = sentences[index].lead
        if not lead or not any(i in run for i in lead):
            continue
        own = len(sentences[index].stems & rest)
        if not own:
            continue
        rivals = (
            other
            for other in introduced_with(page, index)
            if any(
                same_slot(number, f, lenient=True) and f.candidates.isdisjoint(claimed)
                for f in sentences[other].numbers
            )
        )
        if all(len(sentences[other].stems & rest) < own for other in rivals):
            return True
    return False


def introduced_with(page: PageIndex, index: int) -> Iterator[int]:
    """The other sentences next to `index` that the same sentences introduce (the other
    rows of its table), those before it then those after it, nearest first."""
    for step in (-1, 1):
        yield from same_lead_side(page, index, step)


def same_lead_side(
    page: PageIndex, index: int, step: int, *, labelled: bool = False
) -> Iterator[int]:
    """The sentences on one side of `index` (`step`: -1 before it, 1 after it), nearest
    first, while the same sentences introduce them (`Sentence.lead`) and, if `labelled`,
    while they have a label (a table's rows)."""
    sentences = page.sentences
    lead = sentences[index].lead
    other = index + step
    while (
        0 <= other < len(sentences)
        and sentences[other].lead == lead
        and (not labelled or sentences[other].label)
    ):
        yield other
        other += step

"""The passages of a page a judge is shown for one claim: the stretches of the snapshot
most likely to decide it, verbatim (whitespace collapsed).

The judge reads only these, so the decisive passage must be among them. The page is read
as the claim check reads it (`research.sources.pageindex`: the same sentences, content
words and figures; the caller passes the claim check's index and verdict). Every sentence
is scored by the claim's words it holds, each weighted by how rare it is on the page (a
word on every line tells nothing; a table row also counts half the words of the sentences
that introduce its table), and by the claim's figures it holds: the same quantity as the
claim check reads it, the claim's figure as rounded as the claim writes it ("83.5
million" for 83,499,915), or figures it is computed from (a share of two figures, a
duration between two dates). Chosen, in order: the claim check's own passage, the best
windows of one or two neighbouring sentences (twice), then, for each figure of the claim
that no passage holds yet, the sentence stating it (or the one or two it is computed
from) that holds the most of the claim's words with its neighbours (a count stated once,
far from the words that describe it; two rows of a table), and last the best window by
words among the sentences giving a figure of the sort of one of the claim's (where a
changed figure was changed from).
Each is widened while it stays short: by the next sentence, through a command's output,
to a list's last item, and by the sentence before. Passages that touch or are one
sentence apart are merged (a date two lines above another); a table row is shown after
its table's header row and the sentence that introduces the table, " … " marking what is
left out between them. Passages are given while they fit in `BUDGET_CHARS` (the first
always).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from research.sources.claims import ClaimCheck, PageIndex, claim_numbers, index_page
from research.sources.pageindex import Sentence, union
from research.sources.passagefigures import Ways, claim_figures, figure_hits, of_sort
from research.sources.spelling import spell_numbers
from research.sources.words import stems_of

PICKS = ("rules", "both", "both", "figures", "sort")
"""The order the passages are chosen in (and given in, while they fit the budget): the
claim check's own ("rules"), the best window by words and figures ("both"; "words": by
words alone), a passage for each figure no passage holds yet ("figures"), then the best
by words among the sentences giving a figure of the sort of one of the claim's ("sort":
where a changed figure was changed from, or what a careful phrasing restates)."""
FIGURE_PASSAGES = 2
"""Figures of the claim that get a passage of their own, at most."""
BUDGET_CHARS = 1_800
"""The passages of one claim stop at this many characters (the first is always given)."""
PASSAGE_CHARS = 700
"""A passage is widened only while it stays this short."""
HEADING_CHARS = 400
"""A passage ending in a heading goes on to the heading's first line while it stays this
short."""
FIGURE_WEIGHT = 1.0
"""A figure of the claim found in a sentence counts this many times its rarity."""
PAIR_SHARE = 0.5
"""A window's second sentence counts this share of its own score."""
CAPTION_SHARE = 0.5
"""A table row counts this share of the claim's words in the sentences that introduce its
table (`Sentence.lead`)."""
FIND_CHARS = 60
MIN_EVIDENCE_CHARS = 12
"""A sentence of the claim check's passage is found by its first characters."""
SHORT_WORDS = 8
"""A line this short (a label, a heading, a table row) is read with its neighbours."""
MERGE_GAP = 1
"""Passages this many sentences apart (or touching) are one."""
GAP = " \u2026 "
"""Between a table's header and a row further down."""

_LIST_ITEM = re.compile(r"(?:[-*+\u2022]|\d+[.)])\s")
_BLOCK_LINE = re.compile(r"(?:[|>#*+\u2022-]|\d+[.)]\s)")
_ENDED = re.compile(r"[.!?;|]\W*$")
_RULE = re.compile(r"[-=~*_#^+]{3,}")
TITLE_WORDS = 6
"""A line this short (a title, a label) ends its block even when it does not end like a
sentence."""

Span = tuple[int, int]
"""(first sentence, end sentence) of a passage."""


def _squeezed(text: str) -> str:
    return " ".join(text.split())


def _located(text: str, sentences: Sequence[Sentence]) -> tuple[str, list[Span]]:
    """The page's text with whitespace collapsed, and where each sentence is in it (-1 when
    it is not found: its own text is used)."""
    page = _squeezed(text)
    found: list[Span] = []
    cursor = 0
    for sentence in sentences:
        key = _squeezed(sentence.text)
        start = page.find(key, cursor)
        if start < 0:
            start = page.find(key)
        found.append((start, start + len(key)) if start >= 0 else (-1, -1))
        if start >= 0:
            cursor = max(cursor, start + len(key))
    return page, found


class PassageIndex:
    """One page read once for all the claims that cite it (the claim check's `PageIndex`
    of it, or one built here)."""

    def __init__(self, text: str, page: PageIndex | None = None) -> None:
        self.page = index_page(text) if page is None else page
        self.sentences = self.page.sentences
        self.squeezed = [_squeezed(s.text).casefold() for s in self.sentences]
        self.text, self.at = _located(text, self.sentences)
        total = max(1, len(self.sentences))
        self.idf = {
            stem: math.log(1.0 + total / len(ids))
            for stem, ids in self.page.sentence_postings.items()
        }
        self.line_start: list[int] = []
        for index, sentence in enumerate(self.sentences):
            same = index > 0 and self.sentences[index - 1].line == sentence.line
            self.line_start.append(self.line_start[-1] if same else index)
        self.header: list[int | None] = []
        for index in range(len(self.sentences)):
            in_table = self.sentences[self.line_start[index]].text.startswith("|")
            before = self.header[-1] if index else None
            self.header.append((index if before is None else before) if in_table else None)
        self.lead_stems = [  # a table row's: the words of the sentences introducing its table
            frozenset(union(self.sentences[i].stems for i in s.lead) if row is not None else ())
            for s, row in zip(self.sentences, self.header, strict=True)
        ]

    def caption(self, index: int) -> int | None:
        """The last of the sentences that introduce the table sentence `index` is a row of
        (its `lead`), if any."""
        if self.header[index] is None or not self.sentences[index].lead:
            return None
        return self.sentences[index].lead[-1]

    def words(self, stems: frozenset[str]) -> list[float]:
        """Per sentence, the rarity of the claim's words it holds (a table row: and half
        of those in the sentences that introduce its table)."""
        scores = []
        for index, sentence in enumerate(self.sentences):
            held = stems & sentence.stems
            score = math.fsum(self.idf.get(stem, 0.0) for stem in held)
            extra = (stems & self.lead_stems[index]) - held
            score += CAPTION_SHARE * math.fsum(self.idf.get(stem, 0.0) for stem in extra)
            scores.append(score)
        return scores

    def best(self, check: ClaimCheck) -> list[str]:
        """The passages for the claim `check` checked against this page, best first; []
        for a page with no text (see the module)."""
        if not self.sentences:
            return []
        claim = spell_numbers(check.claim)
        numbers = claim_numbers(claim)
        words = self.words(stems_of(claim))
        holders = claim_figures(self.page, numbers, words)
        hits = figure_hits(self.page, numbers, holders)
        both = [w + FIGURE_WEIGHT * h for w, h in zip(words, hits, strict=True)]
        taken: list[Span] = []
        for pick in PICKS:
            if pick == "figures":
                self._figure_picks(holders, words, taken)
                continue
            if pick == "sort":
                sorted_ = of_sort(self.page, numbers)
                masked = [w if i in sorted_ else 0.0 for i, w in enumerate(words)]
                span = self._best_span(masked, taken)
            elif pick == "rules":
                span = self._evidence_span(check.evidence, taken)
            else:
                span = self._best_span(both if pick == "both" else words, taken)
            if span is not None:
                taken.append(self._widen(span))
        return self._given(taken)

    def _figure_picks(self, holders: list[Ways], words: list[float], taken: list[Span]) -> None:
        """For each figure of the claim no passage of `taken` holds (in any of its ways),
        the way that holds most of the claim's words with its neighbours, up to
        FIGURE_PASSAGES figures."""
        added = 0
        for ways in holders:
            if added >= FIGURE_PASSAGES:
                break
            if ways and not any(all(_inside(i, taken) for i in way) for way in ways):
                way = max(ways, key=lambda w: sum(self._with_neighbours(words, i) for i in w))
                added += 1
                for index in way:
                    if not _overlaps((index, index + 1), taken):
                        taken.append(self._widen((index, index + 1)))

    def _with_neighbours(self, scores: list[float], index: int) -> float:
        """A sentence's score and a share of its neighbours' (a row's heading, a date's
        subject on the line before)."""
        around = scores[max(0, index - 1) : index] + scores[index + 1 : index + 2]
        return scores[index] + PAIR_SHARE * sum(around)

    def _given(self, taken: list[Span]) -> list[str]:
        """The passages' texts in the order they were chosen, those that touch or are one
        sentence apart merged, while they fit in BUDGET_CHARS."""
        merged: list[tuple[int, int, int]] = []  # (rank, first, end)
        for first, end, rank in sorted((a, b, r) for r, (a, b) in enumerate(taken)):
            if merged and first <= merged[-1][2] + MERGE_GAP:
                last = merged[-1]
                merged[-1] = (min(last[0], rank), last[1], max(last[2], end))
            else:
                merged.append((rank, first, end))
        out: list[str] = []
        used = 0
        for _, first, end in sorted(merged):
            text = self._passage(first, end)
            if out and used + len(text) > BUDGET_CHARS:
                continue
            out.append(text)
            used += len(text)
        return out

    def _passage(self, first: int, end: int) -> str:
        """The page's text of sentences first..end, a table row's after its table's header
        row and the line before the table."""
        header = self.header[first]
        if header is None or header == first:
            return self._text(first, end)
        caption = self.caption(first)
        start = header if caption is None else caption
        if header + 1 >= first:
            return self._text(start, end)
        return self._text(start, header + 1) + GAP + self._text(first, end)

    def _text(self, first: int, end: int) -> str:
        start, stop = self.at[first][0], self.at[end - 1][1]
        if start < 0 or stop < start:
            return " ".join(_squeezed(s.text) for s in self.sentences[first:end])
        return self.text[start:stop]

    def _evidence_span(self, evidence: str, taken: list[Span]) -> Span | None:
        """The sentences that hold the claim check's passage (its sentences joined, cut
        with "…"), if they are not taken already: where its longest piece is in the page's
        text, else the first run of sentences it holds."""
        pieces = [_squeezed(piece) for piece in evidence.split("\u2026")]
        longest = max(pieces, key=len)
        text = " ".join(pieces).casefold()
        if len(text) < MIN_EVIDENCE_CHARS:
            return None
        at = self.text.find(longest) if len(longest) >= MIN_EVIDENCE_CHARS else -1
        if at >= 0:
            inside = [i for i, (a, b) in enumerate(self.at) if a < at + len(longest) and b > at]
            if inside:
                span = (inside[0], min(inside[-1] + 1, inside[0] + 4))
                return None if _overlaps(span, taken) else span
        found = [
            i
            for i, mine in enumerate(self.squeezed)
            if len(mine) >= MIN_EVIDENCE_CHARS and mine in text
        ]
        head = text[:FIND_CHARS]
        found += [i for i, mine in enumerate(self.squeezed) if head in mine][:1]
        if not found:
            return None
        found.sort()
        start = end = found[0]
        for index in found[1:]:  # the first run of neighbouring sentences
            if index > end + 1:
                break
            end = index
        span = (start, min(end + 1, start + 4))
        return None if _overlaps(span, taken) else span

    def _best_span(self, scores: list[float], taken: list[Span]) -> Span | None:
        """The best window (a sentence, or two of one line) not overlapping `taken`."""
        best: tuple[float, int, int] | None = None
        for start in range(len(scores)):
            end = start + 1
            value = scores[start]
            pair = end < len(scores) and self._continues(start)
            if pair and scores[end] > 0 and not _overlaps((start, end + 1), taken):
                end, value = end + 1, value + PAIR_SHARE * scores[end]
            if _overlaps((start, end), taken):
                continue
            if value > 0 and (best is None or value > best[0]):
                best = (value, start, end)
        if best is None:
            return None if taken else (0, 1)
        return best[1], best[2]

    def _continues(self, index: int) -> bool:
        """Whether the next sentence goes on from sentence `index`: the same line, the
        list, table or command output a sentence ending in a colon announces, or the next
        line after a long line that does not end like a sentence (a command and its output,
        a line wrapped in a PDF), unless that is a list item or a table row."""
        here, after = self.sentences[index], self.sentences[index + 1]
        if after.line == here.line or here.text.endswith(":"):
            return True
        return (
            here.words > TITLE_WORDS
            and not _ENDED.search(here.text)
            and not _BLOCK_LINE.match(after.text)
        )

    def _heading(self, index: int) -> bool:
        """Whether sentence `index` is a heading (a short line not ended like a sentence,
        no table row, no list item) or a heading's underline."""
        sentence = self.sentences[index]
        if _RULE.fullmatch(sentence.text):
            return True
        return (
            sentence.words <= TITLE_WORDS
            and self.line_start[index] == index
            and not _ENDED.search(sentence.text)
            and not _BLOCK_LINE.match(sentence.text)
        )

    def _in_list(self, index: int) -> bool:
        """Whether sentence `index` is part of a list item (its line starts with a marker)."""
        return bool(_LIST_ITEM.match(self.sentences[self.line_start[index]].text))

    def _widen(self, span: Span) -> Span:
        start, end = span
        line = self.sentences[start].line

        def length(a: int, b: int) -> int:
            return sum(len(s.text) + 1 for s in self.sentences[a:b])

        def joins(index: int) -> bool:
            """A neighbour of the same line, or a short line (a label, a table row)."""
            neighbour = self.sentences[index]
            return neighbour.line == line or neighbour.words <= SHORT_WORDS

        if (
            end < len(self.sentences)
            and (joins(end) or self._continues(end - 1))
            and length(start, end + 1) <= PASSAGE_CHARS
        ):
            end += 1
        while (  # a command goes on to its output
            end < len(self.sentences)
            and self._continues(end - 1)
            and length(start, end + 1) <= PASSAGE_CHARS
        ):
            end += 1
        while (  # a heading goes on to its first line (through its underline)
            end < len(self.sentences)
            and self._heading(end - 1)
            and length(start, end + 1) <= HEADING_CHARS
        ):
            end += 1
        if (
            start > 0
            and (joins(start - 1) or self._continues(start - 1))
            and length(start - 1, end) <= PASSAGE_CHARS
        ):
            start -= 1
        while (  # a list goes on to its last item while the passage stays short
            end < len(self.sentences)
            and self._in_list(end - 1)
            and self._in_list(end)
            and length(start, end + 1) <= PASSAGE_CHARS
        ):
            end += 1
        return start, end


def _inside(index: int, taken: Sequence[Span]) -> bool:
    return any(a <= index < b for a, b in taken)


def _overlaps(span: Span, taken: Sequence[Span]) -> bool:
    return any(not (span[1] <= a or b <= span[0]) for a, b in taken)


def best_passages(check: ClaimCheck, text: str, page: PageIndex | None = None) -> list[str]:
    """The passages of `text` (indexed as `page`, when the caller has it) for the claim
    `check` checked against it (one page, one claim)."""
    return PassageIndex(text, page).best(check)

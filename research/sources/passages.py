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
duration between two dates). Chosen, in order: the claim check's own passage (found
where its text is on the page), the best windows of one or two neighbouring sentences
(twice), then, for each figure of the claim, the two ways of stating it (a sentence, or
the one or two it is computed from) whose sentences and their neighbours hold the most of
the claim's words, each word counted once, when no passage holds them yet (a count stated
twice, once with the claim's words; a count stated once, far from the words that describe
it; two rows of a table), then for each rare word of the claim (held by at most two
sentences: a name, a term) that no passage holds, its best sentence, and last the best
window by words among the sentences giving a figure of the sort of one of the claim's
(where a changed figure was changed from).
Each is widened while it stays short: by the next sentence, through a command's output, a
heading to its first line, to a list's last item, by the sentence before (or the line a
wrapped sentence starts on), then by its better neighbour holding the claim's words or
figures (two sentences in a row: the subject in one, the figure in the next). Passages
that touch or are one sentence apart are merged (a date two lines above another); a table
row is shown after its table's header row and the sentence that introduces the table,
" … " marking what is left out between them. Passages are given while they fit in
`BUDGET_CHARS` (the first always); one that does not fit is cut to its run of sentences
that fits and holds the most of the claim's words and figures.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from research.sources.claims import (
    ClaimCheck,
    PageIndex,
    Support,
    claim_numbers,
    index_page,
)
from research.sources.pageindex import Sentence, union
from research.sources.passagefigures import Ways, claim_figures, figure_hits, of_sort
from research.sources.passagelayout import PageLayout, Span
from research.sources.spelling import spell_numbers
from research.sources.words import stems_of

PICKS = ("rules", "both", "both", "figures", "rare", "sort")
"""The order the passages are chosen in (and given in, while they fit the budget): the
claim check's own ("rules"), the best window by words and figures ("both"; "words": by
words alone), a passage for each figure no passage holds yet ("figures"), then the best
by words among the sentences giving a figure of the sort of one of the claim's ("sort":
where a changed figure was changed from, or what a careful phrasing restates)."""
FLAGGED_PICKS = ("both",)
"""Chosen last for a claim the rules flagged (the judge's answer decides it): one more
window by words and figures."""
FIGURE_PASSAGES = 2
"""Figures of the claim that get a passage of their own, at most."""
FIGURE_WAYS = 2
"""Of each, the ways of stating it (a sentence, or two it is computed from) given, at most:
a figure stated twice, once with the claim's words."""
RARE_SENTENCES = 2
"""A claim's word held by at most this many sentences of the page is rare: a name, a term."""
RARE_PASSAGES = 2
"""Rare words of the claim that get a passage of their own, at most."""
BUDGET_CHARS = 1_800
"""The passages of one claim stop at this many characters (the first is always given)."""
CUT_CHARS = 100
"""A passage that does not fit in what is left of the budget is cut to fit when at least
this many characters are left."""
NEIGHBOUR_CHARS = 250
"""A passage takes its better neighbour (by the claim's words and figures) while it stays
this short: two sentences in a row, the subject in one and the figure in the next."""
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
MERGE_GAP = 1
"""Passages this many sentences apart (or touching) are one."""
GAP = " \u2026 "
"""Between a table's header and a row further down."""


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


class PassageIndex(PageLayout):
    """One page read once for all the claims that cite it (the claim check's `PageIndex`
    of it, or one built here)."""

    def __init__(self, text: str, page: PageIndex | None = None) -> None:
        self.page = index_page(text) if page is None else page
        super().__init__(self.page.sentences)
        self.squeezed = [_squeezed(s.text).casefold() for s in self.sentences]
        self.text, self.at = _located(text, self.sentences)
        total = max(1, len(self.sentences))
        self.idf = {
            stem: math.log(1.0 + total / len(ids))
            for stem, ids in self.page.sentence_postings.items()
        }
        self.lead_stems = [  # a row's or list item's: the words of the sentences introducing it
            frozenset(union(self.sentences[i].stems for i in s.lead) if s.lead else ())
            | (self.sentences[intro].stems if intro is not None else frozenset())
            for s, intro in zip(self.sentences, self.intro, strict=True)
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
        stems = stems_of(claim)
        words = self.words(stems)
        holders = claim_figures(self.page, numbers, words)
        hits = figure_hits(self.page, numbers, holders)
        both = [w + FIGURE_WEIGHT * h for w, h in zip(words, hits, strict=True)]
        taken: list[Span] = []
        flagged = check.support is not Support.SUPPORTED
        for pick in PICKS + FLAGGED_PICKS if flagged else PICKS:
            if pick == "figures":
                self._figure_picks(holders, stems, both, taken)
                continue
            if pick == "rare":
                self._rare_picks(stems, both, taken)
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
                taken.append(self._widen(span, both))
        return self._given(taken, both)

    def _figure_picks(
        self, holders: list[Ways], stems: frozenset[str], scores: list[float], taken: list[Span]
    ) -> None:
        """For each figure of the claim, the FIGURE_WAYS ways of stating it that hold most
        of the claim's words with their neighbours (`_cover`), those no passage of `taken`
        holds, up to FIGURE_PASSAGES figures."""
        added = 0
        for ways in holders:
            if added >= FIGURE_PASSAGES:
                break
            ranked = sorted(ways, key=lambda w: (-self._cover(stems, w), len(w)))
            missing = [w for w in ranked[:FIGURE_WAYS] if not all(_inside(i, taken) for i in w)]
            added += bool(missing)
            for way in missing:
                for index in way:
                    if not _inside(index, taken):
                        taken.append(self._widen((index, index + 1), scores))

    def _cover(self, stems: frozenset[str], way: tuple[int, ...]) -> float:
        """The rarity of the claim's words held by the sentences of `way` and their
        neighbours, each word once (a row's heading, a date's subject on the line before;
        two sentences far apart do not count a word twice)."""
        held: set[str] = set()
        for index in way:
            for near in range(max(0, index - 1), min(len(self.sentences), index + 2)):
                held |= stems & (self.sentences[near].stems | self.lead_stems[near])
        return math.fsum(self.idf.get(stem, 0.0) for stem in held)

    def _rare_picks(self, stems: frozenset[str], scores: list[float], taken: list[Span]) -> None:
        """For each of the claim's words that at most RARE_SENTENCES sentences hold and no
        passage of `taken` holds, rarest first, the best of those sentences by `scores`,
        up to RARE_PASSAGES words."""
        postings = self.page.sentence_postings
        rare = sorted(
            (len(postings[stem]), stem)
            for stem in stems
            if stem in postings and len(postings[stem]) <= RARE_SENTENCES
        )
        added = 0
        for _, stem in rare:
            if added >= RARE_PASSAGES:
                break
            ids = postings[stem]
            if any(_inside(i, taken) for i in ids):
                continue
            best = max(ids, key=lambda i: (scores[i], -i))
            taken.append(self._widen((best, best + 1), scores))
            added += 1

    def _given(self, taken: list[Span], scores: Sequence[float] = ()) -> list[str]:
        """The passages' texts in the order they were chosen, those that touch or are one
        sentence apart merged, while they fit in BUDGET_CHARS; one that does not fit is
        cut to its sentences that do and hold most of the claim's words and figures
        (`scores`), when at least CUT_CHARS are left."""
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
                room = BUDGET_CHARS - used
                cut = self._fit(first, end, room, scores) if room >= CUT_CHARS else None
                if cut is None:
                    continue
                text = self._passage(*cut)
            out.append(text)
            used += len(text)
        return out

    def _fit(self, first: int, end: int, room: int, scores: Sequence[float]) -> Span | None:
        """The run of sentences of first..end whose passage fits in `room` characters and
        that scores most by `scores` (none when none scores)."""
        best: tuple[float, int, int] | None = None
        for start in range(first, end if scores else first):
            for stop in range(start + 1, end + 1):
                if len(self._passage(start, stop)) > room:
                    break
                value = math.fsum(scores[start:stop])
                if value > 0 and (best is None or value > best[0]):
                    best = (value, start, stop)
        return None if best is None else (best[1], best[2])

    def _passage(self, first: int, end: int) -> str:
        """The page's text of sentences first..end, a table row's after its table's header
        row and the line before the table, a row line's or a list item's after the
        sentence introducing its block (`intro`) when that is further up."""
        header = self.header[first]
        intro = self.intro[first]
        if header is None and intro is not None and intro < first:
            if intro == first - 1:
                return self._text(intro, end)
            return self._text(intro, intro + 1) + GAP + self._text(first, end)
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
            pair = end < len(scores) and self.continues(start)
            if pair and scores[end] > 0 and not _overlaps((start, end + 1), taken):
                end, value = end + 1, value + PAIR_SHARE * scores[end]
            if _overlaps((start, end), taken):
                continue
            if value > 0 and (best is None or value > best[0]):
                best = (value, start, end)
        if best is None:
            return None if taken else (0, 1)
        return best[1], best[2]

    def _widen(self, span: Span, scores: Sequence[float]) -> Span:
        """`span` widened while it stays short (see the module), then by its better
        neighbour with the claim's words or figures while it stays NEIGHBOUR_CHARS."""
        start, end = self.grown(span)
        size = sum(len(s.text) + 1 for s in self.sentences[start:end])
        before = scores[start - 1] if start > 0 else 0.0
        after = scores[end] if end < len(scores) else 0.0
        if max(before, after) <= 0:
            return start, end
        if after >= before and size + len(self.sentences[end].text) <= NEIGHBOUR_CHARS:
            return start, end + 1
        if before > 0 and size + len(self.sentences[start - 1].text) <= NEIGHBOUR_CHARS:
            return start - 1, end
        return start, end


def _inside(index: int, taken: Sequence[Span]) -> bool:
    return any(a <= index < b for a, b in taken)


def _overlaps(span: Span, taken: Sequence[Span]) -> bool:
    return any(not (span[1] <= a or b <= span[0]) for a, b in taken)


def best_passages(check: ClaimCheck, text: str, page: PageIndex | None = None) -> list[str]:
    """The passages of `text` (indexed as `page`, when the caller has it) for the claim
    `check` checked against it (one page, one claim)."""
    return PassageIndex(text, page).best(check)

"""How the sentences of a page hang together, for the passages a judge is shown
(`research.sources.passages`): which line each sentence is on, the table each row is in,
which sentence goes on from another (a line wrapped mid-sentence, a command and its
output, a list a colon announces), which is a heading or a list item; and a passage
widened by them while it stays short."""

from __future__ import annotations

import re
from collections.abc import Sequence

from research.sources.linemarks import BLOCK_MARK, LIST_MARK, RULE
from research.sources.pageindex import Sentence

PASSAGE_CHARS = 350
"""A passage is widened only while it stays this short."""
HEADING_CHARS = 400
"""A passage ending in a heading goes on to the heading's first line while it stays this
short."""
SHORT_WORDS = 8
"""A line this short (a label, a heading, a table row) is read with its neighbours."""
_LIST_ITEM = re.compile(rf"{LIST_MARK}\s")
_BLOCK_LINE = re.compile(BLOCK_MARK)
_ENDED = re.compile(r"[.!?;|]\W*$")
TITLE_WORDS = 6
"""A line this short (a title, a label) ends its block even when it does not end like a
sentence."""

MAX_LIST = 200
"""A list item is read with its list's lead-in at most this many sentences above it."""

Span = tuple[int, int]
"""(first sentence, end sentence) of a passage."""


class PageLayout:
    """The layout of a page's sentences (see the module)."""

    def __init__(self, sentences: Sequence[Sentence]) -> None:
        self.sentences = sentences
        self.line_start: list[int] = []
        for index, sentence in enumerate(self.sentences):
            same = index > 0 and self.sentences[index - 1].line == sentence.line
            self.line_start.append(self.line_start[-1] if same else index)
        self.header: list[int | None] = []
        for index in range(len(self.sentences)):
            in_table = self.sentences[self.line_start[index]].text.startswith("|")
            before = self.header[-1] if index else None
            self.header.append((index if before is None else before) if in_table else None)
        self.intro: list[int | None] = [self._intro(i) for i in range(len(self.sentences))]

    def _intro(self, index: int) -> int | None:
        """The sentence introducing the table rows, row lines or list items sentence
        `index` is one of: the last of its `lead`, or, for a list item, the sentence ending
        in a colon right before its list's first item (None when there is none)."""
        sentence = self.sentences[index]
        if sentence.lead:
            return sentence.lead[-1]
        first = self.line_start[index]
        if not _LIST_ITEM.match(self.sentences[first].text):
            return None
        while first > 0 and _LIST_ITEM.match(self.sentences[self.line_start[first - 1]].text):
            first = self.line_start[first - 1]
            if index - first > MAX_LIST:
                return None
        if first > 0 and self.sentences[first - 1].text.endswith(":"):
            return first - 1
        return None

    def continues(self, index: int) -> bool:
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
        if RULE.fullmatch(sentence.text):
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

    def grown(self, span: Span) -> Span:
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
            and (joins(end) or self.continues(end - 1))
            and length(start, end + 1) <= PASSAGE_CHARS
        ):
            end += 1
        while (  # a command goes on to its output
            end < len(self.sentences)
            and self.continues(end - 1)
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
            and (joins(start - 1) or self.continues(start - 1))
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

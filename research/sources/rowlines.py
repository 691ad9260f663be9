"""Lines of a page that are rows of a table written without pipes (pure: standard library and
`research.sources.quantities`).

A program's output, a reStructuredText simple table and a man page's table write one row a
line: a label, then its figures ("strtod : 190.94 MB/s (+/- 1.6 %) 9.10 Mfloat/s",
"monotonic() 15 ms", "SIGUSR1 10 30 16 16", "Time (mean ± σ): 11.226 s ± 0.104 s"). Such
a line is a row of its own, never part of a hard-wrapped paragraph, and its figures belong
to its label, as a pipe table row's belong to its first cell (`pageindex`).

A row line (`row_label`): up to `MAX_LABEL_WORDS` words that do not start with a figure,
then (after a colon, an equals sign or a space) a figure, and after that only figures,
units and signs, at most `MAX_OTHER_WORDS` other words, and no sentence's end (a period).
It is a row only in a block: the line before or after it (a rule line such as "====="
between them) is one too (`row_lines`), so a hard-wrapped line of prose that happens to
end in a figure is not.

A row's figures also know their column's header (`Sentence.columns`): a pipe table's
header cell (`cell_columns`); for rows written without pipes, the token at the figure's
place (`token_columns`) in the header line right above the block (`block_header`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from research.sources.linemarks import RULE_WITH_SPACES, SENTENCE_ENDS
from research.sources.quantities import unit_of

MAX_LABEL_WORDS = 4
MAX_OTHER_WORDS = 1
"""Words after a row's first figure that are no unit ("Mfloat/s" is one)."""

_ROW = re.compile(
    r"(?P<label>[^\W\d](?:[^:=\d]|(?<=\w)\d)*?)\s*(?:[:=]\s*|\s)\s*"
    r"(?P<values>[*~<>\u2248\u2264\u2265(+-]*\d.*)"
)
_WORD = re.compile(r"[^\W\d_][\w/.'-]*")


def row_label(line: str) -> str | None:
    """The label of a row line ("strtod" of "strtod : 190.94 MB/s"), or None when the line
    is no row line (see the module)."""
    text = line.strip()
    if text.endswith(SENTENCE_ENDS):
        return None  # the end of a sentence ("... until\nOctober 2027."), not a row
    found = _ROW.fullmatch(text)
    if found is None:
        return None
    label = found.group("label").strip()
    if len(label.split()) > MAX_LABEL_WORDS or label.endswith((".", ",")):
        return None
    others = [w for w in _WORD.findall(found.group("values")) if unit_of(w) is None]
    if len(others) > MAX_OTHER_WORDS:
        return None
    return label


def row_lines(lines: Sequence[str]) -> list[str | None]:
    """For each of a page's raw lines, its row label when it is a row line next to another
    (blank lines and rule lines between them do not count, a line of prose does), else
    None."""
    labels = [None if RULE_WITH_SPACES.fullmatch(line) else row_label(line) for line in lines]
    out: list[str | None] = [None] * len(lines)
    previous: int | None = None  # the last line that is neither blank nor a rule
    for index, line in enumerate(lines):
        if not line.strip() or RULE_WITH_SPACES.fullmatch(line):
            continue
        if previous is not None and labels[index] is not None and labels[previous] is not None:
            out[index], out[previous] = labels[index], labels[previous]
        previous = index
    return out


MAX_HEADER_TOKENS = 12


def pipe_cells(row: str) -> list[str]:
    """The cells of a pipe table row ("| a | b |": " a ", " b "), unstripped."""
    return row.strip().strip("|").split("|")


def first_cell(row: str) -> str:
    """The first cell of a pipe table row that opens with a pipe, unstripped (its label)."""
    return row.split("|")[1]


def cell_columns(header: str, text: str, spans: Sequence[tuple[int, int]]) -> tuple[str, ...]:
    """For each figure of a pipe table row (`spans` in `text`, the row as read), its
    column's header cell ("" when the row has more cells than the header)."""
    cells = pipe_cells(header)
    out: list[str] = []
    for start, _ in spans:
        index = cell_index(text, start)
        out.append(cells[index].strip() if 0 <= index < len(cells) else "")
    return tuple(out)


def cell_index(text: str, start: int) -> int:
    """The cell of a pipe table row (`text`, the row as read) that `start` is in, the
    first cell 0 whether or not the row opens with a pipe."""
    return text.count("|", 0, start) - (1 if text.lstrip().startswith("|") else 0)


def token_columns(header: str, text: str, spans: Sequence[tuple[int, int]]) -> tuple[str, ...]:
    """For each figure of a row written without pipes (`spans` in `text`), the word of the
    header line at its place, counted in whitespace-separated tokens ("SIGUSR1 10 30"
    under "Signal x86/ARM Alpha/": 30 is in the "Alpha/" column): a man page's table
    loses its columns' spacing, not their order. None fits when the header has fewer
    tokens than the row's last figure needs."""
    tokens = header.split()
    places = [len(text[:start].split()) for start, _ in spans]
    if not places or max(places) >= len(tokens):
        return ()
    return tuple(tokens[place] for place in places)


def block_header(lines: Sequence[tuple[str, bool, bool]]) -> str | None:
    """The header of a block of rows written without pipes, from the lines right before it,
    nearest first, each (text, title-like, states a figure): of the title-like lines
    without figures up to the first line of prose (rule lines skipped), the one with the
    most tokens (two lines "Signal x86/ARM Alpha/" and "most others SPARC": the first)."""
    best: str | None = None
    for text, title, figures in lines:
        if RULE_WITH_SPACES.fullmatch(text) or not text.strip():
            continue
        if not title:
            break
        tokens = len(text.split())
        if not figures and 2 <= tokens <= MAX_HEADER_TOKENS:
            if best is None or tokens > len(best.split()):
                best = text
    return best

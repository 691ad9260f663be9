"""The claim check against the table rows of the corpus pages, without labels (issue 26).

Every table row of a page (a pipe table's, or a row written without pipes:
`research.sources.rowlines`) with a figure becomes two claims made automatically: its
label, its column's header words and the figure ("strtod Resolution was 190.94."), which
should be supported; and the same with the figure of another row of the same table in the
same column, a changed figure of the kind writers make when they read the wrong row, which
should be flagged; and claims naming one column's header with that column's figure, then
with another column's figure of the same row. Counts are printed with the table rules
(`research.sources.rows`) and without them, so that what those rules add is seen. Only
the tuning halves are read (dev, fresh, unseen, blind): never frozen nor sealed.

    python bench/claims_rowswaps.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from research.sources import given, rows  # noqa: E402
from research.sources.claims import Support, check_claim, index_page  # noqa: E402
from research.sources.figuretable import same_sort  # noqa: E402
from research.sources.pageindex import PageIndex, Sentence  # noqa: E402
from research.sources.words import stems_of  # noqa: E402

HALVES = ("dev", "fresh", "unseen", "blind")
_SKIPPED = ("version", "label", "year")


def _label(sentence: Sentence) -> str:
    if sentence.text.startswith("|"):
        return sentence.text.split("|")[1].strip()
    return re.split(r"[:=]|\s\d", sentence.text, maxsplit=1)[0].strip()


def _claim(page: PageIndex, row: Sentence, place: int, source: Sentence) -> str:
    column = " ".join(sorted(row.columns[place])) if place < len(row.columns) else ""
    figure = source.numbers[place]
    return f"{_label(row)} {column} was {source.norm[figure.span[0] : figure.span[1]]}."


def claims(page: PageIndex) -> tuple[list[str], list[str]]:
    """(true, swapped) claims of the page's table rows."""
    true: list[str] = []
    swapped: list[str] = []
    for index, row in enumerate(page.sentences):
        if not row.label or not row.numbers:
            continue
        other = next(
            (
                page.sentences[i]
                for i in rows._same_table(page, index)
                if len(page.sentences[i].numbers) == len(row.numbers)
                and page.sentences[i].label != row.label
            ),
            None,
        )
        for place, figure in enumerate(row.numbers):
            if figure.kind in _SKIPPED:
                continue
            true.append(_claim(page, row, place, row))
            theirs = other.numbers[place] if other is not None else None
            if (
                other is not None
                and theirs is not None
                and theirs.kind == figure.kind
                and not any(theirs.matches(f) for f in row.numbers)
            ):
                swapped.append(_claim(page, row, place, other))
    return true, swapped


def column_claims(page: PageIndex) -> tuple[list[str], list[str]]:
    """(true, swapped) claims of the page's table rows, each naming one column's header:
    with that column's figure, and with another column's figure of the same sort (kind,
    and unit's dimension or none)."""
    true: list[str] = []
    swapped: list[str] = []
    for row in page.sentences:
        if not row.label or len(row.columns) < 2:
            continue
        for a, named in enumerate(row.columns):
            if stems_of(" ".join(sorted(named))) != named:
                continue  # a header stem that reads as another stem when written out
            for b, other in enumerate(row.columns):
                mine, theirs = row.numbers[a], row.numbers[b]
                if a == b or not named or named == other or mine.kind in _SKIPPED:
                    continue
                if not same_sort(mine, theirs) or mine.matches(theirs) or theirs.matches(mine):
                    continue  # a speed for a ratio is a missing unit, not a changed figure
                true.append(_claim(page, row, a, row))
                swapped.append(_claim(page, row, a, row).replace(_text(row, a), _text(row, b)))
    return true, swapped


def _text(row: Sentence, place: int) -> str:
    span = row.numbers[place].span
    return f"was {row.norm[span[0] : span[1]]}."


def flagged(
    pages: list[PageIndex], *, table_rules: bool, columns: bool = False
) -> tuple[int, int, int, int]:
    """(true supported, true, swapped flagged, swapped): of row swaps, or of column swaps
    when `columns`."""
    kept = given.given_by_table
    if not table_rules:
        given.given_by_table = lambda *args, **kwargs: None  # type: ignore[assignment]
    try:
        counts = [0, 0, 0, 0]
        for page in pages:
            true, swapped = column_claims(page) if columns else claims(page)
            counts[0] += sum(check_claim(c, page).support is Support.SUPPORTED for c in true)
            counts[1] += len(true)
            counts[2] += sum(check_claim(c, page).support is not Support.SUPPORTED for c in swapped)
            counts[3] += len(swapped)
        return counts[0], counts[1], counts[2], counts[3]
    finally:
        given.given_by_table = kept


def main() -> int:
    print("| half | rules | swap | restated: supported | swapped: flagged |")
    print("|---|---|---|---|---|")
    for half in HALVES:
        folder = REPO / "bench" / "corpus" / half / "pages"
        pages = [index_page(path.read_text()) for path in sorted(folder.glob("*.txt"))]
        for columns in (False, True):
            for table_rules in (False, True):
                ok, true, caught, swapped = flagged(pages, table_rules=table_rules, columns=columns)
                name = "with table rules" if table_rules else "without"
                kind = "column" if columns else "row"
                print(f"| {half} | {name} | {kind} | {ok}/{true} | {caught}/{swapped} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

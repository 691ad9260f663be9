"""The claim check against the corpus pages themselves, without labels (issue 26).

Every prose sentence of a page that states a figure (40 to 300 characters, not a table
row) becomes a claim made automatically, in three ways:

- as written: the sentence cited back to its own page must be supported;
- plainly reformatted: one figure rewritten the way a writer might ("12,345" as "12345" and
  back, "45%" as "45 percent", "10MB" as "10 MB", "3.5x" as "3.5 times", "2021-03-03" as
  "3 March 2021") must be supported;
- swapped: one count or percentage replaced by another of its kind from another sentence
  of the same page (the corpus's "changed figure", without the writer's paraphrase) should
  be flagged (the figure and its replacement chosen from the sentence's own text, so
  that two versions of the check meet the same swaps). Figures in references,
  parentheses and addresses are skipped. This is the easy case of a changed figure (the
  sentence itself is the matching passage), so its rate is an upper bound on what the
  labelled halves show; a swap is not always wrong (a page
  may say the same of two subjects), so it is no goal either;
- invented: the same count or percentage times 0.7 and times 1.3, at its own precision
  ("1,234" as "864" and "1,604", "45.2%" as "31.6%" and "58.8%"), a figure found nowhere
  on the page, should be flagged: how often a figure the writer made up gets past the
  rules (what a computation from the page's figures lets through shows here first).

No claim of any half is read; only counts are printed. Without `--half` the tuning halves
are run (dev, fresh, unseen, blind): whoever changes a rule runs it often, and a held-out half's
pages (frozen, sealed) are measured only when asked for by name, by whoever measures.

    python bench/claims_selfcheck.py                 # the tuning halves
    python bench/claims_selfcheck.py --half frozen   # a held-out half's pages, by name
    python bench/claims_selfcheck.py --half dev --show   # dev only, each failure (dev only)
"""

from __future__ import annotations

import argparse
import datetime
import decimal
import random
import re
import sys
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from research.sources.claims import Support, check_claim, index_page  # noqa: E402
from research.sources.figures import StatedNumber  # noqa: E402
from research.sources.pageindex import PageIndex, Sentence  # noqa: E402

TUNING = ("dev", "fresh", "unseen", "blind")
HALVES = (*TUNING, "frozen", "sealed")
_NOISE = re.compile(r"https?://|\.\. \[|\[\d+\]_|\(\d\)|:pep:|``")


def prose(page: PageIndex) -> list[Sentence]:
    return [
        s
        for s in page.sentences[page.head :]
        if s.numbers and not s.text.startswith("|") and 40 <= len(s.text) <= 300
    ]


def reformatted(text: str) -> Iterator[tuple[str, str]]:
    """(how, rewritten) for one figure's text."""
    if re.fullmatch(r"\d{1,3}(,\d{3})+", text):
        yield "no thousands separator", text.replace(",", "")
    if re.fullmatch(r"\d{5,}", text):
        yield "thousands separator", f"{int(text):,}"
    if found := re.fullmatch(r"(\d+(?:\.\d+)?)\s?[x\u00d7]", text):
        yield "times", f"{found.group(1)} times"
    if found := re.fullmatch(r"(\d+(?:\.\d+)?)\s?%", text):
        yield "percent", f"{found.group(1)} percent"
    if found := re.fullmatch(r"(\d+(?:\.\d+)?)([A-Za-z]+(?:/s)?)", text):
        yield "unit spaced", f"{found.group(1)} {found.group(2)}"
    if found := re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", text):
        try:
            day = datetime.date(*map(int, found.groups()))
        except ValueError:
            return
        yield "date written out", f"{day.day} {day:%B} {day.year}"


_PLAIN_FIGURE = re.compile(r"(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(\s?%)?")
KINDS = ("self", "reformatted", "swapped", "invented")


def invented(text: str) -> Iterator[str]:
    """A plain count or percentage times 0.7 and 1.3, written at its own precision (a
    year, zero, a run of more than 15 digits and other figures: nothing)."""
    found = _PLAIN_FIGURE.fullmatch(text)
    if found is None:
        return
    whole, fraction, percent = found.group(1), found.group(2) or "", found.group(3) or ""
    digits = whole.replace(",", "")
    if len(digits) + len(fraction) > 15:  # an identifier, not a figure (and past Decimal's 28)
        return
    if (len(digits) == 4 and not fraction and 1900 <= int(digits) <= 2100) or not int(digits):
        return
    places = decimal.Decimal(1).scaleb(-(len(fraction) - 1)) if fraction else decimal.Decimal(1)
    for factor in ("0.7", "1.3"):
        value = (decimal.Decimal(digits + fraction) * decimal.Decimal(factor)).quantize(places)
        yield (f"{value:,}" if "," in whole else f"{value}") + percent


def run_half(half: str, show: bool) -> dict[str, Counter[str]]:
    tally: dict[str, Counter[str]] = {k: Counter() for k in KINDS}
    for path in sorted((REPO / "bench" / "corpus" / half / "pages").glob("*.txt")):
        page_text = path.read_text(encoding="utf-8")
        page = index_page(page_text)
        sentences = prose(page)
        pool: dict[object, list[tuple[int, str]]] = {}
        for index, sentence in enumerate(sentences):
            for figure in sentence.numbers:
                if figure.kind in ("number", "percent") and not figure.multiple:
                    key = (figure.kind, figure.quantity.unit.dimension if figure.quantity else None)
                    text = sentence.norm[figure.span[0] : figure.span[1]]
                    pool.setdefault(key, []).append((index, text))
        for index, sentence in enumerate(sentences):
            _one(page, sentence, index, pool, tally, show and half == "dev", path.stem)
            _invent(page, page_text, sentence, tally, show and half == "dev", path.stem)
    return tally


def _chosen(sentence: Sentence, doc: str) -> tuple[StatedNumber, random.Random] | None:
    """The one count or percentage of a prose sentence that is swapped and made up (none in
    a sentence of references or addresses), and the generator that chose it, seeded by the
    sentence so that two versions of the check meet the same claims."""
    if _NOISE.search(sentence.text):
        return None
    counts = [f for f in sentence.numbers if f.kind in ("number", "percent") and not f.multiple]
    if not counts:
        return None
    rng = random.Random(zlib.crc32(f"{doc}\n{sentence.text}".encode()))
    return rng.choice(counts), rng


def _invent(
    page: PageIndex,
    text: str,
    sentence: Sentence,
    tally: dict[str, Counter[str]],
    show: bool,
    doc: str,
) -> None:
    """The count or percentage `_one` swaps, made up: found nowhere on the page, it should
    be flagged."""
    chosen = _chosen(sentence, doc)
    if chosen is None:
        return
    start, end = chosen[0].span
    norm = sentence.norm
    for made_up in invented(norm[start:end]):
        if made_up in text:
            continue
        got = check_claim(norm[:start] + made_up + norm[end:], page).support
        if got is Support.UNVERIFIABLE:
            continue
        tally["invented"]["wrong" if got is Support.SUPPORTED else "right"] += 1
        if show and got is Support.SUPPORTED:
            print(f"invented {doc}: {norm[:start]}[{made_up}]{norm[end:]} -> supported"[:200])


def _one(
    page: PageIndex,
    sentence: Sentence,
    index: int,
    pool: dict[object, list[tuple[int, str]]],
    tally: dict[str, Counter[str]],
    show: bool,
    doc: str,
) -> None:
    norm = sentence.norm

    def check(kind: str, claim: str, want: bool) -> None:
        got = check_claim(claim, page).support
        if got is Support.UNVERIFIABLE:
            return
        right = (got is Support.SUPPORTED) is want
        tally[kind]["right" if right else "wrong"] += 1
        if show and not right:
            print(f"{kind} {doc}: {claim[:160]} -> {got.value}")

    check("self", norm, True)
    for figure in sentence.numbers:
        start, end = figure.span
        for _how, text in reformatted(norm[start:end]):
            check("reformatted", norm[:start] + text + norm[end:], True)
    chosen = _chosen(sentence, doc)
    if chosen is None:
        return
    figure, rng = chosen
    key = (figure.kind, figure.quantity.unit.dimension if figure.quantity else None)
    start, end = figure.span
    others = [t for i, t in pool.get(key, []) if i != index and t not in norm]
    if others:
        check("swapped", norm[:start] + rng.choice(others) + norm[end:], False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", choices=HALVES)
    parser.add_argument("--show", action="store_true", help="print each failure (dev only)")
    args = parser.parse_args()
    print(
        "| half | as written: supported | reformatted: supported | swapped: flagged "
        "| invented: flagged |"
    )
    print("|---|---|---|---|---|")
    for half in (args.half,) if args.half else TUNING:
        tally = run_half(half, args.show)
        cells = []
        for kind in KINDS:
            right, total = tally[kind]["right"], sum(tally[kind].values())
            cells.append(f"{right}/{total} ({100 * right / max(total, 1):.0f}%)")
        print(f"| {half} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

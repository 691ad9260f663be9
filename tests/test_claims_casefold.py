"""A page or claim holding a letter beyond ASCII that a pattern ignoring case takes for an
ASCII one ("doublİng" for "doubling", "ſix" for "six", the Kelvin sign for "k") is read
like any other text: no table lookup by what such a pattern matched raises."""

from __future__ import annotations

import json

import pytest
from conftest import REPO

from research.sources import casefold
from research.sources.claims import check_claim, index_page
from research.sources.spelling import spell_numbers

CORPUS = REPO / "bench" / "corpus"
TUNING = ("dev", "fresh", "unseen")
FOLDS = {
    "dotted": str.maketrans({"i": "\u0130"}),
    "dotless": str.maketrans({"i": "\u0131"}),
    "long_s_kelvin": str.maketrans({"s": "\u017f", "k": "\u212a"}),
}


def test_the_key_of_a_folded_letter_is_its_ascii_letter() -> None:
    assert casefold.key("DOUBL\u0130NG") == "doubling"
    assert casefold.key("\u017fix \u212aB") == "six kb"
    assert casefold.key("Twice") == "twice"


@pytest.mark.parametrize(
    "text",
    ["doubl\u0130ng", "tr\u0130pled", "\u0130 Million", "tw\u0131ce", "\u017fix tenths", "a dozen"],
)
def test_spelling_numbers_never_raises_on_a_folded_letter(text: str) -> None:
    assert isinstance(spell_numbers(f"The count rose {text} over 3 years."), str)


@pytest.mark.parametrize("half", TUNING)
@pytest.mark.parametrize("fold", list(FOLDS), ids=list(FOLDS))
def test_the_corpus_pages_and_claims_with_folded_letters_are_checked(fold: str, half: str) -> None:
    """Every claim of a tuning half against its page, both with the letters swapped: a
    verdict each."""
    table = FOLDS[fold]
    pages = {
        path.stem: index_page(path.read_text(encoding="utf-8").translate(table))
        for path in sorted((CORPUS / half / "pages").glob("*.txt"))
    }
    assert len(pages) >= 12
    lines = (CORPUS / half / "claims.jsonl").read_text(encoding="utf-8").splitlines()
    claims = [json.loads(line) for line in lines if line.strip()]
    for row in claims:
        check = check_claim(row["claim"].translate(table), pages[row["doc"]])
        assert check.support is not None, row["id"]

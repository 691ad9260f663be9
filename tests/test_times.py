"""'N times' is a multiple when it compares ("5 times faster", "3 times the size", "grew
4 times") and a count of events when it counts them ("ran 4,900 times", "downloaded 1.5
million times", "was run 5 times")."""

from __future__ import annotations

import pytest

from research.sources.claims import Support, check_claim, index_page
from research.sources.figures import claim_numbers
from research.sources.spelling import spell_numbers


@pytest.mark.parametrize(
    ("text", "multiple"),
    [
        ("It is 5 times faster than grep.", True),
        ("It is 5 times as fast as grep.", True),
        ("The cache is 3 times the size of the heap.", True),
        ("Sales grew 4 times in a decade.", True),
        ("It needs 2.5x the memory.", True),
        ("A tenfold rise.", True),
        ("The job ran 4,900 times.", False),
        ("The package was downloaded 1.5 million times in 2023.", False),
        ("Both tools were run 5 times, and the median is shown.", False),
        ("The test is repeated 3 times per day.", False),
    ],
)
def test_times_is_a_multiple_only_when_it_compares(text: str, multiple: bool) -> None:
    figures = [n for n in claim_numbers(spell_numbers(text)) if n.kind == "number"]
    assert figures and figures[0].multiple is multiple, [(n.text, n.multiple) for n in figures]


PAGE = index_page(
    "Usage\n\nThe nightly job ran 4,900 times last year. The new parser is 5 times "
    "faster than the old one.\nOther notes follow.\n"
)


@pytest.mark.parametrize(
    ("claim", "supported"),
    [
        ("The nightly job ran about 4,900 times last year.", True),
        ("The nightly job ran nearly five thousand times last year.", True),
        ("The new parser is five times faster than the old one.", True),
        ("The nightly job ran 5 times last year.", False),
    ],
)
def test_a_count_of_runs_is_checked_as_a_count(claim: str, supported: bool) -> None:
    check = check_claim(claim, PAGE)
    assert (check.support is Support.SUPPORTED) is supported, check

"""The passages the judge is shown (`sources/passages.py`), as pure functions: the decisive
passage is among them when it is a table row far below its header, a figure stated once
far from the words that describe it, a figure computed from the page's (a share, a
duration between two dates), or a figure the claim rounds; they are verbatim and stay
within the budget."""

from __future__ import annotations

import pytest
from helpers import passages

from research.sources.claims import check_claim, index_page
from research.sources.judging import normalised, quote_on_page
from research.sources.passages import (
    BUDGET_CHARS,
    CUT_CHARS,
    FIGURE_PASSAGES,
    FIGURE_WAYS,
    FLAGGED_PICKS,
    GAP,
    PICKS,
    RARE_PASSAGES,
    PassageIndex,
    best_passages,
)

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def filler(topic: str, count: int) -> list[str]:
    """Sentences about `topic` with neither the claims' words nor their figures."""
    return [f"The {topic} notes go on with remark {LETTERS[n]}." for n in range(count)]


def distractors(words: str, count: int = 4) -> list[str]:
    """Sentences with the claim's words and none of its figures, far apart (a real page
    names its subject often; the figure is in one place)."""
    out: list[str] = []
    for n in range(count):
        out += [f"In part {LETTERS[n]} we come back to how {words}.", *filler(LETTERS[n], 3)]
    return out


def verbatim(given: list[str], page: str) -> bool:
    """Every passage (each side of a gap) is on the page, whitespace aside."""
    normal = normalised(page)
    return all(quote_on_page(part, normal) for p in given for part in p.split(GAP))


TABLE_PAGE = "\n".join(
    [
        "Compression tools compared",
        *filler("history", 6),
        "We timed each tool on the kernel tarball, single-threaded:",
        "| Tool | Level | Seconds |",
        "|---|---|---|",
        *[f"| tool{n} | {n} | {n + 10}.5 |" for n in range(1, 14)],
        "| zstd | 19 | 97.25 |",
        *filler("closing", 6),
    ]
)


def test_a_table_row_far_below_its_header_comes_with_the_header_and_the_line_before() -> None:
    claim = "On the kernel tarball zstd took 97.25 seconds."
    given = passages(claim, TABLE_PAGE)
    (row,) = [p for p in given if "| zstd | 19 | 97.25 |" in p]
    assert row.startswith("We timed each tool on the kernel tarball, single-threaded:")
    assert "| Tool | Level | Seconds |" + GAP in row
    assert verbatim(given, TABLE_PAGE)


def test_a_row_next_to_its_header_is_shown_without_a_gap() -> None:
    claim = "On the kernel tarball tool1 took 11.5 seconds."
    given = passages(claim, TABLE_PAGE)
    assert any("| Tool | Level | Seconds | |---|---|---| | tool1 | 1 | 11.5 |" in p for p in given)
    assert verbatim(given, TABLE_PAGE)


SURVEY_PAGE = "\n".join(
    [
        "The 2031 gardeners survey",
        "This post shares what gardeners told us in the 2031 survey about soil, seeds and "
        "the tools they use most.",
        *distractors("gardeners answered the 2031 survey on soil", 6),
        *filler("seed", 2),
        "We received a total of 4,187 answers!",
        *filler("tool", 2),
        *distractors("more gardeners answered the 2031 survey on seeds", 6),
    ]
)


def test_a_figure_stated_once_far_from_the_words_gets_its_own_passage() -> None:
    given = passages("More than four thousand gardeners answered the 2031 survey.", SURVEY_PAGE)
    assert any("We received a total of 4,187 answers!" in p for p in given)


COMPUTED = [
    (  # rounded: 52.7 million
        "The finder matched 52.7 million lines.",
        [
            *distractors("the finder matched lines"),
            "| Tool | Lines |",
            "|---|---|",
            "| finder | 52749321 |",
            "| seeker | 52749321 |",
            *distractors("the finder matched many lines"),
        ],
        "| finder | 52749321 |",
    ),
    (  # a share of two figures of one sentence: 0.08%
        "Legacy archive files made up less than 0.1% of all uploaded files.",
        [
            "The legacy archive format lets people upload packed files for manual installs.",
            *distractors("legacy archive files were uploaded"),
            "Only ~410 files of that type were ever uploaded (out of a total of 512,880).",
            *distractors("all uploaded files of the legacy archive kind"),
        ],
        "out of a total of 512,880",
    ),
    (  # a duration between two dates: 3.2 years
        "Release 2.5 was supported for a little over three years.",
        [
            "Release 2.4",
            "released: 2011-03 end of support: 2017-06",
            "Release 2.5",
            "released: 2014-05 end of support: 2017-07",
            "Release 2.6",
            "released: 2017-01 end of support: 2024-02",
            *distractors("release 2.5 was supported"),
        ],
        "released: 2014-05 end of support: 2017-07",
    ),
    (  # a difference of two rows far apart: 9.3 s - 3.1 s
        "The kernel build with zstd took 6.2 seconds less than with gzip.",
        [
            "Kernel build times by compressor:",
            "| Compressor | Build time |",
            "|---|---|",
            "| gzip | 9.3 s |",
            *[f"| tool{n} | {n + 10}.4 s |" for n in range(1, 9)],
            "| zstd | 3.1 s |",
            *distractors("the kernel build used zstd and gzip"),
        ],
        "| zstd | 3.1 s |\n| gzip | 9.3 s |",
    ),
    (  # a hedged figure ("close to") is looked for as computed too: 118.7 s - 115.0 s
        "The new build saved close to four seconds of CPU time.",
        [
            "The load test ran on 4 workers with the new build and the old one.",
            *distractors("the new build saved CPU time"),
            "Old build, total CPU time: 118.7s",
            "New build, total CPU time: 115.0s",
            *filler("after", 8),
        ],
        "Old build, total CPU time: 118.7s\nNew build, total CPU time: 115.0s",
    ),
    (  # a duration between dates of two sentences far apart: 3.25 years
        "Version 4 of the toolkit was supported for about three years.",
        [
            "Version 4 of the toolkit was released in March 2012.",
            *filler("toolkit", 8),
            *distractors("the toolkit version 4 was supported"),
            "Support for version 4 of the toolkit ended in June 2015.",
            *filler("after", 8),
        ],
        "Version 4 of the toolkit was released in March 2012.\n"
        "Support for version 4 of the toolkit ended in June 2015.",
    ),
]


@pytest.mark.parametrize(("claim", "lines", "decisive"), COMPUTED)
def test_a_figure_the_claim_rounds_or_computes_is_found(
    claim: str, lines: list[str], decisive: str
) -> None:
    page = "\n".join(["A page", *lines])
    given = passages(claim, page)
    for part in decisive.split("\n"):  # each line of the decisive passage
        assert any(part in p for p in given), given


def test_a_changed_figure_gets_the_passage_with_the_figure_it_was_changed_from() -> None:
    """The claim's 38% is the page's, but of plugins; the line that decides it gives
    another percentage, with few of the claim's words."""
    page = "\n".join(
        [
            "Editor survey",
            *distractors("in the survey the developers chose an editor and said why"),
            "Of the plugins we looked at, 38% were themes.",
            *filler("plugin", 3),
            "Editors, by share of answers:",
            *filler("table", 3),
            "Vim: 41%",
            *filler("closing", 3),
            *distractors("in the survey the developers chose the editor they know", 3),
        ]
    )
    given = passages("In the survey, Vim was the editor 38% of the developers chose.", page)
    assert any("Vim: 41%" in p for p in given), given


def test_passages_one_sentence_apart_are_merged_and_stay_within_the_budget() -> None:
    for claim, page in (
        ("On the kernel tarball zstd took 97.25 seconds.", TABLE_PAGE),
        ("More than four thousand gardeners answered the 2031 survey.", SURVEY_PAGE),
    ):
        check = check_claim(claim, index_page(page))
        index = PassageIndex(page)
        taken = [(2, 4), (5, 6), (9, 10)]
        assert index._given(taken) == [index._passage(2, 6), index._passage(9, 10)]
        given = index.best(check)
        most = len(PICKS + FLAGGED_PICKS) - 2 + 2 * FIGURE_PASSAGES * FIGURE_WAYS + RARE_PASSAGES
        assert 1 <= len(given) <= most
        assert len(given) == 1 or sum(len(p) for p in given) <= BUDGET_CHARS


def test_a_passage_that_does_not_fit_is_cut_to_its_best_run_that_does() -> None:
    """What is left of the budget, when at least CUT_CHARS, holds the run of the passage's
    sentences that fits and scores most; with no sentence scoring, the passage is left out."""
    page = "\n".join(
        f"Line {n} of the notes says something long enough to fill about a hundred characters here."
        for n in range(40)
    )
    index = PassageIndex(page)
    first = next(end for end in range(1, 40) if len(index._passage(0, end)) > BUDGET_CHARS - 300)
    taken = [(0, first), (first + 5, first + 12)]
    room = BUDGET_CHARS - len(index._passage(0, first))
    assert CUT_CHARS <= room < len(index._passage(*taken[1]))
    scores = [0.0] * 40
    scores[first + 8] = 1.0
    scores[first + 9] = 2.0
    given = index._given(taken, scores)
    assert given[0] == index._passage(0, first) and len(given) == 2
    assert index._passage(first + 8, first + 10) in given[1] and len(given[1]) <= room
    assert given[1] in index._passage(*taken[1])
    assert index._given(taken, [0.0] * 40) == [index._passage(0, first)]


def test_the_claim_checks_own_index_of_the_page_is_used() -> None:
    page = index_page(SURVEY_PAGE)
    index = PassageIndex(SURVEY_PAGE, page)
    assert index.page is page
    check = check_claim("More than four thousand gardeners answered the 2031 survey.", page)
    assert index.best(check) == best_passages(check, SURVEY_PAGE)

"""Which passage a claim restates when its words and its figures point to different places
(issue 26): a page snippet, a claim about it, and whether the check must find it SUPPORTED.

Invented pages of the phrase classes where a writer's words match one passage and the
figure sits in another: a terse line of output after the paragraph that describes it
(a benchmark's "Time (mean): 412.7 ms"), a count in a short sentence next to the one that
says what was counted ("This year we had 7,412 responses."), a line of tool output after
"looks like this:". Each true claim has its twins that must still be flagged: a figure of
a parallel entry (the other benchmark's time, the range's maximum), a figure the page
states only where none of the claim's words are (a code line), a count the same line
of output gives for something else.

`NOT_YET_READ` lists the cases not right yet (strict xfail): a reading fix removes its
cases from that set, never edits a case.
"""

from __future__ import annotations

import pytest
from case_tables import Case, assert_checked, case_params

HYPERFINE = (
    "Benchmark\n\n"
    "We timed a full scan of my photo library for raw files with each tool.\n\n"
    "Benchmark 1: oldscan -r ~/photos\n"
    "Time (mean \u00b1 \u03c3): 3.412 s \u00b1 0.050 s\n"
    "Range (min \u2026 max): 3.301 s \u2026 3.530 s\n\n"
    "Now the same search with quickscan, which skips hidden folders:\n\n"
    "Benchmark 2: quickscan -u ~/photos\n"
    "Time (mean \u00b1 \u03c3): 412.7 ms \u00b1 8.1 ms\n"
    "Range (min \u2026 max): 398.1 ms \u2026 430.2 ms\n\n"
    "So quickscan is about eight times faster here.\n"
)
SURVEY = (
    "Every autumn we take stock by asking the whole Zig community, users and former "
    "users alike, how things are going. And you answered in numbers!\n"
    "This year we had 7,412 responses. That's nearly 1,500 more than the year before.\n\n"
    "The feedback was humbling, and we read every comment.\n"
)
SURVEY_CODE = (
    "Every autumn we take stock by asking the whole Zig community how things are going, "
    "and the community answered.\n\n"
    "Setup\n\n"
    "rows = load(path, limit=7412)\n"
)
SAMPLED = (
    "About a third of respondents were sampled at random: everyone using the editor plugin "
    "between June 1 - June 21st 2031 had a 10% chance of seeing a prompt for the survey"
)
AFTER_SAMPLED = (
    ".\n\nThe sampled group had less experience with the language. The prompt ran in the "
    "editor's status bar. Most people saw it once.\n\n"
)
FILTERED = (
    SAMPLED + AFTER_SAMPLED + "Cleaning\n\n"
    "We filtered out survey respondents who finished especially quickly. This left 6,214 "
    "responses.\n"
)
RIVALLED = (
    SAMPLED + ", which drew 5,990 responses" + AFTER_SAMPLED + "Reach\n\n"
    "We filtered out survey respondents who opened the page especially quickly. Over the "
    "three weeks, 6,214 responses came from the blog.\n"
)
SHARDS = (
    "Each shard of the cache holds 100 entries and evicts the oldest one first.\n\n"
    "Scale\n\n"
    "The service now answers 100,000 requests a second across all regions.\n"
)
OUTPUT = (
    "Measuring\n\n"
    "Before each release the team runs the bench-check script under valgrind on the "
    "sample workload. Typical output from the bench-check script looks like this:\n\n"
    "==77== I refs: 2,314,998,102 ==77== I1 misses: 41,220,310 ==77== D refs: 998,120,443\n"
)

FIGURE_PASSAGE: list[Case] = [
    (
        HYPERFINE,
        "In the benchmark, quickscan took 412.7 ms on average to scan the photo library.",
        True,
    ),
    (
        HYPERFINE,
        "In the benchmark, quickscan finished its scan of the photo library in about 0.41 seconds.",
        True,
    ),
    (
        HYPERFINE,
        "In the benchmark, quickscan took 3.412 s on average to scan the photo library.",
        False,
    ),
    (
        HYPERFINE,
        "In the benchmark, quickscan took 430.2 ms on average to scan the photo library.",
        False,
    ),
    (
        HYPERFINE,
        "In the benchmark, oldscan took 412.7 ms on average to scan the photo library.",
        False,
    ),
    (SURVEY, "The Zig community survey received 7,412 responses.", True),
    (SURVEY, "The Zig community survey received 1,500 responses.", False),
    (SURVEY_CODE, "The Zig community survey received 7,412 responses.", False),
    (
        FILTERED,
        "After filtering out implausibly fast respondents, the June 2031 survey kept 6,214 "
        "responses.",
        True,
    ),
    (
        RIVALLED,
        "After filtering out implausibly fast respondents, the June 2031 survey kept 6,214 "
        "responses.",
        False,
    ),
    (OUTPUT, "The sample bench-check run counted about 2.31 billion instruction references.", True),
    (
        OUTPUT,
        "The sample bench-check run counted about 41.2 million instruction references.",
        False,
    ),
    (SHARDS, "Each shard of the cache holds 100,000 entries and evicts the oldest first.", False),
]

GROUPS = {"figure_passage": FIGURE_PASSAGE}

NOT_YET_READ: frozenset[str] = frozenset({"figure_passage-10"})
"""figure_passage-10 ("I refs" read as instruction references in a line of output that
gives other counts too): words tell which of the line's counts the claim restates, and
"I refs" is not "instruction references"; its twin -11 (the misses' count) reads the same
way, so the figures cannot choose that line."""


@pytest.mark.parametrize(("page", "claim", "supported"), case_params(GROUPS, NOT_YET_READ))
def test_the_passage_holding_the_figures(page: str, claim: str, supported: bool) -> None:
    assert_checked(page, claim, supported)

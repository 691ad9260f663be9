"""True claims whose figure a careful writer computes from two figures of the page that the
claim also states itself, case by case (issue 26, session 5): a small page, a claim, and
whether the check must find it SUPPORTED.

Written before the rule change that followed it, from invented sentences of each class, not
from corpus sentences:
- `OWN_PAIR`: the claim gives both inputs, one on each side of the computed figure ("the new
  loader's 0.60 seconds, four times faster than the old loader's 2.40 seconds"; "all
  buffers (4 GB) may use 256 times the size of one (16 MB)", across units, a byte prefix
  read as binary or decimal). Its twins must stay flagged: a wrong multiple, share or
  difference of the same two figures, an input of the claim that is not on the page, an
  input the page gives to other words, and two inputs of different dimensions.
  Added later, one per guard of `ownfigures.flanked` that no case exercised: a multiple and
  a share of a count and seconds, a difference with no "than" or "of" before its second
  figure.
- `NEIGHBOUR`: both inputs in one sentence next to the one that holds the claim's context
  ("With six workers, ... cut the link time by 4.4 seconds": "configured to use six
  workers" and, two lines on, "Linking takes 3.1 seconds (down from 7.5 seconds)"), or in
  two sentences next to each other after many that hold as many of the claim's words but
  its commonest ones ("survey", "responses"). Twins: the difference of the next line's
  figures (another subject's), a wrong difference, and (added later) the difference as a
  plain figure, with no word saying which way it goes.
- `HEADER_UNIT`: a table whose header gives each column's unit after a comma ("Build
  time, s", "Binary size, KiB"): a difference of two rows' cells in that unit, a cell in
  another unit of it. Twins: a wrong difference, one column's figure read in the other's
  unit.
- `STATED_ELSEWHERE`: a figure computed from two rows or lines the claim names that the
  page also states, for something else, elsewhere ("12 modules" beside a "12 seconds
  longer" of two rows' build times). Twins: the same figure of two other rows, and (added
  later) the two rows' difference as a plain figure the claim does not say it computed.
- `COMPARED`: a percentage followed by a comparative ("50% faster than", "33% less time
  than") is a change of two figures, never the share of one in the other. Twins: the
  share read as a change.

`NOT_YET` lists the cases that failed when they were written (strict xfail): a change
removes its cases from that set, never edits a case.
"""

from __future__ import annotations

import pytest
from case_tables import Case, assert_checked, case_params

_LOADERS = (
    "Loader benchmark\n\n"
    "Importing 10,000 rows took 2.40 seconds with the old loader. The new loader finished the "
    "same import in 0.60 seconds. Both runs used a single core."
)
_PARSING = (
    "Loader benchmark\n\n"
    "Importing 10,000 rows took 2.40 seconds with the old loader. The new loader finished the "
    "same import in 0.80 seconds. Parsing alone took 0.60 seconds of that."
)
_BUFFERS = (
    "Limits\n\n"
    "A single buffer may hold at most 16 MB. All buffers together may use up to 4 GB of "
    "memory. The limits can be raised at boot."
)
_QUOTAS = (
    "Quotas\n\n"
    "In release 1 the default quota was 64 files per user; since release 2 the default quota "
    "is 4096 files. Administrators may raise it."
)
_SUITES = (
    "Import benchmarks\n\n"
    "Test 1: 1,000 single inserts\n"
    "INSERT INTO t VALUES(1);\n"
    "... 998 lines omitted\n"
    "| old loader: | 9.80 |\n"
    "| new loader: | 4.10 |\n"
    "Test 2: 10,000 rows in one transaction\n"
    "BEGIN;\n"
    "... 9,998 lines omitted\n"
    "COMMIT;\n"
    "| old loader: | 2.40 |\n"
    "| new loader: | 0.60 |\n"
    "In a transaction the new loader streams rows instead of buffering them."
)
_LIMITS = (
    "Limits\n\n"
    "The administrator may raise each limit at boot. A single buffer may hold at most 16 MB. "
    "Buffers are allocated on first use. Each worker keeps up to 64 buffers. The pool is "
    "shared by 12 workers. All buffers together may use up to 4 GB of memory."
)

_POOL_TIMEOUT = (
    "Worker pool\n\n"
    "Each worker keeps up to 64 buffers. Buffers are allocated on first use.\n\n"
    "Timeouts\n\n"
    "Idle buffers are freed after 16 seconds. The timeout can be changed at run time."
)

OWN_PAIR: list[Case] = [
    (
        _LOADERS,
        "The new loader imported the 10,000 rows in 0.60 seconds, four times faster than "
        "the old loader's 2.40 seconds.",
        True,
    ),
    (
        _LOADERS,
        "The new loader imported the 10,000 rows in 0.60 seconds, six times faster than the "
        "old loader's 2.40 seconds.",
        False,
    ),
    (
        _LOADERS,
        "The new loader imported the 10,000 rows in 0.60 seconds, 1.8 seconds faster than "
        "the old loader's 2.40 seconds.",
        True,
    ),
    (
        _LOADERS,
        "The new loader imported the 10,000 rows in 0.60 seconds, 1.4 seconds faster than "
        "the old loader's 2.40 seconds.",
        False,
    ),
    (
        _LOADERS,
        "The new loader needed 0.60 seconds for the 10,000 rows, only 25% of the old "
        "loader's 2.40 seconds.",
        True,
    ),
    (
        _LOADERS,
        "The new loader needed 0.60 seconds for the 10,000 rows, only 40% of the old "
        "loader's 2.40 seconds.",
        False,
    ),
    (  # an input nowhere on the page
        _LOADERS,
        "The new loader imported the 10,000 rows in 0.75 seconds, four times faster than "
        "the old loader's 3.00 seconds.",
        False,
    ),
    (  # 0.60 seconds is what parsing took, not the new loader
        _PARSING,
        "The new loader imported the 10,000 rows in 0.60 seconds, four times faster than "
        "the old loader's 2.40 seconds.",
        False,
    ),
    (
        _BUFFERS,
        "All buffers together (4 GB) may use 256 times the size of a single buffer (16 MB).",
        True,
    ),
    (
        _BUFFERS,
        "All buffers together (4 GB) may use 250 times the size of a single buffer (16 MB).",
        True,
    ),
    (
        _BUFFERS,
        "All buffers together (4 GB) may use 512 times the size of a single buffer (16 MB).",
        False,
    ),
    (  # two inputs of different dimensions: no multiple of one by the other
        _LIMITS,
        "Each worker's 64 buffers are four times the 16 MB a single buffer may hold.",
        False,
    ),
    (
        _QUOTAS,
        "The release 1 default quota, 64 files, was 1.6% of the 4096 files allowed since "
        "release 2.",
        True,
    ),
    (
        _QUOTAS,
        "The release 2 default quota of 4096 files is 64 times release 1's 64 files.",
        True,
    ),
    (
        _QUOTAS,
        "The release 2 default quota of 4096 files is 32 times release 1's 64 files.",
        False,
    ),
    (
        _SUITES,
        "With 10,000 rows in one transaction, the new loader finished in 0.60 seconds, four "
        "times faster than the old loader's 2.40 seconds.",
        True,
    ),
    (
        _SUITES,
        "With 10,000 rows in one transaction, the new loader finished in 0.60 seconds, six "
        "times faster than the old loader's 2.40 seconds.",
        False,
    ),
    (
        _SUITES,
        "With 10,000 rows in one transaction, the new loader finished in 0.60 seconds, 1.8 "
        "seconds sooner than the old loader's 2.40 seconds.",
        True,
    ),
    (
        _SUITES,
        "With 10,000 rows in one transaction, the new loader finished in 0.60 seconds, 1.4 "
        "seconds sooner than the old loader's 2.40 seconds.",
        False,
    ),
    (
        _SUITES,
        "On 1,000 single inserts, the new loader finished in 4.10 seconds, five times faster "
        "than the old loader's 9.80 seconds.",
        False,
    ),
    (
        _LIMITS,
        "All buffers together (4 GB) may use 256 times the size of a single buffer (16 MB).",
        True,
    ),
    (
        _LIMITS,
        "All buffers together (4 GB) may use 128 times the size of a single buffer (16 MB).",
        False,
    ),
    # a multiple and a share of two figures of different dimensions (a count, seconds),
    # each stated apart on the page (`ownfigures._flanks`: one kind and dimension)
    (
        _POOL_TIMEOUT,
        "Each worker keeps up to 64 buffers, four times the 16 seconds after which idle ones "
        "are freed.",
        False,
    ),
    (
        _POOL_TIMEOUT,
        "Idle buffers are freed after 16 seconds, 25% of the 64 buffers a worker keeps.",
        False,
    ),
    # a difference of the claim's two figures that it says is of something else: no "than"
    # or "of" between it and the second (`ownfigures.flanked`)
    (
        _SUITES,
        "With 10,000 rows in one transaction, the new loader finished in 0.60 seconds, 1.8 "
        "seconds sooner on its second run, and the old loader in 2.40 seconds.",
        False,
    ),
    (
        _SUITES,
        "With 10,000 rows in one transaction, the new loader finished in 0.60 seconds, 1.8 "
        "seconds after it started streaming, and the old loader in 2.40 seconds.",
        False,
    ),
]

_PROFILE = (
    "Parallel linking\n\n"
    "The linker can now run its passes in parallel, which cuts link times. When parallel "
    "linking is enabled and configured to use six workers, we get the following profile for "
    "the same release build as before.\n\n"
    "Again, a few things stand out.\n"
    "- Linking takes 3.1 seconds (down from 7.5 seconds).\n"
    "- Code generation takes 12.0 seconds (down from 14.2 seconds).\n"
    "- The workers are idle for part of the time."
)
_PROFILE_LINES = (
    "Parallel linking\n\n"
    "When parallel linking is enabled and configured to use six workers, the same release "
    "build gives these figures:\n"
    "- Linking takes 3.1 seconds (down from 7.5 seconds).\n"
    "- Code generation takes 12.0 seconds (down from 14.2 seconds).\n"
    "- The workers are idle for part of the time."
)
_RESPONSES = (
    "Developer survey 2024\n\n"
    "Thank you to the 4,210 developers who responded to the survey this year. Most survey "
    "responses came from backend developers (71%). Survey responses from web developers "
    "mention TypeScript. Developers deploying to containers sent many survey responses. "
    "Survey responses from mobile developers were few. Developers in embedded work sent "
    "survey responses too.\n\n"
    "Methodology\n\n"
    "The survey was open for three weeks. We received a total of 5,880 responses. After data "
    "cleaning to remove spam and duplicate answers, 4,210 were kept for the analysis. The "
    "median survey response took nine minutes."
)

NEIGHBOUR: list[Case] = [
    (
        _PROFILE,
        "With six workers, parallel linking cut the link time of the release build by 4.4 seconds.",
        True,
    ),
    (  # the difference of code generation's times, not of linking's
        _PROFILE,
        "With six workers, parallel linking cut the link time of the release build by 2.2 seconds.",
        False,
    ),
    (
        _PROFILE,
        "With six workers, parallel linking cut the link time of the release build by 4.9 seconds.",
        False,
    ),
    (
        _PROFILE_LINES,
        "With six workers, parallel linking cut the link time of the release build by 4.4 seconds.",
        True,
    ),
    (  # the next line's difference is code generation's
        _PROFILE_LINES,
        "With six workers, parallel linking cut the link time of the release build by 2.2 seconds.",
        False,
    ),
    (  # the context figure is not the page's
        _PROFILE_LINES,
        "With eight workers, parallel linking cut the link time of the release build by 4.4 "
        "seconds.",
        False,
    ),
    (
        _RESPONSES,
        "About 1,700 of the responses to the 2024 developer survey were discarded during data "
        "cleaning.",
        True,
    ),
    (
        _RESPONSES,
        "About 1,200 of the responses to the 2024 developer survey were discarded during data "
        "cleaning.",
        False,
    ),
    (
        _RESPONSES,
        "About 2,500 of the responses to the 2024 developer survey were discarded during data "
        "cleaning.",
        False,
    ),
    # the neighbour's difference as a plain figure, no word saying which way it goes
    # (`computed._next_to_context`: only with `Cues.rise` or `Cues.fall`)
    (_PROFILE, "With six workers, linking the release build took 4.4 seconds.", False),
    (_PROFILE_LINES, "With six workers, the release build spent 4.4 seconds linking.", False),
]

_BUILDS = (
    "Build comparison\n\n"
    "We built the same project with each tool, best of three runs.\n"
    "| Tool | Build time, s | Binary size, KiB |\n"
    "|---|---|---|\n"
    "| quickbuild | 3.5 | 212 |\n"
    "| slowmake | 15.5 | 400 |\n"
    "| midtool | 8.0 | 15 |\n"
    "The binaries were stripped before they were measured."
)

HEADER_UNIT: list[Case] = [
    (_BUILDS, "Building with slowmake took 12 seconds longer than with quickbuild.", True),
    (_BUILDS, "Building with slowmake took 20 seconds longer than with quickbuild.", False),
    (_BUILDS, "The slowmake binary came to about 410 kB.", True),
    (  # the build time's figure, read as a size
        _BUILDS,
        "The midtool binary came to about 8 kB.",
        False,
    ),
    (  # the binary size's figure, read as a time
        _BUILDS,
        "Building with slowmake took 400 seconds.",
        False,
    ),
    (_BUILDS, "Building with slowmake took about a quarter of a minute.", True),
]

_BUILDS_NOTES = (
    "Build comparison\n\n"
    "We built the same project with each tool on one laptop, best of three runs.\n"
    "| Tool | Build time, s | Binary size, KiB |\n"
    "|---|---|---|\n"
    "| quickbuild | 3.5 | 212 |\n"
    "| slowmake | 15.5 | 400 |\n"
    "| midtool | 8.0 | 15 |\n"
    "The binaries were stripped before they were measured.\n\n"
    "The project has 12 modules and 7 test suites; CI runs it 5 times a day."
)
_SCHEDULE = (
    "Project calendar\n\n"
    "This page lists the dates we aim for.\n"
    "- 4.2.0 beta 1: 2024-05-08\n"
    "- 4.2.0 beta 2: 2024-06-05\n"
    "- 4.2.0 final: 2024-10-07\n"
    "The team held 5 planning meetings over the summer."
)

_SCHEDULE_ALONE = _SCHEDULE.replace("The team held 5 planning meetings", "The team met")

_NIGHTLY = (
    "Build tools\n\n"
    "We timed each tool on a clean checkout, best of three runs.\n"
    "| Tool | Build time, s |\n"
    "|---|---|\n"
    "| quickbuild | 3.5 |\n"
    "| slowmake | 15.5 |\n"
    "| midtool | 8.0 |\n\n"
    "Caching\n\n"
    "All tools keep a cache of object files between runs. The cache keeps at most 12 versions "
    "of each file. It can be cleared by hand.\n\n"
    "Nightly job\n\n"
    "In March we switched the nightly job on the shared laptop from quickbuild to slowmake. "
    "Nobody noticed."
)

STATED_ELSEWHERE: list[Case] = [
    (
        _BUILDS_NOTES,
        "Building the same project on one laptop, slowmake took 12 seconds longer than "
        "quickbuild, best of three runs.",
        True,
    ),
    (  # 15.5 less 8.0 is 7.5, not the page's other 12
        _BUILDS_NOTES,
        "Building the same project on one laptop, slowmake took 12 seconds longer than "
        "midtool, best of three runs.",
        False,
    ),
    (
        _SCHEDULE,
        "Version 4.2.0 spent about five months between its first beta and the final release.",
        True,
    ),
    (  # the second beta to the final release is four months
        _SCHEDULE,
        "Version 4.2.0 spent about five months between its second beta and the final release.",
        False,
    ),
    (  # the same, on a page that states no 5 at all: a figure nowhere on the page
        _SCHEDULE_ALONE,
        "Version 4.2.0 spent about five months between its second beta and the final release.",
        False,
    ),
    (
        _NIGHTLY,
        "The nightly job on the shared laptop took 12 seconds longer after the switch from "
        "quickbuild to slowmake.",
        True,
    ),
    (
        _NIGHTLY,
        "The nightly job on the shared laptop took 20 seconds longer after the switch from "
        "quickbuild to slowmake.",
        False,
    ),
    # the two rows' difference as a plain figure, which the claim does not say it computed
    # (`computed.computed_from_rows`: a comparative, multiple, percentage or duration only)
    (
        _NIGHTLY,
        "The nightly job on the shared laptop took 12 seconds after the switch from quickbuild "
        "to slowmake.",
        False,
    ),
    (
        _NIGHTLY,
        "After the switch from quickbuild to slowmake, the nightly job on the shared laptop "
        "took 12 seconds per build.",
        False,
    ),
]

_FORMATTING = (
    "Formatting benchmark\n\n"
    "Each library formatted the same two million strings. In the benchmark, fastfmt took "
    "0.40 seconds and printf took 0.60 seconds. Output went to /dev/null."
)

COMPARED: list[Case] = [
    (_FORMATTING, "In the benchmark, fastfmt ran about 50% faster than printf.", True),
    (_FORMATTING, "In the benchmark, fastfmt needed about 33% less time than printf.", True),
    (_FORMATTING, "In the benchmark, fastfmt needed about 67% of printf's time.", True),
    (  # 67% is the share of one time in the other, no change between them
        _FORMATTING,
        "In the benchmark, fastfmt ran about 67% faster than printf.",
        False,
    ),
    (
        _FORMATTING,
        "In the benchmark, fastfmt needed about 67% less time than printf.",
        False,
    ),
]

GROUPS: dict[str, list[Case]] = {
    "compared": COMPARED,
    "stated_elsewhere": STATED_ELSEWHERE,
    "own_pair": OWN_PAIR,
    "neighbour": NEIGHBOUR,
    "header_unit": HEADER_UNIT,
}

NOT_YET: frozenset[str] = frozenset()
"""Ids ("<group>-<index>") of the cases the check does not get right yet."""


@pytest.mark.parametrize(("page", "claim", "supported"), case_params(GROUPS, NOT_YET))
def test_a_figure_computed_from_two_the_claim_states_is_found(
    page: str, claim: str, supported: bool
) -> None:
    assert_checked(page, claim, supported)

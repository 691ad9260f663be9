"""A claim's figure that the page nowhere states but computes, case by case (issue 26): a
small page, a claim a careful writer would compute from it, and whether the check must
find it SUPPORTED.

Written before the changes that followed it (issue 26, session 4 of wave 4), by listing
the readings a computation needs first (a count read as a count, not as a unit pint knows
by another meaning, nor as a year; a date range as two dates; a fraction word only where
it is a fraction) and the computations writers make from figures of one line of a
listing, of two table rows a caption names, of a claim's own figure and a page's; not
from corpus sentences. Each true claim has its near-miss twin that must still be flagged
(anything but SUPPORTED): a wrong result of the same computation, a ratio off by more than
the claim's hedge allows, or a figure that only unrelated parts of the page compute.

`NOT_YET` lists the cases that failed when they were written (strict xfail): a change
removes its cases from that set, never edits a case.
"""

from __future__ import annotations

import pytest
from case_tables import Case, assert_checked, case_params

from research.sources.namedrows import names_of

_CPU = (
    "Scheduler notes\n\n"
    "Without autogrouping the batch job received just 9% of the CPU cycles. With it, the "
    "job got half of them."
)
_STORE = (
    "Write test\n\n"
    "Because rewrites are slow, only 5,000 of the 50,000 blobs in the store are rewritten "
    "by the test."
)
_MANUAL = "Manual\n\nThe reference manual runs to 1,969 pages in print."
_PARSERS = (
    "Parser sizes\n\n"
    "The new parser is much larger than the old one: 14210 lines vs 1987 lines of code."
)
_RATE = "Parser benchmark\n\nThe parser reads 20.52 Mfloat/s on the benchmark machine."
_BROKER = "Broker\n\nThe broker handles 500 Messages/s on one core."
_SURVEY_DATES = (
    "Survey results\n\n"
    "This post shares the results of the developer survey, conducted from September 9–23, "
    "2024."
)
_NIGHTLY = "Continuous integration\n\nThe project's CI tests against nightly-2025-12-01 and stable."
_HALF_YEARLY = (
    "Release schedule\n\n"
    "Version 5 will receive bugfix updates approximately every 6 months for about 24 months."
)
_OPENED = (
    "Survey notes\n\n"
    "The survey opened for answers on March 3 and closed on March 17, 2023. It drew 900 "
    "answers."
)
_BUGFIX = (
    "Release schedule\n\n"
    "Version 4 will receive bugfix updates approximately every 3 months for about 24 months."
)

_LOAD = (
    "Hash tables\n\n"
    "Most hash tables define a maximum load factor (typically 70-90%) at which point they grow."
)
_DEPENDENCIES = (
    "Security survey\n\n"
    "One quarter of respondents said they'd learned of a vulnerability in a third-party "
    "dependency. Among those who use a scanner, this proportion nearly doubles, from 25% to "
    "46%."
)
_PAUSE = (
    "GC keynote\n\nWe now have an objective of 500 microseconds stop the world pause per GC cycle."
)

_MISSES = "Cache profile\n\nIn the sample run the instruction cache miss rate was 2.24%."
_MORE_MISSES = "Cache profile\n\nIn the sample run the instruction cache miss rate was 2.6%."

READING: list[Case] = [
    (_CPU, "Without autogrouping the batch job got roughly one CPU cycle in eleven.", True),
    (_CPU, "Without autogrouping the batch job got roughly one CPU cycle in four.", False),
    (_STORE, "The test rewrites only one in ten of the blobs in the store.", True),
    (_STORE, "The test rewrites only one in four of the blobs in the store.", False),
    (_MANUAL, "The reference manual runs to roughly two thousand pages in print.", True),
    (_MANUAL, "The reference manual runs to roughly three thousand pages in print.", False),
    (_PARSERS, "The new parser has about seven times as many lines of code as the old.", True),
    (_PARSERS, "The new parser has about five times as many lines of code as the old.", False),
    (_RATE, "The parser reads about 20.5 million floats per second on the benchmark.", True),
    (_RATE, "The parser reads about 25 million floats per second on the benchmark.", False),
    (_BROKER, "The broker handles 500 messages per second on one core.", True),
    (_BROKER, "The broker handles 500 million messages per second on one core.", False),
    (_SURVEY_DATES, "The developer survey ran from 9 to 23 September 2024.", True),
    (_SURVEY_DATES, "The developer survey ran from 9 to 25 September 2024.", False),
    (_SURVEY_DATES, "The developer survey closed on 23 September 2024.", True),
    (_SURVEY_DATES, "The developer survey closed on 23 October 2024.", False),
    (_NIGHTLY, "The project's CI tests against the nightly of 1 December 2025.", True),
    (_NIGHTLY, "The project's CI tests against the nightly of 2 December 2025.", False),
    (_BUGFIX, "Version 4 will receive bugfix updates roughly once a quarter.", True),
    (_BUGFIX, "Version 4 will receive bugfix updates roughly twice a quarter.", False),
    (_OPENED, "The survey was open for answers from 3 to 17 March 2023.", True),
    (_OPENED, "The survey was open for answers from 3 to 19 March 2023.", False),
    (_OPENED, "The survey opened for answers on 3 March 2023.", True),
    (_OPENED, "The survey opened for answers on 3 March 2022.", False),
    (_LOAD, "Most hash tables grow between seven tenths and nine tenths of the load.", True),
    (_LOAD, "Most hash tables grow between seven tenths and eight tenths of the load.", False),
    (
        _DEPENDENCIES,
        "Among those who use a scanner, the share who learned of a vulnerability in a "
        "third-party dependency was 21 percentage points higher.",
        True,
    ),
    (
        _DEPENDENCIES,
        "Among those who use a scanner, the share who learned of a vulnerability in a "
        "third-party dependency was 31 percentage points higher.",
        False,
    ),
    (_PAUSE, "The GC objective is a stop-the-world pause of 500 microseconds per GC cycle.", True),
    (_PAUSE, "The GC objective is a stop-the-world pause of 50 microseconds per GC cycle.", False),
    (_HALF_YEARLY, "Version 5 will receive bugfix updates roughly once a quarter.", False),
    (_MISSES, "In the sample run the instruction cache miss rate was just over 2%.", True),
    (_MORE_MISSES, "In the sample run the instruction cache miss rate was just over 2%.", False),
    (_MORE_MISSES, "In the sample run the instruction cache miss rate was just under 3%.", True),
    (_MISSES, "In the sample run the instruction cache miss rate was just under 3%.", False),
]

_LATENCY = (
    "Benchmarks\n\n"
    "Latency\n\n"
    "small.json encoding\n\n"
    "| Library | Median latency (milliseconds) | Operations per second |\n"
    "|---|---|---|\n"
    "| fastlib | 0.4 | 2500 |\n"
    "| stdlib | 3.6 | 280 |\n\n"
    "large.json encoding\n\n"
    "| Library | Median latency (milliseconds) | Operations per second |\n"
    "|---|---|---|\n"
    "| fastlib | 12.5 | 80 |\n"
    "| stdlib | 95.0 | 11 |"
)
_OUTPUT = (
    "Parsing benchmark\n\n"
    "The benchmark prints one line per library.\n\n"
    "# parsing random numbers\n"
    "volume = 2.1 MB\n"
    "slowlib : 190.5 MB/s (+/- 1.6 %) 9.1 Mfloat/s\n"
    "quicklib : 1040.2 MB/s (+/- 9.9 %) 49.6 Mfloat/s\n"
    "midlib : 430.4 MB/s (+/- 2.2 %) 20.5 Mfloat/s"
)
_SCHEDULE = (
    "Release schedule\n\n"
    "The 2.4 schedule:\n\n"
    "- 2.4.0 alpha 1: 2021-01-04\n"
    "- 2.4.0 alpha 2: 2021-02-01\n"
    "- 2.4.0 beta 1: 2021-05-03\n"
    "- 2.4.0 final: 2021-10-04\n\n"
    "Bugfix releases follow every two months."
)

_THROUGHPUT = (
    "Parser notes\n\n"
    "The quickparse library parses numbers: it reads hex strings 4 digits at a time in base "
    "16 when parsing.\n\n"
    "Benchmark output:\n\n"
    "netlib : 271.18 MB/s\n"
    "quickparse : 1042.38 MB/s"
)

NAMED_ROWS: list[Case] = [
    (_THROUGHPUT, "netlib reached about a quarter of quickparse's parsing throughput.", True),
    (_THROUGHPUT, "netlib reached about a fifth of quickparse's parsing throughput.", False),
    (
        _LATENCY,
        "On large.json, stdlib's median encoding latency was 82.5 ms higher than fastlib's.",
        True,
    ),
    (
        _LATENCY,
        "On small.json, stdlib's median encoding latency was 82.5 ms higher than fastlib's.",
        False,
    ),
    (
        _LATENCY,
        "On large.json, stdlib's median encoding latency was 85 ms higher than fastlib's.",
        False,
    ),
    (_LATENCY, "On small.json, fastlib's median encoding latency was a ninth of stdlib's.", True),
    (
        _LATENCY,
        "On small.json, fastlib encoded about 7.6 times as many operations per second as stdlib.",
        False,
    ),
    (
        _OUTPUT,
        "quicklib ran more than five times as fast as slowlib in the benchmark.",
        True,
    ),
    (
        _OUTPUT,
        "quicklib ran more than seven times as fast as slowlib in the benchmark.",
        False,
    ),
    (
        _OUTPUT,
        "midlib ran at about 40% of quicklib's speed in the benchmark.",
        True,
    ),
    (
        _OUTPUT,
        "midlib ran at about 60% of quicklib's speed in the benchmark.",
        False,
    ),
    (
        _SCHEDULE,
        "The 2.4.0 final release came about nine months after alpha 1.",
        True,
    ),
    (
        _SCHEDULE,
        "The 2.4.0 final release came about six months after alpha 1.",
        False,
    ),
    (
        _SCHEDULE,
        "The 2.4.0 final release came just over five months after the beta.",
        True,
    ),
    (
        _SCHEDULE,
        "The 2.4.0 beta came just over five months after alpha 1.",
        False,
    ),
]

_SOCKETS = (
    "Socket notes\n\n"
    "On this system, the path field is 108 bytes in size. The family field always holds "
    "AF_UNIX.\n\n"
    "Several calls take the address length as an argument. Each message header takes 40 "
    "bytes and each control buffer 24 bytes.\n\n"
    "When writing portable code, note that some implementations have a path field as short "
    "as 92 bytes."
)
_QUEUES = (
    "Queue limits\n\n"
    "The default value for max_queues is 256. Privileged processes can exceed it.\n\n"
    "Message sizes are limited separately. The default maximum message count is 8192.\n\n"
    "In versions 3.5 to 3.14, the kernel imposed a hard ceiling of 1024 on the value to "
    "which max_queues could be raised."
)
_RESPONSES = (
    "Survey results\n\n"
    "In 2022, we had 9,433 total survey completions and a completion rate of 82%. We were "
    "pleased by the increase.\n\n"
    "In 2022, the survey had 11,482 responses, a slight decrease of 6.4% from 2021. The "
    "survey was shorter than before. It ran for two weeks and drew 1,200 comments."
)

_DISK = (
    "Disk usage\n\n"
    "On a desktop test machine the archive file is 1,024,512,000 bytes and the photo "
    "directory uses 1,228,800,000 bytes, about 20% more. The test was repeated three "
    "times.\n\n"
    "The backup server holds 3,000,000,000 bytes of logs and 2,895,712,000 bytes of mail."
)

APART: list[Case] = [
    (
        _SOCKETS,
        "On this system the path field is 16 bytes longer than on the shortest implementations.",
        True,
    ),
    (
        _SOCKETS,
        "On this system the path field is 12 bytes longer than on the shortest implementations.",
        False,
    ),
    (
        _SOCKETS,
        "On this system the path field is 84 bytes longer than on the shortest implementations.",
        False,
    ),
    (
        _QUEUES,
        "In versions 3.5 to 3.14, the default max_queues was a quarter of the hard ceiling to "
        "which it could be raised.",
        True,
    ),
    (
        _QUEUES,
        "In versions 3.5 to 3.14, the default max_queues was a third of the hard ceiling to "
        "which it could be raised.",
        False,
    ),
    (
        _QUEUES,
        "In versions 3.5 to 3.14, the default max_queues was an eighth of the hard ceiling to "
        "which it could be raised.",
        False,
    ),
    (_RESPONSES, "In 2022, 2,049 people who responded to the survey did not complete it.", True),
    (_RESPONSES, "In 2022, 2,409 people who responded to the survey did not complete it.", False),
    (_RESPONSES, "In 2022, 8,233 people who responded to the survey did not complete it.", False),
    (
        _DISK,
        "The photo directory took 204,288,000 bytes more disk space than the archive file.",
        True,
    ),
    (
        _DISK,
        "The photo directory took 204,388,000 bytes more disk space than the archive file.",
        False,
    ),
    (
        _DISK,
        "The photo directory took 104,288,000 bytes more disk space than the archive file.",
        False,
    ),
]

_PGO = (
    "Results\n\n"
    "PGO gave a solid 5% reduction of instruction counts across the benchmarks. That is far "
    "from the 20% improvement cited in the compiler's manual. Build times grew by 12%."
)
_REFS = (
    "Cache profile\n\n"
    "The profiler counted 557,686,925 data references (361,828,925 reads and 195,858,000 "
    "writes) and 1,060,925,768 instruction references."
)

_DEADLINE = (
    "Deadline scheduling\n\n"
    "These fields express values in nanoseconds. All of the parameter values must be at "
    "least 1024 and less than 2^63."
)

_ABOVE = (
    "Benchmarks\n\n"
    "Here is a comparison on one large file:\n\n"
    "| Tool | Command | Time |\n"
    "|---|---|---|\n"
    "| midgrep | mg -w 'x' | 3.0s |\n"
    "| slowgrep | sg -w 'x' | 6.0s |\n"
    "| fastgrep | fg -w 'x' | 1.2s |\n\n"
    "In the above benchmark, passing the -v flag increases the times to 2.5s for fastgrep "
    "and 9.1s for slowgrep. Other tools were not run with -v."
)

NEXT_TO_TABLE: list[Case] = [
    (_ABOVE, "Passing -v added 1.3 seconds to fastgrep's time in the benchmark.", True),
    (_ABOVE, "Passing -v added 1.8 seconds to fastgrep's time in the benchmark.", False),
    (_ABOVE, "Passing -v added 3.1 seconds to fastgrep's time in the benchmark.", False),
]

_IMMORTAL = (
    "Immortal objects\n\n"
    "For example, if the magic value were 2^30 and the initial immortal refcount were thus "
    "2^30 + 2^29 then it would take 2^29 increfs to reach a value of 2^31."
)

SUMS: list[Case] = [
    (_IMMORTAL, "In the example, an immortal object starts at 1.5 times the magic value.", True),
    (_IMMORTAL, "In the example, an immortal object starts at 2.5 times the magic value.", False),
    (_IMMORTAL, "In the example, an immortal object starts at 1.25 times the magic value.", False),
]

_SIGNALS = (
    "Real-time signals\n\n"
    "The kernel supports a range of 33 different real-time signals, numbered 32 to 64. "
    "However, the threads library internally uses two real-time signals for itself, and "
    "adjusts SIGRTMIN to 34."
)

LEFT_OVER: list[Case] = [
    (
        _SIGNALS,
        "Because the threads library reserves two of them, programs have 31 of the kernel's "
        "real-time signals left.",
        True,
    ),
    (
        _SIGNALS,
        "Because the threads library reserves two of them, programs have 29 of the kernel's "
        "real-time signals left.",
        False,
    ),
    (
        _SIGNALS,
        "Because the threads library reserves two of them, programs have 32 of the kernel's "
        "real-time signals left.",
        False,
    ),
    (
        _SIGNALS,
        "Because the threads library reserves two of them, programs have 35 of the kernel's "
        "real-time signals left.",
        False,
    ),
]

OWN_FIGURE: list[Case] = [
    (
        _PGO,
        "The 5% cut in instruction counts from PGO is a quarter of the improvement cited in "
        "the compiler's manual.",
        True,
    ),
    (
        _PGO,
        "The 5% cut in instruction counts from PGO is a third of the improvement cited in "
        "the compiler's manual.",
        False,
    ),
    (
        _PGO,
        "The 5% cut in instruction counts from PGO is 60% of the improvement cited in the "
        "compiler's manual.",
        False,
    ),
    (_REFS, "Reads made up about 65% of the 557,686,925 data references.", True),
    (_REFS, "Reads made up about 75% of the 557,686,925 data references.", False),
    (_REFS, "Reads made up about 55% of the 557,686,925 data references.", False),
    (
        _DEADLINE,
        "The parameter values, given in nanoseconds, must be less than 2^63, a bound of "
        "roughly 290 years.",
        True,
    ),
    (
        _DEADLINE,
        "The parameter values, given in nanoseconds, must be less than 2^63, a bound of "
        "roughly 400 years.",
        False,
    ),
    (
        _DEADLINE,
        "The parameter values, given in microseconds, must be less than 2^63, a bound of "
        "roughly 290 years.",
        False,
    ),
]

GROUPS: dict[str, list[Case]] = {
    "reading": READING,
    "named_rows": NAMED_ROWS,
    "apart": APART,
    "own_figure": OWN_FIGURE,
    "next_to_table": NEXT_TO_TABLE,
    "left_over": LEFT_OVER,
    "sums": SUMS,
}

NOT_YET: frozenset[str] = frozenset({"apart-05", "apart-06"})
"""Ids ("<group>-<index>") of the cases the check does not get right yet."""


@pytest.mark.parametrize(("page", "claim", "supported"), case_params(GROUPS, NOT_YET))
def test_a_figure_the_page_computes_is_supported_and_a_wrong_one_is_not(
    page: str, claim: str, supported: bool
) -> None:
    assert_checked(page, claim, supported)


def test_a_row_is_named_by_a_claim_word_squashed_to_its_letters() -> None:
    names = names_of("fast_float's parser beat canada.json's")
    assert {"fastfloat", "canadajson", "parser"} <= names
    assert "fastfloats" not in names

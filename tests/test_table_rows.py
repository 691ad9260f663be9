"""Figures of a table's rows, case by case (issue 26): a page with a table, a claim, and
whether the check must find it SUPPORTED.

A changed figure taken from a table is usually the next row's or the next column's: the
claim names one row and states another's figure, which is on the page, often in the very
passage that matches the claim's words. Written before the rule that reads rows written
without pipes (`research.sources.rowlines`) and the one that binds a row's figures to its
label (`research.sources.rows`), from the kinds of tables careful reports cite: a
benchmark program's "label : value" output, a timing tool's "Time (mean ± σ): ..." lines,
a reStructuredText simple table, a man page's table with its columns' spacing lost, a
pipe table whose first cell names several things. Not from corpus sentences.

Each group has true claims (plain and careful: a unit converted, a hedge, the label in
other words around it) and twins that must stay flagged: the figure of the next row, of
the next column, of another block of rows. `PROSE` checks that prose hard-wrapped into
short lines is not read as rows.

`NOT_YET_READ` lists the cases that failed when the table was written (strict xfail): a
change removes its cases from that set, never edits a case.
"""

from __future__ import annotations

import pytest
from case_tables import Case, assert_checked, case_params

_OUTPUT = (
    "Parser benchmark\n\n"
    "We timed each parser on the same input file; the figures are medians of ten runs.\n"
    "$ ./build/bench\n"
    "# parsing the sample file\n"
    "size = 4.51 MB\n"
    "quickparse : 812.40 MB/s (+/- 1.1 %) 40.2 Mdoc/s\n"
    "slowparse : 97.25 MB/s (+/- 3.4 %) 4.8 Mdoc/s\n"
    "midparse : 310.80 MB/s (+/- 2.0 %) 15.4 Mdoc/s\n"
    "See the benchmarking section for how to run it on your machine.\n"
)
_TIMING = (
    "Timing the tools\n\n"
    "Every tool searched the same home folder with a warm disk cache.\n"
    "Let's start with the slow tool:\n"
    "Run 1: slowtool --all\n"
    "Time (mean \u00b1 \u03c3): 14.210 s \u00b1 0.120 s\n"
    "Range (min \u2026 max): 14.020 s \u2026 14.400 s\n"
    "the slow tool is much faster when it does not follow links:\n"
    "Run 2: slowtool --no-follow\n"
    "Time (mean \u00b1 \u03c3): 6.350 s \u00b1 0.090 s\n"
    "Range (min \u2026 max): 6.210 s \u2026 6.480 s\n"
)
_RST = (
    "Clock resolution\n\n"
    "Resolution of each clock, measured in Python on the test machine:\n\n"
    "=========== ==========\n"
    "Function Resolution\n"
    "=========== ==========\n"
    "fast_clock() 20 ns\n"
    "slow_clock() 16 ms\n"
    "cpu_clock() 15.6 ms\n"
    "=========== ==========\n\n"
    "The fast clock is read from a hardware counter.\n"
)
_PIPE = (
    "Build times\n\n"
    "We built the project on two machines with two compilers, each in Release mode.\n\n"
    "| build | time (s) | peak memory (MB) |\n"
    "|---|---|---|\n"
    "| laptop / gcc / Release | 41.2 | 512 |\n"
    "| laptop / clang / Release | 38.7 | 498 |\n"
    "| server / gcc / Release | 12.9 | 530 |\n"
)
_SIGNALS = (
    "Signal numbers\n\n"
    "The numbers of some signals differ from one architecture to another.\n\n"
    "Signal x86 Alpha MIPS\n"
    "\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\n"
    "SIGTICK 10 30 16\n"
    "SIGTOCK 12 31 17\n"
    "SIGHUSH 14 14 14\n"
)

OUTPUT: list[Case] = [
    (_OUTPUT, "quickparse parsed the sample file at 812.40 MB/s.", True),
    (_OUTPUT, "slowparse managed about 97 MB/s on the sample file.", True),
    (_OUTPUT, "midparse parsed the sample file at about 0.31 GB/s.", True),
    (_OUTPUT, "slowparse parsed the sample file at 310.80 MB/s.", False),
    (_OUTPUT, "midparse parsed the sample file at 812.40 MB/s.", False),
    (_OUTPUT, "The midparse measurement varied by +/- 3.4 %.", False),
]
TIMING: list[Case] = [
    (_TIMING, "The slow tool took 14.210 s on average to search the home folder.", True),
    (
        _TIMING,
        "Without following links, the slow tool needed 6,350 milliseconds on average.",
        True,
    ),
    (_TIMING, "Without following links, the slow tool needed 14.210 s on average.", False),
]
_RST_NS = (
    "Clock resolution\n\n"
    "Resolution of each clock, measured in Python on the test machine:\n\n"
    "=========== ==========\n"
    "Function Resolution\n"
    "=========== ==========\n"
    "monotonic() 81 ns\n"
    "monotonic_ns() 84 ns\n"
    "perf_counter() 82 ns\n"
    "=========== ==========\n"
)
RST: list[Case] = [
    (_RST, "On the test machine, slow_clock() had a resolution of 16 ms.", True),
    (_RST, "fast_clock() had a resolution of 20 nanoseconds on the test machine.", True),
    (_RST, "cpu_clock() had a resolution of about 16 ms on the test machine.", True),
    (_RST, "fast_clock() had a resolution of 16 ms on the test machine.", False),
    (_RST, "On the test machine, cpu_clock() had a resolution of 20 ns.", False),
    (_RST_NS, "On the test machine, monotonic_ns() had a resolution of 84 ns.", True),
    (_RST_NS, "On the test machine, monotonic() had a resolution of 81 ns.", True),
    (_RST_NS, "On the test machine, monotonic_ns() had a resolution of 81 ns.", False),
]
PIPE: list[Case] = [
    (_PIPE, "On the server, the gcc Release build took 12.9 seconds.", True),
    (_PIPE, "With clang on the laptop, the Release build took 38.7 seconds.", True),
    (_PIPE, "With gcc on the laptop, the Release build took 38.7 seconds.", False),
    (_PIPE, "On the server, the gcc Release build peaked at 498 MB of memory.", False),
]
_TWO_TABLES = (
    "Serialization\n\n"
    "This measures serializing a list of floats with each library:\n\n"
    "| Library | Latency (ms) | Memory (MiB) |\n"
    "|---|---|---|\n"
    "| fastjson | 81 | 120 |\n"
    "| stdjson | 1,402 | 310 |\n\n"
    "This measures serializing a list of integers with each library:\n\n"
    "| Library | Latency (ms) | Memory (MiB) |\n"
    "|---|---|---|\n"
    "| fastjson | 52 | 118 |\n"
    "| stdjson | 611 | 290 |\n"
)
_LEVELS = (
    "Compression\n\n"
    "Each compressor ran on the same corpus; speeds are for one core.\n\n"
    "| Compressor | Ratio | Speed |\n"
    "|---|---|---|\n"
    "| deflate -1 | 2.73 | 100 MB/s |\n"
    "| deflate -6 | 3.10 | 36 MB/s |\n"
    "| deflate -9 | 3.13 | 12 MB/s |\n"
)
_SERIALIZE = (
    "Serialization\n\n"
    "Latency of serializing the sample document, and invalid JSON inputs each library let "
    "through:\n\n"
    "| Library | compact (ms) | pretty (ms) | invalid JSON accepted |\n"
    "|---|---|---|---|\n"
    "| fastjson | 0.02 | 0.01 | 0 |\n"
    "| json | 0.54 | 0.13 | 17 |\n"
)
COLUMNS: list[Case] = [
    (_SERIALIZE, "fastjson serialized the sample document in 0.02 ms as compact output.", True),
    (_SERIALIZE, "Pretty-printing the sample, json took 0.13 ms.", True),
    (_SERIALIZE, "fastjson accepted 0 invalid JSON inputs, json 17.", True),
    (_SERIALIZE, "fastjson serialized the sample document in 0.01 ms as compact output.", False),
    (_SERIALIZE, "Pretty-printing the sample, json took 0.54 ms.", False),
]
TABLES: list[Case] = [
    (_TWO_TABLES, "Serializing a list of integers, stdjson took 611 ms.", True),
    (_TWO_TABLES, "Serializing a list of integers, fastjson took 52 ms against 611 ms.", True),
    (_TWO_TABLES, "Serializing a list of integers, stdjson took 1,402 ms.", False),
    (_TWO_TABLES, "Serializing a list of floats, fastjson took 52 ms.", False),
    (_LEVELS, "At level 6, deflate compressed at 36 MB/s.", True),
    (_LEVELS, "At level 1, deflate compressed at 36 MB/s.", False),
]
SIGNALS: list[Case] = [
    (_SIGNALS, "On x86, SIGTICK is signal 10.", True),
    (_SIGNALS, "SIGHUSH is signal 14 on every architecture listed.", True),
    (_SIGNALS, "On x86, SIGTOCK is signal 30.", False),
    (_SIGNALS, "On x86, SIGTICK is signal 30.", False),
    (_SIGNALS, "On Alpha, SIGTICK is signal 30.", True),
    (_SIGNALS, "On MIPS, SIGTOCK is signal 17.", True),
    (_SIGNALS, "SIGTICK is signal 10 on x86 and 30 on Alpha.", True),
    (_SIGNALS, "On Alpha, SIGTOCK is signal 12.", False),
]
PROSE: list[Case] = [
    (
        "Limits\n\nBy default\nthe soft limit is 8 MB\nand the hard limit 64 MB\nfor each "
        "process, and both can be raised.\n",
        "By default the hard limit is 64 MB for each process.",
        True,
    ),
    (
        "Limits\n\nBy default\nthe soft limit is 8 MB\nand the hard limit 64 MB\nfor each "
        "process, and both can be raised.\n",
        "By default the hard limit is 8 MB for each process.",
        False,
    ),
]

_WRAPPED = (
    "Release schedule\n\n"
    "Release 3.11 will receive security fixes for five years after its final release, until\n"
    "October 2027.\n"
    "Features for 3.11\n"
    "Faster startup and better error messages.\n"
)
PROSE += [
    (_WRAPPED, "Release 3.11 will receive security fixes until October 2027.", True),
    (_WRAPPED, "Release 3.11 will receive security fixes until October 2028.", False),
]

GROUPS: dict[str, list[Case]] = {
    "output": OUTPUT,
    "timing": TIMING,
    "rst": RST,
    "pipe": PIPE,
    "signals": SIGNALS,
    "tables": TABLES,
    "columns": COLUMNS,
    "prose": PROSE,
}

NOT_YET_READ: frozenset[str] = frozenset()
"""Ids ("<group>-<index>") of the cases the check does not get right yet."""


@pytest.mark.parametrize(("page", "claim", "supported"), case_params(GROUPS, NOT_YET_READ))
def test_a_table_row_binds_its_figures(page: str, claim: str, supported: bool) -> None:
    assert_checked(page, claim, supported)

"""Cells of benchmark tables and of a program's output that a claim restates, named by
their row, their column and the table's title (issue 26), case by case: a page, a claim,
and whether the check must find it SUPPORTED.

A report restating a benchmark names the machine or the test (the table's title line right
above it, or the paragraph ending with a colon above the command that printed the output),
the row (a program) and the column (a measure), and gives one or several cells. Each group
has true claims and twins that must stay flagged: a figure of another table (same row and
column, another machine or test), of another row, and two cells of one row (or two rows of
one column) swapped. Invented pages and sentences, not corpus ones.

`NOT_YET_READ` lists the cases that failed when the table was written (strict xfail): a
change removes its cases from that set, never edits a case.
"""

from __future__ import annotations

import pytest
from case_tables import Case, assert_checked, case_params

_MACHINES = (
    "Performance\n"
    "Benchmark project and data: csvbench\n"
    "Only the row reader is measured; a column reader will be added later.\n"
    "Cloud VM (Intel Xeon 8375C, gcc 11.2)\n"
    "| input.csv | read (MB/s) | write (MB/s) |\n"
    "|---|---|---|\n"
    "| fastcsv(mmap) | 905 | 512 |\n"
    "| fastcsv | 812 | 455 |\n"
    "| pycsv | 143 | 97 |\n"
    "| slowcsv | 41 | 29 |\n"
    "Phone (Snapdragon 888, clang 14)\n"
    "| input.csv | read (MB/s) | write (MB/s) |\n"
    "|---|---|---|\n"
    "| fastcsv(mmap) | 1210 | 630 |\n"
    "| fastcsv | 1104 | 588 |\n"
    "| pycsv | 201 | 133 |\n"
    "| slowcsv | 66 | 38 |\n"
    "Reports for more machines are linked from the project page.\n"
)
_OUTPUT = (
    "Results\n\n"
    "Each test runs the same function in a loop, in threads and in forked workers.\n\n"
    "The first test hashes 20000 short strings in each worker::\n\n"
    "cmd: ./run_tests hash_strings\n"
    "Loading hash_strings\n"
    "Starting ...\n"
    "serial (2 loops) 0.410220 seconds\n"
    "threads (2 workers) 0.452871 seconds\n"
    "forks (2 workers) 0.230114 seconds\n\n"
    "serial (4 loops) 0.820331 seconds\n"
    "threads (4 workers) 0.990245 seconds\n"
    "forks (4 workers) 0.244902 seconds\n\n"
    "As expected, forked workers scale with the number of cores.\n\n"
    "The second test compresses a text corpus, again sharing nothing::\n\n"
    "cmd: ./run_tests compress_corpus\n"
    "Loading compress_corpus\n"
    "Starting ...\n"
    "serial (2 loops) 1.306518 seconds\n"
    "threads (2 workers) 1.402297 seconds\n"
    "forks (2 workers) 0.688345 seconds\n\n"
    "serial (4 loops) 2.611940 seconds\n"
    "threads (4 workers) 3.075506 seconds\n"
    "forks (4 workers) 0.712618 seconds\n\n"
    "Threads are slower than a single loop here: the interpreter lock serializes them.\n"
)

GROUPS: dict[str, list[Case]] = {
    # A table's title line right above it names the machine; its rows name programs.
    "titled": [
        (
            _MACHINES,
            "On the cloud VM with the Xeon 8375C and gcc 11.2, fastcsv read input.csv at "
            "812 MB/s and wrote it at 455 MB/s.",
            True,
        ),
        (_MACHINES, "On the Snapdragon 888 phone, fastcsv wrote input.csv at 588 MB/s.", True),
        (_MACHINES, "On the Xeon 8375C, slowcsv read input.csv at only about 40 MB/s.", True),
        # the phone's cells for the cloud VM
        (
            _MACHINES,
            "On the cloud VM with the Xeon 8375C and gcc 11.2, fastcsv read input.csv at "
            "1104 MB/s and wrote it at 588 MB/s.",
            False,
        ),
        # the row above's cells (the mmap reader)
        (
            _MACHINES,
            "On the cloud VM with the Xeon 8375C and gcc 11.2, fastcsv read input.csv at "
            "905 MB/s and wrote it at 512 MB/s.",
            False,
        ),
        # read and write swapped, the measure before its figure
        (
            _MACHINES,
            "On the cloud VM with the Xeon 8375C and gcc 11.2, fastcsv read input.csv at "
            "455 MB/s and wrote it at 812 MB/s.",
            False,
        ),
        # read and write swapped, the measure after its figure
        (
            _MACHINES,
            "On the cloud VM, fastcsv reached 455 MB/s reading and 812 MB/s writing input.csv.",
            False,
        ),
        (
            _MACHINES,
            "On the cloud VM, fastcsv reached 812 MB/s reading and 455 MB/s writing input.csv.",
            True,
        ),
    ],
    # A program's output under its command lines, under the paragraph that says what the
    # test does (ending with "::"); its rows are told apart by a count after the label.
    "output": [
        (
            _OUTPUT,
            "In the corpus-compression test with four workers, forks took 0.712618 seconds, "
            "against 3.075506 seconds for four threads.",
            True,
        ),
        # the hashing test's cells for the compression test
        (
            _OUTPUT,
            "In the corpus-compression test with four workers, forks took 0.244902 seconds, "
            "against 0.990245 seconds for four threads.",
            False,
        ),
        # the two rows swapped
        (
            _OUTPUT,
            "In the corpus-compression test with four workers, forks took 3.075506 seconds, "
            "against 0.712618 seconds for four threads.",
            False,
        ),
        # the two-worker row's figure for four workers
        (
            _OUTPUT,
            "In the corpus-compression test with four workers, forks took 0.688345 seconds, "
            "against 3.075506 seconds for four threads.",
            False,
        ),
    ],
}

NOT_YET_READ: set[str] = set()


@pytest.mark.parametrize(("page", "claim", "supported"), case_params(GROUPS, NOT_YET_READ))
def test_table_cells(page: str, claim: str, supported: bool) -> None:
    assert_checked(page, claim, supported)

"""The claim check reads a table row or a line after a colon with the sentences that
introduce it (issue 26): a figure stated there is where the matching passage points."""

from __future__ import annotations

import pytest

from research.sources.claims import Support, check_claim, index_page

# The tool is the page's topic (in most sentences), so only the table's first cell ties
# a figure to it; the caption holds the rest of the claim's words.
CAPTIONED = index_page(
    """Fastgrep

Fastgrep is a line-oriented search tool. Fastgrep respects gitignore rules. Fastgrep is
written in Rust. Fastgrep supports Unicode by default. Fastgrep runs on Linux, macOS and
Windows.

Quick examples
This benchmark searches the whole kernel source tree for a pattern of capital letters.
Timings were taken on a desktop at 5.2 GHz.
| Tool | Line count | Time |
|---|---|---|
| fastgrep | 536 | 0.082s |
| slowgrep | 536 | 0.167s |
| ack | 2677 | 2.935s |

Fastgrep also searches compressed files. Fastgrep can print matches as JSON.
To check the CPU time of the whole run, look at the summary:
Duration: 116.92s, total samples = 118.73s
Fastgrep keeps its memory use flat.
"""
)


@pytest.mark.parametrize(
    "claim",
    [
        "Searching the whole kernel source tree took fastgrep 0.082s on a 5.2 GHz desktop.",
        "fastgrep searched the kernel source tree in 82 milliseconds.",
    ],
)
def test_a_figure_in_the_row_the_caption_introduces_is_supported(claim: str) -> None:
    check = check_claim(claim, CAPTIONED)
    assert check.support is Support.SUPPORTED, check


@pytest.mark.parametrize(
    "claim",
    [
        # 0.167s is slowgrep's row; fastgrep's gives 0.082s
        "Searching the whole kernel source tree took fastgrep 0.167s on a 5.2 GHz desktop.",
        # the row names none of the claim's words the caption lacks
        "The whole kernel source tree took 2.935s to search on a 5.2 GHz desktop.",
    ],
)
def test_a_figure_in_another_row_of_the_captioned_table_is_not_supported(claim: str) -> None:
    check = check_claim(claim, CAPTIONED)
    assert check.support is not Support.SUPPORTED, check


def test_a_count_is_no_rival_of_a_duration() -> None:
    """The passage's count of requests is not what it gives instead of the claim's
    duration: the reason does not say so (it says where the duration is)."""
    page = index_page(
        "Load test\n\nThe load generator sent 300,000 requests to the server in one run.\n\n"
        "Other notes.\nA separate warm-up took 2 minutes.\n"
    )
    check = check_claim("The load generator sent its requests to the server in 2 minutes.", page)
    assert check.support is Support.WEAK, check
    assert "300,000" not in check.reason and "2 on the page" in check.reason, check


# --- A figure computed from two figures of a sentence near the claim's words ------------

UPLOADS = index_page(
    """Legacy formats

The rpm format on the index allows people to upload rpm files for end users to install by
hand. However, the common usage of rpm is with a repository that resolves dependencies.
Thus, it is a type of file that is barely used, with only ~460 files of this type having
been uploaded to the index (out of a total of 662,544).

The wininst format has more use. Looking at the pure numbers, source archives are by far
the most uploaded format, with 444,338 tarballs uploaded compared to 58,774 zip files.
"""
)


@pytest.mark.parametrize(
    "claim",
    [
        "rpm files made up less than 0.1% of all the files uploaded to the index.",
        "Uploaded tarballs outnumbered zip files by more than seven to one.",
    ],
)
def test_a_figure_computed_from_one_sentence_near_the_claims_words_is_supported(
    claim: str,
) -> None:
    check = check_claim(claim, UPLOADS)
    assert check.support is Support.SUPPORTED, check


@pytest.mark.parametrize(
    "claim",
    [
        # 0.5% is no share of two figures of one sentence
        "rpm files made up less than 0.5% of all the files uploaded to the index.",
        # the figures that give 7 are not with the claim's words
        "rpm installs by hand outnumbered repository installs by more than seven to one.",
    ],
)
def test_a_figure_not_computed_from_a_sentence_near_its_words_is_not_supported(
    claim: str,
) -> None:
    check = check_claim(claim, UPLOADS)
    assert check.support is not Support.SUPPORTED, check


def test_the_word_times_after_a_multiple_is_part_of_the_figure() -> None:
    check = check_claim("The tarballs uploaded were more than seven times the zip files.", UPLOADS)
    assert check.support is Support.SUPPORTED and check.coverage == 1.0, check


# --- One figure stated once pins the passage (issue 26) ---------------------------------------

PROFILE = index_page(
    """Profile-guided optimization

We collected a profile from the server under load and rebuilt it.

File: markdown.profile.withpgo.exe
Type: cpu
Time: Aug 28, 2023 at 10:26pm (EDT)
Duration: 116.92s, Total samples = 118.73s (101.55%)

The rebuilt server used less CPU time than before.
"""
)


def test_one_figure_stated_once_pins_a_passage_with_a_fifth_of_the_words() -> None:
    # the date is stated once; the claim's other words are the writer's own
    claim = "The CPU comparison pictured in the write-up was captured on 28 August 2023."
    check = check_claim(claim, PROFILE)
    assert 0.2 <= check.coverage < 0.35 and check.support is Support.SUPPORTED, check


def test_a_pinned_passage_still_needs_a_fifth_of_the_words() -> None:
    claim = "Gardeners planted tulips along the riverside promenade on 28 August 2023."
    check = check_claim(claim, PROFILE)
    assert check.support is not Support.SUPPORTED, check


# --- Two figures of one sentence, each next to its own words (issue 26) ---------------------

FORMATS = index_page(
    """Legacy formats

Out of these three, the usage is very low, with only ~500 msi files and ~50 dmg files
having been uploaded to the index. On kernels up to 2.4, HZ was 100, giving a jiffy value
of 0.01 seconds; starting with 2.6.0, HZ was raised to 1000, giving a jiffy of 0.001
seconds. Usage grew from 30% to 45% over the year.
"""
)


@pytest.mark.parametrize(
    "claim",
    [
        "About 500 dmg files had been uploaded to the index.",  # ~50 are dmg files
        "Roughly 500 dmg files were uploaded.",
        # (not caught: "About 50 msi files", as "msi files" sits between both figures)
    ],
)
def test_a_figure_next_to_other_words_in_its_sentence_is_unsupported(claim: str) -> None:
    check = check_claim(claim, FORMATS)
    assert check.support is Support.UNSUPPORTED and "the page gives" in check.reason, check


@pytest.mark.parametrize(
    "claim",
    [
        "About 500 msi files had been uploaded to the index.",
        "Only about 50 dmg files had been uploaded to the index.",
        "On kernels up to 2.4, HZ was 100, giving a jiffy of 0.01 seconds.",
        "Starting with 2.6.0, HZ was raised to 1000, giving a jiffy of 0.001 seconds.",
        "Over the year, usage reached 45%.",  # "from 30% to 45%": one range, shared words
    ],
)
def test_a_figure_next_to_its_own_words_is_supported(claim: str) -> None:
    check = check_claim(claim, FORMATS)
    assert check.support is Support.SUPPORTED, check


def test_table_cells_are_not_read_as_next_to_each_other() -> None:
    page = index_page(
        "Benchmarks\n\nThe reference system compressed the corpus in one thread.\n"
        "| Compressor | Ratio | Compression | Decompression |\n|---|---|---|---|\n"
        "| LZ4 default | 2.101 | 780 MB/s | 4970 MB/s |\n"
        "| LZO 2.09 | 2.108 | 670 MB/s | 860 MB/s |\n"
    )
    check = check_claim("LZ4's default mode decompressed the corpus at nearly 5 GB/s.", page)
    assert check.support is Support.SUPPORTED, check


# --- A figure computed from two rows of one table the claim names (issue 26) -------------------

SPEEDS = index_page(
    """Benchmarks

The benchmark compresses the reference corpus in one thread.
| Compressor | Ratio | Compression | Decompression |
|---|---|---|---|
| LZ4 default | 2.101 | 780 MB/s | 4970 MB/s |
| LZO 2.09 | 2.108 | 670 MB/s | 860 MB/s |
| QuickLZ 1.5.0 | 2.238 | 575 MB/s | 780 MB/s |
| Snappy 1.1.4 | 2.091 | 565 MB/s | 1950 MB/s |
| Zstandard 1.4.0 | 2.883 | 515 MB/s | 1380 MB/s |
| LZ4 HC -9 | 2.721 | 41 MB/s | 4900 MB/s |
"""
)


def test_a_figure_computed_from_two_rows_the_claim_names_is_supported() -> None:
    claim = "LZ4 HC compression is about nineteen times slower than LZ4 default compression."
    check = check_claim(claim, SPEEDS)
    assert check.support is Support.SUPPORTED, check


@pytest.mark.parametrize(
    "claim",
    [
        # 780 / 41 is 19; 29 is no ratio of one column
        "LZ4 HC compression is about 29 times slower than LZ4 default compression.",
        # LZO's row is not named: 780 / 670 = 1.16 is not computed from it
        "The default mode compresses about 1.16 times faster than the reference corpus.",
    ],
)
def test_a_figure_not_computed_from_named_rows_is_unsupported(claim: str) -> None:
    check = check_claim(claim, SPEEDS)
    assert check.support is not Support.SUPPORTED, check


# --- A figure the page binds to the claim outside the matching passage ------------------

# The eviction paragraph holds every word of the claim (they are common on the page), the
# sentence stating 4,096 most of them, and the rarest.
CACHE = index_page(
    """Cachebox

Cachebox is an in-memory cache for web services. It stores sessions, rendered pages and
query results for the services in front of it.

Eviction
By default, cachebox evicts the least recently used entries when a single instance runs
out of room. A log holds the evicted entries for later analysis. The log rotates daily.

Limits
A single instance holds at most 4,096 entries. Larger deployments spread their
entries over 16 instances or more. Each entry may be up to 512 KB.
"""
)


def test_a_plain_restatement_of_the_sentence_stating_the_figure_is_supported() -> None:
    check = check_claim("A single cachebox instance holds at most 4,096 entries by default.", CACHE)
    assert check.support is Support.SUPPORTED, check


@pytest.mark.parametrize(
    "claim",
    [
        # 16 is the number of instances; the sentence giving 4,096 holds more of the claim
        "A single cachebox instance holds at most 16 entries by default.",
        # 512 is a size in KB, in a sentence with few of the claim's words
        "A single cachebox instance holds at most 512 entries by default.",
    ],
)
def test_a_figure_the_page_binds_to_other_words_stays_flagged(claim: str) -> None:
    check = check_claim(claim, CACHE)
    assert check.support is not Support.SUPPORTED, check


# --- A duration computed from two dates -------------------------------------------------

LIFECYCLE = index_page(
    """Release support

Libfoo 1.0 was released on 2015-01-22 and reached its end of life on 2019-12-31.

Older branches
The 0.9 branch came out in August 2016 and was retired in September 2019. Releases
between 2012 and 2014 are no longer listed.
"""
)


@pytest.mark.parametrize(
    "claim",
    [
        "Libfoo 1.0 was supported for almost five years.",
        "Libfoo 1.0 reached its end of life about five years after it was released.",
        "Libfoo 1.0 was supported for 1,804 days.",
        "The 0.9 branch was retired a little over three years after it came out.",
    ],
)
def test_a_duration_between_two_dates_of_the_passage_is_supported(claim: str) -> None:
    check = check_claim(claim, LIFECYCLE)
    assert check.support is Support.SUPPORTED, check


@pytest.mark.parametrize(
    "claim",
    [
        "Libfoo 1.0 was supported for almost three years.",
        "The 0.9 branch was retired a little over four years after it came out.",
        "Libfoo 1.0 was supported for 1,900 days.",
    ],
)
def test_a_duration_the_dates_do_not_give_is_not_supported(claim: str) -> None:
    check = check_claim(claim, LIFECYCLE)
    assert check.support is not Support.SUPPORTED, check


# --- A figure outside the matching passage, with nothing there to contradict it ---------

# The claim's words are those of the overview paragraph, which gives no figure; the
# sentences stating the figures hold fewer of them.
ARCHIVE = index_page(
    """Packrat

Packrat is an archiver for build outputs. Teams use packrat to keep build outputs of every
release, and packrat restores build outputs on demand for every team.

Formats
Uploads currently use three formats: tarballs with 444,338 archives, zip files with
58,774 archives, and cpio files with 3,265 archives.
A restore of build outputs completes within 90 seconds.

History
The first release shipped in 2019. The project has 12 maintainers.
"""
)


def test_a_paraphrase_whose_figure_sentence_holds_some_of_its_words_is_supported() -> None:
    """The overview holds every word of the claim; the sentence giving 90 seconds holds
    some of them (not half, by rarity), and the overview gives no other duration."""
    check = check_claim(
        "Packrat restores build outputs on demand for every team within 90 seconds.", ARCHIVE
    )
    assert check.support is Support.SUPPORTED, check


def test_a_count_from_a_parallel_list_given_to_another_item_is_unsupported() -> None:
    """3,265 counts cpio files; zip files have 58,774, more than ten times as many (the
    magnitude rule alone would not call them rivals)."""
    check = check_claim("Packrat teams keep 3,265 zip files of build outputs.", ARCHIVE)
    assert check.support is Support.UNSUPPORTED, check
    assert "58,774" in check.reason, check


def test_a_figure_stated_outside_the_passage_for_too_few_of_its_words_stays_flagged() -> None:
    """The sentence giving 12 holds none of the claim's words: they are the overview's."""
    check = check_claim("Packrat restores build outputs on demand for 12 teams.", ARCHIVE)
    assert check.support is not Support.SUPPORTED, check


# --- The date a cited address gives in its path -------------------------------------------

SURVEY = index_page(
    "Survey results\n\nThis year we got 5,368 responses to the survey. Most people use "
    "the language at home.\n"
)
POST = "https://blog.example.org/2017/09/05/survey-results.html"


@pytest.mark.parametrize(
    "claim",
    ["The 2017 survey got 5,368 responses.", "The survey of 5 September 2017 got 5,368 responses."],
)
def test_the_date_in_the_cited_address_is_the_pages_dateline(claim: str) -> None:
    """A blog's date is in its template and its address, not in the text it shows."""
    assert check_claim(claim, SURVEY, POST).support is Support.SUPPORTED
    assert check_claim(claim, SURVEY, "https://blog.example.org/survey").support is not (
        Support.SUPPORTED
    )


@pytest.mark.parametrize(
    ("claim", "address"),
    [
        ("The 2018 survey got 5,368 responses.", POST),
        ("The 2017 survey got 5,368 responses.", "https://example.org/reports/2017-survey"),
        ("The 2017 survey got 5,368 responses.", "https://example.org/v2017/survey"),
    ],
)
def test_only_a_date_path_of_the_address_dates_the_page(claim: str, address: str) -> None:
    assert check_claim(claim, SURVEY, address).support is not Support.SUPPORTED


# --- A table cell read with its column's unit ----------------------------------------------

BENCH_TABLE = index_page(
    """Bench

We measured the tools on a laptop.
| Tool | Memory (MB) | Time [s] |
|---|---|---|
| fastjson | 512 | 0.082 |
| slowjson | 1,024 | 2.5 |
Both were run 5 times.
"""
)


@pytest.mark.parametrize(
    "claim",
    [
        "fastjson took 82 milliseconds.",
        "fastjson used half a gigabyte of memory.",
        "slowjson used about 1 GB of memory.",
    ],
)
def test_a_bare_cell_has_the_unit_its_column_header_gives(claim: str) -> None:
    assert check_claim(claim, BENCH_TABLE).support is Support.SUPPORTED


@pytest.mark.parametrize(
    "claim", ["fastjson took 2.5 seconds.", "fastjson used 1 GB of memory.", "fastjson took 82 s."]
)
def test_a_cell_read_with_its_unit_is_still_the_rows(claim: str) -> None:
    assert check_claim(claim, BENCH_TABLE).support is not Support.SUPPORTED


def test_a_row_read_with_units_keeps_its_own_text() -> None:
    """What the reader is shown (and a judge must quote) is the page's row as written."""
    row = next(s for s in BENCH_TABLE.sentences if s.text.startswith("| fastjson"))
    assert row.text == "| fastjson | 512 | 0.082 |"

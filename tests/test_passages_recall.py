"""A case table of passage recall (`sources/passages.py`): invented pages and report
sentences, shaped like real ones, where the passage that decides the sentence must be
among the passages the judge is shown (each line of it inside one of them, whitespace
aside), verbatim, within the budget.

The shapes are those a judge's passages miss when chosen by raw word overlap: a table row
under one of several headings that name the same rows, a list item far below its lead-in,
a heading and its first line, a sentence wrapped over two lines, two sentences in a row
(the subject in one, the figure in the next), a rare word stated once far from the
claim's common words, a name inside a long line of command output, a figure stated twice
(once with the claim's words), a figure computed from two sentences far apart, a figure
inside a long table read as one line, a figure whose unit is in its column's header, and
a paraphrase sharing few words with the page."""

from __future__ import annotations

import pytest
from case_tables import case_params
from helpers import passages

from research.sources.claims import Support, check_claim, index_page
from research.sources.judging import normalised, quote_on_page
from research.sources.passages import BUDGET_CHARS, best_passages

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def filler(topic: str, count: int) -> list[str]:
    """Sentences about `topic` with neither the claims' words nor their figures."""
    return [f"The {topic} notes go on with remark {LETTERS[n]}." for n in range(count)]


def distractors(words: str, count: int = 4) -> list[str]:
    """Long sentences with the claim's words and figures of other sorts, far apart (a real
    page names its subject often, in long sentences, and states many figures; the decisive
    figure is in one place)."""
    out: list[str] = []
    for n in range(count):
        out += [
            f"In part {LETTERS[n]} we come back to how {words}, as measured on {n + 3} "
            f"machines over {n * 7 + 11} runs in {2040 + n}, which the appendix describes "
            "at length for the readers who want every detail of the setup.",
            *filler(LETTERS[n], 2),
        ]
    return out


def timing_tables() -> list[str]:
    """Several tables under headings, each naming the same engines (a speed comparison)."""
    runs = [("500 UPDATEs", "3.91", "4.38"), ("25000 SELECTs", "0.87", "4.12")]
    runs += [(f"{n}000 DELETEs", f"{n}.44", f"{n + 1}.07") for n in (2, 3, 5, 6)]
    out = ["Engine speed comparison", "We ran each test on the same machine."]
    for number, (name, quill, lark) in enumerate(runs, 1):
        out += [
            f"Run {number}: {name}",
            f"The run issues {name.split()[1].lower()} against a table of 1000 rows.",
            "| Engine | Seconds |",
            "|---|---|",
            f"| Quill 3.1 | {quill} |",
            f"| Lark 8 | {lark} |",
        ]
    return out


def release_sections() -> list[str]:
    out = ["Widget release history", *filler("history", 3)]
    out += [f"Widget 2.0 is not compatible with Widget 1.{n} and needs a rebuild." for n in (1, 2)]
    for number, (name, released, retired) in enumerate(
        (
            ("Widget 1.0", "2012-04", "2016-01"),
            ("Widget 2.0", "2015-02", "2019-09"),
            ("Widget 2.1 LTS", "2016-08", "2020-03"),
        )
    ):
        out += [
            f"- Distro 1{number}.04 LTS (general support ends 2021-04)",
            name,
            "-" * len(name),
            f"released: {released} retired: {retired}",
            f"{name} changed the plugin interface and the widget theme engine.",
        ]
    return out + [f"Widget 2.0 ships with {n} themes by default." for n in (3, 4)]


def schedule_sections() -> list[str]:
    out = ["Title: Gizmo 4.2 Release Schedule", *filler("schedule", 3)]
    for patch, rc, final in (("6", "2021-02-01", "2021-02-15"), ("7", "2021-05-03", "2021-05-17")):
        out += [
            f"4.2.{patch} schedule",
            "------------------",
            f"- 4.2.{patch} candidate 1: {rc}",
            f"- 4.2.{patch} final: {final}",
        ]
    out += [
        "4.2.8 schedule (last bugfix release)",
        "------------------------------------",
        "Last planned release of installers",
        "- 4.2.8 candidate 1: 2021-06-15",
        "- 4.2.8 final: 2021-06-27",
        "4.2.9 schedule (security release)",
        "---------------------------------",
        "- 4.2.9 final: 2021-08-17",
        *distractors("the last bugfix release of gizmo came out"),
    ]
    return out


LONG_TABLE = " ".join(
    ["================= =============", "Function Resolution", "================="]
    + [f"ticker{n}() {n + 11} ms ticker{n}_ns() {n + 11} ms" for n in range(12)]
    + ["wallclock() **894.1 us** wallclock_ns() **318.2 us**", "================="]
)

CASES: dict[str, list[tuple[list[str], str, list[str]]]] = {
    "table": [
        (  # a row under one of several headings naming the same rows, rounded
            timing_tables(),
            "In the 25000 SELECTs run, Lark 8 needed about 4.1 seconds.",
            ["| Lark 8 | 4.12 |"],
        ),
        (  # the unit is in the column's header; the claim gives another unit
            [
                "Clock resolution",
                *distractors("the clocks of the wallclock family differ in resolution"),
                "Resolution of each clock, measured on the test machine:",
                "| Clock | Resolution (us) |",
                "|---|---|",
                *[f"| ticker{n}() | {n + 100}.5 |" for n in range(10)],
                "| wallclock() | 894.1 |",
                *filler("after", 6),
            ],
            "On the test machine, wallclock() had a resolution of just under 0.9 milliseconds.",
            ["| wallclock() | 894.1 |"],
        ),
    ],
    "rows": [
        (  # a multiple of two rows of a program's output, one named another way
            [
                "fast_lib: fast number parsing",
                "fast_lib parses numbers 4x faster than strtod on the benchmark below.",
                *[
                    f"In part {n} fast_lib was fast in the benchmark, parsing many numbers."
                    for n in LETTERS[:6]
                ],
                "The fast_lib benchmark parses random floating-point numbers:",
                "$ ./build/benchmarks/benchmark",
                "# parsing random numbers in the range [0,1)",
                "volume = 2.09808 MB",
                "netlib : 271.18 MB/s (+/- 1.2 %) 12.93 Mfloat/s",
                "strtod : 190.94 MB/s (+/- 1.6 %) 9.10 Mfloat/s",
                "abseil : 430.45 MB/s (+/- 2.2 %) 20.52 Mfloat/s",
                "fastlib : 1042.38 MB/s (+/- 9.9 %) 49.68 Mfloat/s",
                "See the Benchmarking section for how to run the benchmarks.",
                *[
                    f"In part {n} fast_lib was fast in the benchmark, parsing many numbers."
                    for n in LETTERS[6:12]
                ],
            ],
            "In the benchmark, fast_lib was more than five times as fast as strtod.",
            ["strtod : 190.94 MB/s", "fastlib : 1042.38 MB/s"],
        ),
    ],
    "output": [
        (  # a profiler's rows: figures first, the name last, the header far above
            [
                "Profiling the loop finder",
                *distractors("the loop finder spends its samples in the runtime"),
                "Total: 2525 samples",
                "     flat  flat%   sum%        cum   cum%",
                *[
                    f"    {n + 20}  {n + 1}.2%  {n * 3 + 30}.1%     {n + 40}  {n + 2}.5%  "
                    f"runtime.helper{n}"
                    for n in range(14)
                ],
                "      98   3.9%  94.2%     1223  48.4%  main.FindLoops",
                *filler("after", 6),
                *distractors("the loop finder spends its samples in the runtime"),
            ],
            "Counting the functions it calls, main.FindLoops was on the stack in about 48% of "
            "the samples.",
            ["1223  48.4%  main.FindLoops"],
        ),
    ],
    "terms": [
        (  # a man page's limits: the term on a line of its own, its text below
            [
                "Segment limits",
                *distractors("a shared segment has a maximum size in bytes"),
                "The following limits on shared segment resources affect the call:",
                *[
                    x
                    for n in range(6)
                    for x in (f"SEGLIM{n}", f"Limit {n} on segments: policy dependent.")
                ]
                + [
                    "SEGMAX",
                    "Maximum size in bytes for a shared segment. Since Linux 3.16, the "
                    "default value of this limit is ULONG_MAX - 2^24.",
                ],
                *distractors("a shared segment has a maximum size in bytes"),
            ],
            "Since Linux 3.16, SEGMAX, the largest size in bytes of a shared segment, defaults "
            "to ULONG_MAX - 2^24.",
            ["SEGMAX", "the default value of this limit is ULONG_MAX - 2^24."],
        ),
    ],
    "tables": [
        (  # a ratio of two rows of a pipe table, the claim naming one row another way
            [
                "Speed tests",
                *distractors("the formatting library was fast at printing numbers"),
                "The time to print 2,000,000 random numbers, best of three runs:",
                "| Library | Method | Run Time, s |",
                "|---|---|---|",
                "| libc | printf | 0.91 |",
                "| libc++ | std::ostream | 2.49 |",
                "| qfmt 9.1 | qfmt::print | 0.74 |",
                "| Boost Format 1.80 | boost::format | 6.26 |",
                "| Folly Format | folly::format | 1.87 |",
                *distractors("the formatting library was fast at printing numbers"),
            ],
            "Printing random numbers, qfmt was about 3.4 times as fast as std::ostream.",
            ["| libc++ | std::ostream | 2.49 |", "| qfmt 9.1 | qfmt::print | 0.74 |"],
        ),
        (  # a row of a file format's header table: offset, size and what it holds
            [
                "The database header",
                *distractors("the database file begins with a header of fixed size"),
                "The first 100 bytes of the database file comprise the database file header:",
                "| Offset | Size | Description |",
                "|---|---|---|",
                "| 0 | 16 | The header string. |",
                "| 16 | 2 | The database page size in bytes. A power of two between 512 and "
                "32768, or 1 for 65536. |",
                "| 18 | 1 | File format write version. 1 for legacy; 2 for WAL. |",
                "| 19 | 1 | File format read version. 1 for legacy; 2 for WAL. |",
                "| 20 | 1 | Bytes of unused reserved space at the end of each page. |",
                *[f"| {n} | 4 | Field {n} of the header. |" for n in range(24, 96, 4)],
                *distractors("the database page size is chosen when the database file is made"),
            ],
            "The database page size is stored in a 2-byte field at offset 16 of the header.",
            ["| 16 | 2 | The database page size in bytes."],
        ),
    ],
    "list": [
        (  # an item far below its lead-in, among items of the same sort
            [
                "Server limits",
                *distractors("the server limits cursors and connections"),
                "The server enforces the following limits by default:",
                *[
                    f"- max_{name}: {value}"
                    for name, value in zip(LETTERS, range(100, 1300, 100), strict=False)
                ],
                "- max_cursors_per_connection: 64",
                *filler("after", 6),
            ],
            "By default, the server allows at most 64 open cursors per connection.",
            ["- max_cursors_per_connection: 64"],
        ),
    ],
    "heading": [
        (  # a changed date: the heading names the subject, its first line the figures
            release_sections(),
            "Widget 2.0 was retired in 2020-03.",
            ["released: 2015-02 retired: 2019-09"],
        ),
        (  # a changed date: the heading, then a line, then the list holding the figure
            schedule_sections(),
            "The last bugfix release of Gizmo 4.2, 4.2.8, came out on 2021-08-17.",
            ["- 4.2.8 final: 2021-06-27"],
        ),
    ],
    "wrapped": [
        (  # one sentence wrapped over two lines, a short line of it also a heading
            [
                "Concurrent clients",
                *distractors("the server accepts concurrent clients"),
                "The standard requires that a server support at least MAX_QUEUE (8) clients.",
                "The server accepts a range of 16 different client kinds, numbered 16 to 32.",
                "Each of the 16 worker threads of a conforming server serves its clients.",
                "According to the standard, a conforming server should accept at least",
                "MIN_CLIENTS (16) concurrent clients at once.",
                "However, this server does things differently.",
                *filler("after", 6),
            ],
            "The standard says a conforming server should accept at least sixteen clients.",
            [
                "The standard requires that a server support at least MAX_QUEUE (8) clients.",
                "The server accepts a range of 16 different client kinds, numbered 16 to 32.",
                "Each of the 16 worker threads of a conforming server serves its clients.",
                "According to the standard, a conforming server should accept at least",
                "MIN_CLIENTS (16) concurrent clients at once.",
            ],
        ),
        (  # the rules' passage starts with a short sentence found elsewhere first
            [
                "Thread priorities",
                "The priority value",
                *distractors("the priority value of a thread is set"),
                "This causes a very low priority value (+19) to mean the lowest share of the "
                "CPU on this kernel, and makes a high priority value (-20) mean the highest.",
                "This class is meant for the lowest priority jobs (lower even than a +19 "
                "priority value) on this kernel, and never the highest.",
                *distractors("the priority value of a thread is set"),
                "The range of the priority value varies across systems. On this kernel, "
                "the range is -20 (high priority) to +19 (low priority).",
                *filler("after", 6),
            ],
            "On this kernel, a priority value of -20 means the lowest priority and +19 the "
            "highest.",
            ["On this kernel, the range is -20 (high priority) to +19 (low priority)."],
        ),
    ],
    "pair": [
        (  # the subject in one sentence, the figure in the next; the claim's figure elsewhere
            [
                "Cache pools",
                "Cache pools let processes share buffers by default on every system.",
                *distractors("cache pools are allowed on a system by default"),
                "/proc/sys/cache/pools_max",
                "This file can be used to view and change the system-wide limit on the number "
                "of cache pools that can be created. The default value for pools_max is 256.",
                *filler("between", 4),
                "In versions 3.5 to 3.14, the kernel imposed a ceiling of 1024 on the pools "
                "limit, and the ceiling was enforced for every process on the system.",
                *distractors("cache pools are allowed on a system by default"),
            ],
            "By default, the system allows up to 1024 cache pools.",
            ["The default value for pools_max is 256."],
        ),
    ],
    "rare": [
        (  # a rare word, stated once with no figure; the claim's figure elsewhere
            [
                "Datagram sockets",
                *distractors("datagram sockets on a local domain limit the size of datagrams"),
                "Local domain sockets do not support out-of-band data.",
                "The SO_TXBUF socket option does have an effect for local domain sockets, "
                "but the SO_RXBUF option does not.",
                *distractors("datagram sockets on a local domain limit the size of datagrams"),
                "For local domain datagram sockets, the SO_TXBUF value limits the size of "
                "outgoing datagrams: the doubled option value less 32 bytes of overhead.",
            ],
            "For local domain datagram sockets, SO_RXBUF limits the size of datagrams, less "
            "32 bytes of overhead, while SO_TXBUF has no effect.",
            ["but the SO_RXBUF option does not."],
        ),
        (  # a name inside one long line of command output
            [
                "fastlib: fast number parsing",
                *[
                    f"fastlib parses numbers {n} times faster than other libraries here."
                    for n in (2, 3, 4)
                ],
                *distractors("fastlib parses many bytes per second"),
                "We find that fastlib is often twice as fast as the best competitor, and many "
                "times faster than the parsers of standard libraries.",
                "It can parse random numbers at a speed of 1 GB/s on some systems.",
                "$ ./build/bench",
                "# parsing random numbers in the range [0,1) volume = 2.09808 MB "
                + " ".join(
                    f"lib{n} : {n + 150}.18 MB/s (+/- 1.2 %) {n + 7}.93 Mfloat/s" for n in range(8)
                )
                + " zeta : 430.45 MB/s (+/- 2.2 %) 20.52 Mfloat/s fastlib-c : 1042.50 MB/s "
                "(+/- 4.1 %) 49.71 Mfloat/s",
                "See the Benchmarking section for how to run them.",
                *distractors("fastlib parses many bytes per second", 3),
            ],
            "fastlib parsed about 2.4 times as many bytes per second as zeta.",
            ["zeta : 430.45 MB/s"],
        ),
        (  # a rare word alone in a short sentence, far from the claim's other words: only the
            # rare word's own pick gives it (the windows by words and figures go elsewhere)
            [
                "Datagram sockets",
                *distractors("datagram sockets on a local domain limit the size of datagrams"),
                "Local domain sockets do not support out-of-band data.",
                "The SO_TXBUF socket option does have an effect for local domain sockets.",
                *filler("mid", 5),
                "The SO_RXBUF option is ignored.",
                *distractors("datagram sockets on a local domain limit the size of datagrams"),
                "For local domain datagram sockets, the SO_TXBUF value limits the size of "
                "outgoing datagrams: the doubled option value less 32 bytes of overhead.",
                *distractors("datagram sockets on a local domain limit the size of datagrams", 3),
            ],
            "For local domain datagram sockets, SO_RXBUF limits the size of datagrams, less "
            "32 bytes of overhead, while SO_TXBUF has no effect.",
            ["The SO_RXBUF option is ignored."],
        ),
    ],
    "figure": [
        (  # a figure stated twice; the claim's words are with the second
            [
                "Results of the 2031 gardeners survey",
                "How to read these results",
                "Throughout this post, we use charts of survey responses to provide supporting "
                "evidence for our findings. All of these charts use a similar format: the title "
                "is the exact question that respondents saw, and the subtitle says whether the "
                "question allowed multiple responses. Our findings rest on these responses.",
                "Overview",
                "This post shares the results of the 2031 gardeners survey. Thank you to the "
                "5,752 people who told us about the seeds, tools and soil they use!",
                *distractors("the survey's findings describe the gardeners"),
                "Methods",
                "We removed answers that were incomplete or came from bots.",
                "This left 5,752 responses.",
                *distractors("the survey's findings describe the gardeners"),
            ],
            "The survey's findings rest on roughly 5.8 thousand responses.",
            ["This left 5,752 responses."],
        ),
        (  # a share computed from two figures of one sentence, other figures nearby
            [
                "Legacy formats",
                "The legacy formats are .pkg, .rpk and .dmx.",
                "Out of these three, only ~500 .pkg files and ~50 .dmx files were uploaded. "
                "The .rpk format has more use, with ~14,000 files uploaded.",
                *filler("between", 3),
                "The .rpk format lets people upload packed files for manual installs.",
                "Thus it is barely used, with only ~460 files of this type uploaded to the "
                "index (out a total of 662,544).",
                *distractors("legacy .rpk files were uploaded to the index"),
            ],
            "Legacy .rpk files made up less than 0.1% of all the files uploaded to the index.",
            ["out a total of 662,544"],
        ),
        (  # a difference of two figures three sentences apart in one paragraph
            [
                "Survey participation",
                *[
                    f"In part {n} we saw that {n}0 people who responded to the survey used "
                    f"the language at work for {n}1 hours."
                    for n in range(1, 10)
                ],
                "Participation. In 2031 the survey had 11,482 responses, from 120 countries. "
                "We thank everyone who took part. The survey took about 15 minutes. Of the "
                "responses, 9,433 were complete.",
                *[
                    f"In part {n} we saw that {n}0 people who responded to the survey used "
                    f"the language at home for {n}2 hours."
                    for n in range(1, 10)
                ],
            ],
            "In 2031, 2,049 people who responded to the survey did not complete it.",
            ["In 2031 the survey had 11,482 responses", "Of the responses, 9,433 were complete."],
        ),
        (  # a figure inside a long table read as one line
            [
                "Clocks",
                *distractors("the wallclock has a resolution on this system"),
                "Clocks resolution measured on the test system:",
                LONG_TABLE,
                *filler("after", 6),
                "Analysis",
                "The resolution of wallclock_ns() is much better than wallclock(): 318 us vs "
                "894 us on the test system, and the resolution of wallclock() will only "
                "become worse as years pass.",
            ],
            "On the test system, wallclock() had a resolution of just under 0.9 milliseconds.",
            ["wallclock() **894.1 us**"],
        ),
    ],
    "paraphrase": [
        (  # few words shared; the figure the claim rounds is stated once
            [
                "Who answered",
                *distractors("respondents answered questions about the language"),
                "About half of the respondents work at small businesses, and most have used "
                "the language for more than a year; half of them use it at work.",
                "Those who took part had used the language for two to five years on average.",
                "A small majority of respondents (53%) have at least two years of experience "
                "using Go, while the rest are newer to the Go community.",
                *distractors("respondents answered questions about the language"),
            ],
            "Just over half of those who took part had two or more years with the language.",
            ["A small majority of respondents (53%)"],
        ),
    ],
}

NOT_YET: set[str] = set()


@pytest.mark.parametrize(
    ("page", "claim", "decisive"),
    case_params(
        {
            group: [
                ("\n".join(["A page", *lines]), claim, decisive) for lines, claim, decisive in cases
            ]
            for group, cases in CASES.items()
        },
        NOT_YET,
    ),
)
def test_the_decisive_passage_is_given(page: str, claim: str, decisive: list[str]) -> None:
    given = passages(claim, page)
    squeezed = [" ".join(p.split()) for p in given]
    for line in decisive:
        assert any(" ".join(line.split()) in p for p in squeezed), (line, given)


@pytest.mark.parametrize("lines", [lines for cases in CASES.values() for lines, _, _ in cases])
def test_every_case_s_passages_are_verbatim_and_within_the_budget(lines: list[str]) -> None:
    page = "\n".join(["A page", *lines])
    for cases in CASES.values():
        for _, claim, _ in cases:
            given = passages(claim, page)
            assert given
            assert len(given) == 1 or sum(len(p) for p in given) <= BUDGET_CHARS
            normal = normalised(page)
            for passage in given:
                for part in passage.split("\u2026"):
                    assert not part.strip() or quote_on_page(part.strip(), normal), part


def test_the_claim_check_s_own_passage_comes_first() -> None:
    """Found by where its text is on the page, not by a short line (a heading) of it that
    comes earlier."""
    lines, claim, _ = CASES["wrapped"][0]
    page = "\n".join(["A page", *lines])
    check = check_claim(claim, index_page(page))
    given = best_passages(check, page)
    head = " ".join(check.evidence.split())[:60]
    assert head in " ".join(given[0].split()), (check.evidence, given[0])


@pytest.mark.parametrize(
    ("lines", "claim", "item", "lead_in"),
    [
        (
            [
                "Server limits",
                *distractors("the server limits cursors and connections"),
                "The server enforces the following limits by default:",
                *[f"- max_pool_{n}_buffers_per_worker_thread: {n * 100 + 100}" for n in range(30)],
                "- max_cursors_per_connection: 64",
                *filler("after", 6),
            ],
            CASES["list"][0][1],
            "- max_cursors_per_connection: 64",
            "The server enforces the following limits by default:",
        ),
        (  # row lines of a program's output, far below the line introducing them
            [
                "Parsers compared",
                *distractors("the parsers read floats from a file"),
                "Parsing random floats on the test machine, in MB/s:",
                *[f"lib{n} : {n + 150}.18 MB/s" for n in range(40)],
                "zeta : 430.45 MB/s",
                *filler("after", 6),
            ],
            "On the test machine zeta parsed random floats at about 430 MB/s.",
            "zeta : 430.45 MB/s",
            "Parsing random floats on the test machine, in MB/s:",
        ),
    ],
    ids=["list-item", "row-line"],
)
def test_a_list_item_or_a_row_far_below_its_lead_in_comes_after_it(
    lines: list[str], claim: str, item: str, lead_in: str
) -> None:
    page = "\n".join(["A page", *lines])
    given = passages(claim, page)
    (shown,) = [p for p in given if item in p]
    assert lead_in in shown, given


def test_a_sentence_the_rules_flag_gets_every_passage_a_supported_one_would_and_more() -> None:
    """The judge's answer decides a flagged sentence: it is shown one more window by the
    sentence's words and figures, never fewer passages' text."""
    lines, claim, _ = CASES["figure"][0]
    page = "\n".join(["A page", *lines])
    check = check_claim(claim, index_page(page))
    supported = best_passages(check.model_copy(update={"support": Support.SUPPORTED}), page)
    flagged = best_passages(check.model_copy(update={"support": Support.WEAK}), page)
    joined = " ".join(" ".join(flagged).split())
    assert all(" ".join(p.split()) in joined for p in supported)
    assert sum(map(len, flagged)) > sum(map(len, supported))

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

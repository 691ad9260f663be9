"""A page's own sentence, cited back to it, is supported (a line that is a bare link is
unverifiable: it claims nothing to check): the check never calls a sentence weak or
unsupported against the page it was copied from (a plain restatement cannot be
more plain). Over every prose sentence of the dev half's real pages, and for the
repeated figures and hedges that once made a sentence contradict itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from research.sources.claims import Support, check_claim, index_page

DEV_PAGES = sorted((Path(__file__).resolve().parents[1] / "bench/corpus/dev/pages").glob("*.txt"))
assert len(DEV_PAGES) >= 12, "the dev half's pages are missing"


def _prose_with_figures(text: str) -> list[str]:
    page = index_page(text)
    return [
        s.text
        for s in page.sentences[page.head :]
        if s.numbers and not s.text.startswith("|") and 40 <= len(s.text) <= 300
    ]


@pytest.mark.parametrize("path", DEV_PAGES, ids=lambda p: p.stem)
def test_every_sentence_of_a_real_page_supports_itself(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    page = index_page(text)
    wrong = [
        (sentence, check.reason)
        for sentence in _prose_with_figures(text)
        if (check := check_claim(sentence, page)).support
        not in (Support.SUPPORTED, Support.UNVERIFIABLE)
    ]
    assert wrong == []


def test_a_sentence_giving_a_figure_twice_and_a_bound_is_not_flipped_against_itself() -> None:
    """100 and 1,000 are each said twice; "less than 100" is a bound whose band holds 27%:
    each figure of the claim is read where the sentence says it, in order."""
    sentence = (
        "About 27% worked at large firms with 1,000 or more employees, 25% at midsize firms "
        "of 100–1,000 employees, and 43% at smaller firms with less than 100 employees."
    )
    page = index_page(f"Survey\n\nWho answered.\n{sentence}\nThat is all.\n")
    check = check_claim(sentence, page)
    assert check.support is Support.SUPPORTED, check


def test_a_figure_the_page_states_often_still_yields_to_a_rival_in_the_passage() -> None:
    """2 is said in the lead and in three sentences (the page's subject figure, context for
    every passage); a claim giving 2 where the passage says 5000 is still not supported."""
    page = index_page(
        "Tinyvm\n\nTinyvm 2 is a bytecode interpreter. Version 2 adds a cache. "
        "Each cache entry takes 2 words.\n\nLimits\nThe compiler can support much larger "
        "functions, up to about 5000 instructions per function.\nOlder releases had no cache.\n"
    )
    check = check_claim(
        "The compiler can support much larger functions, up to about 2 instructions per function.",
        page,
    )
    assert check.support is not Support.SUPPORTED, check


CRASHES = index_page(
    "Stability report\n\nThe crash rate was 0.8 per 1,000 sessions in 2022. In 2023 it was "
    "0.2 per 1,000 sessions. The fix shipped in January.\n"
)


@pytest.mark.parametrize(
    ("claim", "supported"),
    [
        ("The crash rate in 2023 was a quarter of its 2022 level.", True),
        ("The crash rate was 0.8 per 1,000 sessions in 2023.", False),
        ("The crash rate was 0.2 per 1,000 sessions in 2022.", False),
    ],
)
def test_a_year_in_the_next_sentence_goes_on_with_the_passage(claim: str, supported: bool) -> None:
    """2023 is in the sentence after the one the claim matches; it is context there unless
    the passage gives a year the claim lacks (a changed year)."""
    check = check_claim(claim, CRASHES)
    assert (check.support is Support.SUPPORTED) is supported, check


def test_the_label_free_bench_runs_and_every_sentence_supports_itself() -> None:
    """bench/claims_selfcheck.py on the dev half: its table, and no sentence of a page
    unsupported against that page (the property the first test pins per page)."""
    import subprocess
    import sys

    bench = Path(__file__).resolve().parents[1] / "bench" / "claims_selfcheck.py"
    proc = subprocess.run(
        [sys.executable, str(bench), "--half", "dev"], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    row = next(line for line in proc.stdout.splitlines() if line.startswith("| dev |"))
    written = row.split("|")[2].strip().split()[0]
    right, total = map(int, written.split("/"))
    assert total > 300 and right == total, row


def test_the_label_free_bench_makes_up_figures_at_their_own_precision() -> None:
    """The "invented" column's figures: times 0.7 and 1.3, written as the page writes the
    original (thousands separator, decimals, a percent sign); no year, zero or identifier."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "bench" / "claims_selfcheck.py"
    spec = importlib.util.spec_from_file_location("claims_selfcheck", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert list(bench.invented("1,234")) == ["864", "1,604"]
    assert list(bench.invented("45.2%")) == ["31.6%", "58.8%"]
    assert list(bench.invented("12 %")) == ["8 %", "16 %"]
    assert list(bench.invented("2021")) == list(bench.invented("0")) == []
    assert list(bench.invented("1234567890123456")) == list(bench.invented("3.5x")) == []

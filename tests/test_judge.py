"""The judge's decision (`sources/judging.py`) and the passages it is shown
(`sources/passages.py`), as pure functions: a judge that fails or lies never makes a
flagged sentence supported, and a quote must be on the page."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from helpers import passages

from research.core.budget import TimeBudget
from research.sources.claims import ClaimCheck, Support, check_claim, index_page
from research.sources.judging import (
    MAX_QUOTE_CHARS,
    Answer,
    JudgeItem,
    Judgement,
    decide,
    normalised,
    quote_on_page,
    read_answers,
)

PAGE = """Heat pump field trial

The 2023 field trial measured heat pumps in 120 homes.
Across the winter the heat pumps kept a seasonal coefficient of performance of 2.8 at
outdoor temperatures down to minus 15 degrees Celsius.
Running costs fell by 31% compared with oil boilers.

Installers in the region reported that demand rose sharply after the trial ended.
"""
NORMAL = normalised(PAGE)


def rules(claim: str) -> ClaimCheck:
    return check_claim(claim, index_page(PAGE), "https://example.org/trial")


def judged(answer: str, quote: str) -> Judgement:
    return Judgement(id="s1", answer=Answer(answer), quote=quote)


COSTS_FELL = "Running costs fell by 31% compared with oil boilers"
COSTS_ROSE = "Running costs rose by 31% compared with oil boilers"
COSTS_45 = "Running costs fell by 45% compared with oil boilers"


def test_a_quote_is_found_whatever_its_whitespace_and_case() -> None:
    assert quote_on_page("ACROSS the winter   the heat pumps\nkept a seasonal", NORMAL)
    assert quote_on_page("\u201cRunning costs fell by 31% compared with oil boilers.\u201d", NORMAL)
    assert not quote_on_page("Running costs fell by 45% compared with oil boilers", NORMAL)
    assert not quote_on_page("heat pumps", NORMAL)  # too short to prove anything
    assert not quote_on_page("", NORMAL)


def test_no_judgement_or_no_page_leaves_the_rules_verdict() -> None:
    check = rules(COSTS_45)
    assert check.support is Support.UNSUPPORTED
    for decision in (decide(check, None, NORMAL), decide(check, judged("says", COSTS_FELL), None)):
        assert (decision.support, decision.decided_by) == (Support.UNSUPPORTED, "rules")
        assert decision.reason == check.reason


def test_a_quote_that_is_not_on_the_page_voids_the_judgement() -> None:
    check = rules(COSTS_45)
    decision = decide(check, judged("says", COSTS_45 + " in the trial"), NORMAL)
    assert decision.voided and decision.decided_by == "rules"
    assert decision.support is Support.UNSUPPORTED


def test_a_missing_figure_is_cleared_only_by_a_quote_holding_an_equal_quantity() -> None:
    check = rules(COSTS_45)
    assert check.missing_numbers == ["45%"]
    # A real quote, but it holds 31%, not 45%: the judge cannot clear the figure.
    decision = decide(check, judged("says", COSTS_FELL), NORMAL)
    assert decision.support is Support.UNSUPPORTED and decision.decided_by == "rules"
    # A quote holding the figure (as the rules compare quantities) clears it.
    check = ClaimCheck(
        claim="The trial covered about 0.12 thousand homes",
        source="u",
        support=Support.UNSUPPORTED,
        coverage=0.5,
        missing_numbers=["0.12 thousand"],
        reason="0.12 thousand not on the page",
    )
    quote = "The 2023 field trial measured heat pumps in 120 homes."
    decision = decide(check, judged("says", quote), NORMAL, lambda *_: True)
    assert decision.support is Support.SUPPORTED and decision.decided_by == "judge"
    assert decide(check, judged("says", quote), NORMAL, lambda *_: False).support is (
        Support.UNSUPPORTED
    )


def test_a_contradicting_quote_flags_a_sentence_the_rules_found_supported() -> None:
    # Figures and words on the page, the roles swapped: words alone cannot tell.
    check = ClaimCheck(
        claim="Oil boilers cut running costs by 31% compared with heat pumps",
        source="u",
        support=Support.SUPPORTED,
        coverage=1.0,
        reason="every figure and 100% of the words in one passage",
    )
    decision = decide(check, judged("opposite", COSTS_FELL), NORMAL)
    assert decision.support is Support.UNSUPPORTED and decision.decided_by == "judge"
    assert decision.reason == "the page says the opposite" and decision.quote == COSTS_FELL
    # The same answer with a quote not on the page changes nothing.
    decision = decide(check, judged("opposite", "heat pumps cost more to run"), NORMAL)
    assert decision.support is Support.SUPPORTED and decision.voided


def test_not_said_never_changes_a_verdict() -> None:
    for claim in (COSTS_FELL, COSTS_45):
        check = rules(claim)
        decision = decide(check, judged("not_said", COSTS_FELL), NORMAL)
        assert (decision.support, decision.reason, decision.decided_by) == (
            check.support,
            check.reason,
            "rules",
        )


def test_says_with_a_real_quote_clears_a_weak_sentence() -> None:
    check = ClaimCheck(
        claim="Installers saw demand climb steeply once the trial was over",
        source="u",
        support=Support.WEAK,
        coverage=0.4,
        reason="only 40% of the claim's words in the best passage",
    )
    quote = "Installers in the region reported that demand rose sharply after the trial ended."
    decision = decide(check, judged("says", quote), NORMAL)
    assert decision.support is Support.SUPPORTED and decision.decided_by == "judge"


@pytest.mark.parametrize("claim", [COSTS_45, COSTS_ROSE, COSTS_FELL])
def test_a_lying_or_failing_judge_never_turns_a_bad_sentence_into_a_supported_one(
    claim: str,
) -> None:
    """Every answer with every kind of quote that is not on the page, and no answer at
    all: the verdict is never better than the rules' own."""
    check = rules(claim)
    lies = ["", "the page says so", COSTS_45, claim, "Running costs fell by 45 %"]
    lies = [quote for quote in lies if not quote_on_page(quote, NORMAL)]
    assert len(lies) >= 4
    for answer, quote in itertools.product(Answer, lies):
        decision = decide(check, judged(answer.value, quote), NORMAL)
        assert decision.decided_by == "rules" and decision.support is check.support


def test_unverifiable_sentences_are_never_decided_by_a_judge() -> None:
    check = check_claim(COSTS_FELL, None, "u", unavailable_reason="not_found")
    assert decide(check, judged("says", COSTS_FELL), NORMAL).support is Support.UNVERIFIABLE


def test_malformed_answers_are_none_and_unknown_ids_are_dropped() -> None:
    batch = [
        JudgeItem(id="s1", sentence="a", source="u", rules="supported", reason=""),
        JudgeItem(id="s2", sentence="b", source="u", rules="weak", reason=""),
    ]
    assert read_answers(None, batch) is None
    assert read_answers("not json {", batch) is None
    assert read_answers('{"judgements": [{"id": "s1", "answer": "maybe"}]}', batch) is None
    found = read_answers(
        '{"judgements": [{"id": "s1", "answer": "says", "quote": "q"},'
        ' {"id": "s1", "answer": "opposite", "quote": "r"},'
        ' {"id": "s9", "answer": "says", "quote": "x"}]}',
        batch,
    )
    assert found is not None and set(found) == {"s1"} and found["s1"].answer is Answer.SAYS
    # One malformed judgement (a quote longer than any a judge is asked for) leaves only its
    # own sentence to the rules, not the whole batch.
    long_quote = json.dumps("x" * (MAX_QUOTE_CHARS + 1))
    found = read_answers(
        '{"judgements": [{"id": "s1", "answer": "says", "quote": ' + long_quote + "},"
        ' {"id": "s2", "answer": "opposite", "quote": "r"}]}',
        batch,
    )
    assert found is not None and set(found) == {"s2"}
    assert read_answers('{"judgements": [3, "s1"]}', batch) is None
    assert read_answers('{"judgements": []}', batch) == {}


def test_the_passages_hold_the_decisive_sentence_verbatim() -> None:
    given = passages(COSTS_45, PAGE)
    assert 1 <= len(given) <= 3
    assert any("Running costs fell by 31% compared with oil boilers." in p for p in given)
    # Verbatim: every passage is on the page, whitespace aside.
    assert all(quote_on_page(p, NORMAL) for p in given)
    # A figure in another unit or in words is found as the claim check reads it.
    page = "Intro line about nothing much.\n\n| memcpy | 13700 MB/s |\n\nAnother unrelated line."
    assert any("13700 MB/s" in p for p in passages("memcpy ran at 13.7 GB/s", page))
    assert passages("anything", "") == []


def test_the_final_cycle_keeps_time_for_the_judge() -> None:
    assert TimeBudget(10, 0, 0).reserve_seconds() == pytest.approx(90)
    assert TimeBudget(10, 0, 0, judge=True).reserve_seconds() == pytest.approx(120)
    assert TimeBudget(1, 0, 0, judge=True).reserve_seconds() == pytest.approx(24)
    assert TimeBudget(None, 0, 0, judge=True).reserve_seconds() == 0


def test_the_answers_file_is_read_only_when_regular_and_small(tmp_path: Path) -> None:
    """The agent writes it: a link is never followed, a huge file never read."""
    from research.engine.verify import MAX_ANSWERS_BYTES, _answers_text

    secret = tmp_path / "secret.json"
    secret.write_text('{"judgements": []}')
    linked = tmp_path / "linked.json"
    linked.symlink_to(secret)
    huge = tmp_path / "huge.json"
    huge.write_bytes(b" " * (MAX_ANSWERS_BYTES + 1))
    plain = tmp_path / "plain.json"
    plain.write_text('{"judgements": []}')
    assert _answers_text(linked) is None
    assert _answers_text(huge) is None
    assert _answers_text(tmp_path / "missing.json") is None
    assert _answers_text(plain) == '{"judgements": []}'


# Written before the rule (helper rules3): what a colon announces, and a list to its end.
KILN_PAGE = "\n".join(
    [
        "The kiln log",
        "We fired the new kiln for a week and compared it with the old one.",
        "Glaze results were uneven on the top shelf, so the shelf was moved down.",
        "The clay supplier changed in the middle of the week, which we noted.",
        "To check the energy the kiln burned over the whole firing, read its meter:",
        "$ meter --read kiln-2 | grep total",
        "total: 41.3 kWh over 9h12m",
        "Workshop changes",
        "- A new vent over the kiln for the fumes.",
        "- A new shelf rack made of cordierite. It holds the larger plates and bowls.",
        "- A new pyrometer at the door.",
        "- A new timer that cuts the power at the set hour.",
        "The rest of the week went to glazing.",
    ]
)


def test_a_sentence_ending_in_a_colon_is_read_with_what_it_announces() -> None:
    given = passages("The whole firing burned roughly 41 kWh of energy in the kiln.", KILN_PAGE)
    assert any("total: 41.3 kWh" in p for p in given)
    given = passages("The kiln firing burned the energy its meter read.", KILN_PAGE)
    assert any("read its meter: $ meter" in p for p in given)


def test_a_list_is_passed_to_its_last_item() -> None:
    given = passages(
        "The workshop got four new things: a vent, a rack, a pyrometer, a timer.", KILN_PAGE
    )
    assert any("vent" in p and "cuts the power" in p for p in given)

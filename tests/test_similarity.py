from __future__ import annotations

import pytest

from research.core.similarity import (
    STOPWORDS,
    content_words,
    find_duplicate,
    jaccard,
    novelty,
    topic_similarity,
)


def test_stopword_list_is_a_reasonable_size() -> None:
    assert 150 <= len(STOPWORDS) <= 180
    assert {"the", "of", "and", "what", "how"} <= STOPWORDS
    assert all(word == word.lower() for word in STOPWORDS)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The Cost of Heat Pumps", {"cost", "heat", "pump"}),
        ("heat-pump cost", {"cost", "heat", "pump"}),
        ("What is the carbon intensity (gCO2/kWh)?", {"carbon", "intensity", "gco2", "kwh"}),
        ("Policies, classes & statuses", {"policy", "class", "statuse"}),
        ("analysis of the process status", {"analysis", "process", "status"}),
        ("gas bus", {"gas", "bus"}),
        ("a I x 7 of", set()),
        (
            "heat\u2014pump \u201ccosts\u201d in M\u00fcnchen",
            {"heat", "pump", "cost", "m\u00fcnchen"},
        ),
        ("Caf\u00e9 prices: 12\u00a0\u20ac", {"caf\u00e9", "price", "12"}),
        ("snake_case words", {"snake", "case", "word"}),
        ("", set()),
    ],
)
def test_content_words(text: str, expected: set[str]) -> None:
    assert content_words(text) == expected


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (set(), set(), 0.0),
        ({"x"}, set(), 0.0),
        ({"x"}, {"x"}, 1.0),
        ({"x", "y"}, {"y", "z"}, 1 / 3),
        ({"a", "b", "c"}, {"a", "b", "c", "d"}, 0.75),
        ({"a", "b"}, {"c", "d"}, 0.0),
    ],
)
def test_jaccard(a: set[str], b: set[str], expected: float) -> None:
    assert jaccard(a, b) == pytest.approx(expected)
    assert jaccard(b, a) == pytest.approx(expected)


def test_topic_similarity_ignores_stopwords_punctuation_case_and_plurals() -> None:
    assert topic_similarity("The Cost of Heat Pumps", "heat-pump cost") == 1.0
    assert topic_similarity("What are the costs?", "COST") == 1.0
    assert topic_similarity("Heat pumps", "Solar panels") == 0.0


# Three shared words out of four: similarity exactly 3/4.
AT_THRESHOLD = ("grid battery storage", "Grid battery storage in Europe")
# Seven of ten words shared: similarity exactly 0.7.
BELOW_THRESHOLD = (
    "alpha bravo charlie delta echo foxtrot golf",
    "alpha bravo charlie delta echo foxtrot golf hotel india juliet",
)


def test_similarity_fixtures_are_exact() -> None:
    assert topic_similarity(*AT_THRESHOLD) == 0.75
    assert topic_similarity(*BELOW_THRESHOLD) == 0.7


@pytest.mark.parametrize(
    ("candidate", "existing", "expected"),
    [
        (AT_THRESHOLD[0], [AT_THRESHOLD[1]], AT_THRESHOLD[1]),
        (BELOW_THRESHOLD[0], [BELOW_THRESHOLD[1]], None),
        ("Heat pump costs", ["Solar panels", "The cost of heat pumps"], "The cost of heat pumps"),
        ("heat pump costs", [], None),
        ("", ["Heat pumps"], None),
        # Ties go to the first existing topic.
        ("heat pump", ["Pumps for heat", "Heat pumps"], "Pumps for heat"),
        # The most similar topic wins, not the first one over the threshold.
        (
            "alpha bravo charlie delta",
            ["alpha bravo charlie delta echo", "Alpha, Bravo, Charlie, Delta"],
            "Alpha, Bravo, Charlie, Delta",
        ),
    ],
)
def test_find_duplicate(candidate: str, existing: list[str], expected: str | None) -> None:
    assert find_duplicate(candidate, existing, 0.75) == expected


def test_find_duplicate_accepts_a_generator_and_other_thresholds() -> None:
    topics = (t for t in ["alpha bravo charlie delta echo foxtrot golf hotel india juliet"])
    assert find_duplicate(BELOW_THRESHOLD[0], topics, 0.7) is not None
    assert find_duplicate("heat pump", ["heat pump installers"], 0.66) == "heat pump installers"
    assert find_duplicate("heat pump", ["heat pump installers"], 0.67) is None


@pytest.mark.parametrize(
    ("new_text", "seen", "expected"),
    [
        ("Heat pumps cut emissions", set(), 1.0),
        ("Heat pumps cut emissions", {"heat", "pump", "cut", "emission"}, 0.0),
        ("Heat pumps cut emissions", {"heat", "pump"}, 0.5),
        ("Heat pumps cut emissions; heat pumps!", {"heat"}, 0.75),
        ("", {"heat"}, 0.0),
        ("the of and", set(), 0.0),
    ],
)
def test_novelty(new_text: str, seen: set[str], expected: float) -> None:
    assert novelty(new_text, seen) == pytest.approx(expected)


def test_novelty_against_earlier_notes() -> None:
    earlier = content_words("Air-source heat pumps cost 8,000-12,000 EUR installed.")
    # New content words: heat, pump, cost, run, gas, boiler; three of them are new.
    assert novelty("Heat pumps cost less to run than gas boilers.", earlier) == 0.5

"""The agent as a judge of the rules' verdicts, held to a verbatim quote of the page.

The orchestrator sends the judge a batch (`JudgeBatch`): per cited sentence, the sentence,
its source, the rules' verdict with its reason, and the page's best passages. The judge
answers per sentence (`JudgeAnswers`): the page says it, says the opposite, or does not say
it, with a quote of the page. `decide` is the one place that turns a rules verdict and a
judgement into what the reader is told; it is pure (the corpus bench calls it with a
scripted judge), and it never lets a judge that failed or lied make a sentence supported:

- no judgement (the call failed, its file was malformed, the page was not sent): the rules;
- a quote that is not on the page (whitespace and case aside), or too short to be one:
  the judgement is void, the rules' verdict stands, and the void is counted;
- "opposite" with a real quote: unsupported, whatever the rules said;
- "says" with a real quote: supported, except that a figure the rules found nowhere on the
  page is cleared only when the quote holds an equal quantity;
- "not said": the rules' verdict stands: a flagged sentence stays flagged with the rules'
  own (more exact) reason, and a supported one stays supported (a judge can flag only by
  quoting a contradiction).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from research.sources.claims import ClaimCheck, Support, quote_holds_quantity

MIN_QUOTE_WORDS = 3
"""A shorter quote proves nothing (any page holds "the data")."""
MAX_QUOTE_CHARS = 1_000


class Answer(StrEnum):
    SAYS = "says"
    OPPOSITE = "opposite"
    NOT_SAID = "not_said"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class JudgeItem(_Model):
    """One cited sentence as the judge is shown it."""

    id: str
    """The sentence's id in this batch ("s1", "s2", ...)."""
    sentence: str
    source: str
    """The URL or file:<path> it cites."""
    rules: str
    """The rules' verdict: supported, weak or unsupported."""
    reason: str
    """Why the rules said so."""
    passages: list[str] = Field(default_factory=list)
    """The page's best passages for it, verbatim from the snapshot."""


class JudgeBatch(_Model):
    """The batch file the orchestrator writes for one VERIFY call."""

    items: list[JudgeItem]
    """Where the judge writes its answers is the prompt's to say (`$judge_answers_file`): a
    retried call works in another scratch area, which the prompt is made to name, and a
    path written here once would still name the first."""


class Judgement(BaseModel):
    """The judge's answer on one sentence (the agent's file: extra keys are ignored)."""

    model_config = ConfigDict(extra="ignore")

    id: str = Field(max_length=40)
    answer: Answer
    quote: str = Field("", max_length=MAX_QUOTE_CHARS)
    """Verbatim from the page: the passage that says it, or says the opposite."""


class JudgeAnswers(BaseModel):
    """The file the judge writes beside the batch: its judgements are read one by one (a
    malformed one, say a quote over MAX_QUOTE_CHARS, leaves only its sentence unanswered)."""

    model_config = ConfigDict(extra="ignore")

    judgements: list[object] = Field(max_length=500)


Decider = Literal["rules", "judge"]


class Decision(_Model):
    """What the reader is told about one cited sentence, and who decided it."""

    support: Support
    reason: str
    decided_by: Decider
    quote: str = ""
    """The judge's quote, when the judge decided."""
    voided: bool = False
    """True when the judge's quote was not on the page: the rules decided."""


def normalised(text: str) -> str:
    """Case, width, typographic quotes and dashes, and whitespace made uniform."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = text.translate(_TYPOGRAPHY)
    return " ".join(text.split())


_TYPOGRAPHY = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u00ad": None,
    }
)
_EDGE = re.compile(
    r"^[\s\"'\u201c\u201d\u2018\u2019.\u2026]+|[\s\"'\u201c\u201d\u2018\u2019\u2026]+$"
)


def quote_on_page(quote: str, page: str) -> bool:
    """Whether `quote` is on the page, whitespace and case aside, and long enough to mean
    something. `page` is the snapshot's text already `normalised`."""
    cleaned = normalised(_EDGE.sub("", quote))
    return len(cleaned.split()) >= MIN_QUOTE_WORDS and cleaned in page


def holds_figures(claim: str, figures: Sequence[str], quote: str) -> bool:
    """Whether the quote states a quantity equal to each of the claim's `figures` (as the
    rules wrote them in `missing_numbers`), as the rules compare quantities."""
    return bool(figures) and quote_holds_quantity(quote, claim, *figures)


FigureTest = Callable[[str, Sequence[str], str], bool]


def decide(
    rules: ClaimCheck,
    judgement: Judgement | None,
    page: str | None,
    figures_held: FigureTest = holds_figures,
) -> Decision:
    """The verdict on one sentence from the rules' check and the judge's answer.

    `page` is the normalised snapshot text (None: no page, the judge was never asked)."""
    kept = Decision(support=rules.support, reason=rules.reason, decided_by="rules")
    if judgement is None or page is None or rules.support is Support.UNVERIFIABLE:
        return kept
    if not quote_on_page(judgement.quote, page):
        return kept.model_copy(update={"voided": True})
    quote = " ".join(judgement.quote.split())
    if judgement.answer is Answer.OPPOSITE:
        return Decision(
            support=Support.UNSUPPORTED,
            reason="the page says the opposite",
            decided_by="judge",
            quote=quote,
        )
    if judgement.answer is Answer.NOT_SAID:
        return kept  # a flagged sentence stays flagged with the rules' own reason
    if rules.missing_numbers and not figures_held(rules.claim, rules.missing_numbers, quote):
        return kept
    return Decision(
        support=Support.SUPPORTED, reason="the page says this", decided_by="judge", quote=quote
    )


def judge_key(check: ClaimCheck) -> str:
    """A judgement's key: the sentence as checked and the page it was checked against."""
    return f"{check.source}\n{check.claim}"


def wanted(check: ClaimCheck, mode: str) -> bool:
    """Whether --judge `mode` sends this checked sentence (a page with text only)."""
    if mode == "off" or check.support is Support.UNVERIFIABLE:
        return False
    return mode == "all" or check.support is not Support.SUPPORTED


def batch_item(ident: str, check: ClaimCheck, passages: list[str]) -> JudgeItem:
    return JudgeItem(
        id=ident,
        sentence=check.claim,
        source=check.source,
        rules=check.support.value,
        reason=check.reason,
        passages=passages,
    )


def read_answers(text: str | None, batch: Sequence[JudgeItem]) -> dict[str, Judgement] | None:
    """The judgements of a batch by item id, or None when the file is missing or malformed,
    or holds judgements of which none is well formed (the rules then decide every sentence
    of the batch). A malformed judgement and an unknown id are dropped (the rules decide
    that sentence); of two answers for one id the first counts."""
    if text is None:
        return None
    try:
        answers = JudgeAnswers.model_validate_json(text)
    except ValueError:
        return None
    ids = {item.id for item in batch}
    found: dict[str, Judgement] = {}
    valid = 0
    for raw in answers.judgements:
        try:
            judgement = Judgement.model_validate(raw)
        except ValueError:
            continue
        valid += 1
        if judgement.id in ids:
            found.setdefault(judgement.id, judgement)
    return None if answers.judgements and not valid else found

"""Duplicate-topic detection and novelty scoring on word sets (pure, standard library only).

Words are compared after lowercasing, splitting on anything that is not a letter or digit,
dropping a built-in English stopword list and one-character tokens, and folding a few
plural endings (see `_singular`) so that "Heat Pumps" and "heat pump" match.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable
from functools import lru_cache

STOPWORDS: frozenset[str] = frozenset(
    """
    a about above after again against all also am among an and any are aren as at be
    because been before being below between both but by can cannot could couldn did didn
    do does doesn doing don down during each either etc even ever every few for from
    further had hadn has hasn have haven having he her here hers herself him himself his
    how however if in into is isn it its itself just least less let ll may me might
    mightn more most much must mustn my myself neither no nor not now of off on once only
    or other others otherwise our ours ourselves out over own per rather re same shall
    shan she should shouldn since so some such than that the their theirs them themselves
    then there these they this those though through thus to too under until up upon us
    ve very via vs was wasn we were weren what whatever when where whether which while
    who whom whose why will with within without won would wouldn yet you your yours
    yourself yourselves
    """.split()
)

_PUNCT = string.punctuation
# One translate pass both lowercases ASCII and turns ASCII punctuation into spaces. Non-ASCII
# text goes through UTF-8 bytes: str.translate leaves its fast path at the first non-ASCII
# character and becomes ~50x slower. Non-ASCII punctuation is split off afterwards.
_ASCII_FOLD = str.maketrans(
    string.ascii_uppercase + _PUNCT, string.ascii_lowercase + " " * len(_PUNCT)
)
_BYTES_FOLD = bytes.maketrans(_PUNCT.encode(), b" " * len(_PUNCT))
_NON_ALNUM = re.compile(r"[\W_]+")


def _singular(word: str) -> str:
    """Fold the commonest English plural endings; crude on purpose, applied to both sides.

    "policies" -> "policy", "classes" -> "class", "pumps" -> "pump"; words ending in
    "ss", "us" or "is" ("process", "status", "analysis") and words of 3 letters or
    fewer are left alone. No other stemming is done.
    """
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith("sses"):
        return word[:-2]
    if len(word) > 3 and word[-1] == "s" and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def content_words(text: str) -> set[str]:
    """The distinct content words of `text` (lowercased, stopwords and 1-char tokens removed)."""
    tokens = distinct_tokens(text) - STOPWORDS
    words = {_singular(t) if t[-1] == "s" else t for t in tokens if len(t) > 1}
    words -= STOPWORDS
    return words


def content_word(token: str) -> str | None:
    """What `content_words` makes of one of a text's `distinct_tokens`: the content word,
    or None (a stopword, a one-character token)."""
    if token in STOPWORDS or len(token) <= 1:
        return None
    word = _singular(token) if token[-1] == "s" else token
    return None if word in STOPWORDS else word


def distinct_tokens(text: str) -> set[str]:
    """The distinct tokens of `text`, lowercased, split at anything not a letter or digit
    (`content_words` keeps those that are content words)."""
    # Deduplicate before the per-word work: long notes repeat most of their words.
    if text.isascii():
        tokens = set(text.translate(_ASCII_FOLD).split())
    else:
        folded = text.lower().encode("utf-8", "surrogatepass").translate(_BYTES_FOLD)
        tokens = set(folded.decode("utf-8", "surrogatepass").split())
        odd = {token for token in tokens if not token.isalnum()}
        tokens -= odd
        tokens.update(part for token in odd for part in _NON_ALNUM.split(token) if part)
    return tokens


def jaccard(a: set[str] | frozenset[str], b: set[str] | frozenset[str]) -> float:
    """|a ∩ b| / |a ∪ b|; 0.0 when both sets are empty."""
    if not a and not b:
        return 0.0
    common = len(a & b)
    return common / (len(a) + len(b) - common)


@lru_cache(maxsize=4096)
def _topic_words(topic: str) -> frozenset[str]:
    return frozenset(content_words(topic))


def topic_similarity(a: str, b: str) -> float:
    """Jaccard similarity of the content words of two topic names."""
    return jaccard(_topic_words(a), _topic_words(b))


def find_duplicate(candidate: str, existing: Iterable[str], threshold: float) -> str | None:
    """The most similar existing topic (first on ties) if its similarity is >= threshold."""
    words = _topic_words(candidate)
    best: str | None = None
    best_score = -1.0
    for topic in existing:
        score = jaccard(words, _topic_words(topic))
        if score > best_score:
            best, best_score = topic, score
    return best if best is not None and best_score >= threshold else None


def novelty(new_text: str, seen_words: set[str] | frozenset[str]) -> float:
    """Share of `new_text`'s distinct content words not in `seen_words` (0.0 if it has none).

    `seen_words` should itself come from `content_words`, so both sides are folded alike.
    """
    words = content_words(new_text)
    if not words:
        return 0.0
    return len(words - seen_words) / len(words)

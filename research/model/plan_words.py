"""The plan's vocabulary, shared by its model and its parser: a topic's statuses, and how a
topic's name is cleaned (markdown, numbering, template brackets) and matched."""

from __future__ import annotations

import re
from enum import StrEnum


class TopicStatus(StrEnum):
    """A topic's status, as written in `research_plan.md`."""

    PENDING = "Pending"
    IN_PROGRESS = "In Progress"
    IN_REVIEW = "In Review"
    COMPLETE = "Complete"
    SKIPPED = "Skipped"
    EXHAUSTED = "Exhausted"


OPEN_STATUSES: frozenset[TopicStatus] = frozenset(
    {TopicStatus.PENDING, TopicStatus.IN_PROGRESS, TopicStatus.IN_REVIEW}
)
RETRY_EXHAUSTED_TAG = "#RETRY_EXHAUSTED"


_NUMBERING = re.compile(r"^(?:\d+(?:\.\d+)*[.)]|\d+(?:\.\d+)+)\s+")


def squash(text: str) -> str:
    """`text` on one line, its runs of white space made one space."""
    return " ".join(text.split())


def unwrap(text: str) -> str:
    """Strip markdown emphasis/code that wraps the whole of `text`."""
    text = text.strip()
    for mark in ("**", "__", "`", "*", "_"):
        if len(text) > 2 * len(mark) and text.startswith(mark) and text.endswith(mark):
            text = text[len(mark) : -len(mark)].strip()
    return text


def clean_name(text: str) -> str:
    """A topic name without markdown, numbering or template brackets, on one line."""
    name = squash(text.replace("**", "").replace("`", ""))
    name = _NUMBERING.sub("", unwrap(name))
    if name.startswith("[") and name.endswith("]") and "]" not in name[1:-1]:
        name = name[1:-1]
    return squash(name)


def normalize_name(name: str) -> str:
    """The key topic names are matched by: cleaned, case-folded, trailing punctuation dropped."""
    return clean_name(name).casefold().rstrip(" .:;,")

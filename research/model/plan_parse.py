"""Reading `research_plan.md` as an agent left it: leniently, topic block by topic block,
into a `ParsedPlan` (what `reconcile` compares with the orchestrator's `Plan`), and the
complexity line of its Metadata."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict

from research.core.errors import PlanParseError
from research.core.tiers import Tier, parse_tier
from research.model.plan_words import (
    RETRY_EXHAUSTED_TAG,
    TopicStatus,
    clean_name,
    squash,
    unwrap,
)

_DEPTH_SUFFIX = re.compile(r"\(\s*depth\s*[:=]?\s*(\d+)\s*\)\s*$", re.IGNORECASE)


class ParsedTopic(BaseModel):
    """A topic as the agent wrote it; None means the file did not say (or said nonsense)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    depth: int | None = None
    status: TopicStatus | None = None
    note: str | None = None
    parent_name: str | None = None
    description: str = ""
    criteria: list[str] = []
    problems: list[str] = []
    """Lines of this topic the parser could not interpret (e.g. an unknown status)."""


class ParsedPlan(BaseModel):
    """The topics found in a `research_plan.md`, in file order."""

    model_config = ConfigDict(extra="forbid")

    topics: list[ParsedTopic]
    problems: list[str] = []
    """Headings under `## Topics` that could not be read as topics."""


_HEADING = re.compile(r"^\s{0,3}(#{1,6})(?:\s+(.*?))?(?:\s+#+)?\s*$")
_TOPICS_TITLE = re.compile(r"^(?:research\s+)?topics\s*:?$", re.IGNORECASE)
_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s+(.*)$")
_FIELD = re.compile(r"^[*_`]*\s*([A-Za-z][A-Za-z ]{0,30}?)\s*[*_`]*\s*:\s*[*_`]*\s*(.*)$")
_CHECKBOX = re.compile(r"^\[[ xX]\]\s+")
_FIELD_KEYS = {
    "status": "status",
    "parent": "parent",
    "parent topic": "parent",
    "description": "description",
    "acceptance criteria": "criteria",
    "criteria": "criteria",
    "depth": "depth",
}
_STATUS_WORDS = re.compile(
    r"^(in[\s_-]*progress|in[\s_-]*review|pending|completed?|done|skipped|exhausted)\b(.*)$",
    re.IGNORECASE,
)
_STATUS_BY_WORD = {
    "inprogress": TopicStatus.IN_PROGRESS,
    "inreview": TopicStatus.IN_REVIEW,
    "pending": TopicStatus.PENDING,
    "complete": TopicStatus.COMPLETE,
    "completed": TopicStatus.COMPLETE,
    "done": TopicStatus.COMPLETE,
    "skipped": TopicStatus.SKIPPED,
    "exhausted": TopicStatus.EXHAUSTED,
}
_NO_PARENT = {"", "none", "n/a", "na", "-", "null", "root"}


def _parse_status(value: str) -> tuple[TopicStatus | None, str | None]:
    """(status, note) from a Status value; status None if the value is not understood."""
    text = squash(value.replace("*", "").replace("`", ""))
    tagged = RETRY_EXHAUSTED_TAG.lower() in text.lower()
    text = re.sub(re.escape(RETRY_EXHAUSTED_TAG), "", text, flags=re.IGNORECASE).strip()
    if not text:
        return (TopicStatus.EXHAUSTED, None) if tagged else (None, None)
    match = _STATUS_WORDS.match(text)
    if not match:
        return None, None
    status = _STATUS_BY_WORD[re.sub(r"[\s_-]", "", match[1].lower())]
    rest = match[2].strip()
    if not rest:
        return status, None
    if rest.startswith("(") and rest.endswith(")"):
        return status, squash(rest[1:-1]) or None
    if rest[0] in "-–—:":
        return status, squash(rest[1:]) or None
    return None, None  # e.g. the template's "Pending | In Progress | ..." copied verbatim


def _parse_heading(title: str) -> tuple[str, int | None]:
    text = title.replace("**", "").replace("`", "").strip()
    depth = None
    if match := _DEPTH_SUFFIX.search(text):
        depth = int(match[1])
        text = text[: match.start()]
    return clean_name(text), depth


def read_field(body: str) -> tuple[str, str] | None:
    """(key, value) of a `- Key: value` bullet body whose key the plan knows, else None."""
    match = _FIELD.match(body)
    key = _FIELD_KEYS.get(squash(match[1]).lower()) if match else None
    if match is None or key is None:
        return None
    return key, match[2].strip()


def _set_status(topic: ParsedTopic, value: str) -> None:
    topic.status, topic.note = _parse_status(value)
    if topic.status is None and value:
        topic.problems.append(f"unknown status {value!r}")


def _set_parent(topic: ParsedTopic, value: str) -> None:
    parent = clean_name(value)
    topic.parent_name = None if parent.lower() in _NO_PARENT else parent


def _set_description(topic: ParsedTopic, value: str) -> None:
    topic.description = squash(unwrap(value))


def _add_criterion(topic: ParsedTopic, value: str) -> None:
    if item := squash(unwrap(value)):
        topic.criteria.append(item)


def _set_depth(topic: ParsedTopic, value: str) -> None:
    """The first readable Depth line wins (the heading's `(Depth: N)` comes first)."""
    if topic.depth is None and value.strip("*` ").isdigit():
        topic.depth = int(value.strip("*` "))


_FIELD_SETTERS: dict[str, Callable[[ParsedTopic, str], None]] = {
    "status": _set_status,
    "parent": _set_parent,
    "description": _set_description,
    "criteria": _add_criterion,
    "depth": _set_depth,
}
_MULTI_LINE_FIELDS = {"description", "criteria"}


def _apply_field(topic: ParsedTopic, key: str, value: str) -> str | None:
    """Set one field of `topic`; returns the multi-line field the next lines continue, if any."""
    _FIELD_SETTERS[key](topic, value)
    return key if key in _MULTI_LINE_FIELDS else None


def parse_block_line(topic: ParsedTopic, line: str, mode: str | None) -> str | None:
    """Read one line below a topic's heading into `topic`; returns the multi-line field mode.

    `mode` is the multi-line field being read ("description" or "criteria") or None.
    """
    if not line.strip() or line.lstrip().startswith("```"):
        return mode
    bullet = _BULLET.match(line)
    if bullet is None:
        if mode == "description":
            topic.description = squash(f"{topic.description} {line}")
        return mode
    body = bullet[2].strip()
    known = read_field(body)
    if mode == "criteria" and (len(bullet[1].expandtabs(4)) >= 2 or known is None):
        if item := squash(unwrap(_CHECKBOX.sub("", body))):
            topic.criteria.append(item)
        return mode
    if known is None:
        return mode
    return _apply_field(topic, *known)


def _parse_block(topic: ParsedTopic, lines: list[str]) -> None:
    """Fill `topic` from the lines below its heading."""
    mode: str | None = None
    for line in lines:
        mode = parse_block_line(topic, line, mode)


@dataclass
class TopicBlocks:
    """A plan file's `## Topics` sections cut into one block of lines per topic heading."""

    blocks: list[tuple[ParsedTopic, list[str]]] = field(default_factory=list)
    """Each topic heading read so far (name, depth, implied parent) and the lines below it."""
    problems: list[str] = field(default_factory=list)
    """Topic headings that could not be read."""
    found_section: bool = False
    """Whether the file has a `## Topics` section at all."""


def split_topic_blocks(lines: Iterable[str]) -> TopicBlocks:
    """Cut the lines of a plan file into topic blocks; other sections are dropped."""
    found = TopicBlocks()
    in_topics = False
    current: list[str] | None = None  # the lines of the topic being read, if any
    last_level3: ParsedTopic | None = None
    for line in lines:
        level, title = _heading(line)
        if 1 <= level <= 2:
            in_topics = bool(_TOPICS_TITLE.match(unwrap(title)))
            found.found_section = found.found_section or in_topics
            current = None
        elif not in_topics:
            continue
        elif level in (3, 4):
            topic = _topic_from_heading(title, level, last_level3)
            if topic is None:
                found.problems.append(f"topic heading without a name: {line.strip()!r}")
                current = None
                continue
            if level == 3:
                last_level3 = topic
            current = []
            found.blocks.append((topic, current))
        elif current is not None:
            current.append(line)
    return found


def _heading(line: str) -> tuple[int, str]:
    """(level, title) of a Markdown heading line; (0, "") for any other line."""
    match = _HEADING.match(line)
    return (len(match[1]), match[2] or "") if match else (0, "")


def _topic_from_heading(
    title: str, level: int, last_level3: ParsedTopic | None
) -> ParsedTopic | None:
    """The topic a `###`/`####` heading opens; None for a heading without a name."""
    name, depth = _parse_heading(title)
    if not name:
        return None
    topic = ParsedTopic(name=name, depth=depth)
    if level == 4 and last_level3 is not None:
        # `####` under a `###` reads as a subtopic unless a Parent line says otherwise.
        topic.parent_name = last_level3.name
    return topic


def parse_plan(text: str) -> ParsedPlan:
    """Parse an agent-written `research_plan.md`; PlanParseError says why it cannot be."""
    if not text or not text.strip():
        raise PlanParseError("research_plan.md is empty")
    found = split_topic_blocks(text.lstrip("\ufeff").splitlines())
    if not found.found_section:
        raise PlanParseError(
            "research_plan.md has no '## Topics' section "
            "(expected '## Topics' followed by '### Name (Depth: N)' headings)"
        )
    if not found.blocks:
        raise PlanParseError(
            "research_plan.md has no topic headings under '## Topics' "
            "(expected '### Name (Depth: N)')"
        )
    for topic, block in found.blocks:
        _parse_block(topic, block)
    return ParsedPlan(topics=[topic for topic, _ in found.blocks], problems=found.problems)


_METADATA_TITLE = re.compile(r"^metadata\s*:?$", re.IGNORECASE)


def parse_complexity(text: str) -> tuple[Tier, str] | None:
    """The `- Complexity: simple|standard|deep <reason>` line of the plan's Metadata, as
    (tier, reason); None when there is no such line or its class is not a tier."""
    in_metadata = False
    for line in text.lstrip("\ufeff").splitlines():
        heading = _HEADING.match(line)
        if heading:
            in_metadata = len(heading[1]) <= 2 and bool(
                _METADATA_TITLE.match(unwrap(heading[2] or ""))
            )
            continue
        bullet = _BULLET.match(line) if in_metadata else None
        field = _FIELD.match(bullet[2].strip()) if bullet else None
        if field is None or squash(field[1]).lower() != "complexity":
            continue
        tier = None if "|" in field[2] else parse_tier(field[2])  # "|": the template copied
        if tier is None:
            return None
        reason = squash(field[2].strip().split(None, 1)[1] if " " in field[2].strip() else "")
        return tier, reason.strip("*_`-–—:;,() ") or "no reason given"
    return None

"""The topic tree: its models, `research_plan.md` rendered, and reconciliation.

The orchestrator's `Plan` (kept in `state.json`) is the truth. The agent edits
`research_plan.md`; after each phase the file is parsed leniently into a `ParsedPlan`
(`plan_parse.py`) and `reconcile` decides which of the agent's edits the plan takes. The
statuses and the rules for topic names are `plan_words.py`'s; this module re-exports both
modules' public names, so `research.model.plan` stays the one import for the plan.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field, model_validator

from research.core.names import slugify, unique_slug
from research.model.plan_parse import (
    ParsedPlan,
    ParsedTopic,
    TopicBlocks,
    parse_block_line,
    parse_complexity,
    parse_plan,
    read_field,
    split_topic_blocks,
)
from research.model.plan_words import (
    OPEN_STATUSES,
    RETRY_EXHAUSTED_TAG,
    TopicStatus,
    clean_name,
    normalize_name,
    squash,
)
from research.model.questions import questions_lines

__all__ = [
    "OPEN_STATUSES",
    "RETRY_EXHAUSTED_TAG",
    "SLUG_PATTERN",
    "ParsedPlan",
    "ParsedTopic",
    "Placement",
    "Plan",
    "PlanEvent",
    "ReconcileResult",
    "Topic",
    "TopicBlocks",
    "TopicStatus",
    "clean_name",
    "merge_existing",
    "normalize_name",
    "parse_block_line",
    "parse_complexity",
    "parse_plan",
    "place_new_topic",
    "propose",
    "read_field",
    "reconcile",
    "render_plan",
    "slugify",
    "split_topic_blocks",
    "unique_slug",
]


SLUG_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"


class Topic(BaseModel):
    """One node of the topic tree."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    """The topic's name, as shown in the plan's `###` heading."""
    slug: str = Field(pattern=SLUG_PATTERN)
    """Unique in the plan; names `progress/{slug}.md`."""
    depth: int = Field(ge=0)
    """Level in the tree: 0 for top-level topics, parent's depth + 1 otherwise."""
    parent: str | None = None
    """The parent topic's slug, None at depth 0."""
    status: TopicStatus = TopicStatus.PENDING
    """Set by the orchestrator only, never taken from the agent's file."""
    note: str | None = None
    """Reason shown beside the status, e.g. 'duplicate of "X"' or 'low novelty'."""
    description: str = ""
    """One-line description of what to research."""
    criteria: list[str] = []
    """Acceptance criteria, one per item."""
    attempts: int = Field(default=0, ge=0)
    """Research attempts made so far (failed phases and rejections both count)."""


class Plan(BaseModel):
    """The orchestrator's model of the research plan."""

    model_config = ConfigDict(extra="forbid")

    topic: str
    """The original research topic or question."""
    breadth: int = Field(ge=1)
    """Maximum depth-0 topics, and maximum subtopics per topic."""
    depth: int = Field(ge=1)
    """Number of topic levels: topics live at depths 0..depth-1."""
    topics: list[Topic] = []
    """Every topic, in plan order (the order they are rendered and chosen in)."""
    questions: str = ""
    """The plan's Open questions section as text (with the user's answers once approved)."""

    @model_validator(mode="after")
    def _check_tree(self) -> Plan:
        by_slug: dict[str, Topic] = {}
        for topic in self.topics:
            if topic.slug in by_slug:
                raise ValueError(f"duplicate topic slug {topic.slug!r}")
            by_slug[topic.slug] = topic
        for topic in self.topics:
            if topic.depth >= self.depth:
                raise ValueError(f"topic {topic.slug!r} is deeper than the plan's depth")
            if topic.parent is None:
                if topic.depth != 0:
                    raise ValueError(f"topic {topic.slug!r} has depth > 0 but no parent")
                continue
            parent = by_slug.get(topic.parent)
            if parent is None:
                raise ValueError(f"topic {topic.slug!r} has unknown parent {topic.parent!r}")
            if topic.depth != parent.depth + 1:
                raise ValueError(f"topic {topic.slug!r} is not one level below its parent")
        return self

    def get(self, slug: str) -> Topic:
        """The topic with this slug; KeyError if there is none."""
        for topic in self.topics:
            if topic.slug == slug:
                return topic
        raise KeyError(slug)

    def find_by_name(self, name: str) -> Topic | None:
        """The topic whose name matches `name` ignoring case, spacing and markdown."""
        key = normalize_name(name)
        return next((t for t in self.topics if normalize_name(t.name) == key), None)

    def children(self, slug: str) -> list[Topic]:
        """The direct subtopics of `slug`, in plan order."""
        return [t for t in self.topics if t.parent == slug]

    def counts(self) -> dict[TopicStatus, int]:
        """Number of topics per status; every status is a key."""
        counts = dict.fromkeys(TopicStatus, 0)
        for topic in self.topics:
            counts[topic.status] += 1
        return counts

    def open_topics(self) -> list[Topic]:
        """Topics still to be researched or reviewed."""
        return [t for t in self.topics if t.status in OPEN_STATUSES]

    def add_topic(
        self,
        name: str,
        *,
        parent: str | None,
        description: str = "",
        criteria: Iterable[str] = (),
        status: TopicStatus = TopicStatus.PENDING,
        note: str | None = None,
    ) -> Topic:
        """Append a topic under `parent` (a slug, or None for depth 0) and return it.

        The name is cleaned the way the parser cleans headings, so that the rendered plan
        parses back to the same name. ValueError for an empty or already used name, or
        one level too deep; KeyError for an unknown parent.
        """
        clean = clean_name(name)
        if not clean:
            raise ValueError(f"empty topic name: {name!r}")
        if self.find_by_name(clean) is not None:
            raise ValueError(f"a topic named {clean!r} is already in the plan")
        depth = 0 if parent is None else self.get(parent).depth + 1
        if depth >= self.depth:
            raise ValueError(f"{clean!r} would be at depth {depth}; the plan has {self.depth}")
        topic = Topic(
            name=clean,
            slug=unique_slug(slugify(clean), {t.slug for t in self.topics}),
            depth=depth,
            parent=parent,
            status=status,
            note=note,
            description=squash(description),
            criteria=[c for c in (squash(c) for c in criteria) if c],
        )
        self.topics.append(topic)
        return topic


# --- rendering -------------------------------------------------------------------------

_COMPLETION_ORDER = (
    TopicStatus.COMPLETE,
    TopicStatus.IN_PROGRESS,
    TopicStatus.IN_REVIEW,
    TopicStatus.PENDING,
    TopicStatus.SKIPPED,
    TopicStatus.EXHAUSTED,
)


def _status_text(topic: Topic) -> str:
    text = topic.status.value
    if topic.note and squash(topic.note):
        text += f" ({squash(topic.note)})"
    if topic.status is TopicStatus.EXHAUSTED:
        text += f" {RETRY_EXHAUSTED_TAG}"
    return text


def _topic_block(topic: Topic, names: dict[str, str]) -> list[str]:
    """A topic's `###` heading and fields, then a blank line; `names` maps slugs to names."""
    out = [f"### {topic.name} (Depth: {topic.depth})", f"- Status: {_status_text(topic)}"]
    if topic.parent is not None:
        out.append(f"- Parent: {names.get(topic.parent, topic.parent)}")
    if description := squash(topic.description):
        out.append(f"- Description: {description}")
    criteria = [c for c in (squash(c) for c in topic.criteria) if c]
    if criteria:
        out.append("- Acceptance Criteria:")
        out += [f"  - {c}" for c in criteria]
    return [*out, ""]


def render_plan(plan: Plan) -> str:
    """The plan in the canonical `research_plan.md` format (seed 003)."""
    names = {t.slug: t.name for t in plan.topics}
    out = [
        "# Research Plan",
        "",
        "## Metadata",
        f"- Topic: {squash(plan.topic)}",
        f"- Breadth: {plan.breadth}",
        f"- Depth: {plan.depth}",
        "",
        *questions_lines(plan.questions),
        "## Topics",
        "",
    ]
    for topic in plan.topics:
        out += _topic_block(topic, names)
    counts = plan.counts()
    out += ["## Completion Status", f"- Total Topics: {len(plan.topics)}"]
    out += [f"- {status.value}: {counts[status]}" for status in _COMPLETION_ORDER]
    return "\n".join(out) + "\n"


# --- reconciliation --------------------------------------------------------------------


@dataclass
class PlanEvent:
    """One decision reconcile took about the agent's edit.

    kind is "added", "duplicate", "rejected", "restored", "reverted" or "unparsed";
    topic is the topic's name (as written by the agent for new topics).
    """

    kind: str
    topic: str
    detail: str


@dataclass
class ReconcileResult:
    """The reconciled plan, what happened, and the new topics."""

    plan: Plan
    events: list[PlanEvent] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    """Slugs of new Pending topics (duplicates recorded as Skipped are not listed here)."""
    duplicates: list[tuple[str, str]] = field(default_factory=list)
    """(name, name of the topic it duplicates) for each new topic recorded as Skipped."""


def _edit_differences(topic: Topic, parsed: ParsedTopic) -> list[str]:
    """What the file changed in a non-focus topic's status, description or criteria."""
    diffs = []
    if parsed.status is not None and (parsed.status, parsed.note) != (topic.status, topic.note):
        shown = parsed.status.value + (f" ({parsed.note})" if parsed.note else "")
        diffs.append(f"status {shown!r} -> {_status_text(topic)!r}")
    if squash(parsed.description) != squash(topic.description):
        diffs.append("description")
    if [squash(c) for c in parsed.criteria] != [squash(c) for c in topic.criteria]:
        diffs.append("acceptance criteria")
    return diffs


def _differences(topic: Topic, parsed: ParsedTopic, plan: Plan, *, focus: bool) -> list[str]:
    """What the file changed on an existing topic that the plan does not take."""
    diffs = [] if focus else _edit_differences(topic, parsed)
    if parsed.depth is not None and parsed.depth != topic.depth:
        diffs.append(f"depth {parsed.depth} -> {topic.depth}")
    parent_name = plan.get(topic.parent).name if topic.parent else None
    wrote = normalize_name(parsed.parent_name) if parsed.parent_name else None
    if wrote != (normalize_name(parent_name) if parent_name else None):
        diffs.append(f"parent {parsed.parent_name!r} -> {parent_name!r}")
    return diffs


def _take_focus_edits(topic: Topic, parsed: ParsedTopic) -> None:
    """The focus topic takes the file's description and criteria, when the file gives them."""
    if description := squash(parsed.description):
        topic.description = description
    if criteria := [c for c in (squash(c) for c in parsed.criteria) if c]:
        topic.criteria = criteria


def merge_existing(
    plan: Plan, parsed: ParsedPlan, focus_topic: Topic | None, events: list[PlanEvent]
) -> list[ParsedTopic]:
    """Apply the file's edits to the topics `plan` already has; returns the new topics.

    The focus topic takes its description and criteria; every other edit is reverted,
    deleted topics are restored and repeated names rejected, each with an event.
    """
    events += [PlanEvent("unparsed", "", problem) for problem in parsed.problems]
    existing = {normalize_name(t.name): t for t in plan.topics}
    seen: set[str] = set()
    proposed: list[ParsedTopic] = []
    for item in parsed.topics:
        key = normalize_name(item.name)
        if key in seen:
            events.append(PlanEvent("rejected", item.name, "repeated: the name appears twice"))
            continue
        seen.add(key)
        events += [PlanEvent("unparsed", item.name, p) for p in item.problems]
        topic = existing.get(key)
        if topic is None:
            proposed.append(item)
            continue
        if topic is focus_topic:
            _take_focus_edits(topic, item)
        if diffs := _differences(topic, item, plan, focus=topic is focus_topic):
            events.append(PlanEvent("reverted", topic.name, "kept the plan's " + "; ".join(diffs)))
    events += _restored(plan, seen)
    return proposed


def _restored(plan: Plan, seen: set[str]) -> list[PlanEvent]:
    """A "restored" event for each topic of `plan` the file left out (normalized names)."""
    return [
        PlanEvent("restored", t.name, "deleted from the file; restored")
        for t in plan.topics
        if normalize_name(t.name) not in seen
    ]


@dataclass
class Placement:
    """Where a new topic would go: under `parent` (None for depth 0), beside `siblings`."""

    parent: str | None
    siblings: list[Topic]


def place_new_topic(
    item: ParsedTopic, plan: Plan, focus_topic: Topic | None, *, initial: bool
) -> Placement | str:
    """Where the plan puts a topic the file proposes, or why it cannot have it.

    In the initial plan only depth-0 topics are taken; during research (`focus_topic`
    set) only subtopics of the focus topic, within the plan's depth.
    """
    if initial:
        return _place_at_depth_0(item, plan)
    if focus_topic is None:
        return "new topics are only accepted during research"
    if item.parent_name is None:
        return f"no parent: new topics must be subtopics of {focus_topic.name!r}"
    if normalize_name(item.parent_name) != normalize_name(focus_topic.name):
        return (
            f"parent {item.parent_name!r} is not the topic being researched ({focus_topic.name!r})"
        )
    if focus_topic.depth + 1 >= plan.depth:
        return (
            f"depth limit: depth {focus_topic.depth + 1} is beyond the plan's {plan.depth} levels"
        )
    return Placement(focus_topic.slug, plan.children(focus_topic.slug))


def _place_at_depth_0(item: ParsedTopic, plan: Plan) -> Placement | str:
    """The initial plan takes top-level topics only."""
    if item.parent_name is not None or (item.depth or 0) > 0:
        return "subtopics are proposed during research"
    return Placement(None, [t for t in plan.topics if t.depth == 0])


def _record_duplicate(
    result: ReconcileResult, item: ParsedTopic, parent: str | None, duplicate_of: str
) -> PlanEvent:
    """Record a proposed duplicate as Skipped, up to `breadth` of them per reconcile."""
    plan = result.plan
    if len(result.duplicates) >= plan.breadth:
        return PlanEvent(
            "rejected",
            item.name,
            f"duplicate of {duplicate_of!r}, and {plan.breadth} duplicates were already recorded",
        )
    note = f'duplicate of "{duplicate_of}"'
    plan.add_topic(
        item.name,
        parent=parent,
        description=item.description,
        criteria=item.criteria,
        status=TopicStatus.SKIPPED,
        note=note,
    )
    result.duplicates.append((item.name, duplicate_of))
    return PlanEvent("duplicate", item.name, f"skipped: {note}")


def _add_within_breadth(
    result: ReconcileResult, item: ParsedTopic, where: Placement, focus_topic: Topic | None
) -> PlanEvent:
    """Add a proposed topic as Pending unless its level already has `breadth` active topics."""
    plan = result.plan
    active = sum(t.status is not TopicStatus.SKIPPED for t in where.siblings)
    if active >= plan.breadth:
        return PlanEvent(
            "rejected",
            item.name,
            f"breadth limit: already {active} of {plan.breadth} topics at this level",
        )
    topic = plan.add_topic(
        item.name, parent=where.parent, description=item.description, criteria=item.criteria
    )
    result.added.append(topic.slug)
    position = f"under {focus_topic.name!r}" if focus_topic else "at depth 0"
    return PlanEvent("added", topic.name, f"added {position} as {topic.slug}")


def reconcile(
    previous: Plan,
    parsed: ParsedPlan,
    *,
    focus: str | None,
    find_duplicate: Callable[[str, list[str]], str | None] | None = None,
) -> ReconcileResult:
    """Merge the agent's edited plan into `previous`: take what the agent may change.

    `focus` is the slug of the topic the phase was about (None for INITIAL PLAN).
    `find_duplicate(name, existing_names)` returns the name a proposed topic duplicates.
    `previous` is not modified.
    """
    if focus is not None and all(t.slug != focus for t in previous.topics):
        raise ValueError(f"focus topic {focus!r} is not in the plan")
    plan = previous.model_copy(deep=True)
    result = ReconcileResult(plan=plan)
    focus_topic = plan.get(focus) if focus is not None else None
    initial = focus is None and not previous.topics
    proposed = merge_existing(plan, parsed, focus_topic, result.events)
    for item in proposed:
        where = place_new_topic(item, plan, focus_topic, initial=initial)
        if isinstance(where, str):
            result.events.append(PlanEvent("rejected", item.name, where))
        else:
            result.events.append(_admit(result, item, where, focus_topic, find_duplicate))
    return result


def _admit(
    result: ReconcileResult,
    item: ParsedTopic,
    where: Placement,
    focus_topic: Topic | None,
    find_duplicate: Callable[[str, list[str]], str | None] | None,
) -> PlanEvent:
    """Add a placed topic to the plan: Skipped if it duplicates one, else within breadth."""
    names = [t.name for t in result.plan.topics]
    duplicate_of = find_duplicate(item.name, names) if find_duplicate else None
    if duplicate_of is not None:
        return _record_duplicate(result, item, where.parent, duplicate_of)
    return _add_within_breadth(result, item, where, focus_topic)


# --- proposals -------------------------------------------------------------------------


def level_order(topics: list[Topic]) -> list[Topic]:
    """The topics level by level, each level's in the order of their parents (then in the
    order they were added): the order a plan has however its topics' research finished,
    so the plan of a run with several topics in flight does not depend on how many."""
    rank: dict[str | None, int] = {None: 0}
    ordered: list[Topic] = []
    for depth in sorted({topic.depth for topic in topics}):
        level = [topic for topic in topics if topic.depth == depth]
        level.sort(key=lambda topic: rank.get(topic.parent, len(rank)))  # stable
        for topic in level:
            rank[topic.slug] = len(rank)
        ordered += level
    return ordered


def propose(
    previous: Plan,
    parent: str,
    proposals: Iterable[ParsedTopic],
    *,
    find_duplicate: Callable[[str, list[str]], str | None] | None = None,
) -> ReconcileResult:
    """Add the subtopics proposed for the topic `parent` (a slug) through the same gates
    as an agent's edit of the plan: the depth and breadth limits and the duplicate check.

    Only each proposal's name, description and criteria count: it is Pending, one level
    below `parent`, whatever else it says. `previous` is not modified.
    """
    topic = previous.get(parent)
    names = {t.slug: t.name for t in previous.topics}
    current = [
        ParsedTopic(
            name=t.name,
            depth=t.depth,
            status=t.status,
            note=t.note,
            parent_name=names[t.parent] if t.parent else None,
            description=t.description,
            criteria=list(t.criteria),
        )
        for t in previous.topics
    ]
    added = [
        ParsedTopic(
            name=p.name,
            depth=topic.depth + 1,
            status=TopicStatus.PENDING,
            parent_name=topic.name,
            description=p.description,
            criteria=list(p.criteria),
        )
        for p in proposals
    ]
    return reconcile(
        previous, ParsedPlan(topics=current + added), focus=parent, find_duplicate=find_duplicate
    )

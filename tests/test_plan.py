"""The plan module: models, parse/render of research_plan.md, BFS order, reconciliation."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from research.core.errors import PlanParseError
from research.engine.scheduler import ready_topics
from research.model.plan import (
    OPEN_STATUSES,
    ParsedPlan,
    ParsedTopic,
    Plan,
    Topic,
    TopicStatus,
    normalize_name,
    parse_plan,
    reconcile,
    render_plan,
    slugify,
    unique_slug,
)
from research.model.state import InFlight, Phase

S = TopicStatus

SEED_STYLE_PLAN = """\
# Research Plan

## Metadata
- Topic: How will residential heat pumps change winter peak demand on European grids?
- Breadth: 3
- Depth: 3

## Topics

### Heat Pump Adoption Trends (Depth: 0)
- Status: Complete
- Description: Installed base and sales growth of heat pumps in the EU since 2015
- Acceptance Criteria:
  - Sales figures for at least five countries
  - Forecasts to 2030 from two independent sources

### Grid Peak Load Effects (Depth: 0)
- Status: In Progress
- Description: How heat pump load shapes winter peaks at national and feeder level
- Acceptance Criteria:
  - Quantified peak increase per million units
  - Feeder-level case study

### Policy Instruments (Depth: 0)
- Status: Exhausted #RETRY_EXHAUSTED
- Description: Subsidies, tariffs and building codes that drive adoption

### National Subsidy Schemes (Depth: 1)
- Status: Skipped (duplicate of "Policy Instruments")
- Parent: Heat Pump Adoption Trends
- Description: Country-by-country grant programmes
- Acceptance Criteria:
  - Scheme size and eligibility for three countries

### Cold-Climate Performance (Depth: 1)
- Status: In Review
- Parent: Heat Pump Adoption Trends
- Description: COP at -15 °C and below, field measurements (not lab ratings)
- Acceptance Criteria:
  - Field data from Nordic studies

### Demand Flexibility (Depth: 1)
- Status: Pending
- Parent: Grid Peak Load Effects

## Completion Status
- Total Topics: 6
- Complete: 1
- In Progress: 1
- In Review: 1
- Pending: 1
- Skipped: 1
- Exhausted: 1
"""


def fields(topic: ParsedTopic | Topic, parent_name: str | None = None) -> tuple:
    name = topic.name
    status = topic.status
    if isinstance(topic, ParsedTopic):
        return (name, topic.depth, status, topic.note, topic.parent_name,
                topic.description, topic.criteria)  # fmt: skip
    return (name, topic.depth, status, topic.note, parent_name, topic.description, topic.criteria)


def plan_from(text: str, *, breadth: int = 3, depth: int = 3) -> Plan:
    """A Plan built from a parsed file, keeping the file's statuses and notes."""
    plan = Plan(topic="question", breadth=breadth, depth=depth)
    for item in parse_plan(text).topics:
        parent = plan.find_by_name(item.parent_name) if item.parent_name else None
        plan.add_topic(
            item.name,
            parent=parent.slug if parent else None,
            description=item.description,
            criteria=item.criteria,
            status=item.status or S.PENDING,
            note=item.note,
        )
    return plan


def make_plan(
    spec: list[tuple[str, str | None, TopicStatus]], *, breadth: int = 3, depth: int = 3
) -> Plan:
    """A Plan from (name, parent name, status) rows."""
    plan = Plan(topic="question", breadth=breadth, depth=depth)
    for name, parent, status in spec:
        parent_slug = plan.find_by_name(parent).slug if parent else None
        plan.add_topic(name, parent=parent_slug, status=status, description=f"About {name}")
    return plan


# --- round trip ------------------------------------------------------------------------


def test_seed_style_plan_parses_every_field():
    parsed = parse_plan(SEED_STYLE_PLAN)
    assert [fields(t) for t in parsed.topics] == [
        ("Heat Pump Adoption Trends", 0, S.COMPLETE, None, None,
         "Installed base and sales growth of heat pumps in the EU since 2015",
         ["Sales figures for at least five countries",
          "Forecasts to 2030 from two independent sources"]),
        ("Grid Peak Load Effects", 0, S.IN_PROGRESS, None, None,
         "How heat pump load shapes winter peaks at national and feeder level",
         ["Quantified peak increase per million units", "Feeder-level case study"]),
        ("Policy Instruments", 0, S.EXHAUSTED, None, None,
         "Subsidies, tariffs and building codes that drive adoption", []),
        ("National Subsidy Schemes", 1, S.SKIPPED, 'duplicate of "Policy Instruments"',
         "Heat Pump Adoption Trends", "Country-by-country grant programmes",
         ["Scheme size and eligibility for three countries"]),
        ("Cold-Climate Performance", 1, S.IN_REVIEW, None, "Heat Pump Adoption Trends",
         "COP at -15 °C and below, field measurements (not lab ratings)",
         ["Field data from Nordic studies"]),
        ("Demand Flexibility", 1, S.PENDING, None, "Grid Peak Load Effects", "", []),
    ]  # fmt: skip
    assert parsed.problems == []


def test_render_of_seed_style_plan_is_byte_identical():
    plan = plan_from(SEED_STYLE_PLAN)
    plan.topic = "How will residential heat pumps change winter peak demand on European grids?"
    assert render_plan(plan) == SEED_STYLE_PLAN


def test_round_trip_keeps_every_topic_field():
    plan = plan_from(SEED_STYLE_PLAN)
    plan.add_topic("Low Novelty Leaf", parent=plan.topics[1].slug, status=S.SKIPPED,
                   note="low novelty")  # fmt: skip
    plan.add_topic("Bare Skip", parent=None, status=S.SKIPPED)
    plan.get(plan.topics[2].slug).note = "3 attempts (timeouts)"  # note beside Exhausted
    names = {t.slug: t.name for t in plan.topics}
    expected = [fields(t, names.get(t.parent)) for t in plan.topics]
    again = parse_plan(render_plan(plan))
    assert [fields(t) for t in again.topics] == expected
    assert render_plan(plan_from(render_plan(plan))).count("#RETRY_EXHAUSTED") == 1


def test_render_shape_and_counts():
    plan = make_plan([("A", None, S.COMPLETE), ("B", "A", S.EXHAUSTED), ("C", None, S.SKIPPED)])
    plan.topics[0].description = ""
    text = render_plan(plan)
    assert "### B (Depth: 1)\n- Status: Exhausted #RETRY_EXHAUSTED\n- Parent: A\n" in text
    assert "### A (Depth: 0)\n- Status: Complete\n\n" in text  # no empty Description/Criteria
    assert "- Status: Skipped\n" in text
    assert "Acceptance Criteria" not in text
    assert text.endswith(
        "## Completion Status\n- Total Topics: 3\n- Complete: 1\n- In Progress: 0\n"
        "- In Review: 0\n- Pending: 0\n- Skipped: 1\n- Exhausted: 1\n"
    )


# --- lenient parsing -------------------------------------------------------------------


def one_topic(body: str) -> ParsedTopic:
    parsed = parse_plan(f"# Research Plan\n\n## Topics\n\n{body}\n\n## Completion Status\n")
    assert len(parsed.topics) == 1
    return parsed.topics[0]


@pytest.mark.parametrize(
    ("heading", "name", "depth"),
    [
        ("### Grid Effects (Depth: 0)", "Grid Effects", 0),
        ("### 1. Grid Effects (Depth: 0)", "Grid Effects", 0),
        ("### 1.2 Grid Effects (Depth: 1)", "Grid Effects", 1),
        ("### 2) Grid Effects (depth 1)", "Grid Effects", 1),
        ("### **Grid Effects** (Depth: 2)", "Grid Effects", 2),
        ("### **Grid Effects (Depth: 2)**", "Grid Effects", 2),
        ("### `Grid Effects` (DEPTH:0)   ", "Grid Effects", 0),
        ("#### Grid Effects (Depth: 1)", "Grid Effects", 1),
        ("### Grid Effects", "Grid Effects", None),
        ("### [Grid Effects] (Depth: 0)", "Grid Effects", 0),
        ("### 2024 Elections (Depth: 0)", "2024 Elections", 0),
        ("### Costs (2020-2024) (Depth: 0)", "Costs (2020-2024)", 0),
        ("### Learn C# (Depth: 0)", "Learn C#", 0),
    ],
)
def test_heading_forms(heading, name, depth):
    topic = one_topic(heading)
    assert (topic.name, topic.depth) == (name, depth)


@pytest.mark.parametrize(
    ("line", "status", "note"),
    [
        ("- Status: Pending", S.PENDING, None),
        ("- status: in progress", S.IN_PROGRESS, None),
        ("- **Status:** In Review", S.IN_REVIEW, None),
        ("- **Status**: COMPLETE", S.COMPLETE, None),
        ("* Status: Completed", S.COMPLETE, None),
        ("- Status: In_Progress", S.IN_PROGRESS, None),
        ("- Status: **Pending**", S.PENDING, None),
        ('- Status: Skipped (duplicate of "Grid")', S.SKIPPED, 'duplicate of "Grid"'),
        ("- Status: skipped - low novelty", S.SKIPPED, "low novelty"),
        ("- Status: Skipped", S.SKIPPED, None),
        ("- Status: Exhausted #RETRY_EXHAUSTED", S.EXHAUSTED, None),
        ("- Status: Exhausted", S.EXHAUSTED, None),
        ("- Status: #retry_exhausted", S.EXHAUSTED, None),
        ("- Status: Pending | In Progress | In Review | Complete", None, None),
        ("- Status: Sort of done", None, None),
        ("- Description: no status line at all", None, None),
    ],
)
def test_status_forms(line, status, note):
    topic = one_topic(f"### T (Depth: 0)\n{line}")
    assert (topic.status, topic.note) == (status, note)


def test_unknown_status_is_reported_as_a_problem():
    assert one_topic("### T\n- Status: Sort of done").problems == ["unknown status 'Sort of done'"]
    assert one_topic("### T\n- Status: Pending").problems == []


@pytest.mark.parametrize(
    ("body", "parent", "description", "criteria"),
    [
        (
            "- **Parent:** Grid\n- **Description:** Load shapes\n- **Acceptance Criteria:**\n"
            "  - One\n  - Two",
            "Grid", "Load shapes", ["One", "Two"],
        ),
        (
            "- PARENT: **Grid**\n- description: Load\n  shapes over   winter\n"
            "- acceptance criteria:\n    * One\n    * [x] Two\n\n    1. Three",
            "Grid", "Load shapes over winter", ["One", "Two", "Three"],
        ),
        (
            "- Parent: None\n- Description:\n- Acceptance Criteria:\n- One\n- Two\n"
            "- Status: Pending",
            None, "", ["One", "Two"],
        ),
        ("- Criteria: only one inline\n- Parent: [Grid]", "Grid", "", ["only one inline"]),
        ("- Notes: ignored\nfree prose is ignored", None, "", []),
    ],
)  # fmt: skip
def test_field_forms(body, parent, description, criteria):
    topic = one_topic(f"### T (Depth: 1)\n{body}")
    assert (topic.parent_name, topic.description, topic.criteria) == (parent, description, criteria)


def test_h4_under_h3_is_a_subtopic_unless_parent_says_otherwise():
    text = (
        "## Topics\n### Grid (Depth: 0)\n- Status: Pending\n"
        "#### Feeders\n- Status: Pending\n"
        "#### Storage\n- Parent: Policy\n"
    )
    topics = parse_plan(text).topics
    assert [(t.name, t.parent_name) for t in topics] == [
        ("Grid", None), ("Feeders", "Grid"), ("Storage", "Policy"),
    ]  # fmt: skip


def test_metadata_and_completion_sections_are_ignored():
    text = (
        "# Research Plan\n## Metadata\n### Not A Topic (Depth: 0)\n- Topic: x\n"
        "## Topics\n### Real (Depth: 0)\n- Status: Pending\n"
        "## Completion Status\n### Also Not (Depth: 0)\n- Total Topics: 99\n"
    )
    assert [t.name for t in parse_plan(text).topics] == ["Real"]


def test_crlf_bom_and_code_fence_wrapping_are_tolerated():
    text = "\ufeff```markdown\r\n## Topics\r\n### Real (Depth: 0)\r\n- Status: Complete\r\n```\r\n"
    topic = parse_plan(text).topics[0]
    assert (topic.name, topic.depth, topic.status) == ("Real", 0, S.COMPLETE)


def test_nameless_heading_is_a_problem_not_a_topic():
    parsed = parse_plan("## Topics\n### (Depth: 0)\n- Status: Pending\n### Real\n")
    assert [t.name for t in parsed.topics] == ["Real"]
    assert len(parsed.problems) == 1


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty"),
        ("   \n\t\n", "empty"),
        ("The agent ran out of time and wrote some prose about heat pumps.", "## Topics"),
        (SEED_STYLE_PLAN.replace("## Topics", "## Subjects"), "## Topics"),
        (json.dumps({"topics": [{"name": "Grid", "depth": 0}]}), "## Topics"),
        ("# Research Plan\n## Topics\n\n- Grid (Depth: 0)\n\n## Completion Status\n", "heading"),
        ("## Topics\n## Completion Status\n### Grid (Depth: 0)\n", "heading"),
    ],
)
def test_garbage_raises_plan_parse_error(text, reason):
    with pytest.raises(PlanParseError, match=reason) as info:
        parse_plan(text)
    assert info.value.kind == "invalid_plan"


# --- models and BFS --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        ([("A", None, S.COMPLETE), ("A1", "A", S.PENDING), ("B", None, S.PENDING)], "B"),
        ([("A", None, S.PENDING), ("B", None, S.IN_PROGRESS)], "B"),
        ([("A", None, S.COMPLETE), ("A1", "A", S.PENDING), ("A2", "A", S.IN_PROGRESS)], "A2"),
        ([("A", None, S.IN_PROGRESS), ("A1", "A", S.IN_PROGRESS), ("B", None, S.PENDING)], "A"),
        ([("A", None, S.PENDING), ("B", None, S.PENDING)], "A"),
        ([("A", None, S.IN_REVIEW), ("A1", "A", S.PENDING)], "A1"),
        ([("A", None, S.COMPLETE), ("B", None, S.SKIPPED), ("C", None, S.EXHAUSTED),
          ("C1", "C", S.PENDING)], "C1"),
        ([("A", None, S.IN_REVIEW), ("B", None, S.COMPLETE), ("C", None, S.SKIPPED),
          ("D", None, S.EXHAUSTED)], None),
        ([], None),
    ],
)  # fmt: skip
def test_the_next_topic_is_breadth_first(rows, expected):
    """The rule the scheduler runs (engine/scheduler.ready_topics), on a plan at rest."""
    ready = ready_topics(make_plan(rows), {})
    assert (ready[0].name if ready else None) == expected


def test_a_subtopic_waits_for_its_parents_research_and_none_runs_twice():
    plan = make_plan([("A", None, S.IN_PROGRESS), ("A1", "A", S.PENDING), ("B", None, S.PENDING)])
    researching = InFlight(phase=Phase.RESEARCH, iteration=1)
    assert [t.name for t in ready_topics(plan, {"a": researching})] == ["B"]
    reviewing = InFlight(phase=Phase.REVIEW, iteration=1)
    assert [t.name for t in ready_topics(plan, {"a": reviewing})] == ["B", "A1"]


def test_counts_open_topics_children_get_find():
    plan = make_plan([("A", None, S.COMPLETE), ("A1", "A", S.IN_REVIEW), ("A2", "A", S.PENDING),
                      ("B", None, S.SKIPPED)])  # fmt: skip
    counts = plan.counts()
    assert set(counts) == set(TopicStatus)
    assert (counts[S.COMPLETE], counts[S.PENDING], counts[S.EXHAUSTED]) == (1, 1, 0)
    assert OPEN_STATUSES == {S.PENDING, S.IN_PROGRESS, S.IN_REVIEW}
    assert [t.name for t in plan.open_topics()] == ["A1", "A2"]
    assert [t.name for t in plan.children("a")] == ["A1", "A2"]
    assert plan.get("a2").depth == 1 and plan.get("a2").parent == "a"
    assert plan.find_by_name("  **a1** ").slug == "a1"
    assert plan.find_by_name("nothing") is None
    with pytest.raises(KeyError):
        plan.get("nope")


def test_add_topic_derives_depth_slug_and_checks_limits():
    plan = Plan(topic="q", breadth=2, depth=2)
    a = plan.add_topic("Café Économie", parent=None)
    b = plan.add_topic("Cafe Economie!", parent=a.slug)
    assert (a.slug, a.depth, b.slug, b.depth, b.parent) == (
        "cafe-economie", 0, "cafe-economie-2", 1, "cafe-economie",
    )  # fmt: skip
    with pytest.raises(ValueError, match="depth"):
        plan.add_topic("Too Deep", parent=b.slug)
    with pytest.raises(ValueError, match="already"):
        plan.add_topic("CAFÉ ÉCONOMIE", parent=None)
    with pytest.raises(KeyError):
        plan.add_topic("Orphan", parent="missing")
    assert plan.add_topic("**2. Storage**", parent=None).name == "Storage"


def test_plan_round_trips_through_json_and_rejects_broken_trees():
    plan = plan_from(SEED_STYLE_PLAN)
    assert Plan.model_validate_json(plan.model_dump_json()) == plan
    data = plan.model_dump()
    data["topics"][1]["slug"] = data["topics"][0]["slug"]
    with pytest.raises(ValidationError, match="duplicate topic slug"):
        Plan.model_validate(data)
    data = plan.model_dump()
    data["topics"][3]["parent"] = "ghost"
    with pytest.raises(ValidationError, match="unknown parent"):
        Plan.model_validate(data)
    data = plan.model_dump()
    data["topics"][0]["slug"] = "../escape"
    with pytest.raises(ValidationError):
        Plan.model_validate(data)
    with pytest.raises(ValidationError):
        Plan.model_validate({**plan.model_dump(), "extra": 1})


# --- slugs -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("Machine Learning Fundamentals", "machine-learning-fundamentals"),
        ("Café Économie", "cafe-economie"),
        ("Straße & Œuvre", "strasse-oeuvre"),
        ("C++/Rust: memory-safety?!", "c-rust-memory-safety"),
        ("  --Leading & trailing junk!!--  ", "leading-trailing-junk"),
        ("🔥🚀", "topic"),
        ("", "topic"),
        ("日本語", "topic"),
        ("Heat pumps (2020–2024)", "heat-pumps-2020-2024"),
        ("word " * 30, ("word-" * 12)[:-1]),
        ("a" * 80, "a" * 60),
        ("abcdefghij " * 5 + "x" * 20, "abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcdefghij"),
    ],
)
def test_slugify(text, slug):
    result = slugify(text)
    assert result == slug
    assert len(result) <= 60


def test_slugify_max_length_cuts_on_hyphen_boundary():
    assert slugify("alpha beta gamma", max_length=12) == "alpha-beta"
    assert slugify("alpha beta gamma", max_length=10) == "alpha-beta"
    assert slugify("alphabetagamma", max_length=5) == "alpha"


@pytest.mark.parametrize(
    ("base", "taken", "expected"),
    [
        ("grid", set(), "grid"),
        ("grid", {"grid"}, "grid-2"),
        ("grid", {"grid", "grid-2", "grid-3"}, "grid-4"),
        ("grid", {"grid-2"}, "grid"),
        ("grid", ["grid", "grid-3"], "grid-2"),
    ],
)
def test_unique_slug(base, taken, expected):
    assert unique_slug(base, taken) == expected


@pytest.mark.parametrize(
    ("a", "b"), [("Grid Effects", "  grid   EFFECTS "), ("**Grid Effects**", "1. grid effects:")]
)
def test_normalize_name(a, b):
    assert normalize_name(a) == normalize_name(b)


# --- reconciliation --------------------------------------------------------------------


def kinds(result) -> list[tuple[str, str]]:
    return [(e.kind, e.topic) for e in result.events]


def proposal(*topics: tuple[str, int | None, str | None], base: Plan | None = None) -> ParsedPlan:
    """The previous plan as the file shows it, plus new (name, depth, parent name) topics."""
    rows = parse_plan(render_plan(base)).topics if base and base.topics else []
    rows += [ParsedTopic(name=n, depth=d, parent_name=p, status=S.PENDING) for n, d, p in topics]
    return ParsedPlan(topics=rows)


def empty_plan(breadth: int = 3, depth: int = 3) -> Plan:
    return Plan(topic="question", breadth=breadth, depth=depth)


def test_initial_plan_caps_at_breadth():
    parsed = proposal(("A", 0, None), ("B", 0, None), ("C", None, None), ("D", 0, None))
    result = reconcile(empty_plan(breadth=3), parsed, focus=None)
    assert [(t.name, t.depth, t.status) for t in result.plan.topics] == [
        ("A", 0, S.PENDING), ("B", 0, S.PENDING), ("C", 0, S.PENDING),
    ]  # fmt: skip
    assert result.added == ["a", "b", "c"]
    assert kinds(result)[-1] == ("rejected", "D")
    assert "breadth limit" in result.events[-1].detail


def test_initial_plan_rejects_subtopics():
    parsed = proposal(("A", 0, None), ("A1", 1, "A"), ("B1", None, "A"), ("Deep", 2, None))
    result = reconcile(empty_plan(), parsed, focus=None)
    assert [t.name for t in result.plan.topics] == ["A"]
    rejected = [e for e in result.events if e.kind == "rejected"]
    assert [e.topic for e in rejected] == ["A1", "B1", "Deep"]
    assert all("subtopics are proposed during research" in e.detail for e in rejected)


def test_initial_plan_statuses_come_from_the_orchestrator():
    text = "## Topics\n### A (Depth: 0)\n- Status: Complete\n- Description: d\n"
    result = reconcile(empty_plan(), parse_plan(text), focus=None)
    assert (result.plan.topics[0].status, result.plan.topics[0].description) == (S.PENDING, "d")


def test_initial_plan_duplicates_are_skipped():
    def dup(name, names):
        return "Grid" if name == "The Grid" and "Grid" in names else None

    parsed = proposal(("Grid", 0, None), ("The Grid", 0, None), ("Policy", 0, None))
    result = reconcile(empty_plan(breadth=2), parsed, focus=None, find_duplicate=dup)
    assert [(t.name, t.status, t.note) for t in result.plan.topics] == [
        ("Grid", S.PENDING, None),
        ("The Grid", S.SKIPPED, 'duplicate of "Grid"'),
        ("Policy", S.PENDING, None),
    ]
    assert result.duplicates == [("The Grid", "Grid")]


@pytest.fixture
def researched() -> Plan:
    """Three depth-0 topics, the first being researched."""
    return make_plan(
        [("Grid", None, S.IN_PROGRESS), ("Policy", None, S.PENDING), ("Costs", None, S.PENDING)]
    )


def test_children_accepted_up_to_breadth(researched):
    parsed = proposal(*[(f"Child {i}", 1, "Grid") for i in range(5)], base=researched)
    result = reconcile(researched, parsed, focus="grid")
    assert [t.name for t in result.plan.children("grid")] == ["Child 0", "Child 1", "Child 2"]
    assert result.added == ["child-0", "child-1", "child-2"]
    rejected = [e for e in result.events if e.kind == "rejected"]
    assert [e.topic for e in rejected] == ["Child 3", "Child 4"]
    assert all("breadth limit" in e.detail for e in rejected)


def test_existing_children_count_towards_breadth(researched):
    researched.add_topic("Old Child", parent="grid", status=S.COMPLETE)
    researched.add_topic("Skipped Child", parent="grid", status=S.SKIPPED, note="low novelty")
    parsed = proposal(("New 1", 1, "Grid"), ("New 2", 1, "Grid"), ("New 3", 1, "Grid"),
                      base=researched)  # fmt: skip
    result = reconcile(researched, parsed, focus="grid")
    assert result.added == ["new-1", "new-2"]
    assert kinds(result)[-1] == ("rejected", "New 3")


def test_fifty_proposed_children_are_capped(researched):
    parsed = proposal(*[(f"Angle {i}", 1, "Grid") for i in range(50)], base=researched)
    result = reconcile(researched, parsed, focus="grid")
    assert len(result.plan.topics) == 3 + 3
    assert len(result.added) == 3
    assert sum(e.kind == "rejected" for e in result.events) == 47


def test_children_of_a_non_focus_topic_or_without_parent_are_rejected(researched):
    parsed = proposal(("Policy Child", 1, "Policy"), ("Orphan", None, None), ("Ok", 1, "grid"),
                      base=researched)  # fmt: skip
    result = reconcile(researched, parsed, focus="grid")
    assert [t.name for t in result.plan.topics] == ["Grid", "Policy", "Costs", "Ok"]
    details = {e.topic: e.detail for e in result.events if e.kind == "rejected"}
    assert "is not the topic being researched" in details["Policy Child"]
    assert "no parent" in details["Orphan"]


def test_child_depth_is_derived_not_read(researched):
    parsed = proposal(("Child", 2, "Grid"), base=researched)
    result = reconcile(researched, parsed, focus="grid")
    child = result.plan.get("child")
    assert (child.depth, child.parent) == (1, "grid")


@pytest.mark.parametrize(("depth", "accepted"), [(1, False), (2, True)])
def test_too_deep_children_are_rejected(depth, accepted):
    plan = make_plan([("Grid", None, S.IN_PROGRESS)], depth=depth)
    result = reconcile(plan, proposal(("Child", 1, "Grid"), base=plan), focus="grid")
    assert (result.plan.find_by_name("Child") is not None) is accepted
    assert plan.find_by_name("Child") is None
    if not accepted:
        assert result.events[-1].kind == "rejected"
        assert "depth limit" in result.events[-1].detail


def test_grandchildren_at_the_depth_limit():
    plan = make_plan([("A", None, S.COMPLETE), ("A1", "A", S.IN_PROGRESS)], depth=2)
    result = reconcile(plan, proposal(("A1x", 2, "A1"), base=plan), focus="a1")
    assert [t.name for t in result.plan.topics] == ["A", "A1"]
    assert "depth limit" in result.events[-1].detail


def test_status_edits_to_other_topics_are_reverted(researched):
    text = (
        render_plan(researched)
        .replace("Policy (Depth: 0)\n- Status: Pending", "Policy (Depth: 0)\n- Status: Complete")
        .replace("Grid (Depth: 0)\n- Status: In Progress", "Grid (Depth: 0)\n- Status: In Review")
    )
    result = reconcile(researched, parse_plan(text), focus="grid")
    assert [t.status for t in result.plan.topics] == [S.IN_PROGRESS, S.PENDING, S.PENDING]
    assert kinds(result) == [("reverted", "Policy")]
    assert "status 'Complete'" in result.events[0].detail


def test_one_reverted_event_per_topic(researched):
    text = (
        render_plan(researched)
        .replace("About Costs", "Rewritten")
        .replace(
            "### Costs (Depth: 0)\n- Status: Pending", "### Costs (Depth: 0)\n- Status: Skipped"
        )
    )
    result = reconcile(researched, parse_plan(text), focus="grid")
    assert kinds(result) == [("reverted", "Costs")]
    assert "description" in result.events[0].detail
    assert result.plan.get("costs").description == "About Costs"


def test_unknown_status_keeps_previous_and_is_reported(researched):
    text = render_plan(researched).replace("- Status: Pending", "- Status: Mostly done", 1)
    result = reconcile(researched, parse_plan(text), focus="grid")
    assert result.plan.get("policy").status == S.PENDING
    assert kinds(result) == [("unparsed", "Policy")]


def test_deleted_topics_are_restored_in_order(researched):
    researched.add_topic("Grid Child", parent="grid", status=S.COMPLETE)
    text = "## Topics\n### Grid (Depth: 0)\n- Status: In Review\n- Description: About Grid\n"
    result = reconcile(researched, parse_plan(text), focus="grid")
    assert result.plan == researched
    assert kinds(result) == [("restored", "Policy"), ("restored", "Costs"),
                             ("restored", "Grid Child")]  # fmt: skip


def test_focus_description_and_criteria_are_accepted_status_is_not(researched):
    text = render_plan(researched).replace(
        "### Grid (Depth: 0)\n- Status: In Progress\n- Description: About Grid",
        "### Grid (Depth: 0)\n- Status: Complete\n- Description: Sharper scope\n"
        "- Acceptance Criteria:\n  - Peak MW figures",
    )
    result = reconcile(researched, parse_plan(text), focus="grid")
    grid = result.plan.get("grid")
    assert (grid.status, grid.description, grid.criteria) == (
        S.IN_PROGRESS, "Sharper scope", ["Peak MW figures"],
    )  # fmt: skip
    assert result.events == []
    assert researched.get("grid").description == "About Grid"  # previous is untouched


def test_focus_empty_description_keeps_previous(researched):
    researched.get("grid").criteria = ["Keep me"]
    text = "## Topics\n### Grid\n### Policy\n- Description: About Policy\n### Costs\n"
    result = reconcile(researched, parse_plan(text), focus="grid")
    grid = result.plan.get("grid")
    assert (grid.description, grid.criteria) == ("About Grid", ["Keep me"])


def test_duplicate_child_recorded_as_skipped_with_note(researched):
    calls = []

    def dup(name, names):
        calls.append((name, list(names)))
        return "Policy" if "policy" in name.lower() else None

    parsed = proposal(("Grid Policy Levers", 1, "Grid"), ("Feeders", 1, "Grid"), base=researched)
    result = reconcile(researched, parsed, focus="grid", find_duplicate=dup)
    levers = result.plan.find_by_name("Grid Policy Levers")
    assert (levers.status, levers.note, levers.parent) == (
        S.SKIPPED, 'duplicate of "Policy"', "grid",
    )  # fmt: skip
    assert result.duplicates == [("Grid Policy Levers", "Policy")]
    assert result.added == ["feeders"]
    assert ("duplicate", "Grid Policy Levers") in kinds(result)
    assert calls[1] == ("Feeders", ["Grid", "Policy", "Costs", "Grid Policy Levers"])
    assert 'Skipped (duplicate of "Policy")' in render_plan(result.plan)


def test_duplicates_do_not_use_breadth_but_are_capped(researched):
    def dup(name, names):
        return "Policy" if name.startswith("Dup") else None

    parsed = proposal(*[(f"Dup {i}", 1, "Grid") for i in range(5)],
                      *[(f"Real {i}", 1, "Grid") for i in range(4)], base=researched)  # fmt: skip
    result = reconcile(researched, parsed, focus="grid", find_duplicate=dup)
    children = result.plan.children("grid")
    assert [t.name for t in children if t.status is S.SKIPPED] == ["Dup 0", "Dup 1", "Dup 2"]
    assert [t.name for t in children if t.status is S.PENDING] == ["Real 0", "Real 1", "Real 2"]
    rejected = [e.topic for e in result.events if e.kind == "rejected"]
    assert rejected == ["Dup 3", "Dup 4", "Real 3"]


def test_repeated_new_topic_is_rejected(researched):
    parsed = proposal(("Feeders", 1, "Grid"), ("  feeders ", 1, "Grid"), base=researched)
    result = reconcile(researched, parsed, focus="grid")
    assert [t.name for t in result.plan.children("grid")] == ["Feeders"]
    rejected = [e for e in result.events if e.kind == "rejected"]
    assert [e.topic for e in rejected] == ["  feeders "]
    assert "repeated" in rejected[0].detail


def test_new_topics_without_focus_after_initial_plan_are_rejected(researched):
    result = reconcile(researched, proposal(("Extra", 0, None), base=researched), focus=None)
    assert result.plan == researched
    assert kinds(result) == [("rejected", "Extra")]


def test_order_is_previous_then_new_in_file_order(researched):
    rows = parse_plan(render_plan(researched)).topics
    new = [ParsedTopic(name=n, depth=1, parent_name="Grid") for n in ("Zeta", "Alpha")]
    parsed = ParsedPlan(topics=[new[0], *reversed(rows), new[1]])
    result = reconcile(researched, parsed, focus="grid")
    assert [t.name for t in result.plan.topics] == ["Grid", "Policy", "Costs", "Zeta", "Alpha"]


def test_unknown_focus_is_a_programming_error(researched):
    with pytest.raises(ValueError, match="focus"):
        reconcile(researched, proposal(base=researched), focus="nope")


def test_reconciled_plan_renders_and_parses_back(researched):
    parsed = proposal(("Feeders", 1, "Grid"), base=researched)
    plan = reconcile(researched, parsed, focus="grid").plan
    again = reconcile(plan, parse_plan(render_plan(plan)), focus="grid")
    assert again.plan == plan
    assert again.events == []

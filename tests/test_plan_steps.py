"""The named steps of plan parsing and reconciling, tested one by one.

`tests/test_plan.py` covers `parse_plan` and `reconcile` end to end; these tests pin the
steps they are made of: cutting the file into topic blocks, reading one line of a block,
merging the file's edits into the topics the plan has, and placing a proposed topic.
"""

from __future__ import annotations

import pytest

from research.model.plan import (
    ParsedPlan,
    ParsedTopic,
    Placement,
    Plan,
    PlanEvent,
    TopicStatus,
    merge_existing,
    parse_block_line,
    place_new_topic,
    read_field,
    split_topic_blocks,
)

S = TopicStatus


# --- cutting the file into topic blocks ------------------------------------------------


def blocks_of(text: str) -> list[tuple[str, str | None, list[str]]]:
    found = split_topic_blocks(text.splitlines())
    return [(topic.name, topic.parent_name, lines) for topic, lines in found.blocks]


def test_only_lines_under_topic_headings_of_a_topics_section_are_kept():
    text = (
        "# Plan\n- Topic: q\n## Topics\nintro line\n### A (Depth: 0)\n- Status: Pending\n"
        "## Notes\n- Status: Complete\n### Not a topic\n"
    )
    assert blocks_of(text) == [("A", None, ["- Status: Pending"])]


def test_a_second_topics_section_continues_but_does_not_reopen_the_last_block():
    text = "## Topics\n### A\n- a\n## Other\n- x\n## Research Topics\n- y\n### B\n- b\n"
    assert blocks_of(text) == [("A", None, ["- a"]), ("B", None, ["- b"])]


def test_a_nameless_heading_is_a_problem_and_its_lines_go_nowhere():
    found = split_topic_blocks(["## Topics", "### A", "- a", "###   ", "- lost", "### B"])
    assert [(t.name, lines) for t, lines in found.blocks] == [("A", ["- a"]), ("B", [])]
    assert found.problems == ["topic heading without a name: '###'"]


def test_level_four_headings_take_the_last_level_three_heading_as_parent():
    text = "## Topics\n#### Orphan\n### A\n#### A1\n### B (Depth: 0)\n#### B1\n"
    assert [(name, parent) for name, parent, _ in blocks_of(text)] == [
        ("Orphan", None), ("A", None), ("A1", "A"), ("B", None), ("B1", "B"),
    ]  # fmt: skip


def test_found_section_says_whether_there_was_a_topics_section():
    assert split_topic_blocks(["# Plan", "### A"]).found_section is False
    assert split_topic_blocks(["## Topics:"]).found_section is True
    assert split_topic_blocks(["## Topics:"]).blocks == []


# --- one line of a topic's block -------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ("Status: Pending", ("status", "Pending")),
        ("**Parent Topic:** Grid", ("parent", "Grid")),
        ("acceptance criteria:", ("criteria", "")),
        ("`Depth`: 2", ("depth", "2")),
        ("Owner: me", None),
        ("just a sentence", None),
    ],
)
def test_read_field(body, field):
    assert read_field(body) == field


def read_lines(*lines: str) -> tuple[ParsedTopic, list[str | None]]:
    """The topic the lines fill, and the multi-line mode after each line."""
    topic = ParsedTopic(name="T")
    modes: list[str | None] = []
    mode: str | None = None
    for line in lines:
        mode = parse_block_line(topic, line, mode)
        modes.append(mode)
    return topic, modes


def test_a_description_continues_on_plain_lines_until_the_next_field():
    topic, modes = read_lines("- Description: first", "second line", "- Depth: 1", "stray")
    assert topic.description == "first second line"
    assert topic.depth == 1
    assert modes == ["description", "description", None, None]


def test_criteria_take_indented_and_unknown_bullets_until_a_top_level_field():
    topic, modes = read_lines(
        "- Acceptance Criteria: first",
        "  - [x] second",
        "- third",
        "  - Status: indented, so a criterion",
        "- Status: Complete",
        "  - not a criterion",
    )
    assert topic.criteria == ["first", "second", "third", "Status: indented, so a criterion"]
    assert topic.status is S.COMPLETE
    assert modes == ["criteria", "criteria", "criteria", "criteria", None, None]


def test_blank_lines_and_code_fences_keep_the_mode():
    topic, modes = read_lines("- Description: d", "", "```", "more")
    assert topic.description == "d more"
    assert modes == ["description"] * 4


def test_a_repeated_depth_field_keeps_the_first():
    topic, _ = read_lines("- Depth: 1", "- Depth: 2", "- Depth: deep")
    assert topic.depth == 1


# --- merging the file's edits into the plan's topics -----------------------------------


def two_topics() -> Plan:
    plan = Plan(topic="q", breadth=3, depth=3)
    plan.add_topic("Grid", parent=None, description="grid", status=S.IN_PROGRESS)
    plan.add_topic("Policy", parent=None, description="policy")
    return plan


def test_merge_returns_the_new_topics_in_file_order_and_leaves_others_alone():
    plan = two_topics()
    parsed = ParsedPlan(
        topics=[
            ParsedTopic(name="New B", parent_name="Grid"),
            ParsedTopic(name="grid", description="grid, rewritten", parent_name=None),
            ParsedTopic(name="New A", parent_name="Grid"),
            ParsedTopic(name="Policy", description="policy, rewritten", status=S.COMPLETE),
        ]
    )
    events: list[PlanEvent] = []
    new = merge_existing(plan, parsed, plan.get("grid"), events)
    assert [t.name for t in new] == ["New B", "New A"]
    assert [(t.description, t.status) for t in plan.topics] == [
        ("grid, rewritten", S.IN_PROGRESS), ("policy", S.PENDING),
    ]  # fmt: skip
    assert [(e.kind, e.topic) for e in events] == [("reverted", "Policy")]
    assert "status 'Complete' -> 'Pending'" in events[0].detail
    assert "description" in events[0].detail


def test_merge_reports_problems_repeats_and_deletions_in_that_order():
    plan = two_topics()
    parsed = ParsedPlan(
        topics=[
            ParsedTopic(name="Fresh", problems=["unknown status 'Soon'"]),
            ParsedTopic(name="fresh"),
        ],
        problems=["topic heading without a name: '###'"],
    )
    events: list[PlanEvent] = []
    new = merge_existing(plan, parsed, None, events)
    assert [t.name for t in new] == ["Fresh"]
    assert [(e.kind, e.topic) for e in events] == [
        ("unparsed", ""),
        ("unparsed", "Fresh"),
        ("rejected", "fresh"),
        ("restored", "Grid"),
        ("restored", "Policy"),
    ]


# --- placing a proposed topic ----------------------------------------------------------


@pytest.mark.parametrize(
    ("item", "focus", "depth", "reason"),
    [
        (ParsedTopic(name="X", parent_name="Grid"), "grid", 3, None),
        (ParsedTopic(name="X", parent_name="**grid**"), "grid", 3, None),
        (ParsedTopic(name="X"), None, 3, "new topics are only accepted during research"),
        (ParsedTopic(name="X"), "grid", 3, "no parent: new topics must be subtopics of 'Grid'"),
        (
            ParsedTopic(name="X", parent_name="Policy"),
            "grid",
            3,
            "parent 'Policy' is not the topic being researched ('Grid')",
        ),
        (
            ParsedTopic(name="X", parent_name="Grid"),
            "grid",
            1,
            "depth limit: depth 1 is beyond the plan's 1 levels",
        ),
    ],
)
def test_placing_a_proposed_topic_during_research(item, focus, depth, reason):
    plan = two_topics().model_copy(update={"depth": depth})
    grid_child = plan.add_topic("Child", parent="grid") if depth > 1 else None
    where = place_new_topic(item, plan, plan.get(focus) if focus else None, initial=False)
    if reason is not None:
        assert where == reason
    else:
        assert where == Placement("grid", [grid_child])


@pytest.mark.parametrize(
    ("item", "placed"),
    [
        (ParsedTopic(name="X"), True),
        (ParsedTopic(name="X", depth=0), True),
        (ParsedTopic(name="X", depth=1), False),
        (ParsedTopic(name="X", parent_name="Grid"), False),
    ],
)
def test_placing_a_topic_of_the_initial_plan(item, placed):
    plan = Plan(topic="q", breadth=3, depth=3)
    first = plan.add_topic("First", parent=None)
    where = place_new_topic(item, plan, None, initial=True)
    if placed:
        assert where == Placement(None, [first])
    else:
        assert where == "subtopics are proposed during research"

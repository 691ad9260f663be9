"""Subtopics proposed in a topic's notes (several topics in flight): read from the notes
(`artifacts.proposed_subtopics`) and added with `plan.propose` through the same gates as an
agent's edit of the plan with one topic in flight."""

from __future__ import annotations

from research.core.similarity import find_duplicate
from research.model.artifacts import proposed_subtopics
from research.model.plan import (
    Plan,
    TopicStatus,
    parse_plan,
    propose,
    reconcile,
    render_plan,
)

NOTES = """# Progress: Costs

## Findings
- Heat pumps cost less to run (Source: https://example.org/a)

## Proposed Subtopics

### Installation costs (Depth: 7)
- Status: Complete
- Parent: Something else
- Description: What installing one costs.
- Acceptance Criteria:
  - Gives a price range with its source
  - Names the country

### Grants and subsidies
- Description: Public money towards the cost.

## Knowledge Gaps
- Gap: none
"""


def finder(name: str, existing: list[str]) -> str | None:
    return find_duplicate(name, existing, 0.75)


def make_plan(breadth: int = 2, depth: int = 2) -> Plan:
    plan = Plan(topic="Heat pumps", breadth=breadth, depth=depth)
    plan.add_topic("Running costs", parent=None, criteria=["Compares with gas"])
    plan.add_topic("Cold climates", parent=None)
    plan.topics[0].status = TopicStatus.IN_PROGRESS
    return plan


def test_the_notes_proposals_are_read_with_their_descriptions_and_criteria() -> None:
    found = proposed_subtopics(NOTES)
    assert [p.name for p in found] == ["Installation costs", "Grants and subsidies"]
    assert found[0].description == "What installing one costs."
    assert found[0].criteria == ["Gives a price range with its source", "Names the country"]
    assert found[1].criteria == []
    assert proposed_subtopics("# Progress\n\n## Findings\n- x\n") == []
    assert proposed_subtopics("## Proposed Subtopics\n\nnone\n") == []


def test_proposals_become_pending_subtopics_one_level_below_whatever_they_say() -> None:
    plan = make_plan()
    parent = plan.topics[0]
    result = propose(plan, parent.slug, proposed_subtopics(NOTES), find_duplicate=finder)
    added = [result.plan.get(slug) for slug in result.added]
    assert [(t.name, t.depth, t.parent, t.status) for t in added] == [
        ("Installation costs", 1, parent.slug, TopicStatus.PENDING),
        ("Grants and subsidies", 1, parent.slug, TopicStatus.PENDING),
    ]
    assert added[0].criteria == ["Gives a price range with its source", "Names the country"]
    assert not [e for e in result.events if e.kind not in ("added",)]
    assert len(plan.topics) == 2  # the plan given is not changed


def test_proposals_pass_the_breadth_depth_and_duplicate_gates() -> None:
    plan = make_plan(breadth=1)
    parent = plan.topics[0]
    result = propose(plan, parent.slug, proposed_subtopics(NOTES), find_duplicate=finder)
    assert len(result.added) == 1
    assert any(e.kind == "rejected" and "breadth limit" in e.detail for e in result.events)

    deepest = make_plan(depth=1)
    result = propose(deepest, deepest.topics[0].slug, proposed_subtopics(NOTES))
    assert result.added == [] and all("depth limit" in e.detail for e in result.events)

    plan = make_plan()
    again = propose(plan, parent.slug, proposed_subtopics(NOTES)[:1], find_duplicate=finder)
    twice = propose(again.plan, plan.topics[1].slug, proposed_subtopics(NOTES)[:1])
    assert twice.added == [] and [e.kind for e in twice.events] == ["rejected"]


def test_propose_decides_as_reconciling_the_agents_edit_of_the_plan_would() -> None:
    """One topic in flight the agent adds the subtopics to the plan itself; several in
    flight the orchestrator adds them from the notes: the same plan either way."""
    plan = make_plan(breadth=3)
    parent = plan.topics[0]
    proposals = [*proposed_subtopics(NOTES), *proposed_subtopics(NOTES)[:1]]
    proposals[-1] = proposals[-1].model_copy(update={"name": "Costs of installation"})
    blocks = "".join(
        f"### {p.name} (Depth: 1)\n- Status: Pending\n- Parent: {parent.name}\n"
        f"- Description: {p.description}\n"
        + ("- Acceptance Criteria:\n" + "".join(f"  - {c}\n" for c in p.criteria))
        + "\n"
        for p in proposals
    )
    text = render_plan(plan)
    marker = text.index("## Completion Status")
    edited = parse_plan(text[:marker] + blocks + text[marker:])
    by_agent = reconcile(plan, edited, focus=parent.slug, find_duplicate=finder)
    by_notes = propose(plan, parent.slug, proposals, find_duplicate=finder)
    assert by_notes.plan == by_agent.plan
    assert by_notes.events == by_agent.events

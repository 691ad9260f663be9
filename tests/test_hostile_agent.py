"""Hostile or broken agent output: each is handled as SPEC §4.3 and §5 say, and the run still
finishes with exit 0 and a report. The simulated agent's scripted faults play the agent."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import read_json, read_jsonl
from helpers import events_of

from research.model.plan import parse_plan
from research.sources.registry import parse_citations

QUESTION = "How do heat pumps perform in cold climates?"
SESSION = Path(".research") / "h"
REPORT = Path("reports") / "h" / "report.md"


@pytest.fixture
def run_with(run_cli, mock_script):
    """Run a whole session with scripted faults; return (events, state) after checking it
    finished with exit 0 and a report."""

    def run(*faults: dict, breadth: int = 2, depth: int = 1) -> tuple[list[dict], dict]:
        script = mock_script(
            simulated_clock=True,
            faults=list(faults),
            record_file=str(Path.cwd().parent / "calls.jsonl"),
        )
        result = run_cli(
            "--mock-mode",
            "--mock-script",
            str(script),
            "--name",
            "h",
            "--breadth",
            str(breadth),
            "--depth",
            str(depth),
            "--yes",
            QUESTION,
        )
        assert result.exit_code == 0, result.stderr
        assert "Traceback" not in result.stderr
        state = read_json(SESSION / "state.json")
        assert state["progress"]["is_complete"]
        assert "## Methodology" in REPORT.read_text()
        return events_of(SESSION), state

    return run


def of_type(events: list[dict], kind: str, **fields: object) -> list[dict]:
    return [
        e
        for e in events
        if e["type"] == kind and all(e.get(key) == value for key, value in fields.items())
    ]


def statuses(state: dict) -> list[str]:
    return [t["status"] for t in state["plan"]["topics"]]


def research_calls() -> list[str]:
    return [
        c["topic"]
        for c in read_jsonl(Path.cwd().parent / "calls.jsonl")
        if c["phase"] == "research"
    ]


def final_plan():
    return parse_plan((SESSION / "research_plan.md").read_text(encoding="utf-8"))


# ------------------------------------------------------------------------------ the plan


def test_plan_deleted_during_research_is_restored(run_with) -> None:
    events, state = run_with({"action": "delete_plan", "phase": "research", "calls": [1]})
    (repair,) = of_type(events, "plan_repair", action="restored")
    assert "deleted" in repair["detail"]
    assert statuses(state) == ["Complete", "Complete"]
    assert [t.name for t in final_plan().topics] == [t["name"] for t in state["plan"]["topics"]]


@pytest.mark.parametrize("phase", ["initial_plan", "research"])
def test_plan_replaced_with_garbage_fails_the_phase_and_the_last_good_plan_comes_back(
    run_with, phase: str
) -> None:
    events, state = run_with({"action": "garbage_plan", "phase": phase, "calls": [1]})
    (failed,) = of_type(events, "phase_end", phase=phase, outcome="failed")
    assert failed["kind"] == "invalid_plan" and "research_plan.md" in failed["error"]
    assert of_type(events, "recovery", phase=phase)
    assert statuses(state) == ["Complete", "Complete"]
    assert len(final_plan().topics) == 2


def test_fifty_depth_0_topics_in_the_initial_plan_are_cut_to_the_breadth(run_with) -> None:
    events, state = run_with(
        {"action": "many_subtopics", "phase": "initial_plan"}, breadth=2, depth=1
    )
    rejected = of_type(events, "plan_repair", action="rejected")
    assert len(rejected) == 50
    assert all("breadth limit" in e["detail"] for e in rejected)
    assert [t["depth"] for t in state["plan"]["topics"]] == [0, 0]
    assert not any(t["name"].startswith("Extra topic") for t in state["plan"]["topics"])


def test_fifty_subtopics_proposed_are_cut_to_the_breadth(run_with) -> None:
    events, state = run_with(
        {"action": "many_subtopics", "phase": "research", "calls": [1]}, breadth=2, depth=2
    )
    rejected = [
        e
        for e in of_type(events, "plan_repair", action="rejected")
        if e["topic"].startswith("Extra angle")
    ]
    assert len(rejected) == 50
    topics = state["plan"]["topics"]
    assert not any(t["name"].startswith("Extra angle") for t in topics)
    for parent in (t for t in topics if t["depth"] == 0):
        live = [t for t in topics if t["parent"] == parent["slug"] and t["status"] != "Skipped"]
        assert len(live) <= 2


def test_a_subtopic_beyond_the_depth_limit_is_rejected(run_with) -> None:
    events, state = run_with({"action": "too_deep", "phase": "research"}, breadth=2, depth=1)
    rejected = of_type(events, "plan_repair", action="rejected")
    assert rejected and all("depth limit" in e["detail"] for e in rejected)
    assert {t["depth"] for t in state["plan"]["topics"]} == {0}
    assert not any(t["name"].startswith("Deep dive") for t in state["plan"]["topics"])


def test_status_edits_to_other_topics_are_undone_and_those_topics_still_researched(
    run_with,
) -> None:
    events, state = run_with({"action": "edit_other_topics", "phase": "research", "calls": [1]})
    (reverted,) = of_type(events, "plan_repair", action="reverted")
    second = state["plan"]["topics"][1]
    assert reverted["topic"] == second["name"]
    assert "'Complete' -> 'Pending'" in reverted["detail"]
    assert second["slug"] in research_calls()
    assert statuses(state) == ["Complete", "Complete"]


# ---------------------------------------------------------------------------- verdicts


@pytest.mark.parametrize(
    ("action", "kind", "message"),
    [
        ("both_verdicts", "invalid_output", "both review.accepted.md and review.rejected.md"),
        ("no_verdict", "missing_files", "neither review.accepted.md nor review.rejected.md"),
        ("invalid_verdict", "invalid_output", "the ```json block is not valid JSON"),
    ],
)
def test_a_broken_verdict_fails_the_review_which_is_recovered(
    run_with, action: str, kind: str, message: str
) -> None:
    events, state = run_with({"action": action, "phase": "review", "calls": [1]})
    (failed,) = of_type(events, "phase_end", phase="review", outcome="failed")
    assert failed["kind"] == kind and message in failed["error"]
    (recovery,) = of_type(events, "recovery", phase="review")
    assert message in recovery["error"]
    assert statuses(state) == ["Complete", "Complete"]


def test_a_reviewer_that_never_writes_a_verdict_exhausts_the_topics_and_the_run_ends(
    run_with,
) -> None:
    events, state = run_with({"action": "no_verdict", "phase": "review"})
    assert statuses(state) == ["Exhausted", "Exhausted"]
    assert len(of_type(events, "topic_exhausted")) == 2
    report = REPORT.read_text()
    for topic in state["plan"]["topics"]:
        assert f"{topic['name']} #RETRY_EXHAUSTED" in report


# ------------------------------------------------------------------- the orchestrator's files


@pytest.mark.parametrize(
    ("action", "what"), [("delete_state", "deleted"), ("corrupt_state", "changed")]
)
def test_state_json_deleted_or_overwritten_by_the_agent_is_restored_at_once(
    run_with, action: str, what: str
) -> None:
    events, state = run_with({"action": action, "phase": "review", "calls": [2]})
    (warning,) = of_type(events, "warning", file="state.json")
    assert warning["repair"] == what
    assert statuses(state) == ["Complete", "Complete"]
    assert state["kind"] == "research.py/state"


def test_completed_md_written_while_topics_remain_is_removed_and_logged(run_with) -> None:
    events, state = run_with({"action": "false_completion", "phase": "research", "calls": [1]})
    (removed,) = of_type(events, "completion_marker", action="removed_false_marker")
    assert removed["open_topics"] == 2
    later = events[events.index(removed) :]
    second = state["plan"]["topics"][1]["slug"]
    assert of_type(later, "phase_start", phase="research", topic=second)
    assert statuses(state) == ["Complete", "Complete"]
    assert any(p.name.endswith(".completed.md") for p in (SESSION / "archive").iterdir())


# ------------------------------------------------------------------------------ the report


def test_an_empty_report_fails_synthesis_which_is_recovered(run_with) -> None:
    events, state = run_with({"action": "empty_report", "phase": "synthesize", "calls": [1]})
    (failed,) = of_type(events, "phase_end", phase="synthesize", outcome="failed")
    assert "is empty" in failed["error"]
    assert of_type(events, "recovery", phase="synthesize")
    assert not state["final"]["report_fallback"]


def test_a_report_that_stays_empty_is_compiled_by_the_orchestrator(run_with) -> None:
    events, state = run_with({"action": "empty_report", "phase": "synthesize"})
    assert state["final"]["report_fallback"]
    assert [e for e in of_type(events, "warning") if "synthesis failed" in e["message"]]
    report = REPORT.read_text()
    for topic in state["plan"]["topics"]:
        assert topic["name"] in report


def test_a_report_without_a_sources_section_gets_one_listing_every_citation(run_with) -> None:
    run_with({"action": "no_sources_section"})
    report = REPORT.read_text()
    assert report.count("\n## Sources\n") == 1
    body, sources = report.split("\n## Sources\n")
    sources = sources.split("\n## ", 1)[0]
    cited = set(parse_citations(body))
    listed = {
        int(line[1 : line.index("]")]) for line in sources.splitlines() if line.startswith("[")
    }
    assert cited and cited <= listed


def test_research_that_leaves_the_old_notes_untouched_is_a_failure(run_cli, mock_script) -> None:
    # The first topic is rejected once (the mock's default); on its second attempt the
    # agent writes nothing, so the notes of attempt 1 must not pass for attempt 2.
    script = mock_script(faults=[{"action": "skip_files", "phase": "research", "calls": [2]}])
    result = run_cli(
        "--mock-mode",
        "--mock-script",
        str(script),
        "--name",
        "stale",
        "--breadth",
        "2",
        "--depth",
        "1",
        "How do heat pumps work?",
    )
    assert result.exit_code == 0, result.stderr
    events = events_of(Path(".research/stale"))
    failed = [e for e in events if e["type"] == "phase_end" and e["outcome"] == "failed"]
    assert len(failed) == 1 and failed[0]["phase"] == "research"
    assert "was not updated by this research phase" in failed[0]["error"]
    assert any(e["type"] == "recovery" for e in events)

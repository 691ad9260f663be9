"""Whole sessions through the CLI with the simulated agent: files, statuses, report, exits."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import read_json
from helpers import events_of, new_state

from research.model.plan import TopicStatus, parse_plan
from research.sources.registry import parse_citations

QUESTION = "How do heat pumps perform in cold climates?"


def session(name: str = "demo") -> Path:
    return Path(".research") / name


def test_mock_run_breadth_2_depth_1(run_cli) -> None:
    result = run_cli("--mock-mode", "--name", "demo", "--breadth", "2", "--depth", "1", QUESTION)
    assert result.exit_code == 0, result.stderr
    state = read_json(session() / "state.json")
    assert state["progress"]["is_complete"] and state["progress"]["current_phase"] == "done"
    assert [t["status"] for t in state["plan"]["topics"]] == ["Complete", "Complete"]
    # One rejection of the first topic: three iterations for two topics.
    assert state["progress"]["iteration"] == 3
    assert state["progress"]["stop_reason"] == "all_topics_done"
    assert not (session() / "research.lock.json").exists()
    plan = parse_plan((session() / "research_plan.md").read_text())
    assert [t.status for t in plan.topics] == [TopicStatus.COMPLETE] * 2
    assert (session() / "progress.md").exists()
    archived = [p.name for p in (session() / "archive").iterdir()]
    for topic in state["plan"]["topics"]:
        assert any(name.endswith(f".{topic['slug']}.progress.md") for name in archived)
    report = Path("reports/demo/report.md").read_text()
    assert report.startswith(f"# {QUESTION}")
    assert "## Methodology" in report and "## Sources" in report
    assert "```mermaid" in report
    assert "WARNING" not in report
    assert parse_citations(report)
    citations = read_json(session() / "citations.json")
    assert citations["unknown"] == []
    assert "Research session 'demo' complete" in result.stdout
    # The simulated agent reports simulated usage (issue 22): shown after each call.
    calls = [line for line in result.stderr.splitlines() if "agent call:" in line]
    assert len(calls) == state["usage"]["agent_calls"] == 10
    assert not any("unknown" in line for line in calls)
    assert all("tokens" in line and "cost $" in line for line in calls)
    assert all(line.endswith("[simulated]") for line in calls)  # and labelled as made up
    usage = next(line for line in result.stdout.splitlines() if line.strip().startswith("usage:"))
    assert usage.endswith("[simulated]")
    assert "the agent reports no token usage or cost" not in result.stderr


def test_mock_run_breadth_3_depth_2_explores_subtopics(run_cli) -> None:
    result = run_cli(
        "--mock-mode", "--name", "deep", "--breadth", "3", "--depth", "2", "--yes", QUESTION
    )
    assert result.exit_code == 0, result.stderr
    state = read_json(session("deep") / "state.json")
    topics = state["plan"]["topics"]
    depth0 = [t for t in topics if t["depth"] == 0]
    depth1 = [t for t in topics if t["depth"] == 1]
    assert len(depth0) == 3
    # Every depth-0 topic got subtopics; none deeper than the depth limit allows.
    assert {t["parent"] for t in depth1} == {t["slug"] for t in depth0}
    assert max(t["depth"] for t in topics) == 1
    for parent in depth0:
        live = [t for t in depth1 if t["parent"] == parent["slug"] and t["status"] != "Skipped"]
        assert len(live) <= 3
    # The simulated agent proposes one near-duplicate: it is skipped, not researched.
    skipped = [t for t in topics if t["status"] == "Skipped"]
    assert len(skipped) == 1 and skipped[0]["note"].startswith("duplicate of")
    assert state["progress"]["skipped_topics"] == [skipped[0]["name"]]
    assert all(t["status"] in {"Complete", "Skipped"} for t in topics)
    # Breadth-first: every depth-0 topic was researched before any depth-1 topic.
    researched = [
        e["topic"] for e in events_of(session("deep"), "phase_start") if e["phase"] == "research"
    ]
    depths = [next(t["depth"] for t in topics if t["slug"] == slug) for slug in researched]
    assert depths == sorted(depths)
    # The final review rejected the first draft and the report was revised.
    assert state["final"]["final_review_rejected"] is True
    phases = state["progress"]["phase_history"]
    assert phases[-3:] == ["synthesize", "final_review", "revise"]
    # The revision left nothing of the simulation's bookkeeping in what the reader gets.
    report = Path("reports/deep/report.md").read_text(encoding="utf-8")
    assert "The main trade-off" in report and "<!--" not in report


def test_default_name_is_the_slug_of_the_topic(run_cli) -> None:
    result = run_cli("--mock-mode", "--breadth", "1", "--depth", "1", "Café prices in Paris?")
    assert result.exit_code == 0, result.stderr
    assert Path("reports/cafe-prices-in-paris/report.md").exists()


def test_topics_rejected_three_times_are_exhausted(run_cli, mock_script) -> None:
    script = mock_script(faults=[{"action": "reject", "phase": "review"}])
    result = run_cli(
        "--mock-mode",
        "--mock-script",
        str(script),
        "--name",
        "exh",
        "--breadth",
        "3",
        "--depth",
        "1",
        QUESTION,
    )
    assert result.exit_code == 0, result.stderr
    state = read_json(session("exh") / "state.json")
    assert [t["status"] for t in state["plan"]["topics"]] == ["Exhausted"] * 3
    assert [t["attempts"] for t in state["plan"]["topics"]] == [3, 3, 3]
    assert state["progress"]["iteration"] == 9
    assert state["progress"]["stop_reason"] == "all_open_topics_exhausted"
    plan_text = (session("exh") / "research_plan.md").read_text()
    assert plan_text.count("Exhausted #RETRY_EXHAUSTED") == 3
    report = Path("reports/exh/report.md").read_text()
    for topic in state["plan"]["topics"]:
        assert f"- {topic['name']} #RETRY_EXHAUSTED" in report


def test_iteration_limit_ends_research_final_cycle_runs_with_banner(run_cli, mock_script) -> None:
    # Every review rejects; breadth 2, depth 2 has 6 topics x 3 attempts > the floor of 13.
    script = mock_script(faults=[{"action": "reject", "phase": "review"}])
    result = run_cli(
        "--mock-mode",
        "--mock-script",
        str(script),
        "--name",
        "lim",
        "--breadth",
        "2",
        "--depth",
        "2",
        "--max-iterations",
        "1",
        QUESTION,
    )
    assert result.exit_code == 0, result.stderr
    assert "below the floor" in result.stderr and "using 13" in result.stderr
    state = read_json(session("lim") / "state.json")
    assert state["config"]["max_iterations"] == 13
    assert state["progress"]["iteration"] == 13
    assert state["progress"]["stop_reason"] == "iteration_limit"
    assert state["progress"]["phase_history"][-2:] == ["synthesize", "final_review"] or state[
        "progress"
    ]["phase_history"][-3:] == ["synthesize", "final_review", "revise"]
    report = Path("reports/lim/report.md").read_text()
    assert report.startswith("---\n⚠️ **WARNING: ITERATION LIMIT REACHED**")
    complete = sum(t["status"] == "Complete" for t in state["plan"]["topics"])
    planned = sum(t["status"] != "Skipped" for t in state["plan"]["topics"])
    assert f"- Topics completed: {complete} of {planned}" in report
    assert "- Iterations executed: 13 (limit: 13)" in report
    assert "WARNING: research ended early" in result.stdout


def test_iteration_limit_banner_text(tmp_path: Path) -> None:
    from research.model.plan import Plan
    from research.model.state import SessionProgress, StopReason
    from research.views.report import banners

    plan = Plan(topic="q", breadth=2, depth=1)
    plan.add_topic("A", parent=None).status = TopicStatus.COMPLETE
    plan.add_topic("B", parent=None)
    state = new_state(
        plan,
        name="x",
        max_iterations=9,
        timeout=10,
        progress=SessionProgress(iteration=9, stop_reason=StopReason.ITERATION_LIMIT),
    )
    (banner,) = banners(state)
    assert banner.startswith("---\n⚠️ **WARNING: ITERATION LIMIT REACHED**")
    assert "- Topics completed: 1 of 2" in banner
    assert "- Iterations executed: 9 (limit: 9)" in banner
    assert banner.endswith("---")


def test_confirmation_needed_without_terminal(run_cli) -> None:
    # Default breadth 3, depth 3 → 86 iterations > 20: no terminal and no --yes → exit 2
    # (an agent that costs; the simulated one asks nothing: tests/test_iteration_limit.py).
    result = run_cli("--agent-cmd", "true", "--name", "big", QUESTION, input="")
    assert result.exit_code == 2
    assert "--yes" in result.stderr
    assert not (session("big") / "state.json").exists()


def test_version(run_cli) -> None:
    result = run_cli("--version")
    assert result.exit_code == 0
    assert re.fullmatch(r"research\.py \d+\.\d+\.\d+\n", result.stdout)


def test_existing_session_is_not_overwritten(run_cli) -> None:
    args = ("--mock-mode", "--name", "demo", "--breadth", "1", "--depth", "1", QUESTION)
    assert run_cli(*args).exit_code == 0
    before = Path("reports/demo/report.md").read_text()
    result = run_cli(*args)
    assert result.exit_code == 2
    assert "--resume" in result.stderr
    assert Path("reports/demo/report.md").read_text() == before


@pytest.mark.parametrize(
    "name", ["../x", "/abs", "a/b", "", "..", ".", "!!!", "Upper", "x" * 65, "é"]
)
def test_bad_names_exit_2_and_write_nothing(run_cli, name: str, isolated: Path) -> None:
    result = run_cli("--mock-mode", "--name", name, "--breadth", "1", "--depth", "1", QUESTION)
    assert result.exit_code == 2
    assert "invalid --name" in result.stderr
    assert list(isolated.iterdir()) == []
    assert not (isolated.parent / "x").exists()


def test_progress_index_keeps_a_true_summary() -> None:
    from research.prompts.text import progress_index_text

    fresh = progress_index_text(None, iteration=0, completed=0, total=2)
    assert fresh.startswith("# Research Progress\n\n## Summary\n- Iteration: 0\n")
    agent_wrote = fresh + "- Researched A.\n"
    updated = progress_index_text(
        agent_wrote.replace("Iteration: 0", "Iteration: 7"), iteration=2, completed=1, total=2
    )
    assert "- Iteration: 2\n- Topics Completed: 1 of 2" in updated
    assert "- Researched A." in updated
    foreign = progress_index_text("- some notes\n", iteration=1, completed=0, total=3)
    assert "## Recent Activity\n- some notes" in foreign


def test_resume_with_a_higher_limit_continues_a_limited_session(run_cli, mock_script) -> None:
    script = mock_script(faults=[{"action": "reject", "phase": "review"}])
    args = ("--mock-mode", "--name", "more", "--breadth", "2", "--depth", "2")
    assert run_cli(*args, "--mock-script", str(script), QUESTION).exit_code == 0
    first = read_json(session("more") / "state.json")
    assert first["progress"]["stop_reason"] == "iteration_limit"
    open_before = [
        t["slug"] for t in first["plan"]["topics"] if t["status"] in ("Pending", "In Progress")
    ]
    assert open_before

    result = run_cli(*args, "--resume", "--max-iterations", "40")
    assert result.exit_code == 0, result.stderr
    state = read_json(session("more") / "state.json")
    assert state["config"]["max_iterations"] == 40 and state["progress"]["is_complete"]
    assert state["progress"]["stop_reason"] == "all_topics_done"
    statuses = {t["slug"]: t["status"] for t in state["plan"]["topics"]}
    assert all(statuses[slug] == "Complete" for slug in open_before)
    report = Path("reports/more/report.md").read_text()
    assert "ITERATION LIMIT" not in report
    # The notes of topics researched before the limit are back in the new report's registry.
    sources = read_json(session("more") / "sources.json")["sources"]
    cited_topics = {slug for source in sources for slug in source["topics"]}
    assert set(statuses) - {s for s, st in statuses.items() if st == "Skipped"} <= cited_topics


def test_resume_of_a_finished_session_does_nothing(run_cli) -> None:
    args = ("--mock-mode", "--name", "done", "--breadth", "1", "--depth", "1")
    assert run_cli(*args, QUESTION).exit_code == 0
    before = Path("reports/done/report.md").read_text()
    result = run_cli(*args, "--resume")
    assert result.exit_code == 0
    assert Path("reports/done/report.md").read_text() == before


def test_unknown_template_variable_exits_2_before_any_agent_call(
    run_cli, mock_script, tmp_path: Path
) -> None:
    from research.prompts.templates import ensure_templates

    ensure_templates(Path(".research/templates"))
    research_md = Path(".research/templates/research.md")
    research_md.write_text(research_md.read_text() + "\nAlso consider $colour.\n")
    record = tmp_path / "calls.jsonl"
    script = mock_script(record_file=str(record))
    result = run_cli(
        "--mock-mode",
        "--mock-script",
        str(script),
        "--name",
        "tpl",
        "--breadth",
        "1",
        "--depth",
        "1",
        QUESTION,
    )
    assert result.exit_code == 2
    assert "research.md" in result.stderr and "$colour" in result.stderr
    assert not record.exists(), "no agent call may be made"
    assert not session("tpl").exists()
    # The user's edited template is kept as it is.
    assert "$colour" in research_md.read_text()


def test_templates_are_copied_once_and_never_overwritten(run_cli) -> None:
    args = ("--mock-mode", "--breadth", "1", "--depth", "1")
    assert run_cli(*args, "--name", "one", QUESTION).exit_code == 0
    review_md = Path(".research/templates/review.md")
    review_md.write_text(review_md.read_text() + "\nBe strict about dates.\n")
    assert run_cli(*args, "--name", "two", QUESTION).exit_code == 0
    assert review_md.read_text().endswith("Be strict about dates.\n")
    prompts = [p.read_text() for p in Path(".research/two/logs").glob("*-review-*.log")]
    assert prompts and all("Be strict about dates." in text for text in prompts)


def test_reorganize_archive_groups_files_by_token(run_cli) -> None:
    assert (
        run_cli(
            "--mock-mode", "--name", "arc", "--breadth", "2", "--depth", "1", QUESTION
        ).exit_code
        == 0
    )
    archive = session("arc") / "archive"
    top = sorted(p.name for p in archive.iterdir() if p.is_file() and p.name != ".index.json")
    assert top
    token = (
        read_json(session("arc") / "state.json")["progress"]["lock_token"] or top[0].split(".")[1]
    )
    result = run_cli("--name", "arc", "--reorganize-archive")
    assert result.exit_code == 0, result.stderr
    assert f"moved {len(top)} archived files" in result.stdout
    assert sorted(p.name for p in (archive / token).iterdir()) == top
    assert not [p for p in archive.iterdir() if p.is_file() and p.name != ".index.json"]


@pytest.mark.parametrize(
    ("args", "env", "mock"),
    [
        (("--agent", "mock"), {}, True),
        ((), {"RESEARCH_AGENT": "mock"}, True),
        (("--mock-mode",), {"RESEARCH_AGENT": "opencode"}, True),  # a flag beats the variable
    ],
)
def test_agent_choice_from_flag_or_environment(run_cli, args, env, mock) -> None:
    result = run_cli(*args, "--name", "ag", "--breadth", "1", "--depth", "1", QUESTION, env=env)
    assert result.exit_code == 0, result.stderr
    assert read_json(session("ag") / "state.json")["config"]["mock_mode"] is mock


def test_unknown_agent_kind_is_a_usage_error(run_cli) -> None:
    result = run_cli("--name", "ag", QUESTION, env={"RESEARCH_AGENT": "aider"})
    assert result.exit_code == 2
    assert "RESEARCH_AGENT" in result.stderr
    assert not Path(".research").exists()


def as_schema_1(state: dict) -> dict:
    """The same state in the flat shape research.py wrote before schema 2."""
    flat = {
        "kind": state["kind"],
        "schema_version": 1,
        "name": state["name"],
        "plan": state["plan"],
        **state["config"],
        **state["final"],
    }
    flat.update({k: v for k, v in state["progress"].items() if k != "in_flight"})
    flat.update({k: v for k, v in state["usage"].items() if k != "phases"})
    flat["usage"] = state["usage"]["phases"]
    return flat


def test_a_schema_1_session_resumes_and_is_saved_as_schema_2(run_cli, mock_script) -> None:
    script = mock_script(faults=[{"action": "reject", "phase": "review"}])
    args = ("--mock-mode", "--name", "old", "--breadth", "2", "--depth", "2")
    assert run_cli(*args, "--mock-script", str(script), QUESTION).exit_code == 0
    path = session("old") / "state.json"
    first = read_json(path)
    path.write_text(json.dumps(as_schema_1(first), indent=2))

    result = run_cli(*args, "--resume", "--max-iterations", "40")
    assert result.exit_code == 0, result.stderr
    state = read_json(path)
    assert state["schema_version"] == 2 and state["progress"]["is_complete"]
    assert state["progress"]["start_time"] == first["progress"]["start_time"]
    assert state["usage"]["agent_calls"] > first["usage"]["agent_calls"]
    assert state["usage"]["phases"]["research"]["calls"] > 0
    assert state["config"]["max_iterations"] == 40

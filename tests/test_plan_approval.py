"""--approve-plan: the run stops after INITIAL PLAN with the plan and its open questions;
the user edits the plan and resumes; a broken edit is one line and loses nothing; the
answers reach every later prompt; the iteration limit follows the approved tree."""

from __future__ import annotations

from pathlib import Path

from conftest import install_fake_agent, read_json
from helpers import events_of

from research.model.questions import answers_text, has_questions, parse_questions

QUESTION = "How do heat pumps perform in cold climates?"
SMALL = ("--breadth", "2", "--depth", "1", "--yes")
SESSION = Path(".research/a")
PLAN = SESSION / "research_plan.md"
ANSWER = "only the winters since 2015"


def stopped(run_cli) -> object:
    result = run_cli("--mock-mode", "--approve-plan", "--name", "a", *SMALL, QUESTION)
    assert result.exit_code == 0, result.stderr
    return result


def edit_plan(old: str, new: str) -> None:
    text = PLAN.read_text(encoding="utf-8")
    assert old in text
    PLAN.write_text(text.replace(old, new), encoding="utf-8")


def first_topic() -> str:
    return read_json(SESSION / "state.json")["plan"]["topics"][0]["name"]


def test_the_run_stops_with_the_plan_its_questions_and_how_to_go_on(run_cli) -> None:
    result = stopped(run_cli)
    state = read_json(SESSION / "state.json")
    assert state["progress"]["awaiting_approval"] and not state["progress"]["plan_approved"]
    assert state["usage"]["agent_calls"] == 1  # INITIAL PLAN only
    assert not Path("reports/a/report.md").exists()
    out = result.stdout
    assert ".research/a/research_plan.md" in out and "research --resume --name a" in out
    for topic in state["plan"]["topics"]:
        assert topic["name"] in out
    assert "Which period should the research cover?" in out  # the plan's open questions
    assert "## Open questions" in PLAN.read_text(encoding="utf-8")  # kept in the file
    assert events_of(SESSION, "run_end")[-1]["outcome"] == "awaiting_approval"
    status = run_cli("--status", "--name", "a")
    assert "awaiting approval" in status.stdout


def test_the_environment_variable_asks_for_approval_too(run_cli) -> None:
    result = run_cli(
        "--mock-mode", "--name", "a", *SMALL, QUESTION, env={"RESEARCH_APPROVE_PLAN": "1"}
    )
    assert result.exit_code == 0, result.stderr
    assert read_json(SESSION / "state.json")["progress"]["awaiting_approval"]


def test_an_edited_plan_resumes_to_a_report_that_follows_it(run_cli) -> None:
    stopped(run_cli)
    old = first_topic()
    edit_plan(f"### {old} (Depth: 0)", "### Defrost cycles in subzero air (Depth: 0)")
    edit_plan(
        "Which period should the research cover?",
        f"Which period should the research cover?\n  - Answer: {ANSWER}",
    )
    result = run_cli("--resume", "--name", "a")
    assert result.exit_code == 0, result.stderr
    state = read_json(SESSION / "state.json")
    names = [topic["name"] for topic in state["plan"]["topics"]]
    assert "Defrost cycles in subzero air" in names and old not in names
    assert state["progress"]["plan_approved"] and not state["progress"]["awaiting_approval"]
    assert "Defrost cycles in subzero air" in Path("reports/a/report.md").read_text()
    logs = sorted((SESSION / "logs").glob("*.log"))
    later = [log for log in logs if "initial_plan" not in log.name]
    assert later and all(ANSWER in log.read_text(errors="replace") for log in later)
    assert events_of(SESSION, "plan_approved")


def test_a_broken_edit_is_one_line_and_the_session_still_awaits_approval(run_cli) -> None:
    stopped(run_cli)
    PLAN.write_text("# Research Plan\n\nI removed every topic by mistake.\n", encoding="utf-8")
    broken = PLAN.read_bytes()
    saved = (SESSION / "state.json").read_bytes()
    result = run_cli("--resume", "--name", "a")
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot be used" in lines[0] and "awaits approval" in lines[0]
    assert "Traceback" not in result.stderr
    assert PLAN.read_bytes() == broken  # the user's file as they left it
    assert (SESSION / "state.json").read_bytes() == saved
    PLAN.write_text(
        "# Research Plan\n\n## Topics\n\n### Defrost cycles (Depth: 0)\n- Status: Pending\n"
        "- Description: How defrosting costs efficiency.\n",
        encoding="utf-8",
    )
    fixed = run_cli("--resume", "--name", "a")
    assert fixed.exit_code == 0, fixed.stderr
    assert [t["name"] for t in read_json(SESSION / "state.json")["plan"]["topics"]][0] == (
        "Defrost cycles"
    )


EXTRA = "".join(
    f"### Extra topic {n} (Depth: 0)\n- Status: Pending\n- Description: More.\n\n" for n in (1, 2)
)
FLOOR_2, FLOOR_4 = 2 ** (1 + 1) + 5, 4 ** (1 + 1) + 5


def test_the_limit_follows_the_approved_tree_and_a_free_run_says_so(run_cli) -> None:
    stopped(run_cli)
    assert read_json(SESSION / "state.json")["config"]["max_iterations"] == FLOOR_2
    edit_plan("## Completion Status", EXTRA + "## Completion Status")
    result = run_cli("--resume", "--name", "a")  # the simulated agent costs nothing: no asking
    assert result.exit_code == 0, result.stderr
    said = f"the approved plan raised the iteration limit from {FLOOR_2} to {FLOOR_4}"
    assert said in result.stderr
    config = read_json(SESSION / "state.json")["config"]
    assert (config["breadth"], config["max_iterations"]) == (4, FLOOR_4)
    assert any(said in change for change in config["limit_changes"])
    assert events_of(SESSION, "iteration_limit")[-1]["wanted"] == FLOOR_4


def test_a_limit_the_user_set_is_not_raised_by_an_approved_plan(run_cli) -> None:
    result = run_cli(
        "--mock-mode", "--approve-plan", "--name", "a", *SMALL, "--max-iterations", "9", QUESTION
    )
    assert result.exit_code == 0, result.stderr
    edit_plan("## Completion Status", EXTRA + "## Completion Status")
    saved = (SESSION / "state.json").read_bytes()
    kept = run_cli("--resume", "--name", "a")
    assert kept.exit_code == 2
    assert f"resume with --max-iterations {FLOOR_4}" in kept.stderr
    assert (SESSION / "state.json").read_bytes() == saved
    raised = run_cli("--resume", "--name", "a", "--max-iterations", str(FLOOR_4))
    assert raised.exit_code == 0, raised.stderr
    assert read_json(SESSION / "state.json")["config"]["max_iterations"] == FLOOR_4


def test_an_agent_that_costs_asks_again_before_the_longer_run(
    run_cli, tmp_path: Path, monkeypatch
) -> None:
    install_fake_agent(tmp_path / "bin", monkeypatch)
    monkeypatch.setenv("FAKE_OPENCODE_MODE", "agent")
    started = run_cli("--approve-plan", "--name", "a", "--breadth", "2", "--depth", "1", QUESTION)
    assert started.exit_code == 0, started.stderr  # 9 iterations: not asked
    edit_plan("## Completion Status", EXTRA + "## Completion Status")
    unconfirmed = run_cli("--resume", "--name", "a")  # no terminal to ask, no --yes
    assert unconfirmed.exit_code == 2 and "--yes" in unconfirmed.stderr
    assert read_json(SESSION / "state.json")["progress"]["awaiting_approval"]
    confirmed = run_cli("--resume", "--name", "a", "--yes")
    assert confirmed.exit_code == 0, confirmed.stderr
    assert read_json(SESSION / "state.json")["config"]["max_iterations"] == FLOOR_4


def test_the_questions_section_is_read_and_quoted_only_once_approved() -> None:
    text = "# Plan\n\n## Open questions\n- Which region?\n  - Answer: Nordic\n\n## Topics\n"
    section = parse_questions(text)
    assert section == "- Which region?\n  - Answer: Nordic"
    assert has_questions(section) and not has_questions("- None")
    assert answers_text(section, approved=False) == "none"
    assert "> - Which region?" in answers_text(section, approved=True)
    assert parse_questions("## Topics\n### A (Depth: 0)\n") == ""

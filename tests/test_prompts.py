"""The prompt variables: every template variable gets a value, paths are relative."""

from __future__ import annotations

from pathlib import Path

from helpers import new_state

from research.model.plan import Plan
from research.model.state import Phase, RWRState, Verdict
from research.prompts import variables as prompts
from research.prompts.templates import VARIABLES
from research.prompts.variables import Failure, PromptInput
from research.sources.registry import SourceRegistry, build_registry
from research.workspace.paths import SessionPaths


def values(
    state: RWRState,
    paths: SessionPaths,
    phase: Phase,
    minutes: float | None = None,
    registry: SourceRegistry | None = None,
) -> dict[str, str]:
    topic = state.plan.topics[0]
    return prompts.variables(
        PromptInput(
            state=state,
            paths=paths,
            phase=phase,
            remaining_minutes=minutes,
            topic=topic,
            registry=registry,
        )
    )


def make_state() -> RWRState:
    plan = Plan(topic="Why is the sky blue?", breadth=2, depth=2)
    plan.add_topic("Rayleigh scattering", parent=None, criteria=["Explains the physics"])
    return new_state(plan, name="sky", max_iterations=13, timeout=60)


def test_every_phase_family_fills_only_known_variables(tmp_path: Path) -> None:
    state, paths = make_state(), SessionPaths(tmp_path, "sky")
    topic = state.plan.topics[0]
    registry = build_registry([(topic.slug, "## Sources\n- A — https://example.org/a\n")])
    families = [
        values(state, paths, Phase.INITIAL_PLAN),
        values(state, paths, Phase.RESEARCH, 12.0),
        values(state, paths, Phase.SYNTHESIZE, registry=registry),
        values(state, paths, Phase.VERIFY),
        Failure(Phase.REVIEW, None, 0).values(),
    ]
    filled = set().union(*families)
    assert filled == VARIABLES
    for family in families:
        for key, value in family.items():
            assert not value.startswith(str(tmp_path)), (key, value)


def test_topic_variables_carry_the_rule_feedback_and_time(tmp_path: Path) -> None:
    state, paths = make_state(), SessionPaths(tmp_path, "sky")
    topic = state.plan.topics[0]
    state.progress.review_feedback[topic.slug] = Verdict(
        verdict="rejected",
        summary="Thin.",
        gaps=["No spectrum data"],
        nextSearchTopic="solar spectrum",
        urlToSearch=None,
    )
    research = values(state, paths, Phase.RESEARCH, 12.04)
    assert research["progress_file"] == f".research/sky/progress/{topic.slug}.md"
    assert "up to 2 subtopics" in research["subtopic_rule"]
    assert "- Gap: No spectrum data" in research["review_feedback"]
    assert "solar spectrum" in research["review_feedback"]
    assert research["time_remaining"] == "12.0 minutes"
    assert research["topic_criteria"] == "- Explains the physics"


def test_final_variables_audit_the_report_as_it_stands(tmp_path: Path) -> None:
    state, paths = make_state(), SessionPaths(tmp_path, "sky")
    topic = state.plan.topics[0]
    registry = build_registry([(topic.slug, "## Sources\n- A — https://example.org/a\n")])
    assert (
        values(state, paths, Phase.SYNTHESIZE, registry=registry)["citation_audit"]
        == "no report has been written yet"
    )
    paths.report_file.parent.mkdir(parents=True)
    paths.report_file.write_text("# Sky\n\n## Physics\n\nBlue light scatters more [7].\n")
    audit = values(state, paths, Phase.FINAL_REVIEW, registry=registry)["citation_audit"]
    assert "7" in audit and audit != "no defects found"
    assert (
        "[1] A — https://example.org/a"
        in values(state, paths, Phase.REVISE, registry=registry)["source_registry"]
    )


def test_contract_variables_have_sequential_defaults(tmp_path: Path) -> None:
    state, paths = make_state(), SessionPaths(tmp_path, "sky")
    research = values(state, paths, Phase.RESEARCH)
    review = values(state, paths, Phase.REVIEW)
    assert "`.research/sky/research_plan.md` (only the edits" in research["writable_files"]
    assert "review.accepted.md" in review["writable_files"]
    assert "research_plan.md" not in review["writable_files"]
    assert "`- Status: In Review`" in research["subtopic_instructions"]
    assert "## Recent Activity" in research["progress_index_instructions"]
    assert "<promise>COMPLETE</promise>" in review["completion_rule"]
    assert research["local_sources"] == "none"
    assert "off" in review["source_check"]


def test_a_failed_calls_line_says_the_exit_code_once() -> None:
    from research.agents.base import AgentResult, FailureKind
    from research.prompts.text import describe_failure

    def failed(error: str | None, stderr: str = "") -> str:
        result = AgentResult(
            ok=False, exit_code=1, failure=FailureKind.EXIT_NONZERO, error=error, stderr=stderr
        )
        return describe_failure(result)

    assert failed("exited with code 1") == "the agent exited with code 1"
    assert failed(None) == "the agent exited with code 1"
    assert failed("Rate limit exceeded") == "the agent exited with code 1: Rate limit exceeded"

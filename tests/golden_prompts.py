"""The fixture session whose rendered prompts are kept as golden files in tests/golden/.

Regenerate the golden files (and record a changed template's hash in
templates/history.json) with one command:  .venv/bin/python tests/regen_prompts.py
Review the diff of tests/golden/ like code: it is what the agent will read.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from helpers import new_state

from research.model.mode import Mode
from research.model.plan import Plan
from research.model.state import Phase, RWRState, Verdict
from research.prompts import variables as prompts
from research.prompts.render import phase_prompt, recovery_prompt, retry_block
from research.prompts.templates import PromptTemplates, default_templates_dir
from research.prompts.variables import Failure, PromptInput
from research.sources.registry import build_registry
from research.workspace.paths import SessionPaths

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
DATE_MARK = "YYYY-MM-DD"
NOTES = """# Progress: Heat pump efficiency

## Findings
- Seasonal COP 2.8 at -15 °C (2023, field trial). (Source: https://example.org/trial)

## Sources
- Cold-climate field trial 2023 — https://example.org/trial
- Manufacturer data sheet — https://example.com/sheet

## Queries Tried
- cold climate heat pump COP field trial

## Knowledge Gaps
- Gap: no data below -25 °C

## Notes for Subtopics
- none
"""
REPORT = (
    "# Heat pumps\n\nThey work [1] and cost less [9].\n\n## Sources\n\n"
    "[1] Cold-climate field trial 2023 — https://example.org/trial\n"
)


def fixture(root: Path) -> tuple[RWRState, SessionPaths]:
    plan = Plan(topic="How do heat pumps perform in cold climates?", breadth=2, depth=2)
    plan.add_topic(
        "Heat pump efficiency",
        parent=None,
        criteria=["Gives the COP at -15 °C with its source", "Names the test method"],
    )
    plan.add_topic("Running costs", parent=None, criteria=["Compares costs with gas boilers"])
    plan.topics[0].description = "How efficient heat pumps are in the cold."
    state = new_state(plan, name="heat", max_iterations=13, timeout=600)
    state.progress.iteration = 3
    state.config.max_sources = 5  # the research prompt states the cap
    state.progress.review_feedback[plan.topics[0].slug] = Verdict(
        verdict="rejected",
        summary="No figure below -15 °C.",
        gaps=["COP at -25 °C"],
        nextSearchTopic="heat pump COP -25 C",
        urlToSearch=None,
    )
    state.progress.failed_phase = Phase.REVIEW
    state.progress.last_error = "no verdict file was written"
    paths = SessionPaths(root, "heat")
    paths.progress_dir.mkdir(parents=True)
    paths.progress_file(plan.topics[0].slug).write_text(NOTES)
    paths.report_file.parent.mkdir(parents=True)
    paths.report_file.write_text(REPORT)
    return state, paths


def render_all(root: Path) -> dict[str, str]:
    """Every phase's prompt for the fixture session, today's date replaced by DATE_MARK,
    rendered through the functions the engine renders with."""
    state, paths = fixture(root)
    topic = state.plan.topics[0]
    templates = PromptTemplates.load(default_templates_dir())
    registry = build_registry([(topic.slug, NOTES)])

    def values(phase: Phase, minutes: float | None = 42.0, slots: int = 1) -> dict[str, str]:
        return prompts.variables(
            PromptInput(
                state=state,
                paths=paths,
                phase=phase,
                remaining_minutes=minutes,
                topic=topic,
                mode=Mode(slots),
                registry=registry,
            )
        )

    failed = values(Phase.REVIEW)
    failure = Failure(Phase.REVIEW, state.progress.last_error, round_number=0)
    rendered = {
        name: phase_prompt(templates, name, values(phase, minutes), None)
        for name, phase, minutes in (
            ("initial_plan", Phase.INITIAL_PLAN, None),
            ("research", Phase.RESEARCH, 42.0),
            ("review", Phase.REVIEW, 42.0),
            ("synthesize", Phase.SYNTHESIZE, 42.0),
            ("final_review", Phase.FINAL_REVIEW, 42.0),
            ("revise", Phase.REVISE, 42.0),
        )
    }
    judged = PromptInput(
        state=state, paths=paths, phase=Phase.VERIFY, remaining_minutes=42.0, judge_sentences=3
    )
    rendered["verify"] = phase_prompt(templates, "verify", prompts.variables(judged), None)
    rendered["recovery"] = recovery_prompt(templates, failed, failure)
    rendered["phase_recovery"] = retry_block(templates, failed, failure)
    # --parallel N: the prompts of a topic's two calls with several topics in flight.
    for phase in (Phase.RESEARCH, Phase.REVIEW):
        parallel = values(phase, slots=2)
        rendered[f"{phase.value}.parallel"] = phase_prompt(templates, phase.value, parallel, None)
    today = date.today().isoformat()
    return {name: text.replace(today, DATE_MARK) for name, text in rendered.items()}

"""Checks on the default prompt templates shipped in ``templates/``.

The template loader is tested separately; these tests pin the contract of the default
files themselves (syntax, the variables the renderer knows, and the key instructions
each phase must carry).
"""

from __future__ import annotations

import string
from pathlib import Path

import pytest

from research.prompts.templates import TEMPLATE_NAMES, VARIABLES

TEMPLATES_DIR = Path(__file__).resolve().parent.parent / "templates"

# The names and the variables the renderer knows: a template that uses any other fails.
ALLOWED = VARIABLES

JSON_KEYS = ["verdict", "summary", "gaps", "nextSearchTopic", "urlToSearch"]


def _text(name: str) -> str:
    return (TEMPLATES_DIR / f"{name}.md").read_text(encoding="utf-8")


def _values() -> dict[str, str]:
    # Values containing "$" and braces must pass through untouched.
    return {key: f"<{key}:$x ${{y}}>" for key in ALLOWED}


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
def test_template_exists_and_is_valid(name: str) -> None:
    path = TEMPLATES_DIR / f"{name}.md"
    assert path.is_file(), f"missing default template {path}"
    tpl = string.Template(_text(name))
    assert tpl.is_valid(), f"{name}.md has invalid $-syntax"
    unknown = set(tpl.get_identifiers()) - ALLOWED
    assert not unknown, f"{name}.md uses unknown variables: {sorted(unknown)}"


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
def test_template_substitutes_with_full_variable_set(name: str) -> None:
    values = _values()
    rendered = string.Template(_text(name)).substitute(values)
    for ident in string.Template(_text(name)).get_identifiers():
        assert values[ident] in rendered
    # With dollar-free values, every "$" left in the output must come from an
    # escaped "$$" in the template: no raw placeholder may survive rendering.
    plain = string.Template(_text(name)).substitute({k: k.upper() for k in ALLOWED})
    assert plain.count("$") == _text(name).count("$$")


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
def test_template_states_working_directory_and_halt(name: str) -> None:
    text = _text(name).lower()
    assert "stop (halt)" in text
    if name != "phase_recovery":
        assert "project root" in text
        assert "delete" in text


def test_research_mentions_required_variables() -> None:
    ids = set(string.Template(_text("research")).get_identifiers())
    assert {"progress_file", "writable_files", "subtopic_instructions"} <= ids
    assert {"progress_index_instructions", "review_feedback", "searches", "local_sources"} <= ids
    text = _text("research")
    for heading in ("## Findings", "## Sources", "## Knowledge Gaps", "## Notes for Subtopics"):
        assert heading in text


def test_initial_plan_shows_plan_format() -> None:
    text = _text("initial_plan")
    assert "$plan_file" in text
    for part in (
        "# Research Plan",
        "## Metadata",
        "## Topics",
        "(Depth: 0)",
        "- Status: Pending",
        "- Description:",
        "- Acceptance Criteria:",
        "## Completion Status",
    ):
        assert part in text


@pytest.mark.parametrize("name", ["review", "final_review"])
def test_reviews_mention_both_verdict_files_and_json_keys(name: str) -> None:
    text = _text(name)
    if name == "review":
        assert {"$writable_files", "$completion_rule", "$source_check"} <= set(text.split())
    else:
        assert "$accepted_file" in text
        assert "$rejected_file" in text
    assert "```json" in text
    for key in JSON_KEYS:
        assert f'"{key}"' in text


def test_synthesize_mentions_registry_and_sources_section() -> None:
    text = _text("synthesize")
    assert "$source_registry" in text
    assert "## Sources" in text
    assert "$report_file" in text
    assert "$limit_note" in text
    assert "Methodology" in text


def test_revise_and_recovery_files() -> None:
    revise = _text("revise")
    assert "$rejected_file" in revise and "$accepted_file" in revise
    assert "$source_registry" in revise and "$citation_audit" in revise
    recovery = _text("recovery")
    assert "$recovery_notes_file" in recovery and "$failed_phase" in recovery
    phase_recovery = _text("phase_recovery")
    assert "$recovery_notes_file" in phase_recovery and "$last_error" in phase_recovery

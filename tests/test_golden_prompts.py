"""The rendered prompt of every phase for a fixture session equals its golden file.

A failure here means a prompt changed. If the change is intended (a template edit, or a
new value of a prompt variable), regenerate with one command and review the diff:
    .venv/bin/python tests/regen_prompts.py
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest
from golden_prompts import GOLDEN_DIR, render_all

from research.prompts.templates import TEMPLATE_NAMES, default_templates_dir

sys.path.insert(0, str(Path(__file__).parent / "fake_agents"))
import fake_opencode  # noqa: E402  (the phase detection the fake agent and provider share)

REGEN = "prompts changed: run .venv/bin/python tests/regen_prompts.py and review the diff"


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return render_all(tmp_path_factory.mktemp("golden"))


@pytest.mark.parametrize("name", [*TEMPLATE_NAMES, "research.parallel", "review.parallel"])
def test_rendered_prompt_matches_golden_file(name: str, rendered: dict[str, str]) -> None:
    golden = (GOLDEN_DIR / f"{name}.txt").read_text(encoding="utf-8")
    assert rendered[name] == golden, REGEN


def test_every_shipped_template_is_recorded_in_history() -> None:
    source = default_templates_dir()
    doc = json.loads((source / "history.json").read_text(encoding="utf-8"))
    for name in TEMPLATE_NAMES:
        current = hashlib.sha256((source / f"{name}.md").read_bytes()).hexdigest()
        shipped = doc["sha256"][name]
        assert shipped[-1] == current, f"{name}.md changed: {REGEN}"
        assert len(set(shipped)) == len(shipped)


@pytest.mark.parametrize("name", [n for n in TEMPLATE_NAMES if n != "phase_recovery"])
def test_the_fake_agents_recognise_every_phase_and_its_files(
    name: str, rendered: dict[str, str]
) -> None:
    prompt = rendered[name]
    assert fake_opencode.phase_of(prompt) == name
    assert fake_opencode.phase_of(prompt + "\n\n" + rendered["phase_recovery"]) == name
    files = fake_opencode.phase_files(name, prompt, lambda relative: None)
    assert files and all(not path.startswith("/") for path in files)


def test_the_research_prompt_asks_to_retry_a_search_with_few_results() -> None:
    """Seed 002 §6.2: fewer than 3 results, tried again with synonyms or broader terms,
    both queries in the notes' Queries Tried."""
    for name in ("research.txt", "research.parallel.txt"):
        prompt = (Path(__file__).parent / "golden" / name).read_text(encoding="utf-8")
        assert "fewer than 3 results: try it again once with synonyms or broader terms" in prompt
        assert "(few results) → retried as: <the broader query>" in prompt


def test_notes_and_reports_in_the_requested_formats_parse() -> None:
    """What the templates ask for: several URLs per finding, a `## Queries Tried` section
    (no URLs in it), and a comparison table with a citation in every row."""
    from research.sources.registry import audit_report, build_registry

    notes = (
        "# Progress: T\n\n## Findings\n- COP 2.8 at -15 °C (2023, NREL) "
        "(Sources: https://a.org/1, https://b.org/2)\n\n## Sources\n- A — https://a.org/1\n"
        "- B — https://b.org/2\n\n## Queries Tried\n- heat pump COP cold\n"
        "- heat pump criticism\n- heat pump COP at -25 °C Lapland (few results) → retried "
        "as: cold climate heat pump performance field data\n\n## Knowledge Gaps\n- Gap: none\n"
    )
    registry = build_registry([("t", notes)])
    assert [s.url for s in registry.sources] == ["https://a.org/1", "https://b.org/2"]
    report = (
        "# T\n\nHeat pumps keep working in the cold [1].\n\n## Comparison\n\n"
        "The two units differ [1, 2].\n\n| Unit | COP at -15 °C | Source |\n|---|---|---|\n"
        "| A | 2.8 | [1] |\n| B | 2.1 | [2] |\n\n## Sources\n\n[1] A — https://a.org/1\n"
        "[2] B — https://b.org/2\n"
    )
    assert audit_report(report, registry).defects == []

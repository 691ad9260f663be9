"""The simulated agent's report, step by step: findings read from notes, then cited.

Whole `--mock-mode` runs (tests/test_report.py, tests/test_source_check.py) check the
report end to end; these tests pin the pure steps it is built from.
"""

from __future__ import annotations

from research.simulation.agent import cite_findings, notes_findings, notes_text

URLS = {
    1: ("https://example.org/mock/a/study-1", "Study one"),
    2: ("https://example.org/mock/a/survey-2", "Survey two"),
    3: ("https://example.org/mock/a/report-3", "Report three"),
}


def test_notes_findings_reads_each_simulated_finding_and_its_source():
    notes = (
        "## Findings\n"
        "- [simulated] Heat pumps work (source: https://example.org/mock/a/study-1).\n"
        "- [simulated] Without a source.\n"
        "- a real-looking finding (source: https://example.org/x)\n"
        "- [simulated] Costs fell 3.5% (source: https://example.org/mock/a/report-3)\n"
    )
    assert notes_findings(notes) == [
        ("Heat pumps work", "https://example.org/mock/a/study-1"),
        ("Costs fell 3.5%", "https://example.org/mock/a/report-3"),
    ]


def test_the_simulators_own_notes_give_three_findings_with_their_pages():
    findings = notes_findings(notes_text("Topic", "topic", 1, "topic", "Heat pumps"))
    assert len(findings) == 3
    assert all(url.startswith("https://") and "/mock/topic/" in url for _, url in findings)


def test_each_finding_cites_its_own_source_and_the_rest_go_last():
    findings = [
        ("A finding.", URLS[1][0]),
        ("Another", "https://example.org/not-in-the-registry"),
        ("A third", URLS[3][0]),
    ]
    assert cite_findings(findings, [1, 2, 3], URLS) == [
        "A finding [1].",
        "Another.",
        "A third [3] [2].",
    ]


def test_sources_outside_the_topics_ids_are_not_cited():
    findings = [("A finding", URLS[1][0]), ("Another", URLS[2][0])]
    assert cite_findings(findings, [2], URLS) == ["A finding.", "Another [2]."]


def test_no_findings_means_no_sentences_even_with_sources():
    assert cite_findings([], [1, 2], URLS) == []


def test_the_simulators_notes_have_every_section_the_research_template_asks_for():
    """The notes format of templates/research.md, section by section and in its order, so
    --mock-mode shows the notes a real agent is asked to write."""
    import re
    from pathlib import Path

    template = (Path(__file__).resolve().parents[1] / "templates" / "research.md").read_text()
    fenced = template.split("```markdown", 1)[1].split("```", 1)[0]
    asked = re.findall(r"^## .+$", fenced, flags=re.M)
    notes = notes_text("Topic", "topic", 1, "topic", "Heat pumps")
    given = re.findall(r"^## .+$", notes, flags=re.M)
    assert asked and given == asked

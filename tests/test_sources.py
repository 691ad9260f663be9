from __future__ import annotations

import pydantic
import pytest

from research.sources.registry import (
    CitationAudit,
    Source,
    SourceRef,
    SourceRegistry,
    audit_report,
    build_registry,
    enforce_citations,
    extract_sources,
    format_registry,
    normalize_url,
    parse_citations,
    render_sources_section,
    strip_citations,
)

# --- normalize_url ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("HTTPS://Example.COM/Path", "https://example.com/Path"),
        ("https://example.com/a#section-2", "https://example.com/a"),
        ("https://example.com/a?utm_source=x&utm_medium=y", "https://example.com/a"),
        ("https://example.com/a?b=2&gclid=XYZ&a=1&fbclid=Q", "https://example.com/a?b=2&a=1"),
        ("https://example.com/a?UTM_Campaign=z&q=heat%20pumps", "https://example.com/a?q=heat%20pumps"),
        ("https://example.com/a?ref=hn&ref_src=twsrc&mc_cid=1&mc_eid=2", "https://example.com/a"),
        ("https://example.com/a?igshid=1&spm=a.b&page=2", "https://example.com/a?page=2"),
        ("https://example.com/reports/", "https://example.com/reports"),
        ("https://example.com/", "https://example.com"),
        ("https://example.com", "https://example.com"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("http://example.com:443/a", "http://example.com:443/a"),
        ("https://example.com:8443/a", "https://example.com:8443/a"),
        ("<https://example.com/a>", "https://example.com/a"),
        ("https://example.com/a).", "https://example.com/a"),
        ("https://example.com/a;", "https://example.com/a"),
        ("(https://example.com/a),", "https://example.com/a"),
        ("https://en.wikipedia.org/wiki/Heat_pump_(disambiguation)", "https://en.wikipedia.org/wiki/Heat_pump_(disambiguation)"),
        ("https://en.wikipedia.org/wiki/Heat_(physics)).", "https://en.wikipedia.org/wiki/Heat_(physics)"),
        ("  https://example.com/a  ", "https://example.com/a"),
        ("not a url", "not a url"),
    ],
)  # fmt: skip
def test_normalize_url(raw: str, expected: str) -> None:
    assert normalize_url(raw) == expected
    assert normalize_url(expected) == expected


def test_normalize_url_keeps_path_case_and_other_params_verbatim() -> None:
    url = "https://Example.com/Reports/HP?b=%2F&c&a=1#x"
    assert normalize_url(url) == "https://example.com/Reports/HP?b=%2F&c&a=1"


# --- progress files -----------------------------------------------------------------------

PROGRESS_COSTS = """\
# Progress: Heat pump costs

## Findings
- Air-source heat pumps cost 8,000-12,000 EUR installed
  (https://www.iea.org/reports/the-future-of-heat-pumps?utm_source=newsletter).
- Running costs depend on the electricity/gas price ratio; see https://example.org/tariffs.
- Grants cover up to half, per [the BUS scheme](https://www.gov.uk/boiler-upgrade-scheme#eligibility).

## Sources
- Source 1: IEA, The Future of Heat Pumps \u2014 https://www.iea.org/reports/the-future-of-heat-pumps
- Source 2: [Energy Saving Trust: heat pumps](https://energysavingtrust.org.uk/heat-pumps/)
- https://bare.example.com/page
- Nesta heat pump analysis (https://www.nesta.org.uk/report/heat-pumps/)
- https://example.org/tariffs \u2014 Tariff comparison
- **Which?** buying guide: <https://www.which.co.uk/reviews/heat-pumps>

```bash
curl https://api.example.com/not-a-source
```

## Knowledge Gaps
- Gap 1: no installer survey beyond https://gaps.example.com/survey.

## Notes for Subtopics
- Subtopic 1: installer capacity
"""


def test_extract_sources_from_a_realistic_progress_file() -> None:
    refs = extract_sources(PROGRESS_COSTS)
    assert refs == [
        SourceRef(
            url="https://www.iea.org/reports/the-future-of-heat-pumps",
            title="IEA, The Future of Heat Pumps",
        ),
        SourceRef(url="https://example.org/tariffs", title="Tariff comparison"),
        SourceRef(url="https://www.gov.uk/boiler-upgrade-scheme", title="the BUS scheme"),
        SourceRef(
            url="https://energysavingtrust.org.uk/heat-pumps",
            title="Energy Saving Trust: heat pumps",
        ),
        SourceRef(url="https://bare.example.com/page", title=""),
        SourceRef(
            url="https://www.nesta.org.uk/report/heat-pumps", title="Nesta heat pump analysis"
        ),
        SourceRef(url="https://www.which.co.uk/reviews/heat-pumps", title="Which? buying guide"),
        SourceRef(url="https://gaps.example.com/survey", title=""),
    ]


def test_extract_sources_without_a_sources_section() -> None:
    text = "# Progress: X\n\n## Findings\n- Fact (https://a.org/x). Same: https://A.org/x/\n"
    assert extract_sources(text) == [SourceRef(url="https://a.org/x", title="")]
    assert extract_sources("") == []


def test_extract_sources_accepts_references_heading_and_numbered_items() -> None:
    text = "## References\n1. Ofgem price cap: https://www.ofgem.gov.uk/cap\n"
    assert extract_sources(text) == [
        SourceRef(url="https://www.ofgem.gov.uk/cap", title="Ofgem price cap")
    ]


PROGRESS_POLICY = """\
# Progress: Heat pump policy

## Findings
- The IEA tracks policy too: https://WWW.IEA.ORG/reports/the-future-of-heat-pumps/#policy

## Sources
- https://www.gov.uk/boiler-upgrade-scheme
- Source 2: EU heat pump action plan \u2014 https://energy.ec.europa.eu/heat-pumps
"""


def test_build_registry_numbers_sources_and_merges_topics() -> None:
    registry = build_registry([("costs", PROGRESS_COSTS), ("policy", PROGRESS_POLICY)])
    assert [(s.id, s.url, s.topics) for s in registry.sources] == [
        (1, "https://www.iea.org/reports/the-future-of-heat-pumps", ["costs", "policy"]),
        (2, "https://example.org/tariffs", ["costs"]),
        (3, "https://www.gov.uk/boiler-upgrade-scheme", ["costs", "policy"]),
        (4, "https://energysavingtrust.org.uk/heat-pumps", ["costs"]),
        (5, "https://bare.example.com/page", ["costs"]),
        (6, "https://www.nesta.org.uk/report/heat-pumps", ["costs"]),
        (7, "https://www.which.co.uk/reviews/heat-pumps", ["costs"]),
        (8, "https://gaps.example.com/survey", ["costs"]),
        (9, "https://energy.ec.europa.eu/heat-pumps", ["policy"]),
    ]
    assert registry.get(1) is not None and registry.get(1).title == "IEA, The Future of Heat Pumps"
    assert registry.get(10) is None
    assert registry.ids() == set(range(1, 10))


def test_build_registry_fills_a_missing_title_from_a_later_topic() -> None:
    registry = build_registry(
        [("a", "- https://x.org/p\n"), ("b", "## Sources\n- Paper \u2014 https://x.org/p/\n")]
    )
    assert registry.sources == [
        Source(id=1, url="https://x.org/p", title="Paper", topics=["a", "b"])
    ]


def test_registry_round_trips_and_forbids_extra_fields() -> None:
    registry = build_registry([("costs", PROGRESS_COSTS)])
    assert SourceRegistry.model_validate_json(registry.model_dump_json()) == registry
    with pytest.raises(pydantic.ValidationError):
        SourceRegistry.model_validate({"sources": [], "extra": 1})
    with pytest.raises(pydantic.ValidationError):
        Source.model_validate({"id": 1, "url": "https://x.org", "bogus": True})


def test_format_registry() -> None:
    registry = SourceRegistry(
        sources=[
            Source(id=1, url="https://a.org", title="A report", topics=["costs", "policy"]),
            Source(id=2, url="https://b.org/x", title="", topics=["costs"]),
        ]
    )
    assert format_registry(registry) == (
        "[1] A report \u2014 https://a.org (topics: costs, policy)\n"
        "[2] https://b.org/x (topics: costs)"
    )
    assert format_registry(SourceRegistry()) == "(no sources were recorded)"


# --- parse_citations ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("markdown", "expected"),
    [
        ("Heat pumps are efficient [3].", [3]),
        ("Costs fell [1, 4] and [1,4] again.", [1, 4]),
        ("Range [2-5] here.", [2, 3, 4, 5]),
        ("En dash [2\u20135].", [2, 3, 4, 5]),
        ("Mixed [7, 2-3; 9].", [7, 2, 3, 9]),
        ("Adjacent [2][3].", [2, 3]),
        ("Order [5] then [1] then [5] again [2].", [5, 1, 2]),
        ("Heading too\n## Costs [6]\n", [6]),
        ("A link [3](https://x.org) and an image ![4](img.png).", []),
        ("A reference image ![4][fig].", []),
        ("[1]: https://x.org/definition", []),
        ("   [2]: https://x.org/definition", []),
        ("Footnote[^1] and a task box [ ] and [x].", []),
        ("Escaped \\[5\\] and \\[6].", []),
        ("Reversed [5-2] and too wide [1-60].", []),
        ("Widest allowed [1-50].", list(range(1, 51))),
        ("Inline `a[1]` code but [2] prose.", [2]),
        ("Double ``x [3] ` y`` code, then [4].", [4]),
        ("```python\nx = a[1]\n```\nAfter [2].", [2]),
        ("~~~\n[7]\n~~~\n", []),
        ("````\n```\n[8]\n```\n````\n[9]", [9]),
        ("Unclosed\n```\n[3]\n", []),
        (
            "Body [1].\n\n## Sources\n\n[1] A \u2014 https://a.org\n[2] B \u2014 https://b.org\n",
            [1],
        ),
        ("Body [1].\n\n### References\n[4] X\n\n#### Web\n[5] Y\n\n### Next\nMore [6].", [1, 6]),
        ("## Bibliography\n[4] X\n# Appendix\nSee [5].", [5]),
        ("Not a heading: the sources [3] of data.", [3]),
        ("", []),
    ],
)
def test_parse_citations(markdown: str, expected: list[int]) -> None:
    assert parse_citations(markdown) == expected


# --- audit and enforcement ----------------------------------------------------------------

REGISTRY = SourceRegistry(
    sources=[
        Source(id=1, url="https://iea.org/heat-pumps", title="IEA heat pumps", topics=["costs"]),
        Source(id=2, url="https://gov.uk/bus", title="Boiler Upgrade Scheme", topics=["policy"]),
        Source(id=3, url="https://nesta.org.uk/hp", title="", topics=["costs", "policy"]),
    ]
)

FABRICATED = """\
# Heat pumps in the UK

## Executive summary

Heat pumps cut household emissions by two thirds [1][99].

## Costs

Installed costs are 8,000-12,000 GBP [1, 99], and grants cover 7,500 GBP [2] [99].

[99] Opening with a fabricated citation is not allowed.

```text
Code is left alone: a[99] and [99].
```

## Sources

[1] IEA heat pumps \u2014 https://iea.org/heat-pumps
[99] Made up \u2014 https://made-up.example.com

## Methodology

Written by the orchestrator.
"""

FABRICATED_FIXED = """\
# Heat pumps in the UK

## Executive summary

Heat pumps cut household emissions by two thirds [1].

## Costs

Installed costs are 8,000-12,000 GBP [1], and grants cover 7,500 GBP [2].

Opening with a fabricated citation is not allowed.

```text
Code is left alone: a[99] and [99].
```

## Sources

[1] IEA heat pumps \u2014 https://iea.org/heat-pumps

[2] Boiler Upgrade Scheme \u2014 https://gov.uk/bus

## Methodology

Written by the orchestrator.
"""


def test_audit_flags_a_fabricated_citation() -> None:
    audit = audit_report(FABRICATED, REGISTRY)
    assert audit == CitationAudit(
        cited=[1, 99, 2],
        unknown=[99],
        never_cited=[3],
        sources_section_present=True,
        sources_listed=[1, 99],
        sources_missing_from_section=[2],
        sources_extra_in_section=[99],
        sources_wrong_url=[],
        uncited_paragraphs=0,
    )
    assert not audit.ok
    assert any("[99]" in line and "registry" in line for line in audit.defects)


def test_enforce_citations_removes_the_fabricated_id_and_fixes_sources() -> None:
    fixed, removed = enforce_citations(FABRICATED, REGISTRY)
    assert removed == [99]
    assert fixed == FABRICATED_FIXED
    audit = audit_report(fixed, REGISTRY)
    assert audit.ok
    assert audit.unknown == []
    assert audit.sources_listed == [1, 2]
    assert audit.uncited_paragraphs == 1
    assert enforce_citations(fixed, REGISTRY) == (fixed, [])


def test_a_clean_report_has_no_defects() -> None:
    report = (
        "# T\n\n## Findings\n\nCosts fell [1] and grants grew [2].\n\n## Sources\n\n"
        "- [1] IEA \u2014 <https://IEA.org/heat-pumps/>\n"
        "- [2] [BUS](https://gov.uk/bus?utm_source=report)\n"
    )
    audit = audit_report(report, REGISTRY)
    assert audit.ok
    assert audit.defects == []
    assert audit.never_cited == [3]


@pytest.mark.parametrize(
    ("sources", "field", "expected", "phrase"),
    [
        (
            "[1] IEA \u2014 https://iea.org/heat-pumps\n",
            "sources_missing_from_section",
            [2],
            "does not list",
        ),
        (
            "[1] https://iea.org/heat-pumps\n[2] https://gov.uk/bus\n[3] https://nesta.org.uk/hp\n",
            "sources_extra_in_section",
            [3],
            "does not cite",
        ),
        ("1. https://iea.org/heat-pumps\n2. https://gov.uk/b\n", "sources_wrong_url", [2], "URL"),
        ("- [1] IEA\n- [2] https://gov.uk/bus\n", "sources_wrong_url", [1], "URL"),
    ],
)
def test_sources_section_mismatches(
    sources: str, field: str, expected: list[int], phrase: str
) -> None:
    report = f"# T\n\n## Findings\n\nCosts [1] and grants [2].\n\n## Sources\n\n{sources}"
    audit = audit_report(report, REGISTRY)
    assert getattr(audit, field) == expected
    assert audit.unknown == []
    assert not audit.ok
    assert any(phrase in line for line in audit.defects)
    fixed, removed = enforce_citations(report, REGISTRY)
    assert removed == []
    assert audit_report(fixed, REGISTRY).ok


def test_missing_sources_section_is_appended() -> None:
    report = "# T\n\n## Findings\n\nCosts [2] and [1].\n"
    audit = audit_report(report, REGISTRY)
    assert not audit.sources_section_present
    assert audit.sources_missing_from_section == [2, 1]
    assert not audit.ok
    assert "Has no Sources section." in audit.defects
    fixed, _ = enforce_citations(report, REGISTRY)
    assert fixed == (
        "# T\n\n## Findings\n\nCosts [2] and [1].\n\n## Sources\n\n"
        "[1] IEA heat pumps \u2014 https://iea.org/heat-pumps\n\n"
        "[2] Boiler Upgrade Scheme \u2014 https://gov.uk/bus\n"
    )
    assert enforce_citations(fixed, REGISTRY) == (fixed, [])


def test_enforce_replaces_every_sources_like_section_once() -> None:
    report = (
        "## A\n\nX [3].\n\n## References\n\n[9] old\n\n## B\n\nY [1].\n\n## Bibliography\n\n[8]\n"
    )
    fixed, removed = enforce_citations(report, REGISTRY)
    assert removed == []
    assert fixed == (
        "## A\n\nX [3].\n\n## Sources\n\n[1] IEA heat pumps \u2014 https://iea.org/heat-pumps"
        "\n\n[3] https://nesta.org.uk/hp\n\n## B\n\nY [1].\n\n"
    )
    assert enforce_citations(fixed, REGISTRY) == (fixed, [])


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Costs fell [99].", "Costs fell."),
        ("Costs fell [99] in 2023.", "Costs fell in 2023."),
        ("Costs fell[99] in 2023.", "Costs fell in 2023."),
        ("Costs fell [1, 99, 2].", "Costs fell [1, 2]."),
        ("Costs fell [1,99].", "Costs fell [1]."),
        ("Costs fell [2-4].", "Costs fell [2, 3]."),
        ("Costs fell [99][1].", "Costs fell [1]."),
        ("Costs fell [1][99].", "Costs fell [1]."),
        ("Costs fell [99] [1].", "Costs fell [1]."),
        ("Costs fell [98] [99] and rose.", "Costs fell and rose."),
        ("[99] Costs fell.", "Costs fell."),
        ("[98] [99] Costs fell.", "Costs fell."),
        ("- [99] Costs fell.", "- Costs fell."),
        ("  1. [99] Costs fell.", "  1. Costs fell."),
        ("Costs `[99]` fell [99].", "Costs `[99]` fell."),
        ("Costs fell [1].", "Costs fell [1]."),
        ("Costs fell [1-3].", "Costs fell [1-3]."),
        ("See [99](https://x.org) and [1-99].", "See [99](https://x.org) and [1-99]."),
        # Unknown year-like groups keep their text: "[2020]" in prose is most likely a year.
        ("In [2020] costs fell [99].", "In 2020 costs fell."),
        ("Between [2019-2021] prices rose [1].", "Between 2019-2021 prices rose [1]."),
        ("Mixed [2020, 99] goes.", "Mixed goes."),
        ("Far [3000] goes.", "Far goes."),
    ],
)
def test_enforce_tidies_citation_groups(line: str, expected: str) -> None:
    fixed, _ = enforce_citations(f"## Findings\n\n{line}\n", REGISTRY)
    body = fixed.split("\n\n## Sources")[0]
    assert body == f"## Findings\n\n{expected}"


def test_render_sources_section() -> None:
    assert render_sources_section([3, 1, 3, 42], REGISTRY) == (
        "## Sources\n\n[1] IEA heat pumps \u2014 https://iea.org/heat-pumps\n\n"
        "[3] https://nesta.org.uk/hp\n"
    )
    assert render_sources_section([], REGISTRY) == "## Sources\n\n(no sources were cited)\n"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("## Findings\n\nCited [1].\n\nNot cited.\n", 1),
        ("## Findings\n\nFirst line\ncontinues with a cite [1].\n", 0),
        ("## Findings\n\n- cited [1]\n- not cited\n- also not\n", 2),
        ("## Findings\n\nKey points:\n- cited [1]\n", 0),
        ("## Findings\n\n| a | b |\n|---|---|\n| 1 | 2 |\n", 0),
        ("## Findings\n\n```\nplain code\n```\n\n---\n\n<!-- note -->\n", 0),
        ("## Findings\n\nCode `[1]` is not a citation.\n", 1),
        ("Preamble before any section.\n\n# Title\n\nIntro under the title.\n", 0),
        ("## Executive Summary\n\nNo cite.\n\n## Methodology\n\nNo cite.\n", 0),
        ("## 1. Summary\n\nNo cite.\n\n## Conclusions\n\nNo cite.\n", 0),
        ("## Sources\n\n[1] A\n\nA note.\n", 0),
        ("## Costs\n\n### Installers\n\nNo cite.\n\n### Running\n\nCited [2].\n", 1),
        ("## Findings\n\n12,000 - 15,000\n", 0),
        # What the research could not establish is not a claim (the synthesize prompt
        # asks for a Limitations section when research ended early).
        ("## Limitations\n\nResearch ended early.\n\n## Costs\n\nNo cite.\n", 1),
        ("## Knowledge Gaps\n\n- No data on 2024.\n- Nor on Norway.\n", 0),
        ("## Limitations and Knowledge Gaps\n\nNo cite.\n", 0),
        ("## Gaps\n\n### Costs\n\nNo cite.\n", 0),
    ],
)
def test_uncited_paragraphs(body: str, expected: int) -> None:
    assert audit_report(body, REGISTRY).uncited_paragraphs == expected


def test_strip_citations_keeps_code_and_years() -> None:
    notes = "- Fell 10% [2] in [2021] [1, 3].\n\n```\nx = a[1]\n```\n"
    assert strip_citations(notes) == "- Fell 10% in 2021.\n\n```\nx = a[1]\n```\n"

"""The report's trustworthy parts: methodology figures equal to state.json for every kind of
end, banners, the citation guarantee end to end, the topic-tree picture, idempotence."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from conftest import REPO, read_json
from helpers import events_of

from research.model.plan import Plan, TopicStatus
from research.model.state import RWRState, StopReason, migrate_v1
from research.sources.registry import Source, SourceRegistry, audit_report, parse_citations
from research.views.report import (
    BANNER_MARK,
    assemble_report,
    banners,
    fallback_report,
    final_body,
    mermaid_tree,
    methodology,
    strip_orchestrator_parts,
)
from research.workspace.paths import SessionPaths

QUESTION = "How do heat pumps perform in cold climates?"


def session(name: str) -> Path:
    return Path(".research") / name


def report_of(name: str) -> str:
    return Path("reports", name, "report.md").read_text(encoding="utf-8")


def section(report: str, heading: str) -> str:
    """The text of a `## heading` section, up to the next level-1/2 heading."""
    match = re.search(
        rf"^{re.escape(heading)}\n(.*?)(?=^#{{1,2}} |\Z)", report, re.MULTILINE | re.DOTALL
    )
    assert match is not None, f"no {heading} section"
    return match.group(1)


def figure(text: str, pattern: str) -> tuple[str, ...]:
    match = re.search(pattern, text, re.MULTILINE)
    assert match is not None, f"{pattern!r} not found in:\n{text}"
    return match.groups()


def expected_time(seconds: float) -> str:
    return f"{seconds:.1f} seconds" if seconds < 60 else f"{seconds / 60:.1f} minutes"


def expected_budget(minutes: float | None) -> str:
    return "unlimited" if minutes is None else f"{minutes:g} minutes"


def check_report_against_files(name: str) -> dict:
    """Every figure of the written report's Methodology and banner equals the saved files."""
    state = read_json(session(name) / "state.json")
    registry = SourceRegistry.model_validate(read_json(session(name) / "sources.json"))
    citations = read_json(session(name) / "citations.json")
    report = report_of(name)
    text = section(report, "## Methodology")
    topics = state["plan"]["topics"]
    status = [t["status"] for t in topics]
    skipped = [t for t in topics if t["status"] == "Skipped"]
    exhausted = [t for t in topics if t["status"] == "Exhausted"]
    open_count = sum(s in {"Pending", "In Progress", "In Review"} for s in status)

    assert figure(text, r"^- Breadth: (\d+); depth: (\d+) topic levels?$") == (
        str(state["config"]["breadth"]),
        str(state["config"]["depth"]),
    )
    assert figure(text, r"^- Iterations: (\d+) used of a limit of (\d+)$") == (
        str(state["progress"]["iteration"]),
        str(state["config"]["max_iterations"]),
    )
    assert figure(text, r"^- Time: (.+) used; budget: (.+)$") == (
        expected_time(state["progress"]["elapsed_seconds"]),
        expected_budget(state["config"]["time_budget_minutes"]),
    )
    topic_figures = figure(
        text,
        r"^- Topics: (\d+) in the plan: (\d+) complete, (\d+) skipped \((\d+) duplicate, "
        r"(\d+) low novelty\), (\d+) exhausted, (\d+) not finished$",
    )
    assert tuple(map(int, topic_figures)) == (
        len(topics),
        status.count("Complete"),
        len(skipped),
        sum((t["note"] or "").startswith("duplicate of") for t in skipped),
        sum(t["note"] == "low novelty" for t in skipped),
        len(exhausted),
        open_count,
    )
    (ended,) = figure(text, r"^- Research ended because (.+)$")
    assert ended.endswith(f"({state['progress']['stop_detail']})")
    assert figure(
        text,
        r"^- Agent calls: (\d+) \((\d+) failed\); failed phases: (\d+); "
        r"recoveries: (\d+)$",
    ) == (
        str(state["usage"]["agent_calls"]),
        str(state["usage"]["agent_failures"]),
        str(state["usage"]["failed_phases"]),
        str(state["usage"]["recoveries"]),
    )
    found, cited = figure(
        text,
        r"^- Sources: (\d+) found in the research notes, (\d+) cited "
        r"in this report$",
    )
    assert (int(found), int(cited)) == (
        state["final"]["sources_found"],
        state["final"]["sources_cited"],
    )
    assert int(found) == len(registry.sources)
    assert int(cited) == len(set(parse_citations(report)) & registry.ids())
    assert len(citations["cited"]) == int(cited)
    for topic in exhausted:
        assert f"- {topic['name']} #RETRY_EXHAUSTED" in text
    assert text.count("#RETRY_EXHAUSTED\n") == len(exhausted)
    # The guarantee: nothing unresolvable, the Sources section exact, the audit file agrees.
    assert citations["stage"] == "final" and citations["ok"] is True
    assert citations["unknown"] == []
    assert audit_report(report, registry).ok
    assert report.count("## Methodology") == 1 and report.count(BANNER_MARK) <= 1
    return state


def banner_of(report: str) -> str:
    assert report.startswith("---\n" + BANNER_MARK), report[:200]
    return report[: report.index("\n---\n", 4) + 5]


def check_banner_counts(report: str, state: dict) -> str:
    banner = banner_of(report)
    topics = state["plan"]["topics"]
    complete = sum(t["status"] == "Complete" for t in topics)
    planned = sum(t["status"] != "Skipped" for t in topics)
    assert f"\n- Topics completed: {complete} of {planned}\n" in banner
    assert (
        f"\n- Iterations executed: {state['progress']['iteration']} "
        f"(limit: {state['config']['max_iterations']})\n"
    ) in banner
    return banner


def run(run_cli, mock_script, name: str, *args: str, **script: object) -> dict:
    options = ["--mock-mode", "--name", name, "--yes", *args]
    if script:
        options += ["--mock-script", str(mock_script(**script))]
    result = run_cli(*options, QUESTION)
    assert result.exit_code == 0, result.stderr
    return check_report_against_files(name)


# --- methodology and banners for every kind of end -----------------------------------------


def test_all_done_has_no_banner(run_cli, mock_script) -> None:
    state = run(run_cli, mock_script, "done", "--breadth", "2", "--depth", "2")
    assert state["progress"]["stop_reason"] == "all_topics_done"
    assert BANNER_MARK not in report_of("done")


def test_iteration_limit_banner_is_the_seeds(run_cli, mock_script) -> None:
    state = run(
        run_cli,
        mock_script,
        "lim",
        "--breadth",
        "2",
        "--depth",
        "2",
        faults=[{"action": "reject", "phase": "review"}],
    )
    assert state["progress"]["stop_reason"] == "iteration_limit"
    topics = state["plan"]["topics"]
    seed = (
        "---\n"
        "⚠️ **WARNING: ITERATION LIMIT REACHED**\n"
        "\n"
        "This report was generated before all research topics were completed due to reaching "
        "the maximum iteration limit. Some findings may be incomplete or missing.\n"
        "\n"
        f"- Topics completed: {sum(t['status'] == 'Complete' for t in topics)} of "
        f"{sum(t['status'] != 'Skipped' for t in topics)}\n"
        f"- Iterations executed: {state['progress']['iteration']} "
        f"(limit: {state['config']['max_iterations']})\n"
        "- To complete this research, resume with higher --max-iterations or run again "
        "without the limit\n"
        "---\n"
    )
    assert banner_of(report_of("lim")) == seed


def test_time_budget_on_a_simulated_clock(run_cli, mock_script) -> None:
    state = run(
        run_cli,
        mock_script,
        "time",
        "--breadth",
        "2",
        "--depth",
        "2",
        "--time",
        "3",
        simulated_clock=True,
        call_seconds=20,
    )
    assert state["progress"]["stop_reason"] == "time_budget"
    # Every agent call took 20 simulated seconds, and the run ended within the budget.
    assert state["progress"]["elapsed_seconds"] == 9 * 20
    banner = check_banner_counts(report_of("time"), state)
    assert "WARNING: TIME BUDGET REACHED" in banner
    assert "\n- Time used: 3.0 minutes (budget: 3 minutes)\n" in banner


def test_early_stop_on_low_novelty(run_cli, mock_script) -> None:
    state = run(
        run_cli,
        mock_script,
        "nov",
        "--breadth",
        "3",
        "--depth",
        "2",
        faults=[{"action": "redundant", "phase": "research", "calls": list(range(3, 20))}],
    )
    assert state["progress"]["stop_reason"] == "low_novelty"
    banner = check_banner_counts(report_of("nov"), state)
    assert "WARNING: RESEARCH STOPPED EARLY" in banner
    assert f"for {state['progress']['consecutive_low_novelty']} topics in a row" in banner


def test_degraded_mode_by_the_circuit_breaker(run_cli, mock_script) -> None:
    state = run(
        run_cli,
        mock_script,
        "deg",
        "--breadth",
        "3",
        "--depth",
        "1",
        faults=[{"action": "skip_files", "phase": "research"}],
    )
    assert state["progress"]["stop_reason"] == "circuit_breaker"
    banner = check_banner_counts(report_of("deg"), state)
    assert "WARNING: DEGRADED MODE" in banner
    assert "Search capabilities were limited" in banner
    assert (
        f"\n- Agent calls failed in the whole run: {state['usage']['agent_failures']} of "
        f"{state['usage']['agent_calls']}\n"
    ) in banner


def test_all_topics_exhausted(run_cli, mock_script) -> None:
    state = run(
        run_cli,
        mock_script,
        "exh",
        "--breadth",
        "2",
        "--depth",
        "1",
        faults=[{"action": "reject", "phase": "review"}],
    )
    assert state["progress"]["stop_reason"] == "all_open_topics_exhausted"
    banner = check_banner_counts(report_of("exh"), state)
    assert "\n- Topics abandoned (#RETRY_EXHAUSTED): 2\n" in banner


# --- the citation guarantee end to end ------------------------------------------------------


def logged_prompt(name: str, phase: str) -> str:
    (log,) = sorted((session(name) / "logs").glob(f"*-{phase}-*.log"))[-1:]
    text = log.read_text(encoding="utf-8")
    return text[text.index("--- prompt ---") : text.index("--- stdout ---")]


def test_registry_is_written_and_given_to_synthesize(run_cli, mock_script) -> None:
    run(run_cli, mock_script, "reg", "--breadth", "2", "--depth", "1")
    registry = read_json(session("reg") / "sources.json")["sources"]
    assert [s["id"] for s in registry] == list(range(1, len(registry) + 1))
    assert len({s["url"] for s in registry}) == len(registry)
    state = read_json(session("reg") / "state.json")
    slugs = {t["slug"] for t in state["plan"]["topics"]}
    for source in registry:
        assert "utm_" not in source["url"] and not source["url"].endswith("/")
        assert source["topics"] and set(source["topics"]) <= slugs
    prompt = logged_prompt("reg", "synthesize")
    for source in registry:
        assert f"[{source['id']}] {source['title']} — {source['url']}" in prompt
    assert "Use ONLY ids from the source registry" in prompt


def test_fabricated_id_is_a_defect_for_final_review_and_revise_fixes_it(
    run_cli, mock_script
) -> None:
    state = run(
        run_cli,
        mock_script,
        "fab1",
        "--breadth",
        "2",
        "--depth",
        "1",
        faults=[{"action": "fabricated_citation", "phase": "synthesize"}],
    )
    assert "Cites [99], which are not in the source registry" in logged_prompt(
        "fab1", "final_review"
    )
    assert "Cites [99]" in logged_prompt("fab1", "revise")
    audits = events_of(session("fab1"), "citation_audit")
    assert [(a["stage"], a["unknown"]) for a in audits] == [
        ("synthesize", [99]),
        ("revise", []),
        ("final", []),
    ]
    assert state["final"]["citation_ids_removed"] == []
    assert "every citation resolves" in report_of("fab1")


def test_fabricated_id_surviving_revise_is_removed_by_the_orchestrator(
    run_cli, mock_script
) -> None:
    state = run(
        run_cli,
        mock_script,
        "fab2",
        "--breadth",
        "2",
        "--depth",
        "1",
        faults=[
            {"action": "fabricated_citation", "phase": "synthesize"},
            {"action": "fabricated_citation", "phase": "revise"},
        ],
    )
    assert state["final"]["citation_ids_removed"] == [99]
    report = report_of("fab2")
    assert "[99]" not in report
    registry = SourceRegistry.model_validate(read_json(session("fab2") / "sources.json"))
    cited = sorted(set(parse_citations(report)))
    assert cited and set(cited) <= registry.ids()
    listed = re.findall(r"^\[(\d+)\] .* — (\S+)$", section(report, "## Sources"), re.MULTILINE)
    assert listed == [(str(i), registry.get(i).url) for i in cited]
    assert (
        "the orchestrator removed the citation id 99, which matched no recorded source"
        in section(report, "## Methodology")
    )
    stages = [(e["stage"], e["unknown"]) for e in events_of(session("fab2"), "citation_audit")]
    assert stages == [("synthesize", [99]), ("revise", [99]), ("final", [])]
    assert read_json(session("fab2") / "citations.json")["removed_by_orchestrator"] == [99]


@pytest.mark.parametrize("phases", [["synthesize"], ["synthesize", "revise"]])
def test_missing_sources_section_is_a_defect_and_is_rebuilt(
    run_cli, mock_script, phases: list[str]
) -> None:
    run(
        run_cli,
        mock_script,
        "nosrc",
        "--breadth",
        "2",
        "--depth",
        "1",
        faults=[{"action": "no_sources_section", "phase": phase} for phase in phases],
    )
    assert "Has no Sources section." in logged_prompt("nosrc", "final_review")
    report = report_of("nosrc")
    assert report.count("## Sources") == 1
    assert report.index("## Sources") < report.index("## Methodology")
    rebuilt = read_json(session("nosrc") / "state.json")["final"]["sources_section_rebuilt"]
    assert rebuilt is (phases == ["synthesize", "revise"])
    assert ("the orchestrator rebuilt the Sources section" in report) is rebuilt


def test_sources_cited_counts_the_ids_in_the_final_text(run_cli, mock_script) -> None:
    state = run(
        run_cli,
        mock_script,
        "few",
        "--breadth",
        "2",
        "--depth",
        "1",
        faults=[
            {"action": "uncited_sources", "phase": "synthesize"},
            {"action": "uncited_sources", "phase": "revise"},
        ],
    )
    assert 0 < state["final"]["sources_cited"] < state["final"]["sources_found"]
    assert read_json(session("few") / "citations.json")["never_cited"]
    assert state["final"]["sources_section_rebuilt"] is False
    assert "the Sources section lists exactly the cited sources" in report_of("few")


# --- crash and resume: finalising twice changes nothing -------------------------------------


def test_finalising_again_after_a_crash_does_not_duplicate_anything(run_cli, mock_script) -> None:
    script = mock_script(
        faults=[
            {"action": "reject", "phase": "review"},
            {"action": "fabricated_citation", "phase": "synthesize"},
            {"action": "fabricated_citation", "phase": "revise"},
        ]
    )
    args = (
        "--mock-mode",
        "--mock-script",
        str(script),
        "--name",
        "crash",
        "--yes",
        "--breadth",
        "2",
        "--depth",
        "1",
    )
    assert run_cli(*args, QUESTION).exit_code == 0
    first = report_of("crash")
    # The state as saved by finish() just before the report was written: not yet done.
    state_file = session("crash") / "state.json"
    state = read_json(state_file)
    assert state["final"]["citation_ids_removed"] == [99]
    state["progress"].update(current_phase="revise", is_complete=False)
    state_file.write_text(json.dumps(state), encoding="utf-8")

    result = run_cli(*args, "--resume")
    assert result.exit_code == 0, result.stderr
    state = check_report_against_files("crash")
    second = report_of("crash")
    assert second.count(BANNER_MARK) == 1 and first.count(BANNER_MARK) == 1
    assert second.count("## Sources") == 1
    assert "removed the citation id 99" in second
    # The notes were archived by the first run: the registry came from sources.json.
    assert state["final"]["sources_found"] == len(
        read_json(session("crash") / "sources.json")["sources"]
    )
    assert state["final"]["sources_found"] > 0 and state["final"]["sources_cited"] > 0


# --- pure parts -----------------------------------------------------------------------------

REGISTRY = SourceRegistry(
    sources=[
        Source(id=1, url="https://iea.org/hp", title="IEA", topics=["costs"]),
        Source(id=2, url="https://gov.uk/bus", title="BUS", topics=["costs"]),
    ]
)


def make_state(plan: Plan, **fields: object) -> RWRState:
    flat = dict(
        name="x",
        original_topic=plan.topic,
        breadth=plan.breadth,
        depth=plan.depth,
        max_iterations=9,
        model="m",
        review_model="r",
        timeout=10,
        plan=plan,
        **fields,
    )
    return RWRState.model_validate(migrate_v1(flat))


def small_plan() -> Plan:
    plan = Plan(topic="Heat pumps", breadth=2, depth=2)
    plan.add_topic('Costs [2020] and "prices"', parent=None).status = TopicStatus.COMPLETE
    plan.add_topic("Policy", parent=None).status = TopicStatus.EXHAUSTED
    return plan


AGENT_REPORT = """\
# Heat pumps

Summary [1].

## Costs

Costs fell [1][7] in [2020].

## Methodology

The agent's own account, which the orchestrator replaces.

## Sources

[1] IEA — https://iea.org/hp
[7] Invented — https://invented.example
"""


def test_final_body_removes_unknown_ids_and_unbrackets_years() -> None:
    body = final_body(AGENT_REPORT, REGISTRY)
    assert body.removed == [7, 2020]
    assert body.cited == [1]
    assert "Costs fell [1] in 2020." in body.text
    assert "The agent's own account" not in body.text
    assert section(body.text, "## Sources") == "\n[1] IEA — https://iea.org/hp\n"


def test_assembled_report_is_a_fixed_point() -> None:
    state = make_state(
        small_plan(),
        iteration=9,
        stop_reason=StopReason.ITERATION_LIMIT,
        stop_detail="iteration limit of 9 reached",
        citation_ids_removed=[7],
        sources_found=2,
        sources_cited=1,
    )
    once = assemble_report(final_body(AGENT_REPORT, REGISTRY).text, state)
    again = final_body(once, REGISTRY)
    assert again.removed == [] and again.cited == [1]
    assert assemble_report(again.text, state) == once
    assert strip_orchestrator_parts(once) == again.text
    assert once.count(BANNER_MARK) == 1 and once.count("## Methodology") == 1


def test_methodology_text_cites_nothing() -> None:
    # Removed ids and a topic name with "[2020]" must not read as citations themselves.
    state = make_state(small_plan(), citation_ids_removed=[7, 99], sources_found=2, sources_cited=1)
    text = methodology(state)
    assert parse_citations(text) == []
    assert "removed the citation ids 7, 99" in text
    assert "- Policy #RETRY_EXHAUSTED" in text


@pytest.mark.parametrize(
    ("reason", "title"),
    [
        (StopReason.ALL_DONE, None),
        (StopReason.ITERATION_LIMIT, "ITERATION LIMIT REACHED"),
        (StopReason.TIME_BUDGET, "TIME BUDGET REACHED"),
        (StopReason.LOW_NOVELTY, "RESEARCH STOPPED EARLY"),
        (StopReason.CIRCUIT_BREAKER, "DEGRADED MODE: SEARCHING WAS LIMITED"),
        (StopReason.ALL_EXHAUSTED, "NO TOPIC COULD BE COMPLETED"),
    ],
)
def test_one_banner_per_limiting_end(reason: StopReason, title: str | None) -> None:
    state = make_state(
        small_plan(),
        iteration=4,
        stop_reason=reason,
        time_budget_minutes=2,
        elapsed_seconds=125,
        agent_calls=8,
        agent_failures=4,
    )
    found = banners(state)
    if title is None:
        assert found == []
        return
    (banner,) = found
    assert banner.startswith(f"---\n{BANNER_MARK} {title}**\n\n") and banner.endswith("\n---")
    assert "\n- Topics completed: 1 of 2\n" in banner
    assert "\n- Iterations executed: 4 (limit: 9)\n" in banner
    if reason is StopReason.TIME_BUDGET:
        assert "\n- Time used: 2.1 minutes (budget: 2 minutes)\n" in banner


@pytest.mark.parametrize(
    ("minutes", "said"),
    [(4 / 60, "4 seconds"), (0.5, "30 seconds"), (2, "2 minutes"), (1.5, "1.5 minutes")],
)
def test_the_time_budget_is_said_in_plain_units(minutes: float, said: str) -> None:
    state = make_state(
        small_plan(), iteration=4, stop_reason=StopReason.TIME_BUDGET, time_budget_minutes=minutes
    )
    (banner,) = banners(state)
    assert f"(budget: {said})\n" in banner
    assert f"; budget: {said}\n" in methodology(state)


def test_fallback_report_drops_the_notes_own_numbering(tmp_path: Path) -> None:
    paths = SessionPaths(tmp_path, "x")
    plan = Plan(topic="Heat pumps", breadth=1, depth=1)
    topic = plan.add_topic("Costs", parent=None)
    paths.progress_file(topic.slug).parent.mkdir(parents=True)
    paths.progress_file(topic.slug).write_text(
        "# Progress: Costs\n\n## Findings\n- Prices fell 10% [2] in [2021].\n\n"
        "## Sources\n- [1] https://iea.org/hp\n- [2] https://gov.uk/bus\n",
        encoding="utf-8",
    )
    text = fallback_report(make_state(plan), paths, REGISTRY)
    assert "- Prices fell 10% in 2021." in text
    assert "Sources recorded for this topic: [1, 2]." in text
    assert audit_report(text, REGISTRY).ok


# --- the topic-tree picture -----------------------------------------------------------------

AWKWARD = [
    'Quotes "inside" the name',
    "Brackets [1] and (parens) and {braces}",
    "Back`ticks` and <b>html</b> & ampersands",
    "Hash #quot; entity look-alike; semi;colons",
    "Ünïcödé — 熱泵 性能 🔥",
    "A very long topic name " + "that keeps going " * 10,
]
LABEL = re.compile(r'^    (?:root|t\d+)\["([^"`<>\n]*)(?:<br/><i>([^"`<>\n]*)</i>)?"\]$')


def unescape(label: str) -> str:
    """Mermaid's entity codes: #35; (numeric) and #quot; (named)."""
    return html.unescape(
        re.sub(r"#(\w+);", lambda m: "&" + ("#" * m[1].isdigit()) + m[1] + ";", label)
    )


def test_mermaid_labels_are_escaped_and_trimmed() -> None:
    plan = Plan(topic='Question with "quotes" and <tags>', breadth=6, depth=2)
    parent = plan.add_topic(AWKWARD[0], parent=None)
    for name in AWKWARD[1:]:
        plan.add_topic(
            name, parent=parent.slug, status=TopicStatus.SKIPPED, note='duplicate of "X [2]"'
        )
    chart = mermaid_tree(plan)
    lines = chart.splitlines()
    assert lines[0] == "```mermaid" and lines[1] == "flowchart TD" and lines[-1] == "```"
    labels = [LABEL.match(line) for line in lines if '["' in line]
    assert all(labels), [line for line in lines if '["' in line and not LABEL.match(line)]
    names = [unescape(match.group(1)) for match in labels]
    assert names[0] == 'Question with "quotes" and <tags>'
    assert names[1:-1] == [topic.name for topic in plan.topics[:-1]]
    assert names[-1].endswith("…") and len(names[-1]) == 60
    assert plan.topics[-1].name.startswith(names[-1][:-1])
    assert unescape(labels[2].group(2)) == 'Skipped: duplicate of "X [2]"'
    edges = [line for line in lines if "-->" in line]
    assert edges == ["    root --> t0"] + [f"    t0 --> t{i}" for i in range(1, len(AWKWARD))]


# --- writing rules in the default templates ---------------------------------------------------


WRITING_RULES = (
    "executive summary",
    "ONLY",
    "`[n]`",
    "citation style",
    "hedging filler",
    "progress files",
    "$source_registry",
)


@pytest.mark.parametrize("name", ["synthesize", "revise"])
def test_templates_carry_the_writing_rules(name: str) -> None:
    text = (REPO / "templates" / f"{name}.md").read_text(encoding="utf-8")
    for rule in WRITING_RULES:
        assert rule in text, rule


def test_the_source_checks_marks_are_taken_off_before_finalising_again() -> None:
    # The orchestrator marks flagged citations each time it finalises; the body it
    # starts from must not keep the previous marks (nor an agent's copy of them).
    marked = (
        "# T\n\n## A\n\nBills fell 20% [1]\u2020. Costs [1, 2]\u2020\u2020 rose.\n\n- x \u2020 y\n"
    )
    assert strip_orchestrator_parts(marked) == (
        "# T\n\n## A\n\nBills fell 20% [1]. Costs [1, 2] rose.\n\n- x \u2020 y\n"
    )


def test_a_mock_runs_methodology_names_no_model(run_cli) -> None:
    """The simulated agent uses no model: the Methodology must not name OpenCode's."""
    result = run_cli("--mock-mode", "--name", "m", "--breadth", "1", "--depth", "1", "q")
    assert result.exit_code == 0, result.output
    methodology = Path("reports/m/report.md").read_text(encoding="utf-8").split("## Methodology")[1]
    agent_line = next(line for line in methodology.splitlines() if line.startswith("- Agent:"))
    assert "no model" in agent_line
    assert "opencode/" not in agent_line

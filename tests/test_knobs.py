"""Seed 002's knobs through the CLI: complexity tiers, token and cost budgets, the query and
source caps, and the time budget in seconds."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import events_of

from research.core.tiers import TIERS, Tier
from research.sources.registry import extract_sources
from research.sources.sourcecap import keep_cited_sources

QUESTION = "How do heat pumps perform in cold climates?"
LOOKUP = "What is the boiling point of water?"
GATED = Path(__file__).parent / "fake_agents" / "gated_agent.py"


def state_of(name: str) -> dict[str, Any]:
    return json.loads(Path(".research", name, "state.json").read_text(encoding="utf-8"))


def report_of(name: str) -> str:
    return Path("reports", name, "report.md").read_text(encoding="utf-8")


def prompts_of(name: str, phase: str) -> list[str]:
    """The prompts of `phase`'s calls, from the call logs."""
    logs = sorted(Path(".research", name, "logs").glob(f"*-{phase}-*.log"))
    return [log.read_text(encoding="utf-8") for log in logs]


# --- token and cost budgets -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("flag", "value", "reason", "banner"),
    [
        ("--token-budget", "40000", "token_budget", "TOKEN BUDGET REACHED"),
        ("--max-cost", "0.2", "cost_budget", "COST BUDGET REACHED"),
    ],
)
def test_a_small_budget_ends_research_with_its_stop_reason_banner_and_report(
    run_cli: Callable[..., Any], flag: str, value: str, reason: str, banner: str
) -> None:
    result = run_cli(
        "--mock-mode", "--name", "b", "--breadth", "2", "--depth", "2", "-y", flag, value, QUESTION
    )
    assert result.exit_code == 0, result.output
    state = state_of("b")
    assert state["progress"]["stop_reason"] == reason
    assert state["progress"]["is_complete"]
    assert any(t["status"] == "Pending" for t in state["plan"]["topics"]), "research was cut"
    report = report_of("b")
    assert banner in report
    assert "## Methodology" in report and "[simulated]" in report
    stop = events_of(Path(".research", "b"), "research_stopped")
    assert [e["reason"] for e in stop] == [reason]
    usage = state["usage"]["phases"]
    tokens = sum(u["input_tokens"] + u["output_tokens"] for u in usage.values())
    cost = sum(u["cost"] for u in usage.values())
    # Research stopped once a quarter or less was left, not before.
    decisions = events_of(Path(".research", "b"), "decision")
    assert decisions[-1]["reason"].startswith(reason)
    assert tokens > 0 and cost > 0


def test_without_a_budget_the_same_run_researches_every_topic(run_cli: Callable[..., Any]) -> None:
    result = run_cli("--mock-mode", "--name", "b", "--breadth", "2", "--depth", "2", "-y", QUESTION)
    assert result.exit_code == 0, result.output
    state = state_of("b")
    assert state["progress"]["stop_reason"] == "all_topics_done"
    assert "BUDGET REACHED" not in report_of("b")


def test_the_simulated_agent_reports_labelled_simulated_usage(run_cli: Callable[..., Any]) -> None:
    result = run_cli("--mock-mode", "--name", "u", "--tier", "simple", QUESTION)
    assert result.exit_code == 0, result.output
    calls = events_of(Path(".research", "u"), "agent_call")
    assert calls and all(c["input_tokens"] > 0 and c["cost"] > 0 for c in calls)
    log = prompts_of("u", "research")[0]
    assert "usage (simulated):" in log
    assert "[simulated]" in next(
        line for line in report_of("u").splitlines() if line.startswith("- Tokens:")
    )


def test_an_agent_that_reports_no_usage_says_the_budgets_cannot_hold(
    run_cli: Callable[..., Any],
) -> None:
    result = run_cli(
        "--agent-cmd",
        f"{sys.executable} {GATED}",
        "--name",
        "n",
        "--tier",
        "simple",
        "--token-budget",
        "1000",
        "--max-cost",
        "0.01",
        QUESTION,
    )
    assert result.exit_code == 0, result.output
    assert "--token-budget and --max-cost cannot be enforced" in result.output
    events = events_of(Path(".research", "n"))
    warning = next(i for i, e in enumerate(events) if "cannot be enforced" in e.get("message", ""))
    first_call = next(i for i, e in enumerate(events) if e["type"] == "phase_start")
    assert warning < first_call
    # Nothing was counted, so nothing stopped research: it is not pretended.
    assert state_of("n")["progress"]["stop_reason"] == "all_topics_done"
    assert "BUDGET REACHED" not in report_of("n")
    assert "- Tokens: unknown (the agent reported none) (budget: 1,000)" in report_of("n")


# --- tiers ----------------------------------------------------------------------------------


@pytest.mark.parametrize("tier", list(Tier))
def test_each_tier_gives_its_breadth_depth_searches_and_source_cap(
    run_cli: Callable[..., Any], tier: Tier
) -> None:
    spec = TIERS[tier]
    # A token budget cuts the bigger trees short: the tier's values are set all the same.
    result = run_cli(
        "--mock-mode",
        "--name",
        "t",
        "-y",
        "--tier",
        tier.value,
        "--token-budget",
        "30000",
        QUESTION,
    )
    assert result.exit_code == 0, result.output
    config = state_of("t")["config"]
    assert (config["breadth"], config["depth"]) == (spec.breadth, spec.depth)
    assert (config["searches"], config["max_sources"]) == (spec.searches, spec.max_sources)
    assert config["time_budget_minutes"] == spec.time_budget_minutes
    assert (config["tier"], config["tier_source"]) == (tier.value, "user")
    research = prompts_of("t", "research")[0]
    assert f"Run up to {spec.searches} web searches" in research
    assert f"at most {spec.max_sources} sources (notes that list more are sent back" in research
    plan = state_of("t")["plan"]
    assert (plan["breadth"], plan["depth"]) == (spec.breadth, spec.depth)
    assert len([t for t in plan["topics"] if t["depth"] == 0]) == spec.breadth


def test_explicit_flags_override_the_tier(run_cli: Callable[..., Any]) -> None:
    result = run_cli(
        "--mock-mode",
        "--name",
        "t",
        "--tier",
        "simple",
        "--breadth",
        "1",
        "--depth",
        "2",
        "--max-queries",
        "7",
        "--max-sources",
        "9",
        "--time",
        "unlimited",
        QUESTION,
        env={"RESEARCH_TIER": "deep"},
    )
    assert result.exit_code == 0, result.output
    config = state_of("t")["config"]
    assert (config["tier"], config["breadth"], config["depth"]) == ("simple", 1, 2)
    assert (config["searches"], config["max_sources"]) == (7, 9)
    assert config["time_budget_minutes"] is None
    assert "Run up to 7 web searches" in prompts_of("t", "research")[0]


@pytest.mark.parametrize(
    ("flags", "searches"),
    [
        (("--breadth", "2"), 2),  # SPEC: up to X searches
        (("--breadth", "2", "--tier", "standard"), TIERS[Tier.STANDARD].searches),
        (("--breadth", "2", "--max-queries", "5"), 5),
        ((), TIERS[Tier.STANDARD].searches),
    ],
)
def test_the_breadth_given_without_a_tier_is_the_searches_per_research_phase(
    run_cli: Callable[..., Any], flags: tuple[str, ...], searches: int
) -> None:
    result = run_cli("--mock-mode", "--name", "q", "--depth", "1", *flags, QUESTION)
    assert result.exit_code == 0, result.output
    assert state_of("q")["config"]["searches"] == searches
    assert f"Run up to {searches} web searches" in prompts_of("q", "research")[0]


def test_the_help_says_the_plans_tier_decides_the_defaults(run_cli: Callable[..., Any]) -> None:
    text = " ".join(run_cli("--help").output.split())
    for option, values in (
        ("--breadth", "simple 2, standard 3, deep 4"),
        ("--depth", "simple 1, standard 3, deep 3"),
        ("--time", "simple 15, standard unlimited, deep unlimited"),
    ):
        after = text.partition(option + " ")[2]
        assert f"by tier: {values}; the plan picks the tier unless --tier does" in after[:400]
    assert "--breadth's when given without --tier" in text


def test_the_environment_sets_the_tier_and_the_caps(run_cli: Callable[..., Any]) -> None:
    result = run_cli(
        "--mock-mode",
        "--name",
        "t",
        QUESTION,
        env={"RESEARCH_TIER": "simple", "RESEARCH_MAX_QUERIES": "4", "RESEARCH_MAX_SOURCES": "6"},
    )
    assert result.exit_code == 0, result.output
    config = state_of("t")["config"]
    assert (config["tier"], config["searches"], config["max_sources"]) == ("simple", 4, 6)


@pytest.mark.parametrize(
    ("question", "tier", "breadth", "depth"),
    [(LOOKUP, "simple", 2, 1), (QUESTION, "standard", 2, 1)],
)
def test_the_plans_class_sets_the_tier_unless_the_user_chose_one(
    run_cli: Callable[..., Any], question: str, tier: str, breadth: int, depth: int
) -> None:
    # The standard case gives its shape explicitly, to stay small; the class still applies.
    shape = () if tier == "simple" else ("--breadth", "2", "--depth", "1")
    result = run_cli("--mock-mode", "--name", "p", "-y", *shape, question)
    assert result.exit_code == 0, result.output
    config = state_of("p")["config"]
    assert (config["tier"], config["tier_source"]) == (tier, "plan")
    assert (config["breadth"], config["depth"]) == (breadth, depth)
    # --breadth X without --tier: up to X searches; else the tier's count.
    assert config["searches"] == (breadth if shape else TIERS[Tier(tier)].searches)
    assert config["tier_reason"].startswith("[simulated]")
    methodology = report_of("p").split("## Methodology", 1)[1]
    assert f"- Complexity tier: {tier} (classified by the plan: " in methodology
    status = run_cli("--status", "--name", "p")
    assert f"tier: {tier} (classified by the plan: [simulated]" in status.output
    (event,) = events_of(Path(".research", "p"), "tier")
    assert (event["tier"], event["source"]) == (tier, "plan")


def test_a_plan_classified_simple_drops_the_iteration_limit_and_gets_a_time_budget(
    run_cli: Callable[..., Any],
) -> None:
    result = run_cli("--mock-mode", "--name", "p", "-y", LOOKUP)
    assert result.exit_code == 0, result.output
    config = state_of("p")["config"]
    assert config["max_iterations"] == 2**2 + 5
    assert config["time_budget_minutes"] == TIERS[Tier.SIMPLE].time_budget_minutes
    assert "Classify the question" in prompts_of("p", "initial_plan")[0]


def test_a_tier_the_user_chose_is_not_reclassified(run_cli: Callable[..., Any]) -> None:
    result = run_cli("--mock-mode", "--name", "p", "--tier", "simple", "--breadth", "1", QUESTION)
    assert result.exit_code == 0, result.output
    config = state_of("p")["config"]
    assert (config["tier"], config["tier_source"]) == ("simple", "user")
    plan_prompt = prompts_of("p", "initial_plan")[0]
    assert "The user chose the `simple` tier" in plan_prompt
    assert events_of(Path(".research", "p"), "tier") == []
    assert "- Complexity tier: simple (chosen by the user)" in report_of("p")


@pytest.mark.parametrize("value", ["medium", ""])
def test_an_unknown_tier_is_a_usage_error(run_cli: Callable[..., Any], value: str) -> None:
    result = run_cli("--mock-mode", "--tier", value, QUESTION)
    assert result.exit_code == 2
    assert "is not a tier" in result.output
    assert not Path(".research").exists()


@pytest.mark.parametrize(
    ("flag", "value"),
    [("--token-budget", "0"), ("--max-cost", "0"), ("--max-cost", "nan"), ("--max-sources", "0")],
)
def test_bad_budgets_and_caps_are_usage_errors(
    run_cli: Callable[..., Any], flag: str, value: str
) -> None:
    result = run_cli("--mock-mode", flag, value, QUESTION)
    assert result.exit_code == 2, result.output
    assert not Path(".research").exists()


# --- the source cap -------------------------------------------------------------------------


def test_notes_listing_more_sources_than_the_cap_are_sent_back_then_cut_never_lost(
    run_cli: Callable[..., Any],
) -> None:
    # The simulated notes list 3 sources; a cap of 2 sends every research call back, and
    # after the last try the notes keep the 2 their findings cite first: no topic is lost.
    result = run_cli(
        "--mock-mode",
        "--name",
        "s",
        "--tier",
        "simple",
        "--breadth",
        "1",
        QUESTION,
        env={"RESEARCH_MAX_SOURCES": "2"},
    )
    assert result.exit_code == 0, result.output
    assert "at most 2 sources (notes that list more are sent back" in prompts_of("s", "research")[0]
    failed = [
        e
        for e in events_of(Path(".research", "s"), "phase_end")
        if e["phase"] == "research" and e["outcome"] == "failed"
    ]
    assert failed
    assert "lists 3 sources, more than the cap of 2" in failed[0]["error"]
    assert "remove 1" in failed[0]["error"]
    recovery = prompts_of("s", "recovery")
    assert recovery and "more than the cap of 2" in recovery[0]
    topics = state_of("s")["plan"]["topics"]
    assert [t["status"] for t in topics] == ["Complete"]
    cuts = events_of(Path(".research", "s"), "sources_dropped")  # each research's last try
    assert cuts and all((e["cap"], len(e["kept"]), len(e["dropped"])) == (2, 2, 1) for e in cuts)
    dropped = cuts[-1]
    slug = Path(dropped["file"]).stem  # the notes are archived when the session ends
    (archived,) = Path(".research/s/archive").glob(f"*.{slug}.progress.md")
    notes = archived.read_text(encoding="utf-8")
    assert "## Sources dropped by the orchestrator" in notes and dropped["dropped"][0] in notes
    assert len(extract_sources(notes)) == 2
    assert "more than the cap of 2: kept the 2 the findings cite first" in result.output
    assert "Exhausted" not in str(topics)


@pytest.mark.parametrize(
    ("cap", "kept"),
    [
        (1, ["https://a.org/one"]),  # the c-only finding goes; b's link leaves the mixed one
        (2, ["https://a.org/one", "https://b.org/two"]),
        (3, ["https://a.org/one", "https://b.org/two", "https://c.org/three"]),
    ],
)
def test_the_cut_keeps_the_sources_the_findings_cite_first(cap: int, kept: list[str]) -> None:
    notes = (
        "# Progress: X\n\n## Findings\n"
        "- Works at -15 C (Source: https://a.org/one)\n"
        "- COP falls to 2 [b](https://b.org/two) per https://a.org/one\n"
        "- Only c says so: https://c.org/three\n\n"
        "## Sources\n- One — https://a.org/one\n- Two — https://b.org/two\n"
        "- Three — https://c.org/three\n- Four — https://d.org/four\n"
    )
    trimmed = keep_cited_sources(notes, cap)
    assert trimmed.kept == kept
    assert [ref.url for ref in extract_sources(trimmed.text)] == kept
    assert trimmed.dropped == [
        u for u in ("https://a.org/one", "https://b.org/two", "https://c.org/three",
                    "https://d.org/four") if u not in kept
    ]  # fmt: skip
    assert trimmed.findings_dropped == (1 if cap < 3 else 0)
    assert "- Works at -15 C (Source: https://a.org/one)" in trimmed.text
    assert "https://d.org/four" in trimmed.text.partition("## Sources dropped")[2]
    assert ("Only c says so" in trimmed.text) is (cap == 3)
    assert "- COP falls to 2 " in trimmed.text  # it cites a kept source


# --- the time budget in seconds -------------------------------------------------------------


def test_research_max_execution_time_s_is_the_time_budget_in_seconds(
    run_cli: Callable[..., Any],
) -> None:
    result = run_cli(
        "--mock-mode",
        "--name",
        "e",
        "--tier",
        "simple",
        QUESTION,
        env={"RESEARCH_MAX_EXECUTION_TIME_S": "90"},
    )
    assert result.exit_code == 0, result.output
    assert state_of("e")["config"]["time_budget_minutes"] == 1.5


def test_both_time_budget_variables_with_different_values_are_a_usage_error(
    run_cli: Callable[..., Any],
) -> None:
    result = run_cli(
        "--mock-mode",
        "--tier",
        "simple",
        QUESTION,
        env={"RESEARCH_MAX_EXECUTION_TIME_S": "90", "RESEARCH_TIME_BUDGET": "2"},
    )
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert "give different time budgets" in lines[0]
    assert not Path(".research").exists()


def test_both_time_budget_variables_agreeing_are_fine(run_cli: Callable[..., Any]) -> None:
    result = run_cli(
        "--mock-mode",
        "--name",
        "e",
        "--tier",
        "simple",
        QUESTION,
        env={"RESEARCH_MAX_EXECUTION_TIME_S": "120", "RESEARCH_TIME_BUDGET": "2"},
    )
    assert result.exit_code == 0, result.output
    assert state_of("e")["config"]["time_budget_minutes"] == 2.0


def test_a_session_cut_by_its_token_budget_continues_with_a_larger_one(
    run_cli: Callable[..., Any],
) -> None:
    args = ("--mock-mode", "--name", "r", "--breadth", "2", "--depth", "2", "-y")
    first = run_cli(*args, "--token-budget", "40000", QUESTION)
    assert first.exit_code == 0, first.output
    assert state_of("r")["progress"]["stop_reason"] == "token_budget"
    again = run_cli("--mock-mode", "--name", "r", "--resume", "--token-budget", "500000")
    assert again.exit_code == 0, again.output
    assert "--token-budget 500000 (was 40000)" in again.output
    state = state_of("r")
    assert state["progress"]["stop_reason"] == "all_topics_done"
    assert "TOKEN BUDGET REACHED" not in report_of("r")
    assert all(t["status"] != "Pending" for t in state["plan"]["topics"])

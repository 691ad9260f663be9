"""Loop control (SPEC §5.2-§5.4, §6): time budget, review decisions, attempts, backoff, circuit
breaker, duplicate topics, novelty and their configuration.

Whole sessions run through the CLI with the scripted simulated agent (on a simulated clock
where time matters); the arithmetic is tested directly.
"""

from __future__ import annotations

import json
import logging
import random
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pytest
from conftest import read_json, read_jsonl
from helpers import events_of

from research.core.budget import TimeBudget, parse_time_budget, synthesis_reserve_minutes
from research.core.errors import PhaseFailed
from research.core.retries import backoff_delay, breaker_reason
from research.core.similarity import topic_similarity
from research.model.artifacts import parse_verdict_file

QUESTION = "Solar power?"
# The simulated agent names depth-0 topics "<first content words of the question>: <facet>".
T1, T1_SLUG = "Solar power: background and definitions", "solar-power-background-and-definitions"
T2, T2_SLUG = "Solar power: measured performance", "solar-power-measured-performance"
T3_SLUG = "solar-power-costs-and-economics"
DECISION_KEYS = {
    "iteration",
    "topic",
    "summary",
    "gaps",
    "shouldContinue",
    "reason",
    "nextSearchTopic",
    "urlToSearch",
    "timeRemainingMinutes",
    "novelty",
    "confidence",  # seed 002 §5.2's ReflectionResponse
    "new_queries",
}
FINAL_PHASES = ("synthesize", "final_review", "revise")
REJECT_ALL = {"action": "reject", "phase": "review"}


@dataclass
class Session:
    """What one CLI run left on disk."""

    result: object
    name: str

    @property
    def dir(self) -> Path:
        return Path(".research") / self.name

    @property
    def state(self) -> dict:
        return read_json(self.dir / "state.json")

    @property
    def decisions(self) -> list[dict]:
        return read_jsonl(self.dir / "decisions.jsonl")

    def events(self, kind: str | None = None) -> list[dict]:
        return events_of(self.dir, kind)

    def prompts(self, phase: str) -> list[str]:
        """The prompt of every call of a phase, in order, from the call logs."""
        logs = [Path(e["log"]) for e in self.events("agent_call") if e["phase"] == phase]
        return [log.read_text().split("--- prompt ---\n", 1)[1] for log in logs]

    @property
    def plan_text(self) -> str:
        return (self.dir / "research_plan.md").read_text()

    @property
    def report(self) -> str:
        return Path("reports", self.name, "report.md").read_text()

    def topic(self, slug: str) -> dict:
        return next(t for t in self.state["plan"]["topics"] if t["slug"] == slug)


@pytest.fixture
def session(run_cli, mock_script, tmp_path: Path):
    """Run a mock session: session(*flags, breadth=, depth=, env=, **script) -> Session."""

    def run(
        *flags: str,
        breadth: int = 2,
        depth: int = 1,
        env: dict | None = None,
        expect_exit: int = 0,
        **script: object,
    ) -> Session:
        script.setdefault("record_file", str(tmp_path / "calls.jsonl"))
        args = [
            "--mock-mode",
            "--mock-script",
            str(mock_script(**script)),
            "--name",
            "lc",
            "--breadth",
            str(breadth),
            "--depth",
            str(depth),
            "--yes",
            *flags,
            QUESTION,
        ]
        result = run_cli(*args, env=env)
        assert result.exit_code == expect_exit, result.stderr
        return Session(result, "lc")

    return run


def recorded_calls(tmp_path: Path) -> list[dict]:
    return read_jsonl(tmp_path / "calls.jsonl")


def ts(event: dict) -> float:
    return datetime.fromisoformat(event["ts"]).timestamp()


def final_cycle_seconds(state: dict) -> float:
    return sum(
        state["usage"]["phases"][phase]["seconds"]
        for phase in FINAL_PHASES
        if phase in state["usage"]["phases"]
    )


# --------------------------------------------------------------- time budget: arithmetic


@pytest.mark.parametrize(
    ("budget", "reserve"),
    [
        (None, 0.0),
        (0.5, 0.15),
        (1, 0.3),
        (2, 0.6),
        (2.5, 0.75),
        (4.9, 1.47),
        (5, 1.5),
        (10, 1.5),
        (120, 1.5),
    ],
)
def test_synthesis_reserve_is_min_of_1_5_and_30_percent(budget, reserve) -> None:
    assert synthesis_reserve_minutes(budget) == pytest.approx(reserve)


@pytest.mark.parametrize(
    ("text", "minutes"),
    [("2", 2.0), ("0.25", 0.25), (" 1.5 ", 1.5), ("unlimited", None), ("UNLIMITED", None)],
)
def test_parse_time_budget(text: str, minutes: float | None) -> None:
    assert parse_time_budget(text) == minutes


@pytest.mark.parametrize("text", ["0", "-1", "soon", "", "inf", "nan", "1e999"])
def test_parse_time_budget_refuses_bad_values(text: str) -> None:
    with pytest.raises(ValueError, match="time budget must be"):
        parse_time_budget(text)


def test_time_budget_caps_call_timeouts_and_keeps_the_reserve() -> None:
    budget = TimeBudget(2.0, elapsed_before=30.0, started=1000.0)  # 30 s used earlier
    assert budget.remaining_seconds(1000.0) == 90.0
    # Research-stage calls end before the 36 s reserve; final-cycle calls have what is left.
    assert budget.call_timeout(1200, 1000.0, final_cycle=False) == 90.0 - 36
    assert budget.call_timeout(30, 1000.0, final_cycle=False) == 30.0
    assert budget.call_timeout(1200, 1000.0, final_cycle=True) == 90.0
    assert budget.call_timeout(1200, 1000.0 + 80, final_cycle=True) == 10.0
    assert not budget.research_time_over(1000.0 + 90 - 37)  # one second before the reserve
    assert budget.research_time_over(1000.0 + 90 - 36.9)
    # Past the budget no call starts (used_up); the timeout never goes below the minimum.
    assert budget.call_timeout(1200, 1200.0, final_cycle=False) == 1.0
    assert budget.call_timeout(1200, 1200.0, final_cycle=True) == 1.0
    assert not budget.used_up(1000.0 + 89.0) and budget.used_up(1000.0 + 89.5)
    assert budget.remaining_minutes(2000.0) == 0.0
    unlimited = TimeBudget(None, elapsed_before=0.0, started=0.0)
    assert unlimited.call_timeout(1200, 1e9, final_cycle=False) == 1200
    assert unlimited.remaining_minutes(1e9) is None
    assert not unlimited.research_time_over(1e9) and not unlimited.used_up(1e9)


# ------------------------------------------------------------ time budget: through the loop


def test_budget_caps_a_call_then_ends_research_and_the_final_cycle_runs(session, tmp_path) -> None:
    # --time 2: 120 s, reserve 36 s. Calls take 5 s; T1's second research would take 500 s.
    run = session(
        "--time",
        "2",
        simulated_clock=True,
        call_seconds=5,
        faults=[REJECT_ALL, {"action": "fail", "phase": "research", "calls": [2], "duration": 500}],
    )
    calls = recorded_calls(tmp_path)
    assert [c["phase"] for c in calls] == [
        "initial_plan",
        "research",
        "review",
        "research",
        *FINAL_PHASES,
    ]
    capped = calls[3]
    assert capped["attempt"] == "2"
    assert capped["timeout"] == 120 - 3 * 5 - 36  # min(--timeout 1200, time left - reserve)
    # The final cycle has the reserve and no more: each call what is left.
    assert [c["timeout"] for c in calls[4:]] == [36.0, 31.0, 26.0]
    state = run.state
    assert state["progress"]["stop_reason"] == "time_budget"
    assert state["progress"]["elapsed_seconds"] <= 120
    assert state["usage"]["recoveries"] == 0  # no recovery rounds once the budget was used up
    assert run.topic(T1_SLUG)["status"] == "In Progress"
    last = run.decisions[-1]
    assert last["shouldContinue"] is False and last["reason"].startswith("time_budget:")
    assert last["timeRemainingMinutes"] == 0.6  # the 36 s reserve, kept for the final cycle
    report = run.report
    assert report.startswith("---\n⚠️ **WARNING: TIME BUDGET REACHED**")
    assert "- Research ended because the time budget ran out" in report
    assert "budget: 2 minutes" in report


@pytest.mark.parametrize("minutes", ["1", "0.75"])
def test_budget_is_checked_before_each_research(session, tmp_path, minutes: str) -> None:
    run = session("--time", minutes, simulated_clock=True, call_seconds=10, faults=[REJECT_ALL])
    reserve = synthesis_reserve_minutes(float(minutes))
    decisions = run.decisions
    assert decisions and decisions[-1]["shouldContinue"] is False
    for decision in decisions:  # nothing else stops this run: the budget decides each time
        # Research goes on while a call can have at least a second before the reserve.
        research_left = (decision["timeRemainingMinutes"] - reserve) * 60
        assert decision["shouldContinue"] == (research_left >= 1 - 0.06)
    researched = [c for c in recorded_calls(tmp_path) if c["phase"] == "research"]
    assert len(researched) == len(decisions)  # no RESEARCH after the stop
    state = run.state
    assert state["progress"]["stop_reason"] == "time_budget"
    assert state["progress"]["elapsed_seconds"] <= float(minutes) * 60
    history = state["progress"]["phase_history"]
    assert set(history[history.index("synthesize") :]) <= set(FINAL_PHASES)


def test_no_review_when_research_used_the_last_of_the_budget(session, tmp_path) -> None:
    # The first research call takes exactly the 79 s of research time left (115 s minus
    # the 36 s reserve): its notes stay unreviewed.
    run = session(
        "--time",
        "2",
        simulated_clock=True,
        call_seconds=5,
        faults=[{"action": "accept", "phase": "research", "calls": [1], "duration": 79}],
    )
    assert [c["phase"] for c in recorded_calls(tmp_path)] == [
        "initial_plan",
        "research",
        *FINAL_PHASES,
    ]
    topic = run.topic(T1_SLUG)
    assert (topic["status"], topic["attempts"]) == ("In Progress", 1)
    (decision,) = run.decisions
    assert decision["summary"] == "Not reviewed: the time budget ran out."
    assert decision["reason"].startswith("time_budget:")
    state = run.state
    assert (
        state["progress"]["stop_reason"] == "time_budget" and state["usage"]["failed_phases"] == 0
    )
    assert state["progress"]["elapsed_seconds"] <= 120


def test_unlimited_budget_records_no_time_remaining(session, tmp_path) -> None:
    run = session(simulated_clock=True, call_seconds=600)
    assert {d["timeRemainingMinutes"] for d in run.decisions} == {None}
    assert {c["timeout"] for c in recorded_calls(tmp_path)} == {1200.0}
    assert run.state["progress"]["stop_reason"] == "all_topics_done"


# ---------------------------------------------------------------- structured review decision


def verdict_text(block: str) -> str:
    return f"# Review\n\nSome prose.\n\n```json\n{block}\n```\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("# Review\n\nNo block here.\n", "no fenced ```json block"),
        (verdict_text('{"verdict": "accepted",'), "not valid JSON"),
        (verdict_text('{"verdict": "maybe", "summary": "s", "gaps": []}'), "verdict: Input"),
        (verdict_text('{"verdict": "accepted", "gaps": []}'), "summary: Field required"),
        (
            verdict_text('{"verdict": "accepted", "summary": 3, "gaps": "none"}'),
            "summary: Input should be a valid string; gaps: Input should be a valid list",
        ),
        (
            verdict_text('{"verdict": "rejected", "summary": "s", "gaps": []}'),
            "says verdict 'rejected'",
        ),
        (verdict_text('["accepted"]'), "block: Input should be"),
    ],
)
def test_invalid_verdict_blocks_are_refused_with_the_validation_error(text, message) -> None:
    with pytest.raises(PhaseFailed, match="^review.accepted.md") as caught:
        parse_verdict_file(text, expected="accepted", filename="review.accepted.md")
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("confidence", "queries", "kept_confidence", "kept_queries"),
    [
        (0.75, ["a", " b ", ""], 0.75, ["a", "b"]),
        (1.5, "not a list", None, []),
        (float("nan"), [1, "x"], None, ["x"]),
        (True, None, None, []),
    ],
)
def test_a_verdicts_confidence_and_new_queries_are_kept_when_sane(
    confidence: object, queries: object, kept_confidence: object, kept_queries: list[str]
) -> None:
    block = json.dumps(
        {
            "verdict": "accepted",
            "summary": "Fine.",
            "gaps": [],
            "confidence": confidence,
            "new_queries": queries,
        }
    )
    verdict = parse_verdict_file(verdict_text(block), expected="accepted", filename="f")
    assert (verdict.confidence, verdict.new_queries) == (kept_confidence, kept_queries)


def test_valid_verdict_block() -> None:
    block = json.dumps(
        {
            "verdict": "rejected",
            "summary": "Thin.",
            "gaps": ["No data"],
            "nextSearchTopic": "data",
            "urlToSearch": None,
            "extra": 1,
        }
    )
    verdict = parse_verdict_file(verdict_text(block), expected="rejected", filename="f")
    assert (verdict.summary, verdict.gaps, verdict.nextSearchTopic) == (
        "Thin.",
        ["No data"],
        "data",
    )


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ("invalid_verdict", "the ```json block is not valid JSON"),
        ("wrong_verdict_fields", "summary: Input should be a valid string"),
        ("no_verdict", "neither review.accepted.md nor review.rejected.md was written"),
        ("both_verdicts", "both review.accepted.md and review.rejected.md were written"),
    ],
)
def test_bad_verdict_is_a_phase_failure_fed_to_recovery(session, action, message) -> None:
    run = session(
        reject_first_review=False, faults=[{"action": action, "phase": "review", "calls": [1]}]
    )
    (failed,) = [e for e in run.events("phase_end") if e["outcome"] == "failed"]
    assert failed["phase"] == "review" and message in failed["error"]
    (recovery,) = run.events("recovery")
    assert recovery["phase"] == "review" and recovery["error"] == failed["error"]
    (recovery_prompt,) = run.prompts("recovery")
    assert failed["error"] in recovery_prompt
    assert failed["error"] in run.prompts("review")[1]  # the retried review is told too
    state = run.state
    assert (state["usage"]["recoveries"], state["usage"]["failed_phases"]) == (1, 0)
    assert state["progress"]["stop_reason"] == "all_topics_done"


def test_phase_history_records_every_phase_that_ran_recoveries_too(session) -> None:
    run = session(
        reject_first_review=False,
        faults=[
            {"action": "no_verdict", "phase": "review", "calls": [1, 3]},
            {"action": "fail", "phase": "research", "calls": [2, 3, 4]},
        ],
    )
    history = run.state["progress"]["phase_history"]
    recoveries = run.state["usage"]["recoveries"]
    assert recoveries >= 3 and history.count("recovery") == recoveries
    started = [e["phase"] for e in run.events("phase_start")]
    assert [p for p in history if p != "recovery"] == started
    first = history.index("recovery")
    assert history[first - 1] == "review" and history[first + 1] == "review"


AREA = re.compile(r"\.research/\.calls/lc/[0-9.]+")


def test_every_call_names_a_scratch_area_of_its_own_a_retry_and_a_recovery_too(
    session,
) -> None:
    """A retry resends its call's prompt and a RECOVERY's is made from the failed call's
    values: each is re-pointed at an area of its own (the earlier one is gone by then; the
    mock agent writes through the paths it is given, so a stale one fails the run)."""
    run = session(
        reject_first_review=False,
        faults=[
            {"action": "fail", "phase": "research", "calls": [1]},  # retried, same prompt
            {"action": "no_verdict", "phase": "review", "calls": [1]},  # a RECOVERY, a retry
        ],
    )
    calls = run.events("agent_call")
    assert [e["phase"] for e in calls].count("recovery") == 1
    named = [
        set(AREA.findall(Path(e["log"]).read_text().split("--- prompt ---\n", 1)[1])) for e in calls
    ]
    assert all(len(areas) == 1 for areas in named), named
    areas = [area for (area,) in named]
    assert len(set(areas)) == len(areas), areas
    assert run.state["progress"]["stop_reason"] == "all_topics_done"


def test_rejection_gaps_and_suggestions_reach_the_topics_next_research(session) -> None:
    run = session()  # the simulated reviewer rejects the first topic's first attempt
    rejection = run.decisions[0]
    assert rejection["topic"] == T1 and rejection["gaps"]
    research_prompts = run.prompts("research")  # T1, T1 again, T2
    assert len(research_prompts) == 3
    retry = research_prompts[1]
    assert f"- Gap: {rejection['gaps'][0]}" in retry
    assert f"- Suggested search: {rejection['nextSearchTopic']}" in retry
    assert f"- Suggested URL: {rejection['urlToSearch']}" in retry
    for other in (research_prompts[0], research_prompts[2]):
        assert rejection["gaps"][0] not in other


# ------------------------------------------------------------------- loop-decision records


def test_one_decision_per_review_with_exactly_the_spec_keys(session) -> None:
    run = session(depth=2)
    decisions = run.decisions
    reviews = [e for e in run.events("phase_end") if e["phase"] == "review"]
    assert len(decisions) == len(reviews) >= 5
    assert all(set(d) == DECISION_KEYS for d in decisions)
    assert [d["iteration"] for d in decisions] == list(range(1, len(decisions) + 1))
    assert all(d["shouldContinue"] for d in decisions[:-1])
    assert all(d["reason"].endswith("open topics remain") for d in decisions[:-1])
    assert run.state["progress"]["last_decision"] == decisions[-1]
    # The simulated review is 0.9 sure of an acceptance, 0.6 of a rejection (with searches).
    assert all(d["confidence"] in (0.6, 0.9) for d in decisions)
    assert all(bool(d["new_queries"]) == (d["confidence"] == 0.6) for d in decisions)
    assert [d["novelty"] for d in decisions] == [
        run.state["progress"]["novelty"][
            next(t["slug"] for t in run.state["plan"]["topics"] if t["name"] == d["topic"])
        ]
        for d in decisions
    ]


NOVELTY_STOP = {
    "reject_first_review": False,
    "propose_duplicate": False,
    "faults": [
        {"action": "redundant", "phase": "research"},
        {
            "action": "propose_subtopic",
            "phase": "research",
            "topic": T1_SLUG,
            "subtopic": "Solar panel recycling",
        },
        {
            "action": "propose_subtopic",
            "phase": "research",
            "topic": T1_SLUG,
            "subtopic": "Grid storage batteries",
        },
    ],
}


@pytest.mark.parametrize(
    ("rule", "flags", "depth", "script"),
    [
        ("all_topics_done", [], 1, {}),
        ("all_open_topics_exhausted", [], 1, {"faults": [REJECT_ALL]}),
        ("iteration_limit", [], 2, {"faults": [REJECT_ALL]}),
        (
            "time_budget",
            ["--time", "1"],
            1,
            {"simulated_clock": True, "call_seconds": 10, "faults": [REJECT_ALL]},
        ),
        ("low_novelty", [], 2, NOVELTY_STOP),
        (
            "circuit_breaker",
            ["--breadth", "3"],
            1,
            {"faults": [{"action": "skip_files", "phase": "research"}]},
        ),
    ],
)
def test_the_decision_that_stops_research_names_the_rule(
    session, rule, flags, depth, script
) -> None:
    run = session(*flags, depth=depth, **script)
    decisions = run.decisions
    assert all(d["shouldContinue"] for d in decisions[:-1])
    last = decisions[-1]
    assert last["shouldContinue"] is False
    assert last["reason"].split(":")[0] == rule
    state = run.state
    assert (
        state["progress"]["stop_reason"] == rule
        and last["reason"] == f"{rule}: {state['progress']['stop_detail']}"
    )
    assert state["progress"]["last_decision"] == last
    (stopped,) = run.events("research_stopped")
    assert stopped["reason"] == rule
    history = state["progress"]["phase_history"]
    assert set(history[history.index("synthesize") :]) <= set(FINAL_PHASES)


# ---------------------------------------------------------------------- per-topic attempts


def test_rejections_and_failed_phases_both_count_towards_exhaustion(session) -> None:
    # T1: rejected, then its research fails (a garbage plan, and again after its one
    # recovery round), then rejected again: three attempts, so it is Exhausted; T2 is
    # completed.
    run = session(
        reject_first_review=False,
        faults=[
            {"action": "reject", "phase": "review", "topic": T1_SLUG},
            {"action": "garbage_plan", "phase": "research", "topic": T1_SLUG, "calls": [2, 3]},
        ],
    )
    state = run.state
    topic = run.topic(T1_SLUG)
    assert (topic["status"], topic["attempts"]) == ("Exhausted", 3)
    assert run.topic(T2_SLUG)["status"] == "Complete"
    assert state["progress"]["exhausted_topics"] == [T1]
    assert state["usage"]["failed_phases"] == 1
    first_rounds = [
        e
        for e in run.events("phase_start")
        if e["phase"] == "research" and e["topic"] == T1_SLUG and e["round"] == 0
    ]
    assert len(first_rounds) == 3  # never a fourth attempt
    t1_decisions = [d for d in run.decisions if d["topic"] == T1]
    assert [d["summary"] == "The research phase failed." for d in t1_decisions] == [
        False,
        True,
        False,
    ]
    assert t1_decisions[1]["novelty"] is None  # no new notes in the failed iteration
    (exhausted,) = run.events("topic_exhausted")
    assert (exhausted["topic"], exhausted["attempts"]) == (T1, 3)
    assert run.plan_text.count("#RETRY_EXHAUSTED") == 1
    assert f"### {T1} (Depth: 0)\n- Status: Exhausted #RETRY_EXHAUSTED" in run.plan_text
    assert f"- {T1} #RETRY_EXHAUSTED" in run.report
    assert state["progress"]["stop_reason"] == "all_topics_done"


# ---------------------------------------------------------------------- transient failures


def test_backoff_schedule_with_a_seeded_rng() -> None:
    rng, twin = random.Random(7), random.Random(7)
    delays = [backoff_delay(attempt, rng) for attempt in range(6)]
    assert delays == [min(2**a + twin.uniform(0, 1), 10) for a in range(6)]
    for attempt, delay in enumerate(delays[:4]):
        assert 2**attempt <= delay <= 2**attempt + 1
    assert delays[4:] == [10.0, 10.0]  # 16+ and 32+ are capped


def test_backoff_cap_applies_whatever_the_jitter() -> None:
    class Top(random.Random):
        def uniform(self, a: float, b: float) -> float:
            return b

    assert backoff_delay(3, Top()) == 9.0
    assert backoff_delay(4, Top()) == 10.0
    assert backoff_delay(0, Top()) == 2.0


def test_transient_failures_are_retried_after_backoff_on_the_loop_clock(session) -> None:
    run = session(
        simulated_clock=True,
        reject_first_review=False,
        faults=[{"action": "fail", "phase": "research", "topic": T2_SLUG, "calls": [1, 2]}],
    )
    retries = run.events("retry")
    assert [r["attempt"] for r in retries] == [1, 2]
    for retry in retries:
        low = 2 ** (retry["attempt"] - 1)
        assert low <= retry["delay"] <= low + 1
    # The loop slept exactly the delay on its (simulated) clock before the next attempt.
    events = run.events()
    for retry in retries:
        after = next(e for e in events[events.index(retry) :] if e["type"] == "agent_call")
        assert ts(after) - ts(retry) == pytest.approx(retry["delay"], abs=0.002)
    state = run.state
    assert (
        state["usage"]["agent_failures"],
        state["usage"]["failed_phases"],
        state["usage"]["recoveries"],
    ) == (2, 0, 0)
    assert (
        state["progress"]["stop_reason"] == "all_topics_done"
    )  # two blips do not open the breaker


def test_three_failed_attempts_make_a_phase_failure(session) -> None:
    run = session(
        breadth=3,
        reject_first_review=False,
        faults=[{"action": "fail", "phase": "research", "topic": T3_SLUG, "calls": [1, 2, 3]}],
    )
    calls = [(e["phase"], e["ok"]) for e in run.events("agent_call")]
    start = calls.index(("research", False))
    assert calls[start : start + 4] == [("research", False)] * 3 + [("recovery", True)]
    assert len(run.events("retry")) == 2
    (failed,) = [e for e in run.events("phase_end") if e["outcome"] == "failed"]
    assert failed["kind"] == "exit_nonzero"
    state = run.state  # the retried phase then succeeded
    assert (state["usage"]["failed_phases"], state["usage"]["recoveries"]) == (0, 1)
    assert state["progress"]["stop_reason"] == "all_topics_done"


def test_agent_error_events_are_not_retried(session) -> None:
    run = session(
        reject_first_review=False,
        faults=[{"action": "agent_error", "phase": "research", "topic": T2_SLUG, "calls": [1]}],
    )
    assert run.events("retry") == []
    assert run.state["progress"]["stop_reason"] == "all_topics_done"


# ------------------------------------------------------------------------ circuit breaker


@pytest.mark.parametrize(
    ("topics_in_a_row", "phases", "failed", "opens"),
    [
        (2, 10, 0, None),
        (3, 10, 0, "phases failed for 3 different topics in a row"),
        (0, 5, 5, None),
        (0, 6, 3, "3 of 6 phases failed even after retries"),
        (0, 6, 2, None),
        (0, 10, 5, "5 of 10 phases failed even after retries"),
        (0, 11, 5, None),
    ],
)
def test_breaker_rules(topics_in_a_row: int, phases: int, failed: int, opens: str | None) -> None:
    assert breaker_reason(topics_in_a_row, phases, failed) == opens


def test_breaker_opens_when_three_different_topics_fail_in_a_row(session) -> None:
    # Every research call "succeeds" but writes nothing: no failed calls, only failed phases.
    run = session(breadth=3, faults=[{"action": "skip_files", "phase": "research"}])
    state = run.state
    assert state["usage"]["agent_failures"] == 0
    assert state["progress"]["stop_reason"] == "circuit_breaker"
    assert state["progress"]["stop_detail"] == "phases failed for 3 different topics in a row"
    # One topic failing is that topic's exhaustion: research moved on twice first.
    topics = [run.topic(slug) for slug in (T1_SLUG, T2_SLUG, T3_SLUG)]
    assert [(t["status"], t["attempts"]) for t in topics] == [
        ("Exhausted", 3),
        ("Exhausted", 3),
        ("In Progress", 1),
    ]
    assert len(run.events("recovery")) == 7  # one recovery round per attempt
    assert "Search capabilities were limited" in run.prompts("synthesize")[0]
    assert run.report.startswith("---\n⚠️ **WARNING: DEGRADED MODE: SEARCHING WAS LIMITED**")
    assert state["final"]["report_fallback"] is False


def test_one_failing_topic_is_exhausted_and_research_moves_on(session) -> None:
    # T1's research fails whatever happens; T2 is healthy (SPEC §5.3, issue 10).
    run = session(
        reject_first_review=False,
        faults=[{"action": "fail", "phase": "research", "topic": T1_SLUG}],
    )
    state = run.state
    assert (run.topic(T1_SLUG)["status"], run.topic(T1_SLUG)["attempts"]) == ("Exhausted", 3)
    assert run.topic(T2_SLUG)["status"] == "Complete"
    assert state["progress"]["stop_reason"] == "all_topics_done"
    # What one topic can cost: 3 attempts x (3 transient calls, one recovery, 3 calls).
    t1_calls = [e for e in run.events("agent_call") if e["phase"] == "research" and not e["ok"]]
    assert len(t1_calls) == 3 * 2 * 3
    assert state["usage"]["recoveries"] == 3
    assert "DEGRADED" not in run.report


def test_a_systemic_failure_opens_the_breaker_and_a_fallback_report_is_written(session) -> None:
    run = session(
        breadth=3,
        faults=[
            {"action": "fail", "phase": phase} for phase in ("research", "recovery", *FINAL_PHASES)
        ],
    )
    state = run.state
    assert state["progress"]["stop_reason"] == "circuit_breaker"
    assert state["progress"]["stop_detail"] == "phases failed for 3 different topics in a row"
    failed = [e for e in run.events("phase_end") if e["outcome"] == "failed"]
    assert [e["phase"] for e in failed] == ["research"] * 2 * 7 + ["synthesize"]  # 2 rounds
    assert state["progress"]["phase_history"][-1] == "synthesize"  # one try under the breaker
    assert state["final"]["report_fallback"] is True
    report = run.report
    assert report.startswith("---\n⚠️ **WARNING: DEGRADED MODE: SEARCHING WAS LIMITED**")
    assert "Synthesis failed; the orchestrator compiled this report" in report


def test_a_healthy_run_never_opens_the_breaker(session) -> None:
    run = session(depth=2)
    state = run.state
    assert state["progress"]["stop_reason"] == "all_topics_done"
    assert (state["usage"]["agent_failures"], state["progress"]["consecutive_failed_phases"]) == (
        0,
        0,
    )
    assert "DEGRADED" not in run.report


# ---------------------------------------------------------------------- duplicate topics

CANDIDATE = "Solar power background"


@pytest.mark.parametrize(
    ("proposer", "threshold", "skipped"),
    [
        (T1_SLUG, None, True),  # default 0.75: similarity exactly at the threshold
        (T1_SLUG, "0.75", True),
        (T1_SLUG, "0.76", False),  # similarity just under the threshold
        (T2_SLUG, None, True),  # duplicates a topic that is already Complete
    ],
)
def test_duplicate_subtopic_at_and_just_under_the_threshold(
    session, caplog, proposer, threshold, skipped
) -> None:
    assert topic_similarity(CANDIDATE, T1) == 0.75
    caplog.set_level(logging.INFO, logger="research")
    flags = ["--duplicate-threshold", threshold] if threshold else []
    run = session(
        *flags,
        depth=2,
        reject_first_review=False,
        propose_duplicate=False,
        faults=[
            {
                "action": "propose_subtopic",
                "phase": "research",
                "topic": proposer,
                "subtopic": CANDIDATE,
            }
        ],
    )
    state = run.state
    topic = next(t for t in state["plan"]["topics"] if t["name"] == CANDIDATE)
    assert topic["parent"] == proposer
    researched = {e["topic"] for e in run.events("phase_start") if e["phase"] == "research"}
    if skipped:
        assert (topic["status"], topic["note"]) == ("Skipped", f'duplicate of "{T1}"')
        assert f'- Status: Skipped (duplicate of "{T1}")' in run.plan_text
        assert CANDIDATE in state["progress"]["skipped_topics"]
        assert topic["slug"] not in researched
        logged = [
            r
            for r in caplog.records
            if r.levelno == logging.INFO
            and CANDIDATE in r.getMessage()
            and "duplicate" in r.getMessage()
        ]
        assert logged
    else:
        assert topic["status"] == "Complete" and topic["slug"] in researched
        assert CANDIDATE not in state["progress"]["skipped_topics"]


# ------------------------------------------------------------------------------ novelty


LOW_NOVELTY_PARENT = {
    "reject_first_review": False,
    "propose_duplicate": False,
    "faults": [
        {"action": "redundant", "phase": "research"},
        {
            "action": "propose_subtopic",
            "phase": "research",
            "topic": T2_SLUG,
            "subtopic": "Solar panel recycling",
        },
    ],
}


def test_low_novelty_skips_the_topics_pending_subtopics(session) -> None:
    run = session(depth=2, **LOW_NOVELTY_PARENT)
    state = run.state
    assert state["progress"]["novelty"][T1_SLUG] == 1.0  # nothing was seen before the first topic
    assert state["progress"]["novelty"][T2_SLUG] < state["config"]["min_novelty"]
    child = next(t for t in state["plan"]["topics"] if t["name"] == "Solar panel recycling")
    assert (child["status"], child["note"]) == ("Skipped", "low novelty")
    assert "Solar panel recycling" in state["progress"]["skipped_topics"]
    assert "- Status: Skipped (low novelty)" in run.plan_text
    (skip,) = run.events("topic_skipped")
    assert (skip["topic"], skip["reason"]) == ("Solar panel recycling", "low_novelty")
    assert state["progress"]["consecutive_low_novelty"] == 1
    assert state["progress"]["stop_reason"] == "all_topics_done"


@pytest.mark.parametrize(
    ("flags", "env"),
    [(["--no-early-termination"], None), ([], {"RESEARCH_EARLY_TERMINATION": "false"})],
)
def test_early_termination_can_be_switched_off(session, flags, env) -> None:
    run = session(*flags, depth=2, env=env, **LOW_NOVELTY_PARENT)
    state = run.state
    assert state["config"]["early_termination"] is False
    assert (
        state["progress"]["novelty"][T2_SLUG] < state["config"]["min_novelty"]
    )  # still measured and recorded
    child = next(t for t in state["plan"]["topics"] if t["name"] == "Solar panel recycling")
    assert child["status"] == "Complete"
    assert state["progress"]["skipped_topics"] == [] and run.events("topic_skipped") == []


def test_breadth_consecutive_low_novelty_topics_end_research(session) -> None:
    run = session(depth=2, **NOVELTY_STOP)
    state = run.state
    assert state["progress"]["stop_reason"] == "low_novelty"
    novelty = [d["novelty"] for d in run.decisions]
    assert novelty[0] == 1.0 and all(n < 0.15 for n in novelty[1:]) and len(novelty) == 2 + 1
    assert state["progress"]["consecutive_low_novelty"] == 2  # = breadth
    pending = [t["name"] for t in state["plan"]["topics"] if t["status"] == "Pending"]
    assert pending == ["Grid storage batteries"]  # research ended before it
    assert run.report.startswith("---\n⚠️ **WARNING: RESEARCH STOPPED EARLY**")


def test_the_novelty_stop_counts_topics_not_attempts(session) -> None:
    # T2 brings little new and is rejected once: its two attempts are one topic, so
    # research goes on to the next topic instead of stopping on "2 consecutive topics".
    faults = [
        *NOVELTY_STOP["faults"],
        {"action": "reject", "phase": "review", "topic": T2_SLUG, "calls": [1]},
    ]
    run = session(depth=2, **{**NOVELTY_STOP, "faults": faults})
    state = run.state
    topics = [d["topic"] for d in run.decisions]
    assert topics == [T1, T2, T2, "Solar panel recycling"]
    assert all(d["novelty"] < 0.15 for d in run.decisions[1:])
    assert state["progress"]["stop_reason"] == "low_novelty"
    assert state["progress"]["consecutive_low_novelty"] == 2
    pending = [t["name"] for t in state["plan"]["topics"] if t["status"] == "Pending"]
    assert pending == ["Grid storage batteries"]


def test_novelty_compares_with_earlier_topics_not_the_topics_own_earlier_notes(session) -> None:
    # Every research writes the same redundant notes; the first topic is rejected once.
    run = session(faults=[{"action": "redundant", "phase": "research"}])
    decisions = run.decisions
    assert [d["topic"] for d in decisions] == [T1, T1, T2]
    assert decisions[0]["novelty"] == 1.0
    assert decisions[1]["novelty"] == 1.0  # its own first notes are not "seen"
    assert decisions[2]["novelty"] < 0.15  # T1's notes are
    assert run.state["progress"]["consecutive_low_novelty"] == 1


# ------------------------------------------------------------------------ configuration


ENVIRONMENT = {
    "RESEARCH_MIN_NOVELTY": "0.9",
    "RESEARCH_DUPLICATE_THRESHOLD": "0.5",
    "RESEARCH_EARLY_TERMINATION": "false",
    "RESEARCH_TIME_BUDGET": "5",
    "RESEARCH_TIMEOUT": "300",
    "RESEARCH_MAX_ITERS": "40",
}
FLAGS = [
    "--min-novelty",
    "0.1",
    "--duplicate-threshold",
    "0.8",
    "--early-termination",
    "--time",
    "2.5",
    "--timeout",
    "60",
    "--max-iterations",
    "30",
]


@pytest.mark.parametrize(
    ("flags", "env", "expected"),
    [
        (
            [],
            {},
            {
                "min_novelty": 0.15,
                "duplicate_threshold": 0.75,
                "early_termination": True,
                "time_budget_minutes": None,
                "timeout": 1200.0,
                "max_iterations": 6,
            },
        ),
        (
            [],
            ENVIRONMENT,
            {
                "min_novelty": 0.9,
                "duplicate_threshold": 0.5,
                "early_termination": False,
                "time_budget_minutes": 5.0,
                "timeout": 300.0,
                "max_iterations": 40,
            },
        ),
        (
            FLAGS,
            ENVIRONMENT,
            {
                "min_novelty": 0.1,
                "duplicate_threshold": 0.8,
                "early_termination": True,
                "time_budget_minutes": 2.5,
                "timeout": 60.0,
                "max_iterations": 30,
            },
        ),
        (
            ["--time", "unlimited", "--no-early-termination"],
            {"RESEARCH_TIME_BUDGET": "5", "RESEARCH_EARLY_TERMINATION": "1"},
            {"time_budget_minutes": None, "early_termination": False},
        ),
    ],
    ids=["defaults", "environment", "flags-beat-environment", "unlimited-and-switch-off"],
)
def test_a_flag_beats_the_environment(session, flags, env, expected) -> None:
    state = session(*flags, breadth=1, env=env).state
    assert {field: state["config"][field] for field in expected} == expected


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("RESEARCH_MIN_NOVELTY", "abc"),
        ("RESEARCH_MIN_NOVELTY", "1.5"),
        ("RESEARCH_DUPLICATE_THRESHOLD", "-0.1"),
        ("RESEARCH_EARLY_TERMINATION", "maybe"),
        ("RESEARCH_TIME_BUDGET", "soon"),
        ("RESEARCH_TIME_BUDGET", "0"),
        ("RESEARCH_TIMEOUT", "0"),
        ("RESEARCH_MAX_ITERS", "many"),
    ],
)
def test_bad_environment_values_exit_2_with_one_clear_line(
    run_cli, variable, value, isolated: Path
) -> None:
    result = run_cli(
        "--mock-mode",
        "--name",
        "bad",
        "--breadth",
        "1",
        "--depth",
        "1",
        QUESTION,
        env={variable: value},
    )
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and variable in errors[0], result.stderr
    assert "Traceback" not in result.stderr
    assert list(isolated.iterdir()) == []

"""VERIFY through the CLI with the command agent (--agent-cmd, the scripted fake agent CLI)
against a local HTTP server playing the web: the batch, the answers, what the reader is
told, --judge off|flagged, and judges that lie, contradict, fail or write garbage.

The fake agent answers VERIFY as FAKE_OPENCODE_JUDGE says (tests/fake_agents/
fake_opencode.py): "agree" (default), "says", "opposite", "lie", "garbage".
"""

# ruff: noqa: F811  (the fixtures imported from test_source_check are arguments here)

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import read_json, read_jsonl
from test_source_check import (  # noqa: F401  (fixtures)
    REPORT,
    SESSION,
    citing_agent,
    prompts_of,
    run_agent,
    site,
)

from research.core.retries import MAX_TRANSIENT_ATTEMPTS

COSTS = "Running costs fell by 45% compared with oil boilers"
"""The finding whose figure the page gives as 31%: the rules flag it."""


def judged_run(run_cli, monkeypatch: pytest.MonkeyPatch, how: str | None, *extra: str):
    if how is not None:
        monkeypatch.setenv("FAKE_OPENCODE_JUDGE", how)
    result = run_agent(run_cli, "--allow-private-sources", *extra)
    assert result.exit_code == 0, result.output
    return result


def verification() -> dict:
    return read_json(SESSION / "verification.json")


def appendix_line(report: str, words: str) -> str:
    appendix = report.split("### Sentences that could not be verified", 1)[1]
    (line,) = [x for x in appendix.splitlines() if words in x]
    return line


def test_the_judge_gets_a_batch_with_passages_and_its_answers_are_kept(
    run_cli, citing_agent, monkeypatch
):
    judged_run(run_cli, monkeypatch, None)
    # One VERIFY call, through the same agent and the review model, after FINAL REVIEW's
    # source check: each sentence is sent once, however often the report is checked.
    (prompt,) = prompts_of(citing_agent, "verify")
    assert prompt.startswith("# Phase: VERIFY")
    # The call works in a scratch copy of the session (engine/staging.py): the prompt names
    # the copy's batch, and its answers are taken into the session after the call.
    assert re.search(r"`\.research/\.calls/demo/[0-9.]+/judge\.batch\.json`", prompt)
    calls = [c for c in read_jsonl(citing_agent) if c["phase"] == "verify"]
    assert "--model fake-review-model" in " ".join(calls[0]["argv"])  # the review model
    found = verification()
    judge = found["judge"]
    assert judge["calls"] == 1 and judge["failed"] == 0 and judge["unanswered"] == []
    # The dead page's sentence was never sent; the three with a readable page were.
    assert len(judge["judgements"]) == 3
    assert not [key for key in judge["judgements"] if "/gone" in key]
    # The batch the agent read (archived at the end): passages verbatim from the snapshot.
    archived = sorted((SESSION / "archive").glob("*.judge.batch.json"))
    batch = json.loads(archived[-1].read_text(encoding="utf-8"))
    (item,) = [i for i in batch["items"] if i["sentence"].startswith(COSTS)]
    assert item["rules"] == "unsupported" and "45% not on the page" in item["reason"]
    assert any(
        "Running costs fell by 31% compared with oil boilers." in p for p in item["passages"]
    )
    assert set(batch) == {"items"}  # where the answers go is the prompt's to say
    # Its call counts like any other (a command agent reports no tokens; the OpenCode
    # test checks those).
    assert read_json(SESSION / "state.json")["usage"]["phases"]["verify"]["calls"] == 1
    # The reader is told who decided.
    report = REPORT.read_text(encoding="utf-8")
    assert "- Decided by: the rules for " in report and "0 judgements voided" in report
    assert "unsupported: rules: 45% not on the page" in appendix_line(report, "45%")


def test_a_lying_judge_is_voided_and_changes_nothing(run_cli, citing_agent, monkeypatch):
    judged_run(run_cli, monkeypatch, "lie")  # says everything is said, quoting no page
    summary = verification()["summary"]
    assert summary["judge_voided"] == 3 and summary["decided_by_judge"] == 0
    assert summary["unsupported"] == 1 and summary["supported"] == 2
    report = REPORT.read_text(encoding="utf-8")
    assert re.search(re.escape(COSTS) + r" \[\d\]\u2020", report)
    assert "unsupported: rules: 45% not on the page" in appendix_line(report, "45%")
    assert "3 judgements voided (its quote was not on the page" in report


def test_a_judge_quoting_the_page_cannot_clear_a_figure_the_page_lacks(
    run_cli, citing_agent, monkeypatch
):
    judged_run(run_cli, monkeypatch, "says")  # says everything is said, quoting the page
    found = verification()
    (costs,) = [c for c in found["report"] if c["check"]["claim"].startswith(COSTS)]
    assert costs["check"]["support"] == "unsupported" and costs["decided_by"] == "rules"
    assert found["summary"]["decided_by_judge"] == 2  # the two supported sentences


def test_a_contradicting_judge_flags_supported_sentences_with_its_quote(
    run_cli, citing_agent, monkeypatch
):
    judged_run(run_cli, monkeypatch, "opposite")
    summary = verification()["summary"]
    assert summary["supported"] == 0 and summary["unsupported"] == 3
    assert summary["decided_by_judge"] == 3 and summary["judge_voided"] == 0
    report = REPORT.read_text(encoding="utf-8")
    line = appendix_line(report, "Peak winter demand")
    assert 'unsupported: judge: the page says the opposite: "' in line
    assert re.search(r"Peak winter demand rose by 4\.2 gigawatts in 2024 \[\d\]\u2020", report)
    html = (REPORT.parent / "report.html").read_text(encoding="utf-8")
    assert "\u2014 judge: the page says the opposite</p><blockquote>" in html
    # The final reviewer is told what the judge found, with its quote, before it reviews.
    final = prompts_of(citing_agent, "final_review")[0]
    assert 'judge: the page says the opposite: "' in final


@pytest.mark.parametrize("how", ["garbage", "exit1"])
def test_a_failed_or_malformed_judge_call_falls_back_to_the_rules(
    run_cli, citing_agent, monkeypatch, tmp_path: Path, how: str
):
    if how == "exit1":
        script = tmp_path / "script.json"
        script.write_text(json.dumps({"verify": ["exit1", "exit1", "exit1"]}))
        monkeypatch.setenv("FAKE_OPENCODE_SCRIPT", str(script))
        judged_run(run_cli, monkeypatch, None)
    else:
        judged_run(run_cli, monkeypatch, how)
    found = verification()
    assert found["judge"]["failed"] == 1 and len(found["judge"]["unanswered"]) == 3
    summary = found["summary"]
    assert summary["decided_by_judge"] == 0 and summary["decided_by_rules"] == 4
    assert summary["unsupported"] == 1 and summary["supported"] == 2
    report = REPORT.read_text(encoding="utf-8")
    assert "keep the rules' verdicts (1 did)" in report
    assert "unsupported: rules: 45% not on the page" in appendix_line(report, "45%")
    # Not sent again at the next check of the report: one VERIFY call in all (an agent
    # exiting 1 is retried as a transient failure, like any call).
    assert found["judge"]["calls"] == 1
    tries = 1 if how == "garbage" else MAX_TRANSIENT_ATTEMPTS
    assert len(prompts_of(citing_agent, "verify")) == tries


def test_judge_off_makes_no_call(run_cli, citing_agent, monkeypatch):
    judged_run(run_cli, monkeypatch, None, "--judge", "off")
    assert prompts_of(citing_agent, "verify") == []
    report = REPORT.read_text(encoding="utf-8")
    assert "the rules alone, for all 4 checked sentences (the judge was off" in report


def test_judge_flagged_sends_only_what_the_rules_flagged(run_cli, citing_agent, monkeypatch):
    monkeypatch.setenv("RESEARCH_JUDGE", "flagged")
    judged_run(run_cli, monkeypatch, None)
    judgements = verification()["judge"]["judgements"]
    assert len(judgements) == 1 and COSTS in next(iter(judgements))


def test_the_judge_is_not_asked_once_the_token_budget_is_spent(run_cli):
    """Judge calls count against the budgets: with the token budget used up in the final
    cycle, no VERIFY call starts, the rules decide, and the Methodology says why."""
    result = run_cli(
        "--mock-mode",
        "--verify-sources",
        "--name",
        "demo",
        "--breadth",
        "2",
        "--depth",
        "1",
        "--token-budget",
        "8000",
        "How fast is zstd compression?",
    )
    assert result.exit_code == 0, result.output
    found = verification()
    assert found["judge"]["calls"] == 0 and found["judge"]["skipped"] == (
        "the token budget is used up"
    )
    assert found["summary"]["decided_by_judge"] == 0
    report = REPORT.read_text(encoding="utf-8")
    assert "not asked about some sentences: the token budget is used up" in report

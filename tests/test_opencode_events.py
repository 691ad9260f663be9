"""Reading OpenCode's JSON Lines events, step by step, without a process.

`tests/test_agents_process.py` runs the real agent class against a fake `opencode`; these
tests pin the pure steps `interpret_opencode` is made of on event shapes the fake does not
produce (malformed lines, odd types, a `done` event listing rejections).
"""

from __future__ import annotations

import json

import pytest

from research.agents.base import Usage, checked_usage
from research.agents.opencode import interpret_opencode, read_events, stderr_rejections
from research.agents.process import ProcessResult


def lines(*events: object) -> str:
    return "\n".join(e if isinstance(e, str) else json.dumps(e) for e in events) + "\n"


def test_only_json_object_lines_count_as_events():
    summary = read_events(
        lines(
            "plain text",
            "{not json",
            [1, 2],
            '"a string"',
            {"type": "text", "part": {"text": "  kept  "}},
            {"type": "text", "part": {"text": "   "}},
            {"type": "text", "part": "not an object"},
            {"type": "unknown"},
        )
    )
    assert summary.events == 4
    assert summary.texts == ["kept"]
    assert summary.problems == []


def test_tokens_and_costs_of_odd_types_are_skipped():
    summary = read_events(
        lines(
            {"type": "step_finish", "part": {"tokens": {"input": 3, "output": True}, "cost": "1"}},
            {"type": "step_finish", "part": {"tokens": "many", "cost": False}},
            {"type": "step_finish", "part": {"tokens": {"cache": {"read": 2.9}}, "cost": 0.5}},
        )
    )
    assert summary.tokens == {"input": 3, "cache_read": 2}
    assert summary.cost == 0.5
    assert summary.summed("input", "cache_read", "cache_write") == 5
    assert summary.summed("output", "reasoning") == 0


def test_without_token_events_the_sums_are_unknown_and_the_notes_short():
    summary = read_events(lines({"type": "text", "part": {"text": "hi"}}))
    assert summary.summed("input") is None
    assert summary.notes() == ("events: 1",)


def test_the_notes_give_the_whole_token_breakdown():
    summary = read_events(lines({"type": "step_finish", "part": {"tokens": {"output": 7}}}))
    assert summary.notes() == (
        "events: 1",
        "token breakdown: input 0, output 7, reasoning 0, cache read 0, cache write 0",
    )


@pytest.mark.parametrize(
    ("event", "problem"),
    [
        ({"type": "error", "error": {"name": "E", "data": {"message": "quota"}}}, "quota"),
        ({"type": "error", "message": "plain"}, "plain"),
        ({"type": "error"}, "error event without a message"),
        ({"type": "done", "rejected": ["bash", "edit"]}, "permission rejected: bash, edit"),
        (
            {
                "type": "tool_use",
                "part": {
                    "tool": "write",
                    "state": {"status": "error", "error": "rejected permission "},
                },
            },
            "write: rejected permission",
        ),
    ],
)
def test_problems_come_from_error_done_and_rejected_tool_events(event, problem):
    assert read_events(lines(event)).problems == [problem]


@pytest.mark.parametrize(
    "event",
    [
        {"type": "done", "rejected": []},
        {"type": "done", "rejected": "bash"},
        {"type": "tool_use", "part": {"state": {"status": "error", "error": "disk full"}}},
        {"type": "tool_use", "part": {"state": {"status": "done", "error": "rejected permission"}}},
    ],
)
def test_other_done_and_tool_events_are_not_problems(event):
    assert read_events(lines(event)).problems == []


def test_stderr_rejections_ignore_colour_codes_and_other_lines():
    stderr = "starting\n\x1b[33m! permission requested: bash (rm *); auto-rejecting\x1b[0m\n"
    assert stderr_rejections(stderr) == ["permission rejected: bash (rm *)"]
    assert stderr_rejections("permission requested: bash\n") == []


def test_without_events_the_output_is_the_raw_stdout_and_problems_are_deduplicated():
    rejected = "! permission requested: bash (x); auto-rejecting\n"
    proc = ProcessResult(0, "  plain answer  \n", rejected * 2, 1.0, False)
    outcome = interpret_opencode(proc)
    assert outcome.output == "plain answer"
    assert outcome.error == "permission rejected: bash (x)"
    assert (outcome.input_tokens, outcome.output_tokens, outcome.cost) == (None, None, None)
    assert outcome.notes == ("events: 0",)


def test_checked_usage_keeps_finite_non_negative_figures_and_says_what_it_dropped():
    kept = checked_usage(10, 0, 0.5)
    assert (kept.input_tokens, kept.output_tokens, kept.cost, kept.dropped) == (10, 0, 0.5, ())
    assert checked_usage(None, None, None) == Usage()
    bad = checked_usage(float("inf"), -3, float("nan"))
    assert (bad.input_tokens, bad.output_tokens, bad.cost) == (None, None, None)
    assert bad.dropped == (
        "the agent reported input tokens inf; the figure was dropped",
        "the agent reported output tokens -3; the figure was dropped",
        "the agent reported cost nan; the figure was dropped",
    )
    assert checked_usage(10**400, True, "1").dropped[0].startswith("the agent reported input")
    assert len(checked_usage(10**400, True, "1").dropped) == 3


def test_an_infinite_or_huge_figure_reaches_the_check_instead_of_raising():
    summary = read_events(
        '{"type": "step_finish", "part": {"tokens": {"input": 1e400, "output": NaN}, '
        '"cost": 1' + "0" * 400 + "}}\n"
    )
    assert summary.tokens["input"] == float("inf")
    assert summary.cost == float("inf")
    assert summary.summed("output") != summary.summed("output")  # NaN

"""The display: plain lines off a terminal, the live view on one, and the completion summary."""

from __future__ import annotations

import io
import os
import re
import select
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, read_json
from helpers import events_of, new_state, run_demo, wait_until

from research.core.errors import Interrupted
from research.model.plan import Plan, Topic, TopicStatus
from research.model.state import RWRState
from research.views.display import (
    LiveView,
    PlainDisplay,
    SessionDisplay,
    describe,
    format_duration,
    plain,
    topic_lines,
)
from research.workspace.events import EventLog

ESCAPE = "\x1b"
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
TIMESTAMPED = re.compile(r"^\d\d:\d\d:\d\d \S")


class FakeTerminal(io.StringIO):
    """A stream that says it is a terminal, so the live view is chosen."""

    def isatty(self) -> bool:
        return True


def make_state(topics: int = 3) -> RWRState:
    plan = Plan(
        topic="Q",
        breadth=3,
        depth=2,
        topics=[Topic(name=f"Topic {i}", slug=f"topic-{i}", depth=0) for i in range(topics)],
    )
    return new_state(plan, name="demo", max_iterations=14, timeout=60.0)


def small_run(run_cli: Callable[..., Any], script: Path) -> Any:
    """The mock session `demo` (breadth 1, depth 1, --quiet) with the faults of `script`."""
    return run_cli(
        "--mock-mode",
        "--mock-script",
        str(script),
        "--name",
        "demo",
        "--breadth",
        "1",
        "--depth",
        "1",
        "--quiet",
        "Q?",
    )


# ------------------------------------------------------------------ off a terminal


def test_a_run_off_a_terminal_prints_no_escape_codes_even_when_colour_is_forced(
    run_cli: Callable[..., Any],
) -> None:
    result = run_demo(
        run_cli, env={"FORCE_COLOR": "1", "TTY_COMPATIBLE": "1", "TERM": "xterm-256color"}
    )
    assert result.exit_code == 0, result.stderr
    for text in (result.stdout, result.stderr):
        assert ESCAPE not in text
        assert not CONTROL.search(text.replace("\n", ""))
    progress = result.stderr.splitlines()
    assert progress and all(TIMESTAMPED.match(line) for line in progress)
    assert any("RESEARCH" in line for line in progress)
    assert any("decision: stop" in line for line in progress)


def test_quiet_prints_only_the_summary(run_cli: Callable[..., Any]) -> None:
    result = run_demo(run_cli, "--quiet")
    assert result.exit_code == 0
    assert result.stderr == ""
    assert result.stdout.startswith("Research session 'demo' complete\n")


def test_summary_figures_come_from_the_session_files(run_cli: Callable[..., Any]) -> None:
    result = run_demo(run_cli, "--quiet")
    assert result.exit_code == 0, result.stderr
    state = read_json(Path(".research/demo/state.json"))
    sources = read_json(Path(".research/demo/sources.json"))["sources"]
    audit = read_json(Path(".research/demo/citations.json"))
    rows = dict(line.strip().split(": ", 1) for line in result.stdout.splitlines()[1:])
    complete = sum(t["status"] == "Complete" for t in state["plan"]["topics"])
    assert rows["topics"].startswith(f"{complete} complete")
    assert (
        rows["iterations"]
        == f"{state['progress']['iteration']} of {state['config']['max_iterations']}"
    )
    assert rows["sources"] == f"{len(sources)} found, {len(set(audit['cited']))} cited"
    assert rows["citations"] == (
        f"{len(set(audit['cited']))} ids checked, {len(audit['unknown'])} unknown in the report"
    )
    assert rows["agent calls"].startswith(f"{state['usage']['agent_calls']} (")
    assert rows["research ended"] == f"{state['progress']['stop_detail']} (all_topics_done)"
    assert rows["report"] == "reports/demo/report.md"
    assert rows["web page"] == "reports/demo/report.html"
    assert "WARNING" not in result.stdout


def test_summary_warns_when_a_limit_ended_research(
    run_cli: Callable[..., Any],
    mock_script: Callable[..., Path],
) -> None:
    result = small_run(run_cli, mock_script(faults=[{"action": "reject", "phase": "review"}]))
    assert result.exit_code == 0, result.stderr
    state = read_json(Path(".research/demo/state.json"))
    assert state["progress"]["stop_reason"] == "all_open_topics_exhausted"
    assert f"WARNING: research ended early: {state['progress']['stop_detail']}" in result.stdout
    exhausted = [t["name"] for t in state["plan"]["topics"] if t["status"] == "Exhausted"]
    assert f"exhausted: {exhausted[0]} #RETRY_EXHAUSTED" in result.stdout


def test_summary_reports_unknown_citation_ids_the_orchestrator_removed(
    run_cli: Callable[..., Any],
    mock_script: Callable[..., Path],
) -> None:
    script = mock_script(
        faults=[
            {"action": "fabricated_citation", "phase": "synthesize"},
            {"action": "fabricated_citation", "phase": "revise"},
        ]
    )
    result = small_run(run_cli, script)
    assert result.exit_code == 0, result.stderr
    removed = read_json(Path(".research/demo/state.json"))["final"]["citation_ids_removed"]
    assert removed
    ids = ", ".join(f"[{i}]" for i in removed)
    assert f"0 unknown in the report; removed unknown {ids}" in result.stdout


def test_plain_lines_drop_escape_sequences_from_agent_text() -> None:
    stream = io.StringIO()
    display = PlainDisplay(make_state(), stream)
    display(
        {
            "type": "phase_end",
            "outcome": "failed",
            "iteration": 1,
            "error": "the agent exited with code 1: \x1b[31mboom\x1b[0m\x07 \x9b2J",
        }
    )
    display({"type": "warning", "iteration": 1, "message": "line one\nline two"})
    text = stream.getvalue()
    assert ESCAPE not in text and "\x07" not in text and "\x9b" not in text
    assert "boom" in text
    assert len(text.splitlines()) == 2


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0s"),
        (59.9, "59s"),
        (60, "1m 00s"),
        (3599, "59m 59s"),
        (3600, "1h 00m"),
        (7384, "2h 03m"),
        (-5, "0s"),
    ],
)
def test_format_duration(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text


def test_plain_removes_control_characters_and_line_breaks() -> None:
    assert plain("a\x1b[1mb\x1b[0m\nc\td\x00") == "a[1mb[0m c d"


def test_describe_names_the_topic_of_a_phase() -> None:
    state = make_state()
    line = describe(
        state, {"type": "phase_start", "phase": "research", "topic": "topic-1", "round": 0}
    )
    assert line == "[0/14] RESEARCH Topic 1"
    assert describe(state, {"type": "phase_end", "outcome": "ok"}) is None


@pytest.mark.parametrize(
    ("event", "line"),
    [
        ({"type": "phase_start", "phase": "review", "topic": "topic-0", "round": 2},
         "[0/14] REVIEW Topic 0 (retry 2)"),
        ({"type": "phase_start", "phase": "synthesize"}, "[0/14] SYNTHESIZE"),
        ({"type": "phase_end", "outcome": "failed", "error": "boom"}, "[0/14]   failed: boom"),
        # no usage reported: not "unknown" on every call (PlainDisplay says so once)
        ({"type": "agent_call", "ok": False, "duration": 1.25},
         "[0/14]   agent call: failed in 1.2s"),
        ({"type": "agent_call", "ok": True, "duration": 2.0, "input_tokens": 1200},
         "[0/14]   agent call: ok in 2.0s; tokens 1,200 in / 0 out; cost unknown"),
        ({"type": "retry", "delay": 2, "failure": "timeout"},
         "[0/14]   retrying after 2.0s (timeout)"),
        ({"type": "recovery", "phase": "research"}, "[0/14] RECOVERY of RESEARCH"),
        ({"type": "topic_skipped", "topic": "X", "reason": "duplicate"},
         "[0/14]   skipped 'X' (duplicate)"),
        ({"type": "topic_rejected", "topic": "X", "summary": "thin\nmore"},
         "[0/14]   review rejected 'X': thin"),
        ({"type": "report_rejected"}, "final review sent the report to REVISE: (no summary)"),
        ({"type": "topic_exhausted", "topic": "X"}, "[0/14]   gave up on 'X' #RETRY_EXHAUSTED"),
        ({"type": "decision", "shouldContinue": True}, "[0/14]   decision: continue"),
        ({"type": "decision", "shouldContinue": False, "reason": "budget"},
         "[0/14]   decision: stop: budget"),
        ({"type": "source_check", "topic": "gone", "sources": 3, "unavailable": 1,
          "doubtful": 0, "findings": 4},
         "[0/14]   sources of 'gone': 3 cited, 1 unreadable; 0 of 4 findings not (fully) "
         "on their page, 0 could not be checked"),
        ({"type": "source_check", "topic": "gone", "sources": 3, "unavailable": 3,
          "not_checked": 3, "doubtful": 0, "findings": 4, "unchecked": 4},
         "[0/14]   sources of 'gone': 3 cited, 0 unreadable, 3 not checked; 0 of 4 findings "
         "not (fully) on their page, 4 could not be checked"),
        ({"type": "sources_checking", "count": 3}, "[0/14]   checking 3 sources\u2026"),
        ({"type": "web_unreachable", "message": "no web"}, "warning: no web"),
        ({"type": "report_check", "stage": "final", "claims": 5, "supported": 2, "weak": 1,
          "unsupported": 1, "unverifiable": 1},
         "source check of the report (final): 5 cited sentences, 2 supported, 1 weak, "
         "1 unsupported, 1 unverifiable"),
        ({"type": "research_stopped", "detail": "time"}, "research ended: time"),
        ({"type": "lock_taken", "takeover": True, "reason": "stale"},
         "took over the session lock (stale)"),
        ({"type": "lock_taken"}, None),
        ({"type": "warning", "message": "careful"}, "warning: careful"),
        ({"type": "error"}, "error: None"),
        ({"type": "state_saved"}, None),
    ],
)  # fmt: skip
def test_describe_words_each_notable_event(event: dict[str, Any], line: str | None) -> None:
    assert describe(make_state(), event) == line


# ------------------------------------------------------------------ the live view


def rendered(view: LiveView, width: int = 100) -> str:
    from rich.console import Console

    console = Console(file=io.StringIO(), width=width, record=True, force_terminal=False)
    console.print(view)
    return console.export_text()


def test_live_view_shows_phase_topic_iteration_counts_and_calls() -> None:
    state = make_state()
    state.progress.iteration = 2
    state.usage.agent_calls, state.usage.agent_failures = 5, 1
    state.config.time_budget_minutes = 30
    state.plan.topics[0].status = TopicStatus.COMPLETE
    view = LiveView(state)
    view({"type": "phase_start", "phase": "review", "topic": "topic-1", "round": 0})
    text = rendered(view)
    assert "REVIEW  Topic 1" in text
    assert "iteration 2/14" in text
    assert "agent call running" in text
    assert "agent calls 5 (1 failed)" in text
    assert "left of 30m 00s" in text
    assert "topics: 2 pending, 1 complete" in text
    assert "> - Topic 1 [Pending]" in text
    view({"type": "agent_call", "ok": True, "duration": 1.0, "phase": "review"})
    assert "agent call running" not in rendered(view)


def test_live_view_reads_the_plan_afresh_each_time() -> None:
    state = make_state(topics=1)
    view = LiveView(state)
    assert "Topic 0" in rendered(view)
    state.plan = Plan(
        topic="Q", breadth=3, depth=2, topics=[Topic(name="Replaced", slug="replaced", depth=0)]
    )
    text = rendered(view)
    assert "Replaced" in text and "Topic 0" not in text


def test_live_view_keeps_showing_when_the_state_is_half_updated() -> None:
    state = make_state()
    view = LiveView(state)
    first = rendered(view)
    state.plan = None  # type: ignore[assignment]  # what a torn read could look like
    assert rendered(view) == first


def test_a_long_topic_tree_is_windowed_around_the_current_topic() -> None:
    plan = Plan(
        topic="Q",
        breadth=10,
        depth=1,
        topics=[Topic(name=f"T{i}", slug=f"t{i}", depth=0) for i in range(10)],
    )
    lines = [line for line, _, _ in topic_lines(plan, current="t7", max_rows=4)]
    assert lines[0].strip() == "… 5 more above"
    assert lines[1:5] == ["- T5 [Pending]", "- T6 [Pending]", "- T7 [Pending]", "- T8 [Pending]"]
    assert lines[5].strip() == "… 1 more below"


def live_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t is not threading.current_thread()}


def test_live_display_on_a_terminal_starts_and_stops_its_thread(tmp_path: Path) -> None:
    before = live_threads()
    terminal = FakeTerminal()
    events = EventLog(tmp_path / "events.jsonl")
    state = make_state()
    with SessionDisplay(quiet=False, stream=terminal) as display:
        display.attach(events, state)
        assert display.live is not None
        assert live_threads() - before, "the live view refreshes from its own thread"
        events.emit("phase_start", phase="research", topic="topic-0", round=0)
        # The live thread redraws on its own: wait for it, however loaded the machine.
        wait_until(lambda: "RESEARCH" in terminal.getvalue(), what="a redraw")
    assert live_threads() == before
    out = terminal.getvalue()
    assert ESCAPE in out and "RESEARCH" in out
    assert "\x1b[?25h" in out.rpartition("RESEARCH")[2]  # the cursor is shown again


def test_live_display_stops_and_keeps_its_last_frame_when_the_run_is_interrupted(
    tmp_path: Path,
) -> None:
    before = live_threads()
    terminal = FakeTerminal()
    events = EventLog(tmp_path / "events.jsonl")
    with pytest.raises(Interrupted), SessionDisplay(quiet=False, stream=terminal) as display:
        display.attach(events, make_state())
        events.emit("phase_start", phase="research", topic="topic-2", round=0)
        raise Interrupted(2)
    assert live_threads() == before
    last_frame = terminal.getvalue().rpartition("\x1b[2K")[2]
    assert "Topic 2" in last_frame  # not erased: the user sees where it stopped


@pytest.mark.parametrize(
    ("quiet", "verbose", "kind"),
    [
        (False, False, "live"),
        (False, True, "plain"),
        (True, False, None),
    ],
)
def test_the_display_kind_follows_the_terminal_and_the_flags(
    tmp_path: Path,
    quiet: bool,
    verbose: bool,
    kind: str | None,
) -> None:
    events = EventLog(tmp_path / "events.jsonl")
    with SessionDisplay(quiet=quiet, verbose=verbose, stream=FakeTerminal()) as display:
        display.attach(events, make_state())
        chosen = "live" if display.live is not None else "plain" if events.listeners else None
    assert chosen == kind


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs a Linux pty")
def test_a_run_in_a_real_terminal_draws_the_live_view_and_the_summary_table(
    isolated: Path,
) -> None:
    import pty

    argv = [
        sys.executable,
        str(REPO / "research.py"),
        "--mock-mode",
        "--name",
        "demo",
        "--breadth",
        "2",
        "--depth",
        "1",
        "Heat pumps?",
    ]
    pid, fd = pty.fork()
    if pid == 0:  # the child: become research.py on the pty
        os.environ.update({"TERM": "xterm", "COLUMNS": "100", "LINES": "30"})
        os.execv(sys.executable, argv)
    output = read_all(fd, deadline=time.monotonic() + 300)  # a hang guard
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, output[-2000:]
    assert "\x1b[?25l" in output and output.count("\x1b[?25h") >= 1  # live region, restored
    assert "iteration" in output and "agent calls" in output
    assert "╭" in output and "Research session 'demo' complete" in output
    assert "Traceback" not in output
    assert events_of(isolated / ".research/demo")[-1]["type"] == "lock_released"


def read_all(fd: int, *, deadline: float) -> str:
    chunks = []
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if not ready:
            continue
        try:
            data = os.read(fd, 65536)
        except OSError:  # the child closed the pty
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks).decode("utf-8", errors="replace")


def test_plain_lines_say_why_a_review_rejected_and_why_the_report_went_to_revise(
    run_cli: Callable[..., Any],
) -> None:
    # The simulated agent rejects each topic's first review and the first final review.
    result = run_demo(run_cli)
    assert result.exit_code == 0, result.stderr
    events = events_of(Path(".research/demo"))
    lines = result.stderr.splitlines()
    rejections = [e for e in events if e["type"] == "topic_rejected"]
    assert rejections
    for event in rejections:
        assert any(
            line.endswith(f"review rejected {event['topic']!r}: {event['summary']}")
            for line in lines
        )
    (sent_back,) = [e for e in events if e["type"] == "report_rejected"]
    assert any(
        line.endswith(
            f"final review sent the report to REVISE: {sent_back['summary'].splitlines()[0]}"
        )
        for line in lines
    )


def test_live_view_shows_every_topic_in_flight_with_its_phase_and_time() -> None:
    state = make_state()
    view = LiveView(state)
    view(
        {
            "type": "topics_in_flight",
            "iteration": 2,
            "topics": {"topic-0": "research", "topic-1": "review"},
        }
    )
    text = rendered(view)
    assert re.search(r"▸ RESEARCH\s+Topic 0\s+\d+s", text), text
    assert re.search(r"▸ REVIEW\s+Topic 1\s+\d+s", text), text
    view({"type": "topics_in_flight", "iteration": 3, "topics": {"topic-1": "review"}})
    text = rendered(view)
    assert "▸ RESEARCH" not in text and re.search(r"▸ REVIEW\s+Topic 1", text)

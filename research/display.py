"""What the user sees: progress lines while a session runs, and the completion summary."""

from __future__ import annotations

import sys
from datetime import datetime
from typing import Any, TextIO

from research.events import EventLog
from research.paths import SessionPaths
from research.plan import TopicStatus
from research.state import RWRState


class PlainDisplay:
    """Timestamped plain lines, no control characters: for pipes, CI and logs."""

    def __init__(self, state: RWRState, stream: TextIO | None = None) -> None:
        self.state = state
        self.stream = stream or sys.stderr

    def __call__(self, event: dict[str, Any]) -> None:
        line = self.describe(event)
        if line:
            stamp = datetime.now().strftime("%H:%M:%S")
            self.stream.write(f"{stamp} {line}\n")
            self.stream.flush()

    def describe(self, event: dict[str, Any]) -> str | None:
        state = self.state
        kind = event["type"]
        where = f"[{state.iteration}/{state.max_iterations}]"
        if kind == "phase_start":
            topic = event.get("topic")
            label = f" {state.plan.get(topic).name}" if topic and _has(state, topic) else ""
            retry = f" (retry {event['round']})" if event.get("round") else ""
            return f"{where} {event['phase'].upper().replace('_', ' ')}{label}{retry}"
        if kind == "phase_end" and event["outcome"] != "ok":
            return f"{where}   failed: {event.get('error')}"
        if kind == "agent_call":
            outcome = "ok" if event["ok"] else event.get("failure") or "failed"
            usage = usage_text(event.get("input_tokens"), event.get("output_tokens"),
                               event.get("cost"))
            return f"{where}   agent call: {outcome} in {event['duration']:.1f}s; {usage}"
        if kind == "retry":
            return f"{where}   retrying after {event['delay']:.1f}s ({event['failure']})"
        if kind == "recovery":
            return f"{where} RECOVERY of {event['phase']}"
        if kind == "topic_skipped":
            return f"{where}   skipped {event['topic']!r} ({event['reason']})"
        if kind == "topic_exhausted":
            return f"{where}   gave up on {event['topic']!r} #RETRY_EXHAUSTED"
        if kind == "decision":
            verdict = "continue" if event["shouldContinue"] else f"stop: {event['reason']}"
            return f"{where}   decision: {verdict}"
        if kind == "research_stopped":
            return f"research ended: {event['detail']}"
        if kind in {"warning", "error"}:
            return f"{kind}: {event.get('message')}"
        return None


def usage_text(input_tokens: int | None, output_tokens: int | None, cost: float | None) -> str:
    """Tokens and cost as the agent reported them; "unknown" for what it did not report."""
    if input_tokens is None and output_tokens is None:
        tokens = "tokens unknown"
    else:
        tokens = f"tokens {input_tokens or 0:,} in / {output_tokens or 0:,} out"
    return f"{tokens}; cost {'unknown' if cost is None else f'${cost:.4f}'}"


def _has(state: RWRState, slug: str) -> bool:
    return any(t.slug == slug for t in state.plan.topics)


def attach_display(events: EventLog, state: RWRState, *, quiet: bool) -> None:
    if not quiet:
        events.listeners.append(PlainDisplay(state))


def print_summary(state: RWRState, paths: SessionPaths, stream: TextIO | None = None) -> None:
    """The completion summary: topics by status, limits, calls and the report's path."""
    out = stream or sys.stdout
    counts = state.plan.counts()
    lines = [
        f"Research session {state.name!r} " + ("complete" if state.is_complete else "stopped"),
        "  topics: " + ", ".join(f"{counts[s]} {s.value.lower()}" for s in TopicStatus
                                 if counts[s]),
        f"  iterations: {state.iteration} of {state.max_iterations}; agent calls: "
        f"{state.agent_calls} ({state.agent_failures} failed)",
        "  " + usage_text(*_usage_totals(state)),
    ]
    if state.stop_reason is not None and state.stop_reason.value != "all_topics_done":
        lines.append(f"  WARNING: research ended early: {state.stop_detail}")
    lines.append(f"  report: {paths.relative(paths.report_file)}")
    out.write("\n".join(lines) + "\n")


def _usage_totals(state: RWRState) -> tuple[int | None, int | None, float | None]:
    def total(values: list[int | float | None]) -> int | float | None:
        known = [value for value in values if value is not None]
        return sum(known) if known else None

    usage = state.usage.values()
    return (total([u.input_tokens for u in usage]), total([u.output_tokens for u in usage]),
            total([u.cost for u in usage]))

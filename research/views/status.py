"""Inspect sessions without running them: `--status --name NAME` and `--list`.

Read-only by design: it never takes the lock and never writes a file, so it is safe to
run beside a live session.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from research.core.agentkind import cost_basis
from research.core.errors import StateError, UsageError
from research.core.hosts import host_id
from research.model.state import RWRState, load_state
from research.views.display import (
    counts_text,
    ended_text,
    is_terminal,
    label_table,
    make_console,
    plain,
    state_usage_text,
    time_text,
    topic_lines,
    topic_name,
    tree_text,
)
from research.views.report import tier_text
from research.workspace.lock import LockFileError, LockInfo, read_lock_file, stale_reason
from research.workspace.paths import RESEARCH_DIR, SessionPaths

TAIL_BYTES = 16_384


@dataclass
class LockView:
    """Who holds a session's lock, as far as its file tells."""

    state: str
    """'none', 'live', 'stale' or 'unreadable'."""
    detail: str

    def text(self) -> str:
        if self.state == "none":
            return "not locked"
        return f"{self.state}: {self.detail}" if self.detail else self.state


def lock_view(
    paths: SessionPaths, *, now: float | None = None, host: str | None = None
) -> LockView:
    """Read the lock file (only read it) and judge whether its holder is alive."""
    record = lock_record(paths)
    if isinstance(record, LockView):
        return record
    return judge_lock(record, now=time.time() if now is None else now, host=host or host_id())


def lock_record(paths: SessionPaths) -> LockInfo | LockView:
    """The lock file's record; or, when it holds none, the view saying so ('none' or
    'unreadable'). Never read through a link, never blocking on a FIFO an agent left there."""
    try:
        found = read_lock_file(paths.lock_file)
    except LockFileError as exc:
        return LockView("unreadable", str(exc))
    if found.kind == "missing":
        return LockView("none", "")
    if found.info is None:  # something that is no file, or junk
        return LockView("unreadable", found.problem or f"{paths.lock_file.name} is not a lock file")
    return found.info


def judge_lock(info: LockInfo, *, now: float, host: str) -> LockView:
    """Whether the holder of the lock record `info` looks alive ('live') or not ('stale')."""
    reason = stale_reason(info, now=now, host=host)
    held = f"held by {info.describe(now)}"
    if reason is None:
        return LockView("live", held)
    return LockView("stale", f"{held} ({reason}; the next run takes it over)")


def session_names(root: Path) -> list[str]:
    """Names of the sessions under `root/.research`: directories with a state.json."""
    base = root / RESEARCH_DIR
    try:
        entries = sorted(base.iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [entry.name for entry in entries if entry.is_dir() and (entry / "state.json").is_file()]


def last_event(paths: SessionPaths) -> dict[str, Any] | None:
    """The last well-formed event of the session's log, read from its tail only."""
    import json

    try:
        with paths.events_file.open("rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - TAIL_BYTES))
            tail = handle.read().decode("utf-8", errors="replace")
    except OSError:
        return None
    for line in reversed(tail.splitlines()):
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and "type" in event:
            return event
    return None


def load_session(root: Path, name: str) -> tuple[SessionPaths, RWRState]:
    """The paths and saved state of session `name`; UsageError when there is none."""
    paths = SessionPaths(root, name)
    if not paths.state_file.is_file():
        known = session_names(root)
        hint = f"sessions here: {', '.join(known)}" if known else "there are no sessions here"
        raise UsageError(f"no research session named {name!r} in {paths.research_root} ({hint})")
    return paths, load_state(paths.state_file)


def phase_text(state: RWRState) -> str:
    if state.progress.is_complete:
        return "done (report written)"
    if state.progress.awaiting_approval:
        return "awaiting approval of the plan"
    text = state.progress.current_phase.value.replace("_", " ")
    if state.progress.failed_phase is not None:
        text += (
            f" (recovering {state.progress.failed_phase.value}, round {state.progress.retry_count})"
        )
    flights = state.progress.in_flight
    if flights:
        names = {t.slug: t.name for t in state.plan.topics}
        text += f"; {len(flights)} in flight: " + ", ".join(
            f"{plain(names.get(slug, slug))!r} ({flight.phase.value})"
            for slug, flight in flights.items()
        )
    return text


def decision_text(state: RWRState) -> str:
    decision = state.progress.last_decision
    if decision is None:
        return "none yet"
    verdict = "continue" if decision.shouldContinue else "stop"
    text = (
        f"iteration {decision.iteration}, {plain(decision.topic)!r}: {verdict} "
        f"({plain(decision.reason)})"
    )
    if decision.confidence is not None:
        text += f"; review confidence {decision.confidence:.2f}"
    if decision.new_queries:
        text += "; next searches: " + "; ".join(plain(q) for q in decision.new_queries[:3])
    return text


def report_text(paths: SessionPaths) -> str:
    where = paths.relative(paths.report_file)
    return where if paths.report_file.is_file() else f"{where} (not written yet)"


def event_text(event: dict[str, Any] | None) -> str:
    if event is None:
        return "none"
    detail = event.get("phase") or event.get("outcome") or event.get("reason") or ""
    return f"{event['type']} {plain(detail)} at {event.get('ts', '?')}".replace("  ", " ")


def run_text(state: RWRState, lock: LockView) -> str:
    if state.progress.is_complete:
        return "finished"
    if lock.state == "live":
        return "running"
    if state.progress.awaiting_approval:
        return "awaiting approval: edit the plan, then continue it with --resume"
    return "stopped; continue it with --resume"


def budget_rows(state: RWRState) -> list[tuple[str, str]]:
    """The token and cost budgets, with what is used of them, when there are any."""
    config, usage = state.config, state.usage
    parts = []
    if config.token_budget is not None:
        parts.append(f"{usage.total_tokens():,} of {config.token_budget:,} tokens")
    if config.max_cost is not None:
        parts.append(f"${usage.total_cost():.4f} of ${config.max_cost:.4f}")
    return [("budgets", "; ".join(parts))] if parts else []


def status_rows(paths: SessionPaths, state: RWRState) -> list[tuple[str, str]]:
    """A session's status as (label, value) rows."""
    lock = lock_view(paths)
    rows = [
        ("topic", plain(state.config.original_topic)),
        ("session", run_text(state, lock)),
        ("phase", phase_text(state)),
        ("iteration", f"{state.progress.iteration} of {state.config.max_iterations}"),
    ]
    if (tier := tier_text(state)) is not None:
        rows.append(("tier", plain(tier)))
    in_flight = topic_name(state, state.progress.current_topic)
    if in_flight and not state.progress.is_complete:
        rows.append(("current topic", plain(in_flight)))
    rows += [
        ("topics", counts_text(state.plan)),
        ("time", time_text(state.progress.elapsed_seconds, state.config.time_budget_minutes)),
        ("agent", plain(agent_text(state))),
        (
            "agent calls",
            f"{state.usage.agent_calls} ({state.usage.agent_failures} failed, "
            f"{state.usage.recoveries} recoveries)",
        ),
        ("usage", state_usage_text(state)),
        *budget_rows(state),
        ("last decision", decision_text(state)),
    ]
    if state.progress.stop_reason is not None:
        rows.append(("research ended", ended_text(state)))
    if state.progress.last_error and not state.progress.is_complete:
        rows.append(("last error", plain(state.progress.last_error)))
    rows += [
        ("lock", lock.text()),
        ("last event", event_text(last_event(paths))),
        ("report", report_text(paths)),
    ]
    return rows


def show_status(root: Path, name: str, stream: TextIO | None = None) -> None:
    """Print one session's state, topic tree, lock holder and report path."""
    out = stream or sys.stdout
    paths, state = load_session(root, name)
    title = f"Session {state.name!r} ({paths.relative(paths.session_dir)})"
    rows = status_rows(paths, state)
    if not is_terminal(out):
        lines = [title, *(f"  {label}: {plain(value)}" for label, value in rows), "  topic tree:"]
        current = None if state.progress.is_complete else state.progress.current_topic
        lines += [
            f"  {'>' if is_current else ' '} {line}"
            for line, _, is_current in topic_lines(state.plan, current=current)
        ]
        if not state.plan.topics:
            lines.append("    (no topics yet)")
        out.write("\n".join(lines) + "\n")
        return
    from rich.text import Text

    table = label_table(title, rows)
    table.add_row(
        Text("topic tree"),
        tree_text(
            state.plan, current=None if state.progress.is_complete else state.progress.current_topic
        )
        if state.plan.topics
        else Text("(no topics yet)"),
    )
    make_console(out).print(table)


@dataclass
class SessionLine:
    """One row of `--list`."""

    name: str
    phase: str
    iteration: str
    topics: str
    lock: str
    updated: str
    report: str


def session_line(root: Path, name: str) -> SessionLine:
    paths = SessionPaths(root, name)
    lock = lock_view(paths)
    try:
        updated = datetime.fromtimestamp(paths.state_file.stat().st_mtime)
        stamp = updated.strftime("%Y-%m-%d %H:%M")
    except OSError:
        stamp = "?"
    report = paths.relative(paths.report_file) if paths.report_file.is_file() else "-"
    try:
        state = load_state(paths.state_file)
    except StateError as exc:
        return SessionLine(
            name, "unreadable state", "-", plain(str(exc))[:60], lock.state, stamp, report
        )
    done = len(state.plan.topics) - len(state.plan.open_topics())
    return SessionLine(
        name=name,
        phase=phase_text(state),
        iteration=f"{state.progress.iteration}/{state.config.max_iterations}",
        topics=f"{done}/{len(state.plan.topics)} done",
        lock=lock.state,
        updated=stamp,
        report=report,
    )


LIST_COLUMNS = ("name", "phase", "iteration", "topics", "lock", "updated", "report")


def list_sessions(root: Path, stream: TextIO | None = None) -> None:
    """Print every session of the working directory, one line each."""
    out = stream or sys.stdout
    names = session_names(root)
    if not names:
        out.write(f"no research sessions in {root / RESEARCH_DIR}\n")
        return
    rows = [session_line(root, name) for name in names]
    values = [[getattr(row, column) for column in LIST_COLUMNS] for row in rows]
    if not is_terminal(out):
        widths = [
            max(len(column), *(len(v[i]) for v in values)) for i, column in enumerate(LIST_COLUMNS)
        ]
        for cells in [list(LIST_COLUMNS), *values]:
            out.write(
                "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip() + "\n"
            )
        return
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(box=box.SIMPLE_HEAD)
    for column in LIST_COLUMNS:
        table.add_column(column, no_wrap=column in {"name", "iteration", "lock"})
    styles = {"live": "green", "stale": "yellow", "unreadable": "red"}
    for cells in values:
        table.add_row(
            *(
                Text(c, style=styles.get(c, "") if column == "lock" else "")
                for column, c in zip(LIST_COLUMNS, cells, strict=True)
            )
        )
    make_console(out).print(table)


def agent_text(state: RWRState) -> str:
    """The agent and the models it was asked for, and those it said it ran on."""
    config = state.config
    if config.mock_mode:
        return f"{config.agent} (simulated in part or whole; no model)"
    text = f"{config.agent}, model {config.model}, review model {config.review_model}"
    if cost_basis(config.agent) == "computed":
        text += "; cost computed from research.py's prices"
    if state.usage.models_used:
        text += f" (ran on {', '.join(state.usage.models_used)})"
    return text

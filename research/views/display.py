"""What the user sees: a live view in a terminal, plain lines elsewhere, and the summary.

The display listens to the event log (`EventLog.listeners`) and renders from the events and
from the copy of the state the engine leaves at each save (`EventLog.snapshot`), never from
the state the loop is changing. rich is imported only when something is rendered with it,
so the command line stays fast for `--help` and `--version`.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from research.core.agentkind import cost_basis
from research.model.artifacts import tree_order
from research.model.plan import Plan, TopicStatus
from research.model.state import RWRState, StopReason
from research.views.source_lines import SOURCE_EVENTS, source_line
from research.workspace.events import EventLog
from research.workspace.paths import SessionPaths

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.live import Live
    from rich.table import Table
    from rich.text import Text

REFRESH_PER_SECOND = 4
RECENT_LINES = 3
STATUS_STYLES = {
    TopicStatus.PENDING: "dim",
    TopicStatus.IN_PROGRESS: "yellow",
    TopicStatus.IN_REVIEW: "cyan",
    TopicStatus.COMPLETE: "green",
    TopicStatus.SKIPPED: "magenta",
    TopicStatus.EXHAUSTED: "red",
}
# C0 and C1 control characters (ESC among them), which an agent's error text may carry.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


# ------------------------------------------------------------------ small formatters


def plain(text: object) -> str:
    """`text` as one printable line: control characters and escape sequences removed."""
    return _CONTROL.sub("", str(text).replace("\n", " ").replace("\t", " "))


def format_duration(seconds: float) -> str:
    """A short human duration: '12s', '3m 05s', '2h 04m'."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m {seconds % 60:02d}s"
    return f"{seconds // 3600}h {seconds % 3600 // 60:02d}m"


def usage_text(
    input_tokens: int | None,
    output_tokens: int | None,
    cost: float | None,
    *,
    simulated: bool = False,
    computed: bool = False,
) -> str:
    """Tokens and cost as the agent reported them; "unknown" for what it did not report;
    labelled when the simulated agent made them up, or the cost computed from prices."""
    if input_tokens is None and output_tokens is None:
        tokens = "tokens unknown"
    else:
        tokens = f"tokens {input_tokens or 0:,} in / {output_tokens or 0:,} out"
    text = f"{tokens}; cost {'unknown' if cost is None else f'${cost:.4f}'}"
    if computed and cost is not None and not simulated:
        text += " (computed)"
    return f"{text} [simulated]" if simulated else text


def state_usage_text(state: RWRState) -> str:
    """The session's usage so far, labelled when simulated or computed."""
    return usage_text(
        *usage_totals(state),
        simulated=state.config.mock_mode,
        computed=cost_basis(state.config.agent) == "computed",
    )


def usage_totals(state: RWRState) -> tuple[int | None, int | None, float | None]:
    """Input tokens, output tokens and cost summed over phases; None where none was reported."""

    def tokens(values: list[int | None]) -> int | None:
        known = [value for value in values if value is not None]
        return sum(known) if known else None

    usage = list(state.usage.phases.values())
    costs = [u.cost for u in usage if u.cost is not None]
    return (
        tokens([u.input_tokens for u in usage]),
        tokens([u.output_tokens for u in usage]),
        sum(costs) if costs else None,
    )


def counts_text(plan: Plan) -> str:
    """'3 complete, 1 in progress, 4 pending' (statuses with no topic left out)."""
    counts = plan.counts()
    parts = [f"{counts[s]} {s.value.lower()}" for s in TopicStatus if counts[s]]
    return ", ".join(parts) or "no topics yet"


def time_text(used_seconds: float, budget_minutes: float | None) -> str:
    """'3m 12s used, 26m 48s left of 30m' or '3m 12s used (no budget)'."""
    used = format_duration(used_seconds)
    if budget_minutes is None:
        return f"{used} used (no budget)"
    budget = budget_minutes * 60
    left = format_duration(budget - used_seconds) if used_seconds < budget else "none"
    return f"{used} used, {left} left of {format_duration(budget)}"


def phase_label(phase: str) -> str:
    return phase.upper().replace("_", " ")


def topic_lines(
    plan: Plan, *, current: str | None = None, max_rows: int | None = None
) -> list[tuple[str, TopicStatus, bool]]:
    """The topic tree as (indented line, status, is current) rows; a window around the
    current topic when there are more than `max_rows`."""
    rows = []
    for topic in tree_order(plan):
        note = f" ({topic.note})" if topic.note else ""
        line = f"{'  ' * topic.depth}- {plain(topic.name)} [{topic.status.value}{plain(note)}]"
        rows.append((line, topic.status, topic.slug == current))
    if max_rows is None or len(rows) <= max_rows:
        return rows
    focus = next((i for i, row in enumerate(rows) if row[2]), 0)
    start = max(0, min(focus - max_rows // 2, len(rows) - max_rows))
    window = rows[start : start + max_rows]
    if start:
        window.insert(0, (f"  … {start} more above", TopicStatus.PENDING, False))
    below = len(rows) - start - max_rows
    if below > 0:
        window.append((f"  … {below} more below", TopicStatus.PENDING, False))
    return window


# ------------------------------------------------------------------ consoles


def is_terminal(stream: TextIO) -> bool:
    """Whether `stream` is an interactive terminal that understands escape sequences."""
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        return False
    return bool(tty) and os.environ.get("TERM") != "dumb"


def make_console(stream: TextIO) -> Console:
    """A rich console on `stream`: colours on a terminal, never an escape code elsewhere."""
    from rich.console import Console

    if is_terminal(stream):
        return Console(file=stream, highlight=False)
    return Console(
        file=stream,
        force_terminal=False,
        no_color=True,
        highlight=False,
        width=max(100, _columns()),
        soft_wrap=False,
    )


def _columns() -> int:
    try:
        return int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        return 0


def tree_text(plan: Plan, *, current: str | None = None, max_rows: int | None = None) -> Text:
    """The topic tree as styled rich Text (status colours, current topic in bold)."""
    from rich.text import Text

    text = Text(no_wrap=True, overflow="ellipsis")
    for index, (line, status, is_current) in enumerate(
        topic_lines(plan, current=current, max_rows=max_rows)
    ):
        if index:
            text.append("\n")
        style = STATUS_STYLES[status] + (" bold" if is_current else "")
        text.append(("> " if is_current else "  ") + line, style=style)
    return text


# ------------------------------------------------------------------ plain lines


class PlainDisplay:
    """Timestamped plain lines, no control characters: for pipes, CI and logs."""

    def __init__(
        self,
        state: RWRState,
        stream: TextIO | None = None,
        feed: Callable[[], RWRState] | None = None,
    ) -> None:
        self.feed = feed or (lambda: state)
        self.stream = stream or sys.stderr
        self.usage_seen = False
        self.told_no_usage = False

    def __call__(self, event: dict[str, Any]) -> None:
        line = describe(self.feed(), event)
        if line:
            self.write(line)
        if event["type"] == "agent_call":
            self.usage_seen = self.usage_seen or reports_usage(event)
            if not self.usage_seen and not self.told_no_usage:
                self.told_no_usage = True
                self.write("(the agent reports no token usage or cost: none is shown per call)")

    def write(self, line: str) -> None:
        stamp = datetime.now().strftime("%H:%M:%S")
        self.stream.write(f"{stamp} {plain(line)}\n")
        self.stream.flush()


def reports_usage(event: dict[str, Any]) -> bool:
    """Whether an agent_call event carries any token count or cost."""
    return any(event.get(key) is not None for key in ("input_tokens", "output_tokens", "cost"))


def describe(state: RWRState, event: dict[str, Any]) -> str | None:
    """One line for a notable event, or None for events not worth a line."""
    line_for = _EVENT_LINES.get(event["type"])
    if line_for is None:
        return None
    return line_for(state, event, f"[{state.progress.iteration}/{state.config.max_iterations}]")


EventLine = Callable[[RWRState, dict[str, Any], str], str | None]
"""(state, event, "[iteration/max]") -> the event's line, or None if it is not worth one."""


def _phase_start_line(state: RWRState, event: dict[str, Any], where: str) -> str:
    name = topic_name(state, event.get("topic"))
    label = f" {name}" if name else ""
    retry = f" (retry {event['round']})" if event.get("round") else ""
    return f"{where} {phase_label(event['phase'])}{label}{retry}"


def _phase_end_line(_state: RWRState, event: dict[str, Any], where: str) -> str | None:
    return None if event["outcome"] == "ok" else f"{where}   failed: {event.get('error')}"


def _agent_call_line(state: RWRState, event: dict[str, Any], where: str) -> str:
    outcome = "ok" if event["ok"] else event.get("failure") or "failed"
    line = f"{where}   agent call: {outcome} in {event['duration']:.1f}s"
    if not reports_usage(event):
        return line  # PlainDisplay says once that the agent reports none
    usage = usage_text(
        event.get("input_tokens"),
        event.get("output_tokens"),
        event.get("cost"),
        simulated=state.config.mock_mode,
        computed=cost_basis(state.config.agent) == "computed",
    )
    return f"{line}; {usage}"


def _decision_line(_state: RWRState, event: dict[str, Any], where: str) -> str:
    verdict = "continue" if event["shouldContinue"] else f"stop: {event['reason']}"
    return f"{where}   decision: {verdict}"


def _source_event_line(state: RWRState, event: dict[str, Any], where: str) -> str | None:
    name = topic_name(state, event.get("topic")) or event.get("topic")
    return source_line(where, name, event)


def _lock_taken_line(_state: RWRState, event: dict[str, Any], _where: str) -> str | None:
    return f"took over the session lock ({event.get('reason')})" if event.get("takeover") else None


def _message_line(_state: RWRState, event: dict[str, Any], _where: str) -> str:
    return f"{event['type']}: {event.get('message')}"


_EVENT_LINES: dict[str, EventLine] = {
    "phase_start": _phase_start_line,
    "phase_end": _phase_end_line,
    "agent_call": _agent_call_line,
    "retry": lambda _s, e, w: f"{w}   retrying after {e['delay']:.1f}s ({e['failure']})",
    "recovery": lambda _s, e, w: f"{w} RECOVERY of {phase_label(e['phase'])}",
    "topic_skipped": lambda _s, e, w: f"{w}   skipped {e['topic']!r} ({e['reason']})",
    "topic_rejected": lambda _s, e, w: (
        f"{w}   review rejected {e['topic']!r}: {one_line(e.get('summary'))}"
    ),
    "report_rejected": lambda _s, e, _w: (
        f"final review sent the report to REVISE: {one_line(e.get('summary'))}"
    ),
    "topic_exhausted": lambda _s, e, w: f"{w}   gave up on {e['topic']!r} #RETRY_EXHAUSTED",
    "decision": _decision_line,
    **dict.fromkeys(SOURCE_EVENTS, _source_event_line),
    "research_stopped": lambda _s, e, _w: f"research ended: {e['detail']}",
    "lock_taken": _lock_taken_line,
    "iteration_limit": lambda _s, e, _w: str(e["message"]),
    "warning": _message_line,
    "error": _message_line,
}
"""The events the display describes, each with the function that words it."""


def one_line(text: object, limit: int = 160) -> str:
    """The first line of an agent's text, shortened: a summary, never a wall of prose."""
    lines = str(text or "").strip().splitlines() or ["(no summary)"]
    first = lines[0].strip()
    return first if len(first) <= limit else first[: limit - 1] + "…"


def topic_name(state: RWRState, slug: str | None) -> str | None:
    """The name of the topic `slug` in the current plan, or None."""
    if not slug:
        return None
    topic = next((t for t in state.plan.topics if t.slug == slug), None)
    return topic.name if topic else slug


# ------------------------------------------------------------------ live view


class LiveView:
    """What the live display shows, rebuilt at every refresh from the events and from the
    latest saved copy of the state (`feed`), never from the state the loop is changing."""

    def __init__(
        self, state: RWRState, *, height: int = 24, feed: Callable[[], RWRState] | None = None
    ) -> None:
        self.feed = feed or (lambda: state)
        self.flights: dict[str, tuple[str, float]] = {}
        """Parallel mode: each topic in flight → (phase, when that phase started)."""
        self.height = height
        self.started = time.monotonic()
        self.elapsed_before = state.progress.elapsed_seconds
        self.phase: str | None = state.progress.current_phase.value
        self.topic: str | None = state.progress.current_topic
        self.call_started: float | None = None
        self.recent: list[str] = []
        self._last: RenderableType | None = None
        self._spinner: Any = None

    def __call__(self, event: dict[str, Any]) -> None:
        """Follow the events: which phase runs, when an agent call starts and ends."""
        kind = event["type"]
        if kind == "phase_start":
            self.phase, self.topic = event["phase"], event.get("topic")
            self.call_started = time.monotonic()
        elif kind == "recovery":
            self.phase = f"recovery of {event['phase']}"
            self.call_started = time.monotonic()
        elif kind == "retry":
            self.call_started = time.monotonic()
        elif kind == "agent_call":
            self.call_started = None
        if kind == "topics_in_flight":
            now = time.monotonic()
            self.flights = {
                slug: (
                    phase,
                    self.flights[slug][1]
                    if slug in self.flights and self.flights[slug][0] == phase
                    else now,
                )
                for slug, phase in event["topics"].items()
            }
        line = describe(self.feed(), event)
        if line and kind not in {"phase_start", "agent_call"}:  # those the header shows
            self.recent = [*self.recent, plain(line.strip())][-RECENT_LINES:]

    def used_seconds(self) -> float:
        return self.elapsed_before + time.monotonic() - self.started

    def __rich__(self) -> RenderableType:
        # Rendered from rich's refresh thread while the loop mutates the state: never let a
        # half-updated state end the display; show the last good frame instead.
        try:
            self._last = self.render()
        except Exception:  # noqa: BLE001
            if self._last is None:
                from rich.text import Text

                return Text("…")
        return self._last

    def render(self) -> RenderableType:
        from rich.console import Group
        from rich.spinner import Spinner
        from rich.text import Text

        state = self.feed()
        plan = state.plan
        head = Text()
        phase = self.phase or state.progress.current_phase.value
        head.append(f"{phase_label(phase)}", style="bold")
        name = topic_name(state, self.topic)
        if name:
            head.append(f"  {plain(name)}")
        head.append(
            f"   iteration {state.progress.iteration}/{state.config.max_iterations}", style="dim"
        )
        if self.call_started is not None:
            call = format_duration(time.monotonic() - self.call_started)
            head.append(f"   agent call running {call}", style="cyan")
        calls = f"agent calls {state.usage.agent_calls} ({state.usage.agent_failures} failed)"
        figures = Text(
            f"  time {time_text(self.used_seconds(), state.config.time_budget_minutes)} · "
            f"{calls} · "
            f"{state_usage_text(state)}",
            style="dim",
        )
        if self._spinner is None:  # one spinner for the whole run, so that it turns
            self._spinner = Spinner("dots", style="cyan")
        self._spinner.update(text=head)
        parts: list[RenderableType] = [
            self._spinner if self.call_started is not None else Text("  ") + head,
            figures,
            Text(f"  topics: {counts_text(plan)}"),
        ]
        now = time.monotonic()
        for slug, (phase, since) in sorted(self.flights.items(), key=lambda item: item[1][1]):
            name = plain(topic_name(state, slug) or slug)
            parts.append(
                Text(
                    f"  ▸ {phase_label(phase):<10} {name}  {format_duration(now - since)}",
                    style="cyan",
                )
            )
        parts.append(
            tree_text(
                plan, current=self.topic, max_rows=max(4, self.height - 8 - len(self.flights))
            )
        )
        parts.extend(Text(f"  {line}", style="dim") for line in self.recent)
        return Group(*parts)


class LiveDisplay:
    """A rich Live region on a terminal, redrawn a few times a second by a thread of ours
    that `stop` ends and joins: nothing of it outlives the run."""

    def __init__(
        self, state: RWRState, stream: TextIO, feed: Callable[[], RWRState] | None = None
    ) -> None:
        self.console = make_console(stream)
        self.view = LiveView(state, height=self.console.size.height, feed=feed)
        self.live: Live | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._handlers: list[tuple[logging.StreamHandler[Any], Any]] = []

    def __call__(self, event: dict[str, Any]) -> None:
        self.view(event)

    def restart(self) -> None:
        """Start again after `stop`."""
        self._stop = threading.Event()
        self.start()

    def start(self) -> None:
        from rich.live import Live

        self.live = Live(
            self.view,
            console=self.console,
            auto_refresh=False,
            transient=True,
            redirect_stdout=True,
            redirect_stderr=True,
        )
        self.live.start(refresh=True)
        self._route_logging()
        self._thread = threading.Thread(target=self._redraw, name="research-live-view", daemon=True)
        self._thread.start()

    def _redraw(self) -> None:
        while not self._stop.wait(1 / REFRESH_PER_SECOND):
            live = self.live
            if live is None:
                return
            try:
                live.refresh()
            except Exception:  # noqa: BLE001 - a broken terminal must not end the run
                return

    def stop(self, *, keep_last_frame: bool) -> None:
        """End the live region: erased after a finished run, left in place after a failure."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        if self.live is None:
            return
        self._restore_logging()
        self.live.transient = not keep_last_frame
        try:
            self.live.stop()
        finally:
            self.live = None

    def _route_logging(self) -> None:
        """Log lines go above the live region, not through it."""
        for handler in logging.getLogger().handlers:
            if isinstance(handler, logging.StreamHandler) and handler.stream in (
                sys.__stderr__,
                sys.__stdout__,
                self.console.file,
            ):
                self._handlers.append((handler, handler.stream))
                handler.setStream(sys.stderr)

    def _restore_logging(self) -> None:
        for handler, stream in self._handlers:
            handler.setStream(stream)
        self._handlers = []


class SessionDisplay:
    """Chooses and owns the progress display of one run: live on a terminal, plain lines
    otherwise (or with --verbose, whose log lines a live region would garble), none with
    --quiet. Use as a context manager so the live region is stopped on every exit path."""

    def __init__(self, *, quiet: bool, verbose: bool = False, stream: TextIO | None = None) -> None:
        self.quiet = quiet
        self.verbose = verbose
        self.stream = stream or sys.stderr
        self.live: LiveDisplay | None = None

    def attach(self, events: EventLog, state: RWRState) -> None:
        """The `on_events` hook of `run_session`: start showing this run."""
        if self.quiet:
            return
        first = state.model_copy(deep=True)  # taken before the loop starts changing it

        def feed() -> RWRState:
            snapshot = events.snapshot
            return snapshot if isinstance(snapshot, RWRState) else first

        if is_terminal(self.stream) and not self.verbose:
            self.live = LiveDisplay(state, self.stream, feed)
            events.listeners.append(self.live)
            self.live.start()
        else:
            events.listeners.append(PlainDisplay(state, self.stream, feed))

    def __enter__(self) -> SessionDisplay:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if self.live is not None:
            self.live.stop(keep_last_frame=exc_type is not None)
            self.live = None

    @contextmanager
    def paused(self) -> Iterator[None]:
        """The live region stopped (its last frame kept) while the user is asked something."""
        live = self.live
        if live is None:
            yield
            return
        live.stop(keep_last_frame=True)
        try:
            yield
        finally:
            live.restart()


def session_display(
    *, quiet: bool, verbose: bool = False, stream: TextIO | None = None
) -> SessionDisplay:
    """`with session_display(...) as display: run_session(..., on_events=display.attach)`."""
    return SessionDisplay(quiet=quiet, verbose=verbose, stream=stream)


# ------------------------------------------------------------------ completion summary


def read_json_file(path: Path) -> Any:
    """A JSON file's content, or None when it is missing or not valid JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def sources_text(paths: SessionPaths) -> str:
    """'24 found, 18 cited' from sources.json and citations.json."""
    registry = read_json_file(paths.sources_file)
    audit = read_json_file(paths.citations_file)
    if not isinstance(registry, dict):
        return "not recorded"
    known = {s.get("id") for s in registry.get("sources", []) if isinstance(s, dict)}
    text = f"{len(known)} found"
    if isinstance(audit, dict):
        cited = {i for i in audit.get("cited", []) if i in known}
        text += f", {len(cited)} cited"
    return text


def citations_text(state: RWRState, paths: SessionPaths) -> str:
    """What the citation check found and fixed."""
    audit = read_json_file(paths.citations_file)
    if not isinstance(audit, dict):
        return "not checked"
    cited = audit.get("cited", [])
    unknown = audit.get("unknown", [])
    removed = state.final.citation_ids_removed
    text = f"{len(set(cited))} ids checked, {len(unknown)} unknown in the report"
    if removed:
        text += f"; removed unknown {', '.join(f'[{i}]' for i in removed)}"
    return text


def ended_text(state: RWRState) -> str:
    """Why research ended, in words."""
    progress, reason = state.progress, state.progress.stop_reason
    if reason is None:
        return "research has not ended" if not progress.is_complete else "complete"
    text = f"{progress.stop_detail} ({reason.value})" if progress.stop_detail else reason.value
    if state.final.report_fallback:
        text += " (report compiled by the orchestrator: synthesis failed)"
    return text


def summary_rows(state: RWRState, paths: SessionPaths) -> list[tuple[str, str]]:
    """The completion summary as (label, value) rows."""
    exhausted = state.progress.exhausted_topics
    rows = [
        ("topics", counts_text(state.plan)),
        ("iterations", f"{state.progress.iteration} of {state.config.max_iterations}"),
        ("sources", sources_text(paths)),
        ("citations", citations_text(state, paths)),
        ("time", time_text(state.progress.elapsed_seconds, state.config.time_budget_minutes)),
        (
            "agent calls",
            f"{state.usage.agent_calls} ({state.usage.agent_failures} failed, "
            f"{state.usage.recoveries} recoveries)",
        ),
        ("usage", state_usage_text(state)),
        ("research ended", ended_text(state)),
    ]
    if exhausted:
        rows.append(("exhausted", "; ".join(f"{name} #RETRY_EXHAUSTED" for name in exhausted)))
    rows.append(("report", paths.relative(paths.report_file)))
    if paths.report_html_file.is_file():
        rows.append(("web page", paths.relative(paths.report_html_file)))
    for fmt, label in (("pdf", "PDF"), ("docx", "Word")):  # --export
        if paths.report_export_file(fmt).is_file():
            rows.append((label, paths.relative(paths.report_export_file(fmt))))
    return rows


def ended_early(state: RWRState) -> bool:
    reason = state.progress.stop_reason
    return reason is not None and reason is not StopReason.ALL_DONE


def label_table(title: str, rows: list[tuple[str, str]]) -> Table:
    """A two-column label/value table with a bold title (rich is imported only here)."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(
        title=Text(title, style="bold"), title_justify="left", show_header=False, box=box.ROUNDED
    )
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    for label, value in rows:
        table.add_row(Text(label), Text(plain(value)))
    return table


def print_summary(state: RWRState, paths: SessionPaths, stream: TextIO | None = None) -> None:
    """The completion summary: a rich table on a terminal, plain lines elsewhere."""
    out = stream or sys.stdout
    title = f"Research session {state.name!r} " + (
        "complete" if state.progress.is_complete else "stopped"
    )
    warning = (
        f"WARNING: research ended early: {plain(state.progress.stop_detail)}"
        if ended_early(state)
        else None
    )
    rows = summary_rows(state, paths)
    if not is_terminal(out):
        lines = [title, *(f"  {label}: {plain(value)}" for label, value in rows)]
        out.write("\n".join([*lines, *([f"  {warning}"] if warning else [])]) + "\n")
        out.flush()
        return
    from rich.text import Text

    console = make_console(out)
    console.print(label_table(title, rows))
    if warning:
        console.print(Text(warning, style="bold yellow"))

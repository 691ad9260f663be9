"""The structured event log (`events.jsonl`) and the Python logger of the package."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from research.workspace.fsutil import LineLog

logger = logging.getLogger("research")

EVENT_TYPES = frozenset(
    {
        "run_start",
        "run_end",
        "phase_start",
        "phase_end",
        "agent_call",
        "retry",
        "recovery",
        "plan_repair",
        "topic_skipped",
        "topic_exhausted",
        "decision",
        "research_stopped",
        "lock_taken",
        "lock_released",
        "completion_marker",
        "stray_files",
        "citation_fix",
        "citation_audit",
        "topic_rejected",
        "report_rejected",
        "topics_in_flight",
        "archive",
        "error",
        "warning",
        "lock_repaired",
        "lock_lost",
        "local_sources",
        "sources_checking",
        "sources_fetched",
        "sources_not_fetched",
        "web_unreachable",
        "source_check",
        "report_check",
        "judge",
        "workspace_repair",
        "tier",
        "iteration_limit",
        "sources_dropped",
        "awaiting_approval",
        "plan_approved",
    }
)


INFO_EVENTS = frozenset({"research_stopped", "iteration_limit", "sources_dropped"})
"""Events logged at INFO (seed 004 NFR-05: an early stop is INFO); the others at DEBUG."""


class EventLog:
    """Appends one JSON object per event; each carries a timestamp, the iteration and a type."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self.log = LineLog(path)
        self.clock = clock
        self.iteration = 0
        self.listeners: list[Callable[[dict[str, Any]], None]] = []
        self._lock = threading.RLock()  # parallel topic cycles emit from several threads
        self.snapshot: Any = None
        """A copy of the state as last saved, set by the engine: what displays render, so
        they never read the state the loop is changing."""

    def emit(self, event_type: str, **fields: Any) -> dict[str, Any]:
        if event_type not in EVENT_TYPES:
            raise ValueError(f"unknown event type {event_type!r}")
        with self._lock:
            return self._emit(event_type, fields)

    def _emit(self, event_type: str, fields: dict[str, Any]) -> dict[str, Any]:
        record = {
            "ts": datetime.fromtimestamp(self.clock(), UTC).isoformat(timespec="milliseconds"),
            "iteration": self.iteration,
            "type": event_type,
            **fields,
        }
        self.log.append(json.dumps(record, ensure_ascii=False, default=str))
        level = logging.INFO if event_type in INFO_EVENTS else logging.DEBUG
        if logger.isEnabledFor(level):  # the display shows what matters; -v shows all
            logger.log(level, "%s %s", event_type, _short(fields))
        for listener in self.listeners:
            listener(record)
        return record

    def close(self) -> None:
        self.log.close()


def _short(fields: dict[str, Any]) -> str:
    return " ".join(f"{key}={value}" for key, value in fields.items() if key != "prompt")[:500]


def read_events(path: Path) -> list[dict[str, Any]]:
    """Every well-formed event of a log; a torn last line (kill mid-write) is skipped."""
    events = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    for line in lines:
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return events

"""Reading a session's report and its side files as the service does (sources.json,
citations.json, verification.json, the --export files): regular files only, never through
a link or from a FIFO, bounded in size; anything that does not parse reads as nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from research.core.defaults import EXPORT_FORMATS
from research.model.state import RWRState
from research.workspace.fsutil import read_at_most
from research.workspace.paths import SessionPaths

MAX_JSON_BYTES = 8 * 1024 * 1024
"""Side files (sources.json, citations.json, verification.json) larger than this are ignored."""
MAX_REPORT_BYTES = 16 * 1024 * 1024


def sources_of(paths: SessionPaths) -> list[dict[str, Any]]:
    """The source registry's entries (sources.json), each a dict; [] when unreadable."""
    raw = read_json(paths.sources_file)
    items = raw.get("sources") if isinstance(raw, dict) else raw
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def cited_ids_of(paths: SessionPaths) -> list[int] | None:
    """The ids the final report cites (citations.json), or None when not recorded."""
    raw = read_json(paths.citations_file)
    if not isinstance(raw, dict):
        return None
    for key in ("cited", "cited_ids"):
        value = raw.get(key)
        if isinstance(value, list):
            return [v for v in value if isinstance(v, int) and not isinstance(v, bool)]
    audit = raw.get("audit")
    if isinstance(audit, dict) and isinstance(audit.get("cited"), list):
        return [v for v in audit["cited"] if isinstance(v, int) and not isinstance(v, bool)]
    return None


def verification_of(paths: SessionPaths) -> dict[int, str]:
    """Verification outcome per source id, from verification.json when it exists."""
    raw = read_json(paths.verification_file)
    found: dict[int, str] = {}
    entries: Any = raw
    if isinstance(raw, dict):
        entries = raw.get("sources", raw.get("results", raw.get("citations", [])))
    if isinstance(entries, dict):
        entries = [
            {"id": key, **value} if isinstance(value, dict) else {"id": key, "outcome": value}
            for key, value in entries.items()
        ]
    if not isinstance(entries, list):
        return found
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        ident = source_id(entry.get("id", entry.get("source_id")))
        outcome = outcome_of(entry)
        if ident is not None and outcome is not None:
            found[ident] = outcome
    return found


def read_export(paths: SessionPaths, fmt: str) -> bytes | None:
    """reports/<name>/report.pdf or report.docx (--export), or None when not written."""
    return read_bytes(paths.report_export_file(fmt), 4 * MAX_REPORT_BYTES)


def exports_of(paths: SessionPaths, state: RWRState | None) -> tuple[str, ...]:
    """The formats whose export (--export) is beside the report of a complete session."""
    if state is None or not state.progress.is_complete:
        return ()
    return tuple(f for f in EXPORT_FORMATS if os.path.isfile(paths.report_export_file(f)))


def read_text(path: Path, limit: int) -> str | None:
    """At most `limit` bytes of a regular file, never through a link or from a FIFO."""
    data = read_bytes(path, limit)
    return None if data is None else data.decode("utf-8", errors="replace")


def read_bytes(path: Path, limit: int) -> bytes | None:
    """At most `limit` bytes of a regular file, never through a link or from a FIFO."""
    data = read_at_most(path, limit)
    return None if data is None else data[:limit]


def read_json(path: Path) -> Any:
    """A side file's JSON, or None when missing, too large or malformed."""
    text = read_text(path, MAX_JSON_BYTES)
    if text is None or len(text) >= MAX_JSON_BYTES:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def source_id(value: Any) -> int | None:
    """A source's id as a side file gives it (7, "7" or "[7]"), or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        digits = value.strip("[] ")
        return int(digits) if digits.isdigit() else None
    return None


def outcome_of(entry: dict[str, Any]) -> str | None:
    """The first outcome-like string an entry of a side file gives (nested too), or None."""
    for key in ("outcome", "verification", "verdict", "status", "result"):
        value = entry.get(key)
        if isinstance(value, str) and value:
            return value[:64]
        if isinstance(value, dict):
            inner = outcome_of(value)
            if inner is not None:
                return inner
    return None

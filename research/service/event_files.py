"""Reading a session's event log as the service does: the whole lines after an offset (the
event feeds and the failover count), the last events (the last run's end), the takeovers
from another host. The log is written by the orchestrator but lives where an agent could
write, so every read tolerates garbage."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def events_from(path: Path, offset: int, limit: int = 1 << 20) -> tuple[list[tuple[int, str]], int]:
    """Whole event lines after byte `offset`, as [(end offset, JSON text)], and the new offset.

    Lines are passed on as they are (one JSON object each, so no newline inside); a line that
    is not an object, or not UTF-8, is skipped; a line still being written is left for later,
    unless it is longer than `limit` (then it is skipped, rather than waited for forever).
    """
    try:
        size = os.stat(path).st_size
        if offset > size:  # the log was replaced: start over
            offset = 0
        if offset == size:  # nothing new (the common case of a follower's poll)
            return [], offset
        with path.open("rb") as handle:
            handle.seek(offset)
            chunk = handle.read(limit)
    except OSError:
        return [], offset
    whole = chunk.rfind(b"\n") + 1
    if whole == 0:
        return [], offset + (len(chunk) if len(chunk) >= limit else 0)
    out: list[tuple[int, str]] = []
    position = offset
    for line in chunk[:whole].split(b"\n")[:-1]:
        position += len(line) + 1
        text = line.strip()
        if not (text.startswith(b"{") and text.endswith(b"}")) or b"\r" in text:
            continue
        try:
            out.append((position, text.decode("utf-8")))
        except UnicodeDecodeError:
            continue
    return out, position


def failovers_in(lines: Iterable[str]) -> int:
    """How many of the event `lines` are takeovers from another host."""
    count = 0
    for line in lines:
        if '"lock_taken"' not in line or '"previous_host"' not in line:
            continue
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if (
            isinstance(event, dict)
            and event.get("takeover")
            and event.get("previous_host") != event.get("host")
        ):
            count += 1
    return count


def tail_events(path: Path, size: int) -> list[dict[str, Any]]:
    """The whole events in the last `size` bytes of an event log."""
    try:
        with path.open("rb") as handle:
            end = handle.seek(0, os.SEEK_END)
            start = max(0, end - size)
            handle.seek(start)
            data = handle.read()
    except OSError:
        return []
    lines = data.splitlines()
    if start > 0 and lines:
        lines = lines[1:]  # probably cut in the middle
    events = []
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events

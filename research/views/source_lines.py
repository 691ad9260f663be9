"""The terminal's lines for the source check's events."""

from __future__ import annotations

from typing import Any

SOURCE_EVENTS = frozenset(
    {"sources_checking", "web_unreachable", "source_check", "report_check", "judge"}
)


def source_line(where: str, name: str | None, event: dict[str, Any]) -> str | None:
    """One line for a source-check event (`name`: the topic's name, for source_check)."""
    kind = event["type"]
    if kind == "sources_checking":
        count = event["count"]
        return f"{where}   checking {count} source{'' if count == 1 else 's'}\u2026"
    if kind == "web_unreachable":
        return f"warning: {event.get('message')}"
    if kind == "source_check":
        unchecked = event.get("unchecked", 0)
        unreached = event.get("not_checked", 0)
        return (
            f"{where}   sources of {name!r}: {event['sources']} cited, "
            f"{event['unavailable'] - unreached} unreadable"
            + (f", {unreached} not checked" if unreached else "")
            + f"; {event['doubtful']} of "
            f"{event['findings']} findings not (fully) on their page, "
            f"{unchecked} could not be checked"
        )
    if kind == "report_check":
        judged = event.get("decided_by_judge", 0)
        voided = event.get("judge_voided", 0)
        return (
            f"source check of the report ({event.get('stage')}): {event['claims']} cited "
            "sentences, "
            f"{event['supported']} supported, {event['weak']} weak, "
            f"{event['unsupported']} unsupported, {event['unverifiable']} unverifiable"
            + (f"; {judged} decided by the judge" if judged else "")
            + (f", {voided} judgements voided (quote not on the page)" if voided else "")
        )
    if kind == "judge":
        return f"{where}   judge: {event['answered']} of {event['sentences']} sentences answered"
    return None

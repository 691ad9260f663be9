"""The topic tree as an SVG picture the project draws itself (no script from elsewhere):
one row per topic, indented by depth, joined to its parent, coloured by status."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from research.model.artifacts import tree_order
from research.model.plan import RETRY_EXHAUSTED_TAG, Plan, Topic, TopicStatus

WIDTH = 360
"""The picture's width in user units: about a phone's width, so its text is not scaled down."""
ROW = 40
INDENT = 16
CHAR_WIDTH = 6.6
"""Roughly the width of one character at FONT_SIZE, to cut names that would not fit."""
FONT_SIZE = 12
COLOURS = {
    TopicStatus.COMPLETE: ("#d4f7d4", "#2e7d32"),
    TopicStatus.SKIPPED: ("#eeeeee", "#888888"),
    TopicStatus.EXHAUSTED: ("#ffd6d6", "#c62828"),
}
OPEN_COLOURS = ("#fff4c2", "#b08900")


@dataclass(frozen=True)
class _Row:
    x: int
    y: int
    name: str
    status: str
    colours: tuple[str, str]


def _status(topic: Topic) -> str:
    text = topic.status.value + (f": {topic.note}" if topic.note else "")
    if topic.status is TopicStatus.EXHAUSTED:
        text += f" {RETRY_EXHAUSTED_TAG}"
    return text


def _cut(text: str, room: float) -> str:
    text = " ".join(text.split())
    most = max(4, int(room / CHAR_WIDTH))
    return text if len(text) <= most else text[: most - 1].rstrip() + "\u2026"


def _rows(plan: Plan) -> tuple[list[_Row], list[tuple[int, int]]]:
    """The rows (the question first) and the (parent row, child row) links."""
    rows = [_Row(8, 8, plan.topic, "the question", ("#e3ecff", "#3557a5"))]
    index_of: dict[str | None, int] = {None: 0}
    links: list[tuple[int, int]] = []
    for topic in tree_order(plan):
        x = 8 + INDENT * (topic.depth + 1)
        colours = COLOURS.get(topic.status, OPEN_COLOURS)
        index_of[topic.slug] = len(rows)
        links.append((index_of.get(topic.parent, 0), len(rows)))
        rows.append(_Row(x, 8 + ROW * len(rows), topic.name, _status(topic), colours))
    return rows, links


def topic_tree_svg(plan: Plan) -> str:
    """The tree as an inline <svg> element (full names and statuses in each row's <title>)."""
    rows, links = _rows(plan)
    height = 8 + ROW * len(rows)
    parts = [
        f'<svg class="tree" role="img" aria-label="Topic tree" viewBox="0 0 {WIDTH} {height}" '
        f'width="100%" font-family="system-ui, sans-serif" font-size="{FONT_SIZE}">'
    ]
    for parent, child in links:
        px, py = rows[parent].x + 6, rows[parent].y + 26
        cx, cy = rows[child].x, rows[child].y + 13
        parts.append(
            f'<path d="M{px} {py} V{cy} H{cx}" fill="none" stroke="#9aa4b2" stroke-width="1"/>'
        )
    for row in rows:
        fill, stroke = row.colours
        room = WIDTH - row.x - 12
        parts.append(
            f"<g><title>{escape(row.name)} ({escape(row.status)})</title>"
            f'<rect x="{row.x}" y="{row.y}" width="{WIDTH - row.x - 4}" height="32" rx="5" '
            f'fill="{fill}" stroke="{stroke}"/>'
            f'<text x="{row.x + 6}" y="{row.y + 14}" fill="#111">{escape(_cut(row.name, room))}'
            f'</text><text x="{row.x + 6}" y="{row.y + 27}" fill="#444" font-size="10">'
            f"{escape(_cut(row.status, room * 1.2))}</text></g>"
        )
    parts.append("</svg>")
    return "".join(parts)

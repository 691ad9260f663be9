"""The plan's "Open questions" section: what the planner would ask the user, and the
user's answers written under the questions when approving the plan (--approve-plan).

The section is kept as text in the Plan (`Plan.questions`), rendered back into
`research_plan.md` after the Metadata, and handed to every later prompt once the user
approved the plan.
"""

from __future__ import annotations

import re

TITLE = "Open questions"
MAX_CHARS = 4000
"""The most of the section that is kept: the prompts carry it to every later call."""

_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_TITLE = re.compile(r"^[*_`]*open\s+questions[*_`]*\s*:?$", re.IGNORECASE)
_NONE = re.compile(r"^[-*+\s]*(none|no open questions|n/?a)[.\s]*$", re.IGNORECASE)


def parse_questions(text: str) -> str:
    """The body of the plan's `## Open questions` section, trimmed ("" when there is none)."""
    body: list[str] = []
    inside = False
    for line in text.lstrip("\ufeff").splitlines():
        heading = _HEADING.match(line)
        if heading and len(heading[1]) <= 2:
            if inside:
                break
            inside = bool(_TITLE.match(heading[2].strip()))
            continue
        if inside:
            body.append(line.rstrip())
    section = "\n".join(body).strip("\n")
    if len(section) > MAX_CHARS:
        section = section[:MAX_CHARS].rstrip() + "\n[…the rest of the section was cut]"
    return section


def has_questions(questions: str) -> bool:
    """Whether the section asks anything (not empty, not "- None")."""
    lines = [line for line in questions.splitlines() if line.strip()]
    return bool(lines) and not (len(lines) == 1 and _NONE.match(lines[0]))


def questions_lines(questions: str) -> list[str]:
    """The section as `render_plan` writes it: nothing when the plan has no section."""
    if not questions.strip():
        return []
    return [f"## {TITLE}", "", *questions.splitlines(), ""]


def answers_text(questions: str, approved: bool) -> str:
    """What the prompts say of the user's answers: "none", or the approved section."""
    if not approved or not has_questions(questions):
        return "none"
    quoted = "\n".join(f"> {line}" if line else ">" for line in questions.splitlines())
    return f"\n\n{quoted}\n"


def with_answers(plan_text: str, answers: str) -> str:
    """The plan with `answers` (free text) written at the end of its Open questions section,
    or in a new section before the topics when it has none."""
    block = ["", "Answers:", *(f"  {line}" for line in answers.strip().splitlines())]
    lines = plan_text.lstrip("\ufeff").splitlines()
    start = _section_start(lines)
    if start is None:
        at = next((i for i, line in enumerate(lines) if _is_topics(line)), len(lines))
        return "\n".join([*lines[:at], f"## {TITLE}", *block, "", *lines[at:]]) + "\n"
    end = next((i for i in range(start + 1, len(lines)) if _level(lines[i]) in (1, 2)), len(lines))
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return "\n".join([*lines[:end], *block, *lines[end:]]) + "\n"


def _level(line: str) -> int:
    heading = _HEADING.match(line)
    return len(heading[1]) if heading else 0


def _section_start(lines: list[str]) -> int | None:
    for i, line in enumerate(lines):
        heading = _HEADING.match(line)
        if heading and len(heading[1]) <= 2 and _TITLE.match(heading[2].strip()):
            return i
    return None


def _is_topics(line: str) -> bool:
    heading = _HEADING.match(line)
    return bool(heading and len(heading[1]) <= 2 and "topics" in heading[2].lower())

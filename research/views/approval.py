"""What a run stopped for approval (--approve-plan) tells the user: the plan's path, its
topics, its open questions, and how to go on."""

from __future__ import annotations

import shlex

from research.model.questions import has_questions
from research.model.state import RWRState
from research.views.display import plain
from research.workspace.paths import SessionPaths


def approval_lines(state: RWRState, paths: SessionPaths) -> list[str]:
    """The plan awaiting approval, as lines to print (each one printable line)."""
    lines = [
        f"Session {state.name!r} awaits your approval of its plan: "
        f"{paths.relative(paths.plan_file)}",
        "Topics:",
    ]
    top = [topic for topic in state.plan.topics if topic.depth == 0]
    for number, topic in enumerate(top, 1):
        about = f" - {plain(topic.description)}" if topic.description else ""
        lines.append(f"  {number}. {plain(topic.name)}{about}")
    questions = state.plan.questions
    if has_questions(questions):
        lines.append("Open questions:")
        lines += [f"  {plain(line)}" for line in questions.splitlines() if line.strip()]
    else:
        lines.append("Open questions: none")
    lines += [
        "Edit the plan (topics, acceptance criteria, answers under the open questions), "
        "then continue with:",
        f"  research --resume --name {shlex.quote(state.name)}",
    ]
    return lines

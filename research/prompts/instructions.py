"""What a RESEARCH or REVIEW call may write, in the run's mode.

With one topic in flight the agent edits the plan and the progress index itself and the
reviewer of the last open topic writes the completion marker. With several, each call writes
only its own topic's files: subtopics are proposed in the notes, and the orchestrator keeps
the plan, the index and the marker.
"""

from __future__ import annotations

from research.model.state import Phase


def shared_files(values: dict[str, str], phase: Phase, room: int) -> dict[str, str]:
    """One topic in flight: the agent keeps the plan and the progress index."""
    return {
        "writable_files": shared_writable_files(values, phase),
        "subtopic_instructions": shared_subtopic_instructions(values),
        "progress_index_instructions": shared_progress_index_instructions(values),
        "completion_rule": shared_completion_rule(values),
    }


def own_files(values: dict[str, str], phase: Phase, room: int) -> dict[str, str]:
    """Several topics in flight: each call writes only its own topic's files."""
    progress, plan = values["progress_file"], values["plan_file"]
    accepted, rejected = values["accepted_file"], values["rejected_file"]
    proposals = (
        f"Do not edit {plan}: other topics are being researched at the same "
        "time, and the orchestrator alone keeps the plan. "
        + values["subtopic_rule"]
        + (
            f" Propose subtopics in a `## Proposed Subtopics` section at the end of "
            f"{progress}: one `### <subtopic name>` heading per subtopic, each followed by "
            "`- Description: <one line>` and `- Acceptance Criteria:` with indented "
            "`  - <criterion>` lines. The orchestrator adds them to the plan and marks this "
            "topic In Review."
            if room
            else " Leave the plan's statuses to the orchestrator."
        )
    )
    return {
        "writable_files": (
            f"- `{progress}`"
            if phase is Phase.RESEARCH
            else f"- `{accepted}` or `{rejected}` (exactly one)"
        ),
        "subtopic_instructions": proposals,
        "progress_index_instructions": (
            f"The orchestrator keeps {values['progress_index_file']}; do not edit it."
        ),
        "completion_rule": (
            f"Never write {values['completed_file']}: the orchestrator "
            "decides when research is complete."
        ),
    }


def shared_writable_files(values: dict[str, str], phase: Phase) -> str:
    """The Markdown list of the only files a RESEARCH or REVIEW call may write."""
    if phase is Phase.REVIEW:
        return (
            f"- `{values['accepted_file']}` or `{values['rejected_file']}`: exactly ONE "
            "of them, never both\n"
            f"- `{values['completed_file']}`, only as the completion rule below says"
        )
    return (
        f"- `{values['progress_file']}` (create or rewrite)\n"
        f"- `{values['progress_index_file']}` (add one entry)\n"
        f"- `{values['plan_file']}` (only the edits allowed below)"
    )


def shared_progress_index_instructions(values: dict[str, str]) -> str:
    """RESEARCH: the agent adds its entry to the progress index itself."""
    return (
        "Add a short entry (date, topic, two or three key findings, main gap) to "
        f"`## Recent Activity` in `{values['progress_index_file']}`. If the file does not "
        "exist, create it:\n\n"
        "```markdown\n# Research Progress\n\n## Summary\n"
        f"- Iteration: {values['iteration']}\n- Topics Completed: <M> of <P>\n\n"
        f"## Recent Activity\n- {values['date']} — {values['topic_name']}: "
        "<key findings; main gap>\n```"
    )


def shared_subtopic_instructions(values: dict[str, str]) -> str:
    """RESEARCH: the agent adds subtopics to the plan and marks its topic In Review."""
    plan, name = values["plan_file"], values["topic_name"]
    return (
        f"{values['subtopic_rule']} Where subtopics are allowed, propose one only if the "
        "research showed a distinct aspect worth its own searches; never duplicate an existing "
        f"topic and never force the count. Add each one to `{plan}` directly after this "
        "topic's block (and after any subtopics it already has), in the plan format:\n\n"
        "```markdown\n### <Subtopic Name> (Depth: <this topic's depth + 1>)\n"
        f"- Status: Pending\n- Parent: {name}\n- Description: <one sentence>\n"
        "- Acceptance Criteria:\n  - <criterion 1>\n  - <criterion 2>\n```\n\n"
        f"Then, in `{plan}`, set this topic's line to `- Status: In Review`. Do not change "
        "any other topic's status, name or text, and do not remove topics."
    )


def shared_completion_rule(values: dict[str, str]) -> str:
    """REVIEW: the reviewer of the last open topic writes the completion marker."""
    return (
        f"Completion rule: if you accept this topic and every other topic in "
        f"`{values['plan_file']}` is already Complete, Skipped or Exhausted, also write "
        f"`{values['completed_file']}` containing exactly `<promise>COMPLETE</promise>`. "
        "(The orchestrator checks this marker against the plan.) Otherwise do not write it."
    )

"""The variables each phase's prompt template is rendered with (pure functions of the state)."""

from __future__ import annotations

from datetime import date

from research.core.settings import MAX_TOPIC_ATTEMPTS
from research.model import artifacts as phases
from research.model.plan import Topic
from research.model.state import Phase, RWRState
from research.sources.registry import SourceRegistry, audit_report, format_registry
from research.views import report
from research.workspace.paths import SessionPaths


def base_variables(
    state: RWRState, paths: SessionPaths, remaining_minutes: float | None
) -> dict[str, str]:
    """What every template may use: the question, the limits, and the session's paths."""
    return {
        "original_topic": state.config.original_topic,
        "name": state.name,
        "breadth": str(state.config.breadth),
        "depth": str(state.config.depth),
        "iteration": str(state.progress.iteration),
        "max_iterations": str(state.config.max_iterations),
        "model": state.config.model,
        "review_model": state.config.review_model,
        "timeout": str(int(state.config.timeout)),
        "date": date.today().isoformat(),
        "session_dir": paths.relative(paths.session_dir),
        "plan_file": paths.relative(paths.plan_file),
        "progress_index_file": paths.relative(paths.progress_index),
        "progress_dir": paths.relative(paths.progress_dir),
        "report_file": paths.relative(paths.report_file),
        "accepted_file": paths.relative(paths.accepted_file),
        "rejected_file": paths.relative(paths.rejected_file),
        "completed_file": paths.relative(paths.completed_file),
        "recovery_notes_file": paths.relative(paths.recovery_notes),
        "time_remaining": (
            "unlimited" if remaining_minutes is None else f"{remaining_minutes:.1f} minutes"
        ),
    }


def topic_variables(
    state: RWRState,
    paths: SessionPaths,
    topic: Topic,
    remaining_minutes: float | None,
    phase: Phase = Phase.RESEARCH,
) -> dict[str, str]:
    """RESEARCH and REVIEW: the chosen topic, its notes file, and what it may propose.

    The values of `writable_files`, `subtopic_instructions`, `progress_index_instructions`
    and `completion_rule` are the sequential run's; parallel mode replaces them."""
    plan = state.plan
    rule, room = phases.subtopic_rule(plan, topic)
    parent = plan.get(topic.parent).name if topic.parent else "none"
    values = {
        **base_variables(state, paths, remaining_minutes),
        "topic_name": topic.name,
        "topic_slug": topic.slug,
        "topic_depth": str(topic.depth),
        "topic_parent": parent,
        "topic_description": topic.description or "(no description)",
        "topic_criteria": phases.criteria_text(topic),
        "progress_file": paths.relative(paths.progress_file(topic.slug)),
        "attempt": str(topic.attempts),
        "max_attempts": str(MAX_TOPIC_ATTEMPTS),
        "subtopic_rule": rule,
        # Not a template variable: a hint the simulated agent reads from the call context.
        "max_subtopics": str(room),
        "review_feedback": phases.review_feedback_text(
            state.progress.review_feedback.get(topic.slug)
        ),
        "searches": str(state.config.breadth),
        "source_check": NO_SOURCE_CHECK,
        "local_sources": NO_LOCAL_SOURCES,
    }
    values["subtopic_instructions"] = sequential_subtopic_instructions(values)
    values["progress_index_instructions"] = sequential_progress_index_instructions(values)
    values["completion_rule"] = sequential_completion_rule(values)
    values["writable_files"] = sequential_writable_files(values, phase)
    return values


NO_SOURCE_CHECK = "(source checking is off for this session)"
NO_LOCAL_SOURCES = "none"


def sequential_writable_files(values: dict[str, str], phase: Phase) -> str:
    """The Markdown list of the only files a sequential RESEARCH or REVIEW call may write."""
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


def sequential_progress_index_instructions(values: dict[str, str]) -> str:
    """RESEARCH, sequential: the agent adds its entry to the progress index itself."""
    return (
        "Add a short entry (date, topic, two or three key findings, main gap) to "
        f"`## Recent Activity` in `{values['progress_index_file']}`. If the file does not "
        "exist, create it:\n\n"
        "```markdown\n# Research Progress\n\n## Summary\n"
        f"- Iteration: {values['iteration']}\n- Topics Completed: <M> of <P>\n\n"
        f"## Recent Activity\n- {values['date']} — {values['topic_name']}: "
        "<key findings; main gap>\n```"
    )


def sequential_subtopic_instructions(values: dict[str, str]) -> str:
    """RESEARCH, sequential: the agent adds subtopics to the plan and marks its topic In Review."""
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


def sequential_completion_rule(values: dict[str, str]) -> str:
    """REVIEW, sequential: the reviewer of the last open topic writes the completion marker."""
    return (
        f"Completion rule: if you accept this topic and every other topic in "
        f"`{values['plan_file']}` is already Complete, Skipped or Exhausted, also write "
        f"`{values['completed_file']}` containing exactly `<promise>COMPLETE</promise>`. "
        "(The orchestrator checks this marker against the plan.) Otherwise do not write it."
    )


def final_variables(
    state: RWRState, paths: SessionPaths, registry: SourceRegistry, remaining_minutes: float | None
) -> dict[str, str]:
    """SYNTHESIZE, FINAL REVIEW and REVISE: the source registry, the citation audit of the
    report as it stands, the topic tree, and why research ended."""
    report_text = phases.read_text(paths.report_file)
    audit_text = "no report has been written yet"
    if report_text is not None:
        audit = audit_report(report_text, registry)
        audit_text = "\n".join(f"- {d}" for d in audit.defects) or "no defects found"
    return {
        **base_variables(state, paths, remaining_minutes),
        "source_registry": format_registry(registry),
        "citation_audit": audit_text,
        "topic_tree": phases.topic_tree_text(state.plan, paths),
        "limit_note": report.limit_note(state),
        "source_verification": NO_SOURCE_CHECK,
    }


def recovery_variables(state: RWRState) -> dict[str, str]:
    """RECOVERY and the phase_recovery block: what failed, and how."""
    return {
        "failed_phase": (state.progress.failed_phase or state.progress.current_phase).value,
        "last_error": state.progress.last_error or "unknown error",
        "recovery_round": str(state.progress.retry_count + 1),
    }

"""The variables of every phase's prompt, built in one function from one input object.

`PromptInput` holds what a prompt depends on (the state, the paths, the phase, its topic,
the run's mode, the time left, and what the source check found); `variables` turns it into
the values the phase's template is rendered with (see `render.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from research.core.retries import MAX_TOPIC_ATTEMPTS
from research.model.artifacts import read_text
from research.model.mode import Mode
from research.model.plan import Topic
from research.model.questions import answers_text
from research.model.state import Phase, RWRState
from research.prompts import instructions
from research.prompts.text import (
    NO_SOURCE_CHECK,
    LocalDocuments,
    complexity_instructions,
    criteria_text,
    local_sources_text,
    review_feedback_text,
    source_cap_text,
    subtopic_rule,
    topic_tree_text,
)
from research.sources.registry import SourceRegistry, audit_report, format_registry
from research.views import report
from research.workspace.paths import SessionPaths


@dataclass(frozen=True)
class PromptInput:
    """Everything one phase's prompt is built from."""

    state: RWRState
    paths: SessionPaths
    phase: Phase
    remaining_minutes: float | None
    topic: Topic | None = None
    """The topic of a RESEARCH or REVIEW call."""
    mode: Mode = Mode()
    """Which files the topic's call may write (one topic in flight, or several)."""
    registry: SourceRegistry | None = None
    """The numbered sources of the final cycle."""
    source_check: str | None = None
    """What the source check found, for REVIEW and the final cycle; None when it is off."""
    local_documents: LocalDocuments | None = None
    """The user's documents that bear on a RESEARCH call's topic."""
    judge_sentences: int = 0
    """The cited sentences in a VERIFY call's batch."""


@dataclass(frozen=True)
class Failure:
    """A failed phase being recovered: for the RECOVERY call and the retry's block."""

    phase: Phase
    error: str | None
    round_number: int
    """The phase's round (0 is its first call) that failed, or that retries after one."""

    def values(self) -> dict[str, str]:
        return {
            "failed_phase": self.phase.value,
            "last_error": self.error or "unknown error",
            "recovery_round": str(self.round_number + 1),
        }


TOPIC_PHASES = (Phase.RESEARCH, Phase.REVIEW)
FINAL_PHASES = (Phase.SYNTHESIZE, Phase.FINAL_REVIEW, Phase.REVISE)


def variables(source: PromptInput) -> dict[str, str]:
    """The values of `source.phase`'s template (RECOVERY takes the failed phase's)."""
    if source.phase in TOPIC_PHASES:
        return topic_variables(source)
    if source.phase in FINAL_PHASES:
        return final_variables(source)
    if source.phase is Phase.VERIFY:
        return judge_variables(source)
    return base_variables(source)


def judge_variables(source: PromptInput) -> dict[str, str]:
    """VERIFY: the batch of cited sentences to judge and where the answers go."""
    paths = source.paths
    return {
        **base_variables(source),
        "judge_batch_file": paths.relative(paths.judge_batch_file),
        "judge_answers_file": paths.relative(paths.judge_answers_file),
        "judge_count": str(source.judge_sentences),
    }


def base_variables(source: PromptInput) -> dict[str, str]:
    """What every template may use: the question, the limits, and the session's paths."""
    state, paths, remaining = source.state, source.paths, source.remaining_minutes
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
        "time_remaining": "unlimited" if remaining is None else f"{remaining:.1f} minutes",
        "complexity_instructions": complexity_instructions(state.config),
        "plan_answers": answers_text(state.plan.questions, state.progress.plan_approved),
    }


def topic_variables(source: PromptInput) -> dict[str, str]:
    """RESEARCH and REVIEW: the chosen topic, its notes and verdict files, what it may
    propose and write in the run's mode, and what the source check found."""
    state, paths, topic = source.state, source.paths, source.topic
    assert topic is not None, "a topic phase's prompt needs its topic"
    plan = state.plan
    rule, room = subtopic_rule(plan, topic)
    accepted, rejected = source.mode.verdict_files(paths, topic.slug)
    values = {
        **base_variables(source),
        "accepted_file": paths.relative(accepted),
        "rejected_file": paths.relative(rejected),
        "topic_name": topic.name,
        "topic_slug": topic.slug,
        "topic_depth": str(topic.depth),
        "topic_parent": plan.get(topic.parent).name if topic.parent else "none",
        "topic_description": topic.description or "(no description)",
        "topic_criteria": criteria_text(topic),
        "progress_file": paths.relative(paths.progress_file(topic.slug)),
        "attempt": str(topic.attempts),
        "max_attempts": str(MAX_TOPIC_ATTEMPTS),
        "subtopic_rule": rule,
        "review_feedback": review_feedback_text(state.progress.review_feedback.get(topic.slug)),
        "searches": str(state.config.searches or state.config.breadth),
        "source_cap": source_cap_text(state.config.max_sources),
        "source_check": source.source_check or NO_SOURCE_CHECK,
        "local_sources": local_sources_text(source.local_documents),
    }
    files = instructions.own_files if source.mode.own_files else instructions.shared_files
    values.update(files(values, source.phase, room))
    return values


def final_variables(source: PromptInput) -> dict[str, str]:
    """SYNTHESIZE, FINAL REVIEW and REVISE: the source registry, the citation audit of the
    report as it stands, the topic tree, why research ended, and the source check."""
    state, paths, registry = source.state, source.paths, source.registry
    assert registry is not None, "a final-cycle prompt needs the source registry"
    report_text = read_text(paths.report_file)
    audit_text = "no report has been written yet"
    if report_text is not None:
        audit = audit_report(report_text, registry)
        audit_text = "\n".join(f"- {d}" for d in audit.defects) or "no defects found"
    return {
        **base_variables(source),
        "source_registry": format_registry(registry),
        "citation_audit": audit_text,
        "topic_tree": topic_tree_text(state.plan, paths),
        "limit_note": report.limit_note(state),
        "source_verification": source.source_check or NO_SOURCE_CHECK,
    }

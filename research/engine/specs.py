"""Each phase as data: its template, its model, and the files it may write.

Which files a RESEARCH or REVIEW call may write depends on the run's mode (one topic in
flight, or several: see research/model/mode.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from research.model.mode import Mode
from research.model.state import Phase
from research.workspace.paths import SessionPaths

Files = Callable[[SessionPaths, str | None, Mode], tuple[Path, ...]]
"""(paths, topic slug or None, the run's mode) → files."""


def _plan(paths: SessionPaths, slug: str | None, mode: Mode) -> tuple[Path, ...]:
    return (paths.plan_file,)


def _research_writes(paths: SessionPaths, slug: str | None, mode: Mode) -> tuple[Path, ...]:
    assert slug is not None
    return mode.research_writes(paths, slug)


def _review_writes(paths: SessionPaths, slug: str | None, mode: Mode) -> tuple[Path, ...]:
    return mode.review_writes(paths, slug)


def _report(paths: SessionPaths, slug: str | None, mode: Mode) -> tuple[Path, ...]:
    return (paths.report_file,)


def _final_review_writes(paths: SessionPaths, slug: str | None, mode: Mode) -> tuple[Path, ...]:
    return mode.verdict_files(paths, None)


def _judge(paths: SessionPaths, slug: str | None, mode: Mode) -> tuple[Path, ...]:
    return (paths.judge_answers_file,)


def _recovery(paths: SessionPaths, slug: str | None, mode: Mode) -> tuple[Path, ...]:
    return (paths.recovery_notes,)


@dataclass(frozen=True)
class PhaseSpec:
    """How the orchestrator runs one kind of phase."""

    phase: Phase
    template: str
    """The prompt template's name under .research/templates/."""
    review_model: bool
    """True when the call uses --review-model instead of --model."""
    final_cycle: bool
    """True for SYNTHESIZE, FINAL REVIEW and REVISE."""
    topic: bool
    """True when the phase works on one topic (RESEARCH, REVIEW)."""
    may_write: Files
    """The files the call may create or change."""


SPECS: dict[Phase, PhaseSpec] = {
    spec.phase: spec
    for spec in (
        PhaseSpec(Phase.INITIAL_PLAN, "initial_plan", False, False, False, _plan),
        PhaseSpec(Phase.RESEARCH, "research", False, False, True, _research_writes),
        PhaseSpec(Phase.REVIEW, "review", True, False, True, _review_writes),
        PhaseSpec(Phase.SYNTHESIZE, "synthesize", False, True, False, _report),
        PhaseSpec(Phase.FINAL_REVIEW, "final_review", True, True, False, _final_review_writes),
        PhaseSpec(Phase.REVISE, "revise", False, True, False, _report),
        PhaseSpec(Phase.VERIFY, "verify", True, True, False, _judge),
        PhaseSpec(Phase.RECOVERY, "recovery", False, False, False, _recovery),
    )
}
FINAL_PHASES = frozenset(p for p, spec in SPECS.items() if spec.final_cycle)

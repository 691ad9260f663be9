"""Each phase as data: its template, its model, and the files it may write and must leave.

In parallel mode the RESEARCH and REVIEW calls of different topics run side by side, so
each may write only its own topic's files; the orchestrator alone writes the plan, the
progress index and the state. Sequential mode keeps SPEC §5's files: the agent edits the
plan and the progress index itself, and reviews write the shared verdict files.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from research.model.state import Phase
from research.workspace.paths import SessionPaths

Files = Callable[[SessionPaths, str | None, bool], tuple[Path, ...]]
"""(paths, topic slug or None, parallel mode) → files."""


def verdict_files(paths: SessionPaths, slug: str | None, parallel: bool) -> tuple[Path, Path]:
    """The accepted and rejected verdict files a review of `slug` writes."""
    if parallel and slug is not None:
        review = paths.session_dir / "review"
        return review / f"{slug}.accepted.md", review / f"{slug}.rejected.md"
    return paths.accepted_file, paths.rejected_file


def _nothing(paths: SessionPaths, slug: str | None, parallel: bool) -> tuple[Path, ...]:
    return ()


def _plan(paths: SessionPaths, slug: str | None, parallel: bool) -> tuple[Path, ...]:
    return (paths.plan_file,)


def _research_writes(paths: SessionPaths, slug: str | None, parallel: bool) -> tuple[Path, ...]:
    assert slug is not None
    own = (paths.progress_file(slug),)
    return own if parallel else (*own, paths.plan_file, paths.progress_index)


def _research_leaves(paths: SessionPaths, slug: str | None, parallel: bool) -> tuple[Path, ...]:
    assert slug is not None
    return (paths.progress_file(slug),)


def _review_writes(paths: SessionPaths, slug: str | None, parallel: bool) -> tuple[Path, ...]:
    files = verdict_files(paths, slug, parallel)
    return files if parallel else (*files, paths.plan_file, paths.completed_file)


def _report(paths: SessionPaths, slug: str | None, parallel: bool) -> tuple[Path, ...]:
    return (paths.report_file,)


def _final_review_writes(paths: SessionPaths, slug: str | None, parallel: bool) -> tuple[Path, ...]:
    return verdict_files(paths, None, False)


def _recovery(paths: SessionPaths, slug: str | None, parallel: bool) -> tuple[Path, ...]:
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
    must_leave: Files
    """The files the call must leave behind (its validator reads them)."""


SPECS: dict[Phase, PhaseSpec] = {
    spec.phase: spec
    for spec in (
        PhaseSpec(Phase.INITIAL_PLAN, "initial_plan", False, False, False, _plan, _plan),
        PhaseSpec(
            Phase.RESEARCH, "research", False, False, True, _research_writes, _research_leaves
        ),
        PhaseSpec(Phase.REVIEW, "review", True, False, True, _review_writes, _nothing),
        PhaseSpec(Phase.SYNTHESIZE, "synthesize", False, True, False, _report, _report),
        PhaseSpec(
            Phase.FINAL_REVIEW, "final_review", True, True, False, _final_review_writes, _nothing
        ),
        PhaseSpec(Phase.REVISE, "revise", False, True, False, _report, _report),
        PhaseSpec(Phase.RECOVERY, "recovery", False, False, False, _recovery, _nothing),
    )
}
FINAL_PHASES = frozenset(p for p, spec in SPECS.items() if spec.final_cycle)

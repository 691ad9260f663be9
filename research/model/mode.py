"""How many topics are in flight at once, and so which files a topic's calls may write.

With one topic in flight (`--parallel 1`) the agent keeps the plan and the progress index
itself and writes the shared verdict files. With several, the calls of different topics run
side by side, so each writes only its own topic's files (its notes and its own verdict
files); the orchestrator alone writes the plan, the progress index and the state.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from research.workspace.paths import SessionPaths


@dataclass(frozen=True)
class Mode:
    """The file layout of a run with `slots` topics in flight."""

    slots: int = 1
    """Topics researched at once (--parallel)."""

    @property
    def own_files(self) -> bool:
        """True when each topic call writes only its own topic's files (parallel mode)."""
        return self.slots > 1

    def verdict_files(self, paths: SessionPaths, slug: str | None) -> tuple[Path, Path]:
        """The accepted and rejected verdict files a review of `slug` writes (the final
        review's, with no topic)."""
        if self.own_files and slug is not None:
            review = paths.session_dir / "review"
            return review / f"{slug}.accepted.md", review / f"{slug}.rejected.md"
        return paths.accepted_file, paths.rejected_file

    def topic_files(self, paths: SessionPaths, slug: str) -> tuple[Path, ...]:
        """The notes and verdict files that belong to one topic in this layout."""
        return (paths.progress_file(slug), *self.verdict_files(paths, slug))

    def research_writes(self, paths: SessionPaths, slug: str) -> tuple[Path, ...]:
        """What a RESEARCH call may write: its notes (and, sharing, the plan and index)."""
        own = (paths.progress_file(slug),)
        return own if self.own_files else (*own, paths.plan_file, paths.progress_index)

    def review_writes(self, paths: SessionPaths, slug: str | None) -> tuple[Path, ...]:
        """What a REVIEW call may write: a verdict (and, sharing, the plan and the marker)."""
        files = self.verdict_files(paths, slug)
        return files if self.own_files else (*files, paths.plan_file, paths.completed_file)

    def recovery_files(self, paths: SessionPaths) -> tuple[Path, ...]:
        """What a RECOVERY call starts without: the last recovery's notes, unless another
        topic's recovery may be writing them at the same time."""
        return () if self.own_files else (paths.recovery_notes,)

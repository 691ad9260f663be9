"""Every path of a research session, and the validation of session names."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from research.core.errors import UsageError

NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
RESEARCH_DIR = ".research"
REPORTS_DIR = "reports"
CALLS_DIR = ".calls"
"""Under .research/: each session's agent calls' scratch areas (engine/staging.py). Not a
session name: those start with a letter or digit."""


def validate_name(name: str) -> str:
    """Return `name` unchanged if it is a safe session name, else raise UsageError."""
    if not NAME_PATTERN.fullmatch(name) or name in {".", ".."}:
        shown = f"invalid --name {name!r}" if name else "invalid --name: it is empty"
        raise UsageError(
            f"{shown}; use 1-64 characters of a-z, 0-9, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    return name


def default_name(topic: str) -> str:
    """The session name derived from a topic: its slug, plus a short hash of the topic when
    letters were lost on the way to ASCII (Chinese, Japanese, ...), so that two such topics
    get different names rather than both `topic`."""
    from research.core.names import slugify

    text = topic.strip()
    slug = slugify(text, max_length=55)
    lost = any(char.isalnum() and slugify(char) == "topic" for char in text)
    if lost or slug == "topic" and text.lower() != "topic":
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
        slug = f"{slug}-{digest}"
    return slug


@dataclass(frozen=True)
class SessionPaths:
    """The files of one session, all under `root` (the working directory)."""

    root: Path
    name: str

    @property
    def research_root(self) -> Path:
        return self.root / RESEARCH_DIR

    @property
    def templates_dir(self) -> Path:
        return self.research_root / "templates"

    @property
    def session_dir(self) -> Path:
        return self.research_root / self.name

    @property
    def calls_dir(self) -> Path:
        """The scratch areas of this session's agent calls: what an agent writes lands here,
        and the orchestrator takes the phase's files into the session (engine/staging.py)."""
        return self.research_root / CALLS_DIR / self.name

    @property
    def lock_file(self) -> Path:
        return self.session_dir / "research.lock.json"

    @property
    def state_file(self) -> Path:
        return self.session_dir / "state.json"

    @property
    def plan_file(self) -> Path:
        return self.session_dir / "research_plan.md"

    @property
    def progress_index(self) -> Path:
        return self.session_dir / "progress.md"

    @property
    def progress_dir(self) -> Path:
        return self.session_dir / "progress"

    def progress_file(self, slug: str) -> Path:
        return self.progress_dir / f"{slug}.md"

    @property
    def accepted_file(self) -> Path:
        return self.session_dir / "review.accepted.md"

    @property
    def rejected_file(self) -> Path:
        return self.session_dir / "review.rejected.md"

    @property
    def recovery_notes(self) -> Path:
        return self.session_dir / "recovery.notes.md"

    @property
    def completed_file(self) -> Path:
        return self.session_dir / "completed.md"

    @property
    def decisions_file(self) -> Path:
        return self.session_dir / "decisions.jsonl"

    @property
    def events_file(self) -> Path:
        return self.session_dir / "events.jsonl"

    @property
    def sources_file(self) -> Path:
        return self.session_dir / "sources.json"

    @property
    def citations_file(self) -> Path:
        return self.session_dir / "citations.json"

    @property
    def verification_file(self) -> Path:
        return self.session_dir / "verification.json"

    @property
    def judge_batch_file(self) -> Path:
        """The cited sentences a VERIFY call judges, with their pages' passages."""
        return self.session_dir / "judge.batch.json"

    @property
    def judge_answers_file(self) -> Path:
        """Where the VERIFY call writes its judgements, beside the batch."""
        return self.session_dir / "judge.answers.json"

    @property
    def sources_dir(self) -> Path:
        """The snapshot store: the text of every fetched page and local document."""
        return self.session_dir / "sources"

    @property
    def logs_dir(self) -> Path:
        return self.session_dir / "logs"

    @property
    def archive_dir(self) -> Path:
        return self.session_dir / "archive"

    @property
    def report_dir(self) -> Path:
        return self.root / REPORTS_DIR / self.name

    @property
    def report_file(self) -> Path:
        return self.report_dir / "report.md"

    @property
    def report_html_file(self) -> Path:
        """The report as one self-contained web page, written beside report.md."""
        return self.report_dir / "report.html"

    def report_export_file(self, fmt: str) -> Path:
        """report.pdf or report.docx (--export), beside report.html."""
        return self.report_dir / f"report.{fmt}"

    def relative(self, path: Path) -> str:
        """`path` relative to the working directory, as the agent is told it."""
        return path.relative_to(self.root).as_posix()

    def intermediate_files(self) -> list[Path]:
        """Files of the session dir that are archived and removed on completion."""
        return [
            self.accepted_file,
            self.rejected_file,
            self.recovery_notes,
            self.completed_file,
            self.judge_batch_file,
            self.judge_answers_file,
        ]

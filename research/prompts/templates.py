"""The phase prompt templates: ship the defaults, copy them once, validate, render."""

from __future__ import annotations

import hashlib
import os
import tempfile
from importlib import resources
from pathlib import Path
from string import Template

from pydantic import BaseModel, ValidationError

from research.core.errors import TemplateError
from research.workspace.fsutil import atomic_write_bytes

TEMPLATE_NAMES = (
    "initial_plan",
    "research",
    "review",
    "synthesize",
    "final_review",
    "revise",
    "verify",
    "recovery",
    "phase_recovery",
)

COMMON_VARIABLES = (
    "original_topic",
    "name",
    "breadth",
    "depth",
    "iteration",
    "max_iterations",
    "model",
    "review_model",
    "timeout",
    "date",
    "session_dir",
    "plan_file",
    "progress_index_file",
    "progress_dir",
    "report_file",
    "accepted_file",
    "rejected_file",
    "completed_file",
    "recovery_notes_file",
    "time_remaining",
    "complexity_instructions",
    "plan_answers",
)
TOPIC_VARIABLES = (
    "topic_name",
    "topic_slug",
    "topic_depth",
    "topic_parent",
    "topic_description",
    "topic_criteria",
    "progress_file",
    "attempt",
    "max_attempts",
    "subtopic_rule",
    "review_feedback",
    "searches",
    "source_cap",
    "writable_files",
    "subtopic_instructions",
    "progress_index_instructions",
    "completion_rule",
    "source_check",
    "local_sources",
)
FINAL_VARIABLES = (
    "source_registry",
    "citation_audit",
    "topic_tree",
    "limit_note",
    "source_verification",
)
RECOVERY_VARIABLES = ("failed_phase", "last_error", "recovery_round")
JUDGE_VARIABLES = ("judge_batch_file", "judge_answers_file", "judge_count")
VARIABLES = frozenset(
    COMMON_VARIABLES + TOPIC_VARIABLES + FINAL_VARIABLES + RECOVERY_VARIABLES + JUDGE_VARIABLES
)
NOT_APPLICABLE = "(not applicable)"


def default_templates_dir() -> Path:
    """The shipped defaults: inside the installed package, or `templates/` of a checkout."""
    packaged = Path(str(resources.files("research") / "templates"))
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "templates"


# What each phase's template must hold, beyond known variables and valid syntax: the
# variables without which the agent cannot find its files (only those every shipped
# version has, so that a template edited from an old default stays usable), the phase
# heading first (the agents and the fake provider read the phase from it), and the halt
# instruction, which ends every shipped template and so goes first when one is truncated.
REQUIRED_VARIABLES: dict[str, tuple[str, ...]] = {
    "initial_plan": ("original_topic", "plan_file", "breadth", "depth"),
    "research": ("topic_name", "progress_file"),
    "review": ("topic_name", "progress_file"),
    "synthesize": ("original_topic", "report_file", "source_registry", "topic_tree"),
    "final_review": ("report_file", "accepted_file", "rejected_file", "citation_audit"),
    "revise": (
        "report_file",
        "accepted_file",
        "rejected_file",
        "source_registry",
        "citation_audit",
    ),
    "verify": ("judge_batch_file", "judge_answers_file"),
    "recovery": ("failed_phase", "last_error", "recovery_notes_file"),
    "phase_recovery": ("last_error", "recovery_notes_file"),
}
HEADINGS = {
    "initial_plan": "# Phase: INITIAL PLAN",
    "research": "# Phase: RESEARCH",
    "review": "# Phase: REVIEW",
    "synthesize": "# Phase: SYNTHESIZE",
    "final_review": "# Phase: FINAL REVIEW",
    "revise": "# Phase: REVISE",
    "verify": "# Phase: VERIFY",
    "recovery": "# Phase: RECOVERY",
}
HALT = "(halt)"
HISTORY_FILE = "history.json"


class ShippedHistory(BaseModel):
    """templates/history.json: the sha256 of every shipped version of each template."""

    version: int
    sha256: dict[str, list[str]]


def shipped_history(source: Path | None = None) -> ShippedHistory:
    """The shipped history; an install without a readable one upgrades nothing."""
    path = (source or default_templates_dir()) / HISTORY_FILE
    try:
        return ShippedHistory.model_validate_json(path.read_bytes())
    except (OSError, ValidationError):
        return ShippedHistory(version=0, sha256={})


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class TemplateSync(BaseModel):
    """What `sync_templates` did: copied (missing), upgraded (an unedited older default),
    and kept (edited by the user; the current default is beside it as `<name>.md.new`)."""

    copied: list[str] = []
    upgraded: list[str] = []
    kept: list[str] = []

    def notices(self, target: str) -> list[str]:
        lines = []
        if self.upgraded:
            lines.append(
                f"upgraded the unedited templates {', '.join(self.upgraded)} in "
                f"{target} to the current defaults"
            )
        if self.kept:
            names = ", ".join(f"{name}.md" for name in self.kept)
            lines.append(
                f"kept your edited templates {names} in {target}; a newer default "
                "is beside each as <name>.md.new (delete a template to take it)"
            )
        return lines


def sync_templates(target: Path) -> TemplateSync:
    """Bring `target` up to the shipped defaults without losing an edit.

    A missing template is copied; one byte-identical to an earlier shipped version is
    replaced by the current one; an edited one is kept (the caller writes the current
    default beside it, see `write_newer_defaults`, once the set loaded). Every write is
    atomic (a temporary file and a rename), so a run started at the same moment never
    reads a half-written template."""
    source = default_templates_dir()
    history = shipped_history(source)
    target.mkdir(parents=True, exist_ok=True)
    done = TemplateSync()
    for name in TEMPLATE_NAMES:
        current = (source / f"{name}.md").read_bytes()
        dest = target / f"{name}.md"
        try:
            present = dest.read_bytes()
        except FileNotFoundError:
            _create(dest, current)
            done.copied.append(name)
            continue
        except OSError:
            continue  # a directory or unreadable file: loading names it
        if present == current:
            continue
        if digest(present) in history.sha256.get(name, []):
            atomic_write_bytes(dest, current, durable=True)
            done.upgraded.append(name)
        elif present and not damage(name, present):
            done.kept.append(name)
    return done


def write_newer_defaults(target: Path, names: list[str]) -> None:
    """Put the current default beside each kept (edited) template as `<name>.md.new`."""
    source = default_templates_dir()
    for name in names:
        current = (source / f"{name}.md").read_bytes()
        newer = target / f"{name}.md.new"
        try:
            if newer.read_bytes() == current:
                continue
        except OSError:
            pass
        atomic_write_bytes(newer, current, durable=False)


def _create(dest: Path, data: bytes) -> None:
    """Write a missing template whole, never over one that appeared meanwhile."""
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), 0o644)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(tmp, dest)  # fails if another run created it first: theirs is whole too
        except FileExistsError:
            pass
    finally:
        Path(tmp).unlink(missing_ok=True)


def damage(name: str, data: bytes) -> str | None:
    """Why a template cannot be used for its phase (empty, truncated, missing a required
    variable or its phase heading), or None."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "it is not UTF-8 text"
    if not text.strip():
        return "it is empty"
    heading = HEADINGS.get(name)
    if heading and not text.lstrip().startswith(heading):
        return f"it does not start with the heading {heading!r}"
    identifiers = set(Template(text).get_identifiers())
    missing = [v for v in REQUIRED_VARIABLES.get(name, ()) if v not in identifiers]
    if missing:
        return f"it lacks the variable ${missing[0]}"
    if HALT not in text:
        return f"it is truncated (no {HALT!r} instruction)"
    return None


def ensure_templates(target: Path) -> list[str]:
    """Copy each missing default template into `target`; never overwrite. Returns those copied."""
    return sync_templates(target).copied


class PromptTemplates:
    """The eight templates of a session, validated as a set before any agent call."""

    def __init__(self, templates: dict[str, Template]) -> None:
        self.templates = templates

    @classmethod
    def load(cls, directory: Path) -> PromptTemplates:
        templates = {}
        for name in TEMPLATE_NAMES:
            path = directory / f"{name}.md"
            try:
                data = path.read_bytes()
            except OSError as exc:
                raise TemplateError(
                    f"template {path} cannot be read: {exc.strerror}; delete "
                    "it and run again to restore the default"
                ) from None
            problem = damage(name, data)
            if problem:
                raise TemplateError(
                    f"template {path} is damaged ({problem}); delete it and "
                    "run again to restore the default"
                ) from None
            templates[name] = Template(data.decode("utf-8"))
        loaded = cls(templates)
        loaded.validate()
        return loaded

    def validate(self) -> None:
        """Render every template with the full variable set; name the first problem found."""
        sample = dict.fromkeys(VARIABLES, "x")
        for name, template in self.templates.items():
            unknown = sorted(set(template.get_identifiers()) - VARIABLES)
            if unknown:
                raise TemplateError(
                    f"template {name}.md uses unknown variable ${unknown[0]} "
                    f"(known: {', '.join(sorted(VARIABLES))})"
                )
            try:
                template.substitute(sample)
            except ValueError as exc:
                raise TemplateError(
                    f"template {name}.md has a bad $ placeholder ({exc}); write $$ for a literal $"
                ) from None

    def render(self, name: str, variables: dict[str, str]) -> str:
        values = dict.fromkeys(VARIABLES, NOT_APPLICABLE)
        values.update(variables)
        return self.templates[name].substitute(values)

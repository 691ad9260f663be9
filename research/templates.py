"""The phase prompt templates: ship the defaults, copy them once, validate, render."""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path
from string import Template

from research.errors import TemplateError

TEMPLATE_NAMES = (
    "initial_plan", "research", "review", "synthesize", "final_review", "revise", "recovery",
    "phase_recovery",
)

COMMON_VARIABLES = (
    "original_topic", "name", "breadth", "depth", "iteration", "max_iterations", "model",
    "review_model", "timeout", "date", "session_dir", "plan_file", "progress_index_file",
    "progress_dir", "report_file", "accepted_file", "rejected_file", "completed_file",
    "recovery_notes_file", "time_remaining",
)
TOPIC_VARIABLES = (
    "topic_name", "topic_slug", "topic_depth", "topic_parent", "topic_description",
    "topic_criteria", "progress_file", "attempt", "max_attempts", "subtopic_rule",
    "review_feedback", "searches", "writable_files", "subtopic_instructions",
    "progress_index_instructions", "completion_rule", "source_check", "local_sources",
)
FINAL_VARIABLES = ("source_registry", "citation_audit", "topic_tree", "limit_note")
RECOVERY_VARIABLES = ("failed_phase", "last_error", "recovery_round")
VARIABLES = frozenset(COMMON_VARIABLES + TOPIC_VARIABLES + FINAL_VARIABLES + RECOVERY_VARIABLES)
NOT_APPLICABLE = "(not applicable)"


def default_templates_dir() -> Path:
    """The shipped defaults: inside the installed package, or `templates/` of a checkout."""
    packaged = Path(str(resources.files("research") / "templates"))
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / "templates"


def ensure_templates(target: Path) -> list[str]:
    """Copy each missing default template into `target`; never overwrite. Returns those copied."""
    source = default_templates_dir()
    target.mkdir(parents=True, exist_ok=True)
    copied = []
    for name in TEMPLATE_NAMES:
        dest = target / f"{name}.md"
        if not dest.exists():
            shutil.copyfile(source / f"{name}.md", dest)
            copied.append(name)
    return copied


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
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                reason = getattr(exc, "strerror", None) or str(exc)
                raise TemplateError(f"template {path} cannot be read: {reason}") from None
            templates[name] = Template(text)
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

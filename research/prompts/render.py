"""The prompts themselves: a phase's template rendered with its variables, the retry block
added after a failure, and the RECOVERY call's prompt. The engine and the golden prompt
tests both render through these functions."""

from __future__ import annotations

from research.prompts.templates import PromptTemplates
from research.prompts.variables import Failure


def phase_prompt(
    templates: PromptTemplates, template: str, values: dict[str, str], failure: Failure | None
) -> str:
    """The phase's prompt; a retry after `failure` ends with the phase_recovery block."""
    prompt = templates.render(template, values)
    if failure is not None:
        prompt += "\n\n" + retry_block(templates, values, failure)
    return prompt


def retry_block(templates: PromptTemplates, values: dict[str, str], failure: Failure) -> str:
    """The phase_recovery block: what failed, and to read the recovery notes first."""
    return templates.render("phase_recovery", recovery_values(values, failure))


def recovery_values(values: dict[str, str], failure: Failure) -> dict[str, str]:
    """The RECOVERY call's variables: the failed phase's, with what failed and how."""
    return {**values, **failure.values()}


def recovery_prompt(templates: PromptTemplates, values: dict[str, str], failure: Failure) -> str:
    """The RECOVERY call's prompt, for the failed phase whose variables are `values`."""
    return templates.render("recovery", recovery_values(values, failure))

"""The option table's rows as typed fields: the service's requests and the queue's jobs are
generated here from `options.OPTIONS`, and so are the values that travel between them.

A value travels as the command line gives it (its "wire" form): numbers and booleans as
they are, the time budget as its text or a number of minutes ('unlimited' included), a tier
or an agent by name, folders as paths. A job becomes the child's command line through
`options.command_line`, and `settings_value` turns a wire value into what `Settings` holds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import AfterValidator, Field

from research.core.options import OPTIONS, Option, time_budget_minutes

if TYPE_CHECKING:
    from research.core.settings import Settings

MAX_REPEATS = 64
"""The most values a repeatable option (--sources) takes in one request or job."""
UNLIMITED = "unlimited"


def wire_type(option: Option) -> Any:
    """The type of the option's value in a request or a job."""
    names = option.values
    if names is not None:
        return Literal.__getitem__(names)  # the row's names, e.g. AgentKind's values
    if option.repeatable:
        return list[str]
    if option.kind is str and option.check is not None:
        return str | float  # text its check reads (the time budget: minutes or 'unlimited')
    if option.kind is Path:
        return str
    return option.kind


def _validator(check: Callable[[object], object]) -> Callable[[object], object]:
    """The row's check, run on a wire value that is kept as given."""

    def validate(value: object) -> object:
        if value is not None:
            check(value)
        return value

    return validate


def option_field(option: Option, *, description: str | None = None) -> tuple[Any, Any]:
    """(annotation, FieldInfo) of the option in a request or a job: no value by default
    (the CLI's default then applies), the CLI's bounds and its check."""
    annotation: Any = wire_type(option)
    limits: dict[str, Any] = {}
    if option.kind in (int, float) and option.values is None:
        limits.update(ge=option.minimum, le=option.maximum)
    if option.kind is float:
        limits["allow_inf_nan"] = False
    if option.max_length is not None:
        limits.update(min_length=1, max_length=option.max_length)
    if option.repeatable:
        limits["max_length"] = MAX_REPEATS
    if option.check is not None and not option.repeatable and option.values is None:
        annotation = Annotated[annotation, AfterValidator(_validator(option.check))]
    return annotation | None, Field(None, description=description or option.help, **limits)


def request_fields(
    *, without: Collection[str] = (), descriptions: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The fields of a service request (by request name), but those in `without`; a field's
    description is its option's help unless `descriptions` gives another."""
    fields: dict[str, Any] = {}
    for option in OPTIONS:
        name = option.request_field
        if name is None or name in without:
            continue
        description = (descriptions or {}).get(name, option.help)
        if option.kind is Path:
            description += (
                " Each inside the server's working directory, relative to it or absolute."
            )
        fields[name] = option_field(option, description=description)
        if option.request_seconds is not None:
            fields[option.request_seconds] = (
                float | None,
                Field(
                    None,
                    gt=0,
                    allow_inf_nan=False,
                    description=f"{option.help} In seconds, instead of `{name}`.",
                ),
            )
    return fields


def job_fields() -> dict[str, Any]:
    """The option fields of a job (by option name)."""
    return {option.name: option_field(option) for option in OPTIONS if option.job}


def request_values(fields: Mapping[str, object]) -> dict[str, object]:
    """The options a request gives (its fields without their nulls), by option name, as
    wire values; a value in seconds becomes the option's minutes. ValueError names the
    request's field."""
    values: dict[str, object] = {}
    for option in OPTIONS:
        name = option.request_field
        if name is None:
            continue
        if name in fields:
            values[option.name] = fields[name]
        seconds = fields.get(option.request_seconds) if option.request_seconds else None
        if seconds is not None:
            values[option.name] = _from_seconds(option, name, float(seconds), fields.get(name))  # type: ignore[arg-type]
    return values


def _from_seconds(option: Option, name: str, seconds: float, given: object) -> str:
    """The wire value (minutes) of `seconds`; both fields given must agree."""
    minutes = seconds / 60.0
    try:
        time_budget_minutes(repr(minutes))
    except ValueError as exc:
        raise ValueError(f"{option.request_seconds}: {exc}") from None
    if given is not None:
        other = time_budget_minutes(str(given))
        if other is None or not math.isclose(other, minutes, rel_tol=1e-9):
            raise ValueError(
                f"{name} and {option.request_seconds} give different budgets; give one of them"
            )
    return repr(minutes)


def settings_value(option: Option, value: object) -> object:
    """A wire value as `Settings` holds it (the time budget in minutes, None for
    'unlimited'; folders as paths)."""
    if option.repeatable:
        return tuple(Path(str(item)) for item in value)  # type: ignore[attr-defined]
    if option.check is not None:
        return option.check(value)
    return value


def wire_value(option: Option, value: object) -> object:
    """A `Settings` value as a request or a job carries it."""
    if value is None and option.unlimited:
        return UNLIMITED
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return [str(item) for item in value]
    return value


def given_values(settings: Settings) -> dict[str, object]:
    """The options of `settings` a job carries, as wire values: those the user set."""
    return {
        option.name: wire_value(option, getattr(settings, option.name))
        for option in OPTIONS
        if option.job and option.setting and option.name in settings.given
    }

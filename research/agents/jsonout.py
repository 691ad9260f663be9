"""Reading an agent CLI's JSON output: object lines, numbers, nested objects."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, TypeGuard


def json_objects(stdout: str) -> Iterator[dict[str, Any]]:
    """The JSON object lines of `stdout`, in order; other lines are skipped."""
    for line in stdout.splitlines():
        if (value := json_object(line)) is not None:
            yield value


def json_object(line: str) -> dict[str, Any] | None:
    """`line` as a JSON object, or None when it is not one."""
    line = line.strip()
    if not line.startswith("{"):
        return None
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def is_number(value: object) -> TypeGuard[int | float]:
    """A JSON number (not a boolean)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def as_dict(value: object) -> dict[str, Any]:
    """`value` if it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def count(value: object) -> int:
    """A token count: the number, or 0 when it is missing or not a number."""
    return int(value) if is_number(value) else 0

"""A figure as a text states it, before it is read as a claim's or a page's (pure): where it
is, its text and value, its kind, and what it may match (`candidates`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import TypeAlias

from research.sources.quantities import Quantity

Value: TypeAlias = Decimal | str
"""A figure's value: a Decimal, or the text of a dotted version such as "3.12.1"."""


@dataclass(slots=True)
class RawFigure:
    start: int
    end: int
    text: str
    value: Value
    kind: str
    scale: int | None
    letter: bool
    candidates: set[Value]
    band: tuple[float, float] | None = None
    quantity: Quantity | None = None
    multiple: bool = False
    blank_end: int = 0
    """Where its blank ends: after its unit, which is no content word ("MB/s"); -1: not
    blanked (a date's month is a content word)."""
    blank_start: int = -1
    """Where its blank starts when not at `start`: at a claim's hedge ("more than"),
    which is no content word either; -1: at `start`."""
    tokens: set[str] = field(default_factory=set)
    bound: int = 0
    reach: bool = False
    side: int = 0

"""What a phase comes back with: `Ok(value)` or `Failed(error, kind)` — never a sentinel."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeAlias, TypeVar, Union

T = TypeVar("T")


@dataclass(frozen=True)
class Ok(Generic[T]):
    """The phase's files were valid; `value` is what its validator read from them."""

    value: T


@dataclass(frozen=True)
class Failed:
    """The phase failed even after its retries and recovery rounds."""

    error: str
    kind: str = "failed"


Outcome: TypeAlias = Union[Ok[T], Failed]  # noqa: UP007 - a generic alias needs Union

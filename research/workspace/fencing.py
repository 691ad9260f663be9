"""The fence every write into a session passes: the lock's generation checked right before
the rename, unlink or append that changes the session (see `SessionLock.fenced`).

A run registers its session and report directories here once it holds their lock
(`fence_tree`). From then on each of fsutil's writes below them is made inside the fence,
which raises (and so writes nothing) once another run has taken the session over. This
module keeps only the registry: which directory is fenced by what; fsutil calls `fenced`.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

Fence = Callable[[], AbstractContextManager[object]]
"""Makes one write: raises instead of entering when the writer no longer owns the session."""

_FENCES: dict[str, Fence] = {}
_REGISTRY_LOCK = threading.Lock()
_LOCAL = threading.local()


def fence_tree(root: Path, fence: Fence) -> None:
    """Make every write below `root` (a session or report directory) pass `fence`."""
    with _REGISTRY_LOCK:
        _FENCES[os.fspath(root)] = fence


def unfence_tree(root: Path) -> None:
    with _REGISTRY_LOCK:
        _FENCES.pop(os.fspath(root), None)


@contextlib.contextmanager
def unfenced() -> Iterator[None]:
    """Writes of this thread skip the fence while the block runs: the lock's own file (made
    under its flock)."""
    depth: int = getattr(_LOCAL, "depth", 0)
    _LOCAL.depth = depth + 1
    try:
        yield
    finally:
        _LOCAL.depth = depth


def fenced(*paths: Path | str) -> AbstractContextManager[object]:
    """The fence of the first of `paths` below a fenced directory, or no fence at all."""
    if not _FENCES or _LOCAL.__dict__.get("depth", 0):
        return contextlib.nullcontext()
    for path in paths:
        current = os.path.dirname(os.fspath(path))
        while True:
            fence = _FENCES.get(current)
            if fence is not None:
                return fence()
            up = os.path.dirname(current)
            if up == current:
                break
            current = up
    return contextlib.nullcontext()

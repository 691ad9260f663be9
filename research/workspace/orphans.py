"""Agents left running by an orchestrator that died (kill -9, power cut of a terminal).

Each agent call runs in a process group of its own, so a SIGKILL of the orchestrator
does not reach it. Every agent process carries the session's directory in its
environment; the next run of the session, having taken over the dead run's lock, finds
those processes through /proc and stops their groups before it starts its own agent.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterable
from pathlib import Path

SESSION_ENV = "RESEARCH_SESSION_DIR"


def session_marker(session_dir: Path) -> dict[str, str]:
    """The environment entry that marks an agent process as this session's."""
    return {SESSION_ENV: str(session_dir.resolve())}


def agent_process_groups(session_dir: Path, *, proc: Path = Path("/proc")) -> set[int]:
    """Process groups (other than ours) with a process marked as this session's agent.

    Empty where /proc does not exist; processes we may not inspect are passed over.
    """
    ((key, value),) = session_marker(session_dir).items()
    marker = f"{key}={value}".encode()
    own_group = os.getpgrp()
    groups = set()
    try:
        entries = list(proc.iterdir())
    except OSError:
        return set()
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            if marker not in environ.split(b"\0"):
                continue
            group = os.getpgid(int(entry.name))
        except (OSError, ProcessLookupError):
            continue
        if group != own_group:
            groups.add(group)
    return groups


def stop_process_groups(groups: Iterable[int], *, grace: float = 5.0) -> None:
    """SIGTERM each group, then SIGKILL what is still there after `grace` seconds."""
    remaining = set(groups)
    for group in list(remaining):
        if not _signal_group(group, signal.SIGTERM):
            remaining.discard(group)
    deadline = time.monotonic() + grace
    while remaining and time.monotonic() < deadline:
        remaining = {group for group in remaining if _signal_group(group, 0)}
        time.sleep(0.05)
    for group in remaining:
        _signal_group(group, signal.SIGKILL)


def _signal_group(group: int, sig: int) -> bool:
    """Send `sig` to a group; False when the group no longer exists."""
    try:
        os.killpg(group, sig)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False
    return True

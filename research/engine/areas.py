"""The scratch areas' life between phases (the copy in each is engine/staging.py's).

When a phase ends its scratch area waits for the run's next phase (writing the copies
again costs more than reading them), which takes it under a new name: a process the ended
phase left behind writes by the old name in vain. A process already inside the area (its
working or root directory there, a file or directory open, a file mapped: an agent's that
escaped its supervisor) is not stopped by a new name, so the area is reused only when
/proc shows that no process holds anything inside it (workspace/holders.py); otherwise, or
when that cannot be told (not Linux), it is moved aside and removed, the next phase gets a
fresh one, and a held area is reported in a warning event naming the processes. What they
write there then reaches a deleted directory or file, never the session. They are not
killed: their ancestry is what escaping erases, and one with the user's uid inside the
area may be the user's own shell or editor.

The areas are removed at the run's end (`close_areas`); a new lock holder removes the
session's old ones (`discard_stale`): what a stale run's or an orphaned agent's writes land
in is never read.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from pathlib import Path

from research.engine.context import RunContext
from research.model.state import Phase
from research.workspace.fsutil import guard_tree, unguard_tree
from research.workspace.holders import Holder, holders, kernel_path
from research.workspace.paths import SessionPaths

IdleArea = tuple[Path, tuple[int, int], float]
"""An ended phase's area: its path, its directory's (device, inode) and when it was made
(seconds since boot)."""


def discard_stale(paths: SessionPaths) -> None:
    """Remove every scratch area of the session (call it holding the lock): those of a run
    that was taken over or killed, and whatever its agents still wrote there."""
    remove_tree(paths.calls_dir)
    with contextlib.suppress(OSError):
        paths.calls_dir.parent.rmdir()  # .calls itself, when no other session has any


def close_areas(ctx: RunContext) -> None:
    """At the run's end: remove the scratch areas its phases left for the next one."""
    with ctx.mutex:
        areas, ctx.idle_areas[:] = list(ctx.idle_areas), []
    for root, _, _ in areas:
        unguard_tree(root)
        remove_tree(root)
    for parent in (ctx.paths.calls_dir, ctx.paths.calls_dir.parent):  # .calls/<name>, .calls
        try:
            parent.rmdir()  # only when empty: another run's or session's areas keep them
        except OSError:
            break


def reuse(ctx: RunContext, area: IdleArea, root: Path, phase: Phase) -> IdleArea | None:
    """An ended phase's `area` renamed to `root` for `phase`, when nothing holds it; else
    None (it is removed, and a held one reported)."""
    old, made, born = area
    unguard_tree(old)
    try:
        os.rename(old, root)  # a link in its place is moved, never followed
    except OSError:
        remove_tree(old)
        return None
    path = kernel_path(os.fspath(root), made)  # None: not the directory made, or not Linux
    found = None if path is None else holders(path, born)
    if found == []:
        guard_tree(root)
        return root, made, born
    if found:
        _report_held(ctx, phase, found)
    _throw_away(root)
    return None


def _report_held(ctx: RunContext, phase: Phase, found: list[Holder]) -> None:
    what = "; ".join(f"process {holder.pid} has {holder.holds} there" for holder in found)
    ctx.events.emit(
        "warning",
        phase=phase.value,
        pids=[holder.pid for holder in found],
        message=f"the {phase.value} phase did not reuse the scratch area an ended phase "
        f"left: {what} (an agent process that outlived its call?). It was removed and a "
        "fresh one made, so what that process writes there reaches nothing the run reads",
    )


def _throw_away(root: Path) -> None:
    """Move the area out of the way (something writing into it may keep a removal from
    finishing) and remove it; what is left of it goes with the session's old areas."""
    aside = root.with_name(root.name + ".discarded")
    try:
        os.rename(root, aside)
    except OSError:
        remove_tree(root)
        return
    remove_tree(aside)


def remove_tree(directory: Path) -> None:
    # rmtree never follows a link inside the tree; a link in place of the tree is unlinked.
    if os.path.islink(directory):
        os.unlink(directory)
        return
    shutil.rmtree(directory, ignore_errors=True)
    if os.path.lexists(directory):  # a directory an agent made that nobody may enter
        _open_up(directory)
        shutil.rmtree(directory, ignore_errors=True)


def _open_up(directory: Path) -> None:
    """Make every directory of the tree ours to enter again (an agent may have left one of
    mode 000 with files in it, which rmtree cannot empty), never following a link."""
    with contextlib.suppress(OSError):
        if stat.S_ISDIR(os.lstat(directory).st_mode):
            os.chmod(directory, 0o700)
    for top, names, _ in os.walk(directory):  # top-down: a directory is opened before entered
        for name in names:
            path = os.path.join(top, name)
            with contextlib.suppress(OSError):
                if stat.S_ISDIR(os.lstat(path).st_mode):
                    os.chmod(path, 0o700)

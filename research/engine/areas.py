"""The scratch areas' end (the copy in each is engine/staging.py's).

Each agent call gets an area of its own, made for it and never reused. When the call is
over (its changes taken into the session) the area is moved aside and removed: a process
the call's agent left behind (one that escaped its supervisor by setsid and a double fork)
with its working directory, an open file or directory there writes into a deleted
directory, and by the area's path into nothing any later call is given, since no name is
used twice. Such a process is not looked for (an earlier version scanned /proc for it
before reusing an area) nor killed: its ancestry is what escaping erases, and one with the
user's uid may be the user's own shell or editor.

A new lock holder removes the session's old areas (`discard_stale`): what a stale run's or
an orphaned agent's writes land in is never read.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from pathlib import Path

from research.workspace.fsutil import unguard_tree
from research.workspace.paths import SessionPaths


def discard_stale(paths: SessionPaths) -> None:
    """Remove every scratch area of the session (call it holding the lock): those of a run
    that was taken over or killed, and whatever its agents still wrote there."""
    remove_tree(paths.calls_dir)
    with contextlib.suppress(OSError):
        paths.calls_dir.parent.rmdir()  # .calls itself, when no other session has any


def retire(root: Path) -> None:
    """A used area moved out of the way (something still writing into it may keep a
    removal from finishing; by the old name it reaches nothing) and removed."""
    unguard_tree(root)
    aside = root.with_name(root.name + ".done")
    try:
        os.rename(root, aside)  # a link in its place is moved, never followed
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

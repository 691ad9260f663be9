"""Clearing a reused scratch area of what an earlier call left, through descriptors: the
directories on the way to the copies and the copies that still hold their bytes are kept,
everything else (links, FIFOs, directories, files an agent made) is removed, never
followed."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from research.workspace.fsutil import read_descriptor

DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def prune(dir_fd: int, here: Path, copies: dict[Path, bytes], places: set[Path]) -> set[Path]:
    """Clear the directory `dir_fd` (at `here`) of an earlier call's leftovers, through
    descriptors (a link is never followed): keep the directories on the way to `copies`
    and the regular files of one name that still hold their copy's bytes; the kept files'
    paths."""
    kept: set[Path] = set()
    with os.scandir(dir_fd) as scan:
        entries = [
            (e.name, e.is_dir(follow_symlinks=False), e.is_file(follow_symlinks=False))
            for e in scan
        ]
    for name, is_dir, is_file in entries:
        path = here / name
        if is_dir and path in places:
            fd = os.open(name, DIRECTORY, dir_fd=dir_fd)
            try:
                kept |= prune(fd, path, copies, places)
            finally:
                os.close(fd)
        elif is_dir:
            shutil.rmtree(name, dir_fd=dir_fd)  # never follows a link
        elif is_file and path in copies and _read_at(dir_fd, name) == copies[path]:
            kept.add(path)
        else:
            os.unlink(name, dir_fd=dir_fd)
    return kept


def _read_at(dir_fd: int, name: str) -> bytes | None:
    """The bytes of the regular file `name` in `dir_fd` when it has no other name; None for
    anything else (a hard link an agent made would tie the copy to another file, so that
    the next call's write into it changes that one too)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    fd = os.open(name, flags, dir_fd=dir_fd)
    try:
        linked = os.fstat(fd).st_nlink != 1
    except OSError:
        linked = True
    if linked:
        os.close(fd)
        return None
    return read_descriptor(fd)

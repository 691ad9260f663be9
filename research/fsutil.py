"""Atomic file writes: a kill at any instant leaves the old or the new file, never a torn one."""

from __future__ import annotations

import errno
import os
import re
import stat
import tempfile
import threading
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# Read once, at import time, before any thread could create a file in between.
UMASK = _umask()

TEMP_NAME = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")
"""The name of atomic_write_bytes' temporary file: `.{name}.{8 random characters}.tmp`
(tempfile.mkstemp's alphabet). One a kill left behind matches this and nothing else."""

NOT_REGULAR = b"\0not a regular file\0"
"""What `read_regular` returns for a link, FIFO, directory or device: never equal to any
file's bytes the orchestrator wrote."""

_NO_FOLLOW = os.O_NOFOLLOW | os.O_NONBLOCK


def read_regular(path: Path) -> bytes | None:
    """A regular file's bytes, None when nothing is there, NOT_REGULAR for anything else.

    Never follows a symbolic link and never blocks on a FIFO an agent left in its place
    (the open is non-blocking and the opened descriptor is checked to be a regular file).
    """
    try:
        fd = os.open(path, os.O_RDONLY | _NO_FOLLOW)
    except FileNotFoundError:
        return None
    except OSError:  # a link (ELOOP), no permission, a dangling parent
        return NOT_REGULAR if os.path.lexists(path) else None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return NOT_REGULAR
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read()
    finally:
        os.close(fd)


def is_regular(path: Path) -> bool:
    """Whether `path` itself (not what a link points to) is a regular file."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def is_real_dir(path: Path) -> bool:
    """Whether `path` itself is a directory (a link to one is not)."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


_GUARDED_NAMES: set[str] = set()
_UNLINKED: list[tuple[Path, str]] = []
_GUARD_LOCK = threading.Lock()


def guard_tree(root: Path) -> None:
    """Declare the directory `root` hostile ground (a session or report directory an agent
    writes in): from now on no file below it is written, or opened to append, through a
    symbolic link. A link (or FIFO, socket, device) an agent put in place of a directory
    below `root` is unlinked (never followed) and a real directory made when a write needs
    it (see `take_unlinked`); `root` itself being a link, or gone, fails the write (OSError):
    it is not made again behind the run's back."""
    with _GUARD_LOCK:
        _GUARDED_NAMES.add(os.fspath(root))


def take_unlinked(*roots: Path) -> list[tuple[Path, str]]:
    """What `guard_tree` removed below `roots` at write time since the last call: (path,
    what it was, in words)."""
    with _GUARD_LOCK:
        found = [
            (path, what) for path, what in _UNLINKED if any(root in path.parents for root in roots)
        ]
        _UNLINKED[:] = [entry for entry in _UNLINKED if entry not in found]
    return found


def _check_parents(path: Path) -> None:
    """No directory between a guarded root and `path` may be a link (see guard_tree)."""
    if not _GUARDED_NAMES:
        return
    parent = os.path.dirname(os.fspath(path))
    chain = [parent]  # parent, its parent, ... up to a guarded root (strings: this is hot)
    while chain[-1] not in _GUARDED_NAMES:
        up = os.path.dirname(chain[-1])
        if up == chain[-1]:
            return  # not below a guarded root
        chain.append(up)
    for current in reversed(chain):
        is_root = current is chain[-1]
        try:
            mode = os.lstat(current).st_mode
        except (FileNotFoundError, NotADirectoryError):
            if is_root:
                raise OSError(
                    errno.ENOENT, f"{current} is gone; nothing is written into a new one", str(path)
                ) from None
            return  # made as a real directory by the write
        if stat.S_ISDIR(mode):
            continue
        if stat.S_ISREG(mode):
            return  # a file in the way: the write fails on it, as it would anyway
        if is_root:
            raise OSError(
                errno.ELOOP,
                f"{current} is not the directory it was; nothing is written through it",
                str(path),
            )
        what = "a FIFO" if stat.S_ISFIFO(mode) else "not a directory"
        if stat.S_ISLNK(mode):
            try:
                what = f"a symbolic link to {os.readlink(current)}"
            except OSError:
                what = "a symbolic link"
        os.unlink(current)
        os.mkdir(current)
        with _GUARD_LOCK:
            _UNLINKED.append((Path(current), what))


def atomic_write_text(path: Path, text: str, *, durable: bool = True) -> None:
    """Write `text` (UTF-8) to `path` atomically; see atomic_write_bytes."""
    atomic_write_bytes(path, text.encode("utf-8"), durable=durable)


def write_if_changed(path: Path, text: str) -> bool:
    """Atomically write a file the orchestrator can always derive again (from the state),
    only when its content differs. Not fsynced: after a power loss it is rebuilt, not read.
    Returns whether it wrote."""
    if read_regular(path) == text.encode("utf-8"):  # never through a link, never a FIFO
        return False
    atomic_write_text(path, text, durable=False)
    return True


def atomic_write_bytes(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Write `data` to `path` through a temporary file in the same directory and a rename.

    A rename is atomic against a kill at any instant; `durable` also fsyncs the data
    first, so that the file survives a power loss too. The file keeps its permissions, or
    gets the usual ones (0666 less the umask) when new, not the owner-only mode of a
    temporary file. Below a `guard_tree` root nothing is written through a link.
    """
    _check_parents(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        info = os.lstat(path)  # a link's target is not ours: neither its mode nor its content
        mode = info.st_mode & 0o7777 if stat.S_ISREG(info.st_mode) else 0o666 & ~UMASK
    except FileNotFoundError:
        mode = 0o666 & ~UMASK
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), mode)
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def open_for_append(path: Path) -> int:
    """A descriptor appending to the regular file `path`, made if missing. A symbolic link,
    FIFO, socket or device an agent left in its place is removed (unlinking never follows)
    and a new file made: nothing is ever written through a link or into a FIFO."""
    _check_parents(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(3):
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | _NO_FOLLOW, 0o666)
        except OSError:
            if not os.path.islink(path):
                raise  # a directory (EISDIR), no permission, a full disk
            path.unlink(missing_ok=True)  # O_NOFOLLOW refused a link (ELOOP)
            continue
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return fd
        os.close(fd)
        path.unlink(missing_ok=True)
    raise OSError(f"{path} keeps being replaced by something that is not a regular file")


def _close_torn_line(fd: int) -> bytes:
    """b"\n" when the file's last line is unfinished (a kill, a full disk), else b""."""
    size = os.lseek(fd, 0, os.SEEK_END)
    return b"\n" if size > 0 and os.pread(fd, 1, size - 1) != b"\n" else b""


def append_line(path: Path, line: str) -> None:
    """Append one line. A last line left unfinished (a kill, a full disk) is closed first,
    so it stays the only damaged one instead of swallowing this line too."""
    data = (line.rstrip("\n") + "\n").encode("utf-8")
    fd = open_for_append(path)
    try:
        os.write(fd, _close_torn_line(fd) + data)
    finally:
        os.close(fd)


class LineLog:
    """An append-only file of lines, kept open between writes (one open per run, not one
    per line). Each line goes out in a single write() on an unbuffered descriptor, so a
    kill right after it loses nothing. If the file is replaced or deleted behind our back
    it is opened again (never through a link, never a FIFO); after a failed write the next
    line starts on a line of its own. Once frozen (the session directory was swapped under
    the run) nothing more is written."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self._identity: tuple[int, int, int, int] | None = None
        """(device, inode) of the file and of its directory, as opened."""
        self.frozen = False

    def freeze(self) -> None:
        """Write nothing more: the file's directory is no longer the one the run started in."""
        self.frozen = True
        self.close()

    def append(self, line: str) -> None:
        if self.frozen:
            return
        data = (line.rstrip("\n") + "\n").encode("utf-8")
        fd = self._open()
        try:
            os.write(fd, data)
        except OSError:
            self.close()
            raise

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

    def _open(self) -> int:
        if self._fd is not None:
            if self._where() == self._identity:
                return self._fd
            self.close()
        fd = open_for_append(self.path)
        try:
            if torn := _close_torn_line(fd):
                os.write(fd, torn)  # close a line a kill or a full disk left unfinished
            info = os.fstat(fd)
            folder = os.lstat(self.path.parent)
        except OSError:
            os.close(fd)
            raise
        self._fd = fd
        self._identity = (info.st_dev, info.st_ino, folder.st_dev, folder.st_ino)
        return fd

    def _where(self) -> tuple[int, int, int, int] | None:
        """What the path names now: the file's and its directory's identity (a directory
        moved away and replaced by a link to it no longer matches)."""
        try:
            info = os.lstat(self.path)
            folder = os.lstat(self.path.parent)
        except OSError:
            return None
        if not stat.S_ISREG(info.st_mode) or not stat.S_ISDIR(folder.st_mode):
            return None
        return info.st_dev, info.st_ino, folder.st_dev, folder.st_ino

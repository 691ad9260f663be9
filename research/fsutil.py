"""Atomic file writes: a kill at any instant leaves the old or the new file, never a torn one."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# Read once, at import time, before any thread could create a file in between.
UMASK = _umask()


def atomic_write_text(path: Path, text: str, *, durable: bool = True) -> None:
    """Write `text` (UTF-8) to `path` atomically; see atomic_write_bytes."""
    atomic_write_bytes(path, text.encode("utf-8"), durable=durable)


def write_if_changed(path: Path, text: str) -> bool:
    """Atomically write a file the orchestrator can always derive again (from the state),
    only when its content differs. Not fsynced: after a power loss it is rebuilt, not read.
    Returns whether it wrote."""
    try:
        if path.read_text(encoding="utf-8") == text:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    atomic_write_text(path, text, durable=False)
    return True


def atomic_write_bytes(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Write `data` to `path` through a temporary file in the same directory and a rename.

    A rename is atomic against a kill at any instant; `durable` also fsyncs the data
    first, so that the file survives a power loss too. The file keeps its permissions, or
    gets the usual ones (0666 less the umask) when new, not the owner-only mode of a
    temporary file.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o7777
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


def append_line(path: Path, line: str) -> None:
    """Append one line. A last line left unfinished (a kill, a full disk) is closed first,
    so it stays the only damaged one instead of swallowing this line too."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (line.rstrip("\n") + "\n").encode("utf-8")
    with path.open("a+b") as handle:
        if handle.seek(0, os.SEEK_END) > 0:
            handle.seek(-1, os.SEEK_END)
            if handle.read(1) != b"\n":
                data = b"\n" + data
        handle.write(data)


class LineLog:
    """An append-only file of lines, kept open between writes (one open per run, not one
    per line). Each line goes out in a single write() on an unbuffered descriptor, so a
    kill right after it loses nothing. If the file is replaced or deleted behind our back
    it is opened again; after a failed write the next line starts on a line of its own."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self._identity: tuple[int, int] | None = None

    def append(self, line: str) -> None:
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
            try:
                info = os.stat(self.path)
                if (info.st_dev, info.st_ino) == self._identity:
                    return self._fd
            except FileNotFoundError:
                pass
            self.close()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o666)
        try:
            size = os.lseek(fd, 0, os.SEEK_END)
            if size > 0 and os.pread(fd, 1, size - 1) != b"\n":
                os.write(fd, b"\n")  # close a line a kill or a full disk left unfinished
            info = os.fstat(fd)
        except OSError:
            os.close(fd)
            raise
        self._fd, self._identity = fd, (info.st_dev, info.st_ino)
        return fd

"""Atomic file writes: a kill at any instant leaves the old or the new file, never a torn one."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from research.workspace.fencing import fenced


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# Read once, at import time, before any thread could create a file in between.
UMASK = _umask()

TEMP_NAME = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")
"""The name of atomic_write_bytes' temporary file: `.{name}.{8 random characters}.tmp`
(tempfile.mkstemp's alphabet). One a kill left behind matches this and nothing else."""

_TEMP_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"

NOT_REGULAR = b"\0not a regular file\0"
"""What `read_regular` returns for a link, FIFO, directory or device: never equal to any
file's bytes the orchestrator wrote."""

_NO_FOLLOW = os.O_NOFOLLOW | os.O_NONBLOCK


def read_regular(path: Path) -> bytes | None:
    """A regular file's bytes, None when nothing is there, NOT_REGULAR for anything else.

    Never follows a symbolic link and never blocks on a FIFO an agent left in its place
    (the open is non-blocking and the opened descriptor is checked to be a regular file);
    below a `guard_tree` root not even a link in place of a directory on the way.
    """
    try:
        dir_fd = _open_parent(path, repair=False)
    except FileNotFoundError:
        return None
    except OSError:  # a link or FIFO where a directory belongs: nothing is read through it
        return NOT_REGULAR
    try:
        fd = os.open(
            path.name if dir_fd is not None else path,
            os.O_RDONLY | _NO_FOLLOW | os.O_CLOEXEC,
            dir_fd=dir_fd,
        )
    except FileNotFoundError:
        return None
    except OSError:  # a link (ELOOP), no permission, a dangling parent
        return NOT_REGULAR if os.path.lexists(path) else None
    finally:
        if dir_fd is not None:
            os.close(dir_fd)
    data = read_descriptor(fd)
    return NOT_REGULAR if data is None else data


def read_descriptor(fd: int, limit: int | None = None) -> bytes | None:
    """The bytes of the open file `fd` (up to `limit` + 1 of them, with a limit) when it is
    a regular file, else None; closes it."""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read() if limit is None else handle.read(limit + 1)
    finally:
        os.close(fd)


def read_at_most(path: Path, limit: int) -> bytes | None:
    """Up to `limit` + 1 bytes of a regular file (one more tells the caller it is larger),
    or None: nothing there, not a regular file (no link followed, no FIFO opened), unreadable."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        return read_descriptor(fd, limit)
    except OSError:
        return None


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


def what_is(path: Path, info: os.stat_result | None = None, *, link_target: bool = True) -> str:
    """What the entry `path` itself is (never followed), in words: 'nothing', 'a file',
    'a directory', 'a symbolic link to X' (just 'a symbolic link' without `link_target`),
    'a FIFO', 'a socket', 'a device'; 'not a regular file' when it cannot be looked at.
    `info` is its lstat, when the caller has it already."""
    if info is None:
        try:
            info = os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            return "nothing"
        except OSError:
            return "not a regular file"
    return _mode_words(info.st_mode, (lambda: os.readlink(path)) if link_target else None)


def _mode_words(mode: int, readlink: Callable[[], str] | None = None) -> str:
    """A file mode in words (see what_is); `readlink` names a link's target."""
    if stat.S_ISLNK(mode):
        if readlink is not None:
            with contextlib.suppress(OSError):
                return f"a symbolic link to {readlink()}"
        return "a symbolic link"
    if stat.S_ISREG(mode):
        return "a file"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


_GUARDED_NAMES: dict[str, tuple[int, int] | None] = {}
"""Each guarded root, with its identity (device, inode) when it was declared."""
_UNLINKED: list[tuple[Path, str]] = []
_GUARD_LOCK = threading.Lock()


def guard_tree(root: Path) -> None:
    """Declare the directory `root` hostile ground (a session or report directory an agent
    writes in): from now on no file below it is written, or opened to append, through a
    symbolic link. A link (or FIFO, socket, device) an agent put in place of a directory
    below `root` is unlinked (never followed) and a real directory made when a write needs
    it (see `take_unlinked`); `root` itself being a link, gone, or another directory than
    the one declared fails the write (OSError), before anything is made in it: it is not
    made again behind the run's back. Declaring `root` again takes the directory there now."""
    try:
        info = os.lstat(root)
        identity: tuple[int, int] | None = (info.st_dev, info.st_ino)
    except OSError:
        identity = None
    with _GUARD_LOCK:
        _GUARDED_NAMES[os.fspath(root)] = identity


def unguard_tree(root: Path) -> None:
    """Forget `root` (a call's scratch area that is gone)."""
    with _GUARD_LOCK:
        _GUARDED_NAMES.pop(os.fspath(root), None)


def take_unlinked(*roots: Path) -> list[tuple[Path, str]]:
    """What `guard_tree` removed below `roots` at write time since the last call: (path,
    what it was, in words)."""
    with _GUARD_LOCK:
        found = [
            (path, what) for path, what in _UNLINKED if any(root in path.parents for root in roots)
        ]
        _UNLINKED[:] = [entry for entry in _UNLINKED if entry not in found]
    return found


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def _below_guarded_root(parent: str) -> tuple[str, list[str]] | None:
    """The guarded root above the directory `parent`, and the names from it down to
    `parent`; None when `parent` is not below a guarded root (strings: this is hot)."""
    if not _GUARDED_NAMES:
        return None
    names: list[str] = []
    current = parent
    while current not in _GUARDED_NAMES:
        up, name = os.path.split(current)
        if up == current:
            return None
        names.append(name)
        current = up
    names.reverse()
    return current, names


def _open_parent(path: Path, *, repair: bool = True) -> int | None:
    """A descriptor of the directory `path` is in, or None when it is not below a
    `guard_tree` root. It is reached from the root one real directory at a time, each
    opened relative to the last and never through a link, so a directory an agent swaps
    for a link at any instant (also between this walk and the write) cannot redirect the
    write. A link, FIFO or other special file in place of a directory is unlinked and the
    directory made (see take_unlinked); a missing one is made; a regular file in the way
    fails the write (NotADirectoryError); the root itself being a link, gone, or another
    directory than `guard_tree` saw fails it too (OSError): it is not made again behind
    the run's back, nor written into. Without `repair` (to read)
    nothing is changed: a missing directory raises FileNotFoundError, anything else in
    its place another OSError (ELOOP for a link, ENOTDIR otherwise)."""
    found = _below_guarded_root(os.path.dirname(os.fspath(path)))
    if found is None:
        return None
    root, names = found
    try:
        fd = os.open(root, _DIR_FLAGS)
    except FileNotFoundError:
        if not repair:
            raise
        raise OSError(
            errno.ENOENT, f"{root} is gone; nothing is written into a new one", str(path)
        ) from None
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        raise OSError(
            errno.ELOOP,
            f"{root} is not the directory it was; nothing is written through it",
            str(path),
        ) from None
    expected = _GUARDED_NAMES.get(root)
    if repair and expected is not None and _identity(fd) != expected:
        os.close(fd)
        raise OSError(
            errno.ELOOP,
            f"{root} is not the directory it was; nothing is written into it",
            str(path),
        )
    where = root
    try:
        for name in names:
            where = os.path.join(where, name)
            child = _enter(fd, name, where) if repair else os.open(name, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _identity(fd: int) -> tuple[int, int]:
    info = os.fstat(fd)
    return info.st_dev, info.st_ino


def _enter(dir_fd: int, name: str, where: str) -> int:
    """Open the real directory `name` in `dir_fd`, repairing what is in its place."""
    for _ in range(5):
        try:
            return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
        except FileNotFoundError:
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, dir_fd=dir_fd)
            continue
        except OSError as exc:
            if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                raise
        try:
            mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
        except FileNotFoundError:
            continue
        if stat.S_ISREG(mode):
            raise NotADirectoryError(errno.ENOTDIR, "a file where a directory belongs", where)
        what = _mode_words(mode, lambda: os.readlink(name, dir_fd=dir_fd))
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=dir_fd)
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, dir_fd=dir_fd)
        with _GUARD_LOCK:
            _UNLINKED.append((Path(where), what))
    raise OSError(errno.ELOOP, "keeps being replaced by something that is not a directory", where)


def make_dir_below(base: Path, *names: str) -> None:
    """Make the directory `base`/names...: each name but the last a real directory reached
    from the one before without following a link (a link, FIFO or other special file in
    its place is unlinked and the directory made, as `_enter` does; a missing one is made),
    the last made new (FileExistsError when something is there). `base` itself is opened
    as named (the user's own link is theirs to make). A directory on the way that another
    process removes meanwhile (a session sharing the working directory removes `.calls`
    when it has no area left) is made again."""
    for _ in range(5):
        try:
            _make_below(base, names)
            return
        except FileNotFoundError:
            continue  # a directory opened on the way was removed: walk again from `base`
    _make_below(base, names)


def _make_below(base: Path, names: Sequence[str]) -> None:
    fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    where = os.fspath(base)
    try:
        for name in names[:-1]:
            where = os.path.join(where, name)
            child = _enter(fd, name, where)
            os.close(fd)
            fd = child
        os.mkdir(names[-1], dir_fd=fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def real_parent(path: Path) -> Iterator[int]:
    """A descriptor of the directory `path` is in: below a `guard_tree` root the real one,
    reached without following a link (see _open_parent); elsewhere the directory as named.
    Names opened, made, renamed or unlinked in it cannot be redirected by a link swapped in
    above them."""
    fd = _open_parent(path)
    if fd is None:
        fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        yield fd
    finally:
        os.close(fd)


def unlink_entry(path: Path) -> None:
    """Remove the entry `path` itself (a link is unlinked, never followed) from its real
    directory; nothing there is fine."""
    with real_parent(path) as fd, contextlib.suppress(FileNotFoundError), fenced(path):
        os.unlink(path.name, dir_fd=fd)


def rename_entry(source: Path, target: Path) -> None:
    """Rename `source` to `target`, both in their real directories (see real_parent)."""
    with real_parent(source) as source_fd, real_parent(target) as target_fd, fenced(target, source):
        os.rename(source.name, target.name, src_dir_fd=source_fd, dst_dir_fd=target_fd)


def place_special(path: Path, link_target: str | None) -> None:
    """Make a symbolic link to `link_target` (never followed), or with None a FIFO, at
    `path` in its real directory: what an agent left in its call's scratch area, put where
    it would have been, for the workspace guard to judge as always."""
    with real_parent(path) as fd, fenced(path):
        if link_target is None:
            os.mkfifo(path.name, dir_fd=fd)
        else:
            os.symlink(link_target, path.name, dir_fd=fd)


def remove_if_holds(path: Path, data: bytes) -> bool:
    """Delete `path` only if it is (still) a regular file holding exactly `data`; never a
    link, FIFO or directory, and never through a link in the way. Returns whether it did."""
    with real_parent(path) as dir_fd:
        try:
            fd = os.open(path.name, os.O_RDONLY | _NO_FOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
        except OSError:
            return False
        if read_descriptor(fd) != data:  # None for anything but a regular file
            return False
        with contextlib.suppress(FileNotFoundError), fenced(path):
            os.unlink(path.name, dir_fd=dir_fd)
        return True


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
    temporary file. Below a `guard_tree` root nothing is written through a link: the
    temporary file is made and renamed in a descriptor of the real directory.
    """
    if _outside_guarded_roots(path):
        path.parent.mkdir(parents=True, exist_ok=True)
    with real_parent(path) as dir_fd:
        _write_in(dir_fd, path.name, data, durable, path)


def writes_repair(path: Path) -> bool:
    """Whether a write of `path` walks from a guarded root, removing a link or special file
    in place of a directory on the way (and making missing ones) instead of failing."""
    return not _outside_guarded_roots(path)


def _outside_guarded_roots(path: Path) -> bool:
    """Whether `path` is outside every guarded root (whose walk makes missing directories)."""
    return _below_guarded_root(os.path.dirname(os.fspath(path))) is None


def _write_in(dir_fd: int, name: str, data: bytes, durable: bool, path: Path) -> None:
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        # A link's target is not ours: neither its mode nor its content.
        mode = info.st_mode & 0o7777 if stat.S_ISREG(info.st_mode) else 0o666 & ~UMASK
    except FileNotFoundError:
        mode = 0o666 & ~UMASK
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for _ in range(100):
        tmp = f".{name}.{''.join(secrets.choice(_TEMP_CHARS) for _ in range(8))}.tmp"
        try:
            fd = os.open(tmp, flags, 0o600, dir_fd=dir_fd)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(errno.EEXIST, "no free temporary file name", name)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), mode)
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        with fenced(path):
            os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise


def open_for_append(path: Path) -> int:
    """A descriptor appending to the regular file `path`, made if missing. A symbolic link,
    FIFO, socket or device an agent left in its place is removed (unlinking never follows)
    and a new file made: nothing is ever written through a link or into a FIFO."""
    if _outside_guarded_roots(path):
        path.parent.mkdir(parents=True, exist_ok=True)
    name = path.name
    flags = os.O_RDWR | os.O_CREAT | os.O_APPEND | _NO_FOLLOW | os.O_CLOEXEC
    with real_parent(path) as dir_fd:
        for _ in range(3):
            try:
                fd = os.open(name, flags, 0o666, dir_fd=dir_fd)
            except OSError:
                try:
                    mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
                except FileNotFoundError:
                    continue
                if not stat.S_ISLNK(mode):
                    raise  # a directory (EISDIR), no permission, a full disk
                with contextlib.suppress(FileNotFoundError):  # O_NOFOLLOW refused a link
                    os.unlink(name, dir_fd=dir_fd)
                continue
            if stat.S_ISREG(os.fstat(fd).st_mode):
                return fd
            os.close(fd)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name, dir_fd=dir_fd)
    raise OSError(f"{path} keeps being replaced by something that is not a regular file")


def _close_torn_line(fd: int) -> bytes:
    """b"\n" when the file's last line is unfinished (a kill, a full disk), else b""."""
    size = os.lseek(fd, 0, os.SEEK_END)
    return b"\n" if size > 0 and os.pread(fd, 1, size - 1) != b"\n" else b""


def append_line(path: Path, line: str) -> None:
    """Append one line. A last line left unfinished (a kill, a full disk) is closed first,
    so it stays the only damaged one instead of swallowing this line too."""
    data = (line.rstrip("\n") + "\n").encode("utf-8")
    with fenced(path):
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
        with fenced(self.path):
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

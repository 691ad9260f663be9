"""The user's key: a random secret kept outside the working directory.

The agent can write everything in the working directory, so a record there that it must
not be able to forge (the source ledger's digests, a lock takeover's proof) is signed
with this key (HMAC-SHA256). It lives in the user's state directory,
`$XDG_STATE_HOME/research-py/key` (default `~/.local/state/research-py/key`), created once
with mode 0600 in a 0700 directory, and is never followed through a link.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import os
import secrets
import stat
from pathlib import Path

from research.core.errors import UsageError

KEY_BYTES = 32
_cache: dict[Path, bytes] = {}


class KeyFileError(UsageError):
    """The key file is not a regular file holding a key, or cannot be made (exit 2)."""


def state_dir() -> Path:
    """The user's state directory for research.py (XDG_STATE_HOME if absolute)."""
    base = os.environ.get("XDG_STATE_HOME", "")
    root = Path(base) if os.path.isabs(base) else Path.home() / ".local" / "state"
    return root / "research-py"


def key_path() -> Path:
    return state_dir() / "key"


def user_key() -> bytes:
    """The key, made on first use. Raises KeyFileError when it cannot be read or made."""
    path = key_path()
    key = _cache.get(path)
    if key is None:
        key = _read(path) or _create(path)
        _cache[path] = key
    return key


def check_key() -> None:
    """Refuse a key file that is there but holds no key (a folder, a link, the wrong size)
    before anything is written; a missing one is made when first needed."""
    path = key_path()
    if path not in _cache and (key := _read(path)) is not None:
        _cache[path] = key


def sign(key: bytes, *parts: str) -> str:
    """HMAC-SHA256 of the parts (NUL-separated) as hex."""
    return hmac.new(key, "\0".join(parts).encode(), hashlib.sha256).hexdigest()


def key_id(key: bytes) -> str:
    """A short name of the key (not the key): tells "signed with another key" apart from
    "changed"."""
    return sign(key, "research-py key id")[:16]


def _bad(path: Path, why: str) -> KeyFileError:
    return KeyFileError(
        f"the key file {path} {why}; remove it and run again (records signed with it, "
        "such as stored sources, are then checked again)"
    )


def _read(path: Path) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR):
            raise _bad(path, "is not a regular file") from None
        raise _bad(path, f"cannot be read ({exc.strerror})") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _bad(path, "is not a regular file")
        text = os.read(fd, 4 * KEY_BYTES).decode("ascii", "replace").strip()
    finally:
        os.close(fd)
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != KEY_BYTES:
        raise _bad(path, "does not hold a key")
    return key


def _create(path: Path) -> bytes:
    """Write a new key under a temporary name and link it into place: a process that
    loses the race reads the winner's complete key."""
    key = secrets.token_bytes(KEY_BYTES)
    temporary = path.with_name(f".key.{secrets.token_hex(8)}.tmp")
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(key.hex() + "\n")
        try:
            os.link(temporary, path, follow_symlinks=False)
        except FileExistsError:
            return _read(path) or key
    except OSError as exc:
        raise KeyFileError(
            f"cannot make the key file {path}: {exc.strerror or exc}; set XDG_STATE_HOME "
            "to a directory you can write"
        ) from None
    finally:
        temporary.unlink(missing_ok=True)
    return key

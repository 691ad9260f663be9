"""What `research worker` and `research serve --queue` check before they take or send a job:
Redis answers, accepts the password, and is shared with this very folder.

The folder: every worker must run its jobs in the folder the service reads, or a job runs
where nobody looks while the service shows it queued. Each folder has a random identifier
(`.research/queue-folder-id`, written once); the first process of a queue records its
folder's identifier in Redis, and every later one must find its own there. (A Redis that
lost its data gets it again from the next process that checks.)
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from research.cluster.broker import FOLDER_KEY, safe_url
from research.workspace.paths import RESEARCH_DIR

if TYPE_CHECKING:
    import redis

FOLDER_ID_FILE = "queue-folder-id"
SETUP_TIMEOUT_SECONDS = 3.0
_ID = re.compile(r"[0-9a-f]{32}")


class SetupError(Exception):
    """The queue or the folder is not usable: one line that says which and why."""


def folder_id_path(root: Path) -> Path:
    return root / RESEARCH_DIR / FOLDER_ID_FILE


def read_folder_id(root: Path) -> str | None:
    """The folder's identifier, None when it has none yet; SetupError when its file is not
    a small regular file holding one (never followed through a link)."""
    path = folder_id_path(root)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SetupError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise SetupError(f"{path} is not a regular file")
        text = os.read(fd, 100).decode("ascii", errors="replace").strip()
    except OSError as exc:
        raise SetupError(f"cannot read {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if not _ID.fullmatch(text):
        raise SetupError(f"{path} does not hold a folder identifier; delete it to make a new one")
    return text


def folder_id(root: Path) -> str:
    """The folder's identifier, written first if it has none (once: the file is linked into
    place, so two processes starting together agree on the first)."""
    found = read_folder_id(root)
    if found is not None:
        return found
    path = folder_id_path(root)
    try:
        path.parent.mkdir(exist_ok=True)
        temporary = path.with_name(f".{FOLDER_ID_FILE}.{uuid.uuid4().hex}")
        temporary.write_text(uuid.uuid4().hex + "\n", encoding="ascii")
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass  # another process wrote it first: its identifier is the folder's
        finally:
            with contextlib.suppress(OSError):
                temporary.unlink()
    except OSError as exc:
        raise SetupError(f"cannot write {path}: {exc.strerror or exc}") from None
    written = read_folder_id(root)
    assert written is not None
    return written


def claim_folder(client: redis.Redis, mine: str) -> str:
    """Record `mine` as the queue's folder unless one is recorded; the recorded one."""
    client.set(FOLDER_KEY, mine, nx=True)
    theirs = client.get(FOLDER_KEY)
    if isinstance(theirs, bytes):
        return theirs.decode("ascii", errors="replace")
    return str(theirs)


def wrong_folder(url: str, root: Path, mine: str, theirs: str) -> str:
    return (
        f"{root} is not the folder the workers and the service of the queue at "
        f"{safe_url(url)} use (its {RESEARCH_DIR}/{FOLDER_ID_FILE} is {mine[:8]}…, the "
        f"queue's folder is {theirs[:8]}…): work in the shared folder (a new folder for "
        f"this queue: delete the Redis key {FOLDER_KEY})"
    )


def check_setup(url: str, root: Path, *, timeout: float = SETUP_TIMEOUT_SECONDS) -> str:
    """Check, within about `timeout` seconds, that Redis answers at `url`, accepts its
    password, and records this folder as the queue's; the folder's identifier.
    SetupError otherwise."""
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
    where = safe_url(url)
    try:
        client.ping()
        mine = folder_id(root)
        theirs = claim_folder(client, mine)
    except redis.AuthenticationError as exc:
        raise SetupError(f"the queue at {where} refused the password ({exc})") from None
    except redis.TimeoutError:
        raise SetupError(
            f"the queue at {where} does not answer (nothing within {timeout:g} s): "
            "is it a Redis server, and is it running?"
        ) from None
    except redis.ConnectionError as exc:
        raise SetupError(f"cannot reach the queue at {where}: {exc}") from None
    except redis.ResponseError as exc:  # NOAUTH and the like, on servers that answer so
        raise SetupError(f"the queue at {where} refused us: {exc}") from None
    finally:
        client.close()
    if theirs != mine:
        raise SetupError(wrong_folder(url, root, mine, theirs))
    return mine

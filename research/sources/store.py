"""The session's snapshot store: what fetching each cited source gave, and its text.

Layout of the store directory:

    index.json      {"version": 1, "records": {url: SourceRecord}}: every URL fetched
    <key>.txt       the extracted text of a kept page (key = first 16 hex of sha256(url))
    <key>.json      that page's record (the same as in the index)

The session directory is hostile ground: the agent can replace any file or directory in
it. So files are read only through `read_regular`/`read_text` (no links followed, no FIFO
opened), written only by temp file + rename (which replaces a link instead of following
it), nothing is read or written through a store directory that is a link, and a snapshot
whose text no longer matches its recorded sha256 is not returned. (Below the session
directory every write and read goes through the real directory's descriptor, so a swap
between the check and the write cannot redirect it either: research/workspace/fsutil.py.)

index.json itself is only a cache: an agent could rewrite it, with a snapshot to match,
to make an invented page pass the claim check in a later run. So a store opened with
`trusted` (url → `record_digest`, which the orchestrator keeps in state.json) loads only
the records whose digest is there; the others are fetched again. The agent can rewrite
state.json too, so a digest is an HMAC with the user's key, which is kept outside the
working directory (research/workspace/userkey.py): one computed in there does not match.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import threading
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from research.core.errors import ResearchError
from research.model.artifacts import NOT_REGULAR, read_regular, read_text
from research.model.state import SourceLedger
from research.sources.extract import Extracted
from research.sources.records import FetchedPage, FetchStatus, SourceRecord
from research.workspace.fsutil import atomic_write_text, writes_repair
from research.workspace.userkey import key_id, sign, user_key

INDEX = "index.json"
INDEX_VERSION = 1
WRITE_ATTEMPTS = 3


class StoreTampered(ResearchError):
    """The store directory (or a file the store writes) is a link or of the wrong kind:
    nothing is written through it."""


class SnapshotIndex(BaseModel):
    """index.json: every URL fetched in the session."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    version: int = INDEX_VERSION
    """The layout's version."""
    records: dict[str, SourceRecord] = Field(default_factory=dict)
    """URL (as cited) or file:<path> → what fetching or reading it gave."""


def snapshot_key(url: str) -> str:
    """The file stem of a URL's snapshot: the first 16 hex digits of sha256(url)."""
    return hashlib.sha256(url.encode("utf-8")).hexdigest()[:16]


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def record_digest(record: SourceRecord) -> str:
    """A record's JSON signed with the user's key: what the session state keeps of each
    stored record."""
    return sign(user_key(), "source record", record.model_dump_json())


CHANGED = "are not the ones this session saved (changed outside the orchestrator)"
OLDER = (
    "were stored by an older version of research.py, which kept no signed record of them "
    "(nothing suggests they were changed)"
)
OTHER_KEY = (
    "were signed with another key (the session comes from another account or machine, or "
    "the user's key was replaced)"
)


def local_page(location: str, extracted: Extracted) -> FetchedPage:
    """A user's local document (`location` like "file:docs/a.pdf") as an ok source."""
    record = SourceRecord(
        url=location, status=FetchStatus.OK, title=extracted.title, fetched_at=datetime.now(UTC)
    )
    return FetchedPage(record=record, text=extracted.text)


def trusted_store(directory: Path, ledger: SourceLedger) -> SnapshotStore:
    """The store with only the records `ledger` signed with this user's key. A ledger
    signed otherwise (an older version's, or another key's) is emptied and moved to this
    key, and its records are fetched again with a reason that blames nobody."""
    current = key_id(user_key())
    why = CHANGED
    if ledger.key_id != current:
        why = OLDER if ledger.key_id is None else OTHER_KEY
        ledger.digests.clear()
        ledger.key_id = current
    return SnapshotStore(directory, dict(ledger.digests), why=why)


class SnapshotStore:
    """The session's snapshot store: <dir>/index.json (url -> SourceRecord) plus one
    <key>.txt (extracted text) and <key>.json (metadata = the record) per kept page;
    key = first 16 hex of sha256(url).

    Thread-safe within a process (one lock around every change); open one store per
    directory. `problem` says why index.json was ignored when it could not be used.
    `trusted` None loads every record of the index; otherwise only those whose
    `record_digest` it holds.
    """

    def __init__(
        self, directory: Path, trusted: Mapping[str, str] | None = None, why: str = CHANGED
    ) -> None:
        self.directory = directory
        self._why = why
        self.problem: str | None = None
        """Why the saved index was treated as empty (corrupt, a link, ...), or which of its
        records were not trusted, for the log."""
        self._lock = threading.Lock()
        self._records: dict[str, SourceRecord] = self._load()
        if trusted is not None:
            self._records = self._trusted(trusted)

    def _trusted(self, digests: Mapping[str, str]) -> dict[str, SourceRecord]:
        kept = {
            url: record
            for url, record in self._records.items()
            if digests.get(url) == record_digest(record)
        }
        dropped = len(self._records) - len(kept)
        if dropped:
            self.problem = (
                f"{dropped} record(s) of {INDEX} {self._why}; they are not used and will be "
                "fetched again"
            )
        return kept

    # --- reading ------------------------------------------------------------------------

    def _directory_problem(self) -> str | None:
        """Why the directory may not be used, None when it is a real directory or absent."""
        try:
            mode = os.lstat(self.directory).st_mode
        except FileNotFoundError:
            return None
        if stat.S_ISLNK(mode):
            return f"{self.directory} is a symbolic link"
        if not stat.S_ISDIR(mode):
            return f"{self.directory} is not a directory"
        return None

    def _load(self) -> dict[str, SourceRecord]:
        problem = self._directory_problem()
        if problem is not None:
            self.problem = f"{problem}; its index was not read"
            return {}
        data = read_regular(self.directory / INDEX)
        if data is None:
            return {}
        if data == NOT_REGULAR:
            self.problem = f"{INDEX} is not a regular file; it was ignored"
            return {}
        try:
            index = SnapshotIndex.model_validate_json(data)
        except (ValidationError, ValueError) as exc:
            self.problem = f"{INDEX} is corrupt ({type(exc).__name__}); it was ignored"
            return {}
        if index.version != INDEX_VERSION:
            self.problem = f"{INDEX} has unknown version {index.version}; it was ignored"
            return {}
        return {url: record for url, record in index.records.items() if record.url == url}

    def records(self) -> dict[str, SourceRecord]:
        """Everything fetched or read so far in the session (also before a restart)."""
        with self._lock:
            return dict(self._records)

    def known(self, url: str) -> bool:
        """Whether `url` was already fetched, whatever the outcome."""
        with self._lock:
            return url in self._records

    def get(self, url: str) -> SourceRecord | None:
        """The record of `url`, or None."""
        with self._lock:
            return self._records.get(url)

    def text(self, url: str) -> str | None:
        """The snapshot's text; None when none was kept, or when the file is gone, is not a
        regular file, or no longer matches the recorded sha256 (it was edited)."""
        with self._lock:
            record = self._records.get(url)
        if record is None or record.snapshot is None or record.sha256 is None:
            return None
        if self._directory_problem() is not None:
            return None
        text = read_text(self.directory / f"{snapshot_key(url)}.txt")
        if text is None or _sha256(text) != record.sha256:
            return None
        return text

    # --- writing ------------------------------------------------------------------------

    def _ensure_directory(self) -> None:
        if self._repaired_by_write():
            return
        problem = self._directory_problem()
        if problem is None and not os.path.lexists(self.directory):
            try:
                self.directory.mkdir()
            except FileExistsError:
                pass
            problem = self._directory_problem()
        if problem is not None:
            raise StoreTampered(f"snapshot store: {problem}; nothing is written through it")

    def _repaired_by_write(self) -> bool:
        """Below the session directory an agent (another topic's, in parallel mode) may
        swap the store directory for a link at any time: there the write itself removes a
        link or special file in its place, never following it, and makes the directory
        (fsutil; the guard reports it). Only a regular file in its place is refused."""
        if not writes_repair(self.directory / INDEX):
            return False
        try:
            return not stat.S_ISREG(os.lstat(self.directory).st_mode)
        except FileNotFoundError:
            return True

    def _write(self, name: str, text: str, *, durable: bool = True) -> None:
        path = self.directory / name
        for attempt in range(WRITE_ATTEMPTS):
            try:
                atomic_write_text(path, text, durable=durable)
                return
            except IsADirectoryError:
                raise StoreTampered(f"snapshot store: {path} is a directory") from None
            except OSError as exc:
                if exc.errno not in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
                    raise
                # The directory was deleted, moved or swapped for a link while the file was
                # written (another topic's agent, in parallel mode): the next attempt walks
                # to it again, putting it back.
                if attempt + 1 == WRITE_ATTEMPTS or not self._repaired_by_write():
                    raise StoreTampered(
                        f"snapshot store: {self.directory} kept being deleted or replaced "
                        f"while {name} was written ({exc.strerror}); nothing more is written"
                    ) from None

    def add(self, page: FetchedPage) -> SourceRecord:
        """Keep one fetch's outcome: the text snapshot and its metadata when there is text,
        then the index. Returns the record as stored (`snapshot` set when text was kept).
        Raises StoreTampered when the directory is a link or not a directory."""
        return self.add_all([page])[0]

    def add_all(self, pages: Sequence[FetchedPage]) -> list[SourceRecord]:
        """`add` for several pages, with one write of the index (fsynced) for all of them:
        a thousand local documents are not a thousand index rewrites."""
        with self._lock:
            self._ensure_directory()
            records = [self._keep_text(page) for page in pages]
            for record in records:
                self._records[record.url] = record
            index = SnapshotIndex(records=self._records)
            try:
                self._write(INDEX, index.model_dump_json(indent=1) + "\n")
            except StoreTampered:
                for record in records:  # not kept: fetched again when next needed
                    self._records.pop(record.url, None)
                raise
            return records

    def _keep_text(self, page: FetchedPage) -> SourceRecord:
        """Write the page's snapshot and metadata when there is text; the record to index."""
        record = page.record
        if record.status != FetchStatus.OK or page.text is None:
            return record.model_copy(update={"snapshot": None})
        key = snapshot_key(record.url)
        record = record.model_copy(
            update={"snapshot": f"{key}.txt", "sha256": _sha256(page.text), "chars": len(page.text)}
        )
        # Not fsynced: a snapshot torn by a crash fails its sha256 check in text(), and only
        # the index (fsynced, written last) says what was fetched.
        self._write(f"{key}.txt", page.text, durable=False)
        self._write(f"{key}.json", record.model_dump_json(indent=2) + "\n", durable=False)
        return record

    def add_local(self, location: str, extracted: Extracted) -> SourceRecord:
        """Keep a user's local document (`location` like "file:docs/a.pdf") as an ok source
        (`add` sets its sha256 and length)."""
        return self.add(local_page(location, extracted))

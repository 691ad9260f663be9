"""What fetching (or reading) one source gave: persisted in the snapshot store's index and
in the registry's entries. No network imports here, so the registry, the report and the
snapshot store can use these models without loading httpx."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

BUDGET_SPENT = "time budget spent"
"""How the reason starts when the deadline, not the page, ended or prevented a fetch."""


class FetchStatus(StrEnum):
    OK = "ok"
    NOT_FOUND = "not_found"
    """HTTP 404 or 410."""
    BLOCKED = "blocked"
    """HTTP 401, 403 or 429."""
    UNREACHABLE = "unreachable"
    """No answer: the name does not resolve, the connection fails, another HTTP error
    after the retry, or too many redirects."""
    TIMEOUT = "timeout"
    TOO_LARGE = "too_large"
    NOT_TEXT = "not_text"
    SKIPPED = "skipped"
    """Refused before fetching (a private address, another scheme, no time left)."""
    NOT_CHECKED = "not_checked"
    """Not fetched because this machine could not reach the web: every fetch of the batch
    failed for a local reason (names do not resolve, the network is unreachable, the proxy
    refuses). Says nothing about the page; fetched again by a later batch."""


UNREACHED = "this machine could not reach the web"
"""How a NOT_CHECKED record's reason starts."""


class SourceRecord(BaseModel):
    """One source: what fetching or reading it gave."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    url: str
    """As cited (normalised), or file:<path> for a local document."""
    status: FetchStatus
    reason: str = ""
    """Why, for anything but ok."""
    final_url: str | None = None
    """Where the redirects ended."""
    http_status: int | None = None
    content_type: str | None = None
    title: str = ""
    sha256: str | None = None
    """Of the extracted text."""
    fetched_at: datetime | None = None
    """UTC."""
    snapshot: str | None = None
    """The text snapshot's file name in the store, when one was kept."""
    chars: int = 0
    """Length of the extracted text."""


@dataclass(frozen=True)
class FetchedPage:
    """One URL's outcome, and its extracted text when the status is ok."""

    record: SourceRecord
    text: str | None
    local: str = ""
    """Why the fetch failed on this machine's side ("" when it did not): "dns" (the name
    did not resolve, or resolving hung), "network" (no route out) or "proxy"."""

"""The session's snapshot store as the run uses it: fetching the cited pages inside the time
budget, keeping what was fetched, and noting in the state's ledger what the orchestrator
stored (so that a record the agent forged is never trusted)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from research.engine.context import RunContext
from research.sources.records import BUDGET_SPENT, FetchedPage, FetchStatus, SourceRecord
from research.sources.store import SnapshotStore, StoreTampered, record_digest, trusted_store
from research.sources.web import Web
from research.views.notices import UNREACHED_NOTICE

MAX_NEW_SOURCES_PER_TOPIC = 60
"""Sources fetched for one topic; more are recorded as skipped."""
MIN_FETCH_SECONDS = 1.0


class Snapshots:
    """The store of fetched and read pages, and the fetching that fills it."""

    def __init__(self, ctx: RunContext, web: Callable[[], Web] | None = None) -> None:
        self.ctx = ctx
        self.web_factory = web or Web
        self._web: Web | None = None
        self._store: SnapshotStore | None = None
        self._said_unreachable = False

    @property
    def web(self) -> Web:
        """Made when first needed: a run that fetches nothing never loads httpx."""
        if self._web is None:
            self._web = self.web_factory()
        return self._web

    @property
    def store(self) -> SnapshotStore:
        if self._store is None:
            with self.ctx.mutex:
                self._store = trusted_store(self.ctx.paths.sources_dir, self.ctx.state.sources)
            if self._store.problem:
                self.ctx.events.emit("warning", message=f"snapshot store: {self._store.problem}")
        return self._store

    def stored_records(self) -> dict[str, SourceRecord]:
        """Everything the store holds; {} without opening it when checking is off and the
        session never stored anything."""
        if (
            not self.ctx.state.config.verify_sources
            and self._store is None
            and not os.path.lexists(self.ctx.paths.sources_dir)
        ):
            return {}
        return self.store.records()

    def fetch(self, locations: list[str], *, seconds: float, before_review: bool) -> None:
        """Fetch the web sources not fetched yet in this session, within the budget."""
        known = self.store.records()
        new = [
            loc
            for loc in dict.fromkeys(locations)
            if loc.startswith(("http://", "https://"))
            and (loc not in known or known[loc].status is FetchStatus.NOT_CHECKED)
        ]
        if not new:
            return
        from research.sources.fetch import FetchPolicy, fetch_sources, web_unreachable

        allowed = self.fetch_seconds(seconds, before_review=before_review)
        if allowed < MIN_FETCH_SECONDS:
            self.ctx.events.emit(
                "sources_not_fetched", count=len(new), reason="no time left in the budget"
            )
            return
        over = new[MAX_NEW_SOURCES_PER_TOPIC:] if before_review else []
        new = new[: len(new) - len(over)]
        policy = FetchPolicy(allow_private=self.ctx.state.config.allow_private_sources)
        self.ctx.events.emit("sources_checking", count=len(new))
        started = time.monotonic()
        pages = fetch_sources(
            new,
            policy,
            deadline=started + allowed,
            transport=self.web.transport,
            resolve=self.web.resolve,
            on_page=self.keep,
        )
        for location in over:
            self.keep_record(
                SourceRecord(
                    url=location,
                    status=FetchStatus.SKIPPED,
                    reason="more new sources than one topic may fetch",
                )
            )
        # The state's ledger says which stored records are the orchestrator's: saved now, so
        # that a run killed during the next call does not fetch these pages again.
        self.ctx.save()
        statuses: dict[str, int] = {}
        for page in pages:
            statuses[page.record.status.value] = statuses.get(page.record.status.value, 0) + 1
        self.ctx.events.emit(
            "sources_fetched",
            count=len(pages),
            seconds=round(time.monotonic() - started, 3),
            outcomes=statuses,
        )
        if web_unreachable(pages) and not self._said_unreachable:
            self._said_unreachable = True
            self.ctx.events.emit("web_unreachable", message=UNREACHED_NOTICE)

    def keep(self, page: FetchedPage) -> None:
        if page.record.reason.startswith(BUDGET_SPENT):
            return  # not the page's fault: a later run with more time fetches it
        with self.ctx.mutex:
            try:
                record = self.store.add(page)
            except StoreTampered as exc:  # another topic's agent, in parallel mode
                self.ctx.events.emit(
                    "warning",
                    message=f"{exc}; {page.record.url} was not kept and is fetched again "
                    "when it is next needed",
                )
                return
            self.ledger(record)

    def keep_all(self, pages: list[FetchedPage]) -> int:
        """Store a batch of pages (one index write) and note them in the ledger."""
        if not pages:
            return 0
        with self.ctx.mutex:
            for record in self.store.add_all(pages):
                self.ledger(record)
        return len(pages)

    def ledger(self, record: SourceRecord) -> None:
        """Note in the state what was stored (called under the mutex; saved with the state)."""
        self.ctx.state.sources.digests[record.url] = record_digest(record)

    def keep_record(self, record: SourceRecord) -> None:
        self.keep(FetchedPage(record=record, text=None))

    def fetch_seconds(self, cap: float, *, before_review: bool) -> float:
        """How long fetching may take now: the cap, less what the budget cannot spare (the
        review's call and the final cycle's reserve come first)."""
        ctx = self.ctx
        left = ctx.budget.remaining_seconds(ctx.now())
        if left is None:
            return cap
        spare = left - ctx.budget.reserve_seconds() if before_review else left * 0.2
        return max(0.0, min(cap, spare * 0.5))

"""The source check in the run: fetch what the notes cite (inside the time budget), keep
the snapshots, check the claims, and hand the findings to the reviewers and the report.

Before each REVIEW the topic's new sources are fetched and its findings checked; before
FINAL REVIEW and REVISE the report's cited sentences are. Everything found goes into
`verification.json` and events; the Methodology's figures into the state.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from research.engine.context import RunContext
from research.model import artifacts as phases
from research.model.plan import Topic
from research.prompts.text import NO_REPORT_YET, NO_SOURCE_CHECK, LocalDocuments
from research.sources import local, verification
from research.sources.records import BUDGET_SPENT, FetchedPage, FetchStatus, SourceRecord
from research.sources.registry import SourceRegistry, extract_sources
from research.sources.store import (
    SnapshotStore,
    StoreTampered,
    local_page,
    record_digest,
    trusted_store,
)
from research.sources.verification import TopicCheck, VerificationFile
from research.sources.web import Web
from research.workspace.fsutil import atomic_write_text

FETCH_SECONDS_PER_TOPIC = 120.0
"""At most this long fetching one topic's sources, whatever the budget."""
FETCH_SECONDS_FINAL = 60.0
"""At most this long fetching sources still unfetched when the report is written."""
MAX_NEW_SOURCES_PER_TOPIC = 60
"""Sources fetched for one topic; more are recorded as skipped."""
MIN_FETCH_SECONDS = 1.0
LOCAL_BATCH = 100
"""Local documents stored with one write of the store's index."""
BATCH_CHARS = 20_000_000
"""A batch is stored sooner once its texts are this long (memory)."""


class SourceChecker:
    """Fetches, keeps and checks the session's sources."""

    def __init__(self, ctx: RunContext, web: Callable[[], Web] | None = None) -> None:
        self.ctx = ctx
        self.web_factory = web or Web
        self._web: Web | None = None
        self._store: SnapshotStore | None = None
        self._locals_read = False
        self._local_words: dict[str, frozenset[str]] = {}
        self._said_unreachable = False

    @property
    def web(self) -> Web:
        """Made when first needed: a run that fetches nothing never loads httpx."""
        if self._web is None:
            self._web = self.web_factory()
        return self._web

    @property
    def enabled(self) -> bool:
        return self.ctx.state.config.verify_sources

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
            not self.enabled
            and self._store is None
            and not os.path.lexists(self.ctx.paths.sources_dir)
        ):
            return {}
        return self.store.records()

    def start(self) -> None:
        """At the start of a run: read the local documents; say in verification.json when
        checking is off."""
        self.read_local_documents()
        if not self.enabled:
            with self.ctx.mutex:
                self.write_file(VerificationFile(enabled=False))

    # --- local documents -----------------------------------------------------------------

    def read_local_documents(self) -> None:
        """Read the --sources folders into the store (once per run; known ones are kept)."""
        if self._locals_read:
            return
        self._locals_read = True
        folders = [Path(folder) for folder in self.ctx.state.config.source_dirs]
        if not folders:
            return
        found = local.find_documents(folders, self.ctx.paths.root)
        skipped: dict[str, str] = {}
        batch: list[FetchedPage] = []
        added = 0
        for location, path in found.documents:
            if self.store.known(location):
                continue
            why = local.too_large(path)
            extracted = None if why else local.read_document(path)
            if extracted is None:
                skipped[location] = why or "no readable text in it"
                continue
            batch.append(local_page(location, extracted))
            if len(batch) >= LOCAL_BATCH or sum(len(p.text or "") for p in batch) > BATCH_CHARS:
                added += self._keep_local(batch)
                batch = []
        added += self._keep_local(batch)
        with self.ctx.mutex:
            self.ctx.state.sources.skipped_documents = skipped
            self.ctx.state.sources.documents_over_cap = found.over_cap
        self.ctx.save()
        self.ctx.events.emit(
            "local_sources",
            folders=len(folders),
            added=added,
            unreadable=len(skipped),
            over_cap=found.over_cap,
            total=len(self.local_records()),
        )
        for line in local.skipped_lines(skipped, found.over_cap):
            self.ctx.events.emit("warning", message=f"--sources: {line}")

    def _keep_local(self, pages: list[FetchedPage]) -> int:
        """Store a batch of local documents (one index write) and note them in the ledger."""
        if not pages:
            return 0
        with self.ctx.mutex:
            for record in self.store.add_all(pages):
                self._ledger(record)
        return len(pages)

    def local_records(self) -> dict[str, SourceRecord]:
        return {url: r for url, r in self.stored_records().items() if url.startswith("file:")}

    def local_documents(self, topic: Topic) -> LocalDocuments | None:
        """The user's documents most relevant to the topic, for its RESEARCH prompt."""
        records = self.local_records()
        if not records:
            return None
        for location in records:
            if location not in self._local_words:
                self._local_words[location] = local.document_words(self.store.text(location) or "")
        chosen = local.relevant(
            self._local_words,
            " ".join([topic.name, topic.description or "", *topic.criteria]),
            self.ctx.state.config.original_topic,
        )
        return LocalDocuments(
            total=len(records), chosen=[(loc, records[loc].title) for loc in chosen]
        )

    # --- a topic's sources ---------------------------------------------------------------

    def check_topic(self, topic: Topic) -> None:
        """Fetch the topic's new sources and check its findings (before its review)."""
        if not self.enabled:
            return
        ctx = self.ctx
        notes = phases.read_text(ctx.paths.progress_file(topic.slug))
        if notes is None:
            return
        cited = [ref.url for ref in extract_sources(notes)]
        self.fetch(cited, seconds=FETCH_SECONDS_PER_TOPIC, before_review=True)
        records = self.store.records()
        check = verification.check_topic(notes, cited, records, self.store.text)
        with ctx.mutex:
            file = self.read_file()
            file.topics[topic.slug] = check
            file.pages.update({loc: records[loc] for loc in check.sources if loc in records})
            self.write_file(file)
        doubtful = sum(1 for f in check.findings if f.support.value in ("unsupported", "weak"))
        ctx.events.emit(
            "source_check",
            topic=topic.slug,
            sources=len(check.sources),
            unavailable=len(check.unavailable),
            findings=len(check.findings),
            doubtful=doubtful,
            unchecked=sum(1 for f in check.findings if f.support.value == "unverifiable"),
            not_checked=sum(1 for p in check.unavailable if p.status == "not_checked"),
        )

    def review_text(self, topic: Topic) -> str | None:
        """The topic's source check for its REVIEW prompt, or None when off."""
        if not self.enabled:
            return None
        check = self.read_file().topics.get(topic.slug)
        return verification.review_text(check or TopicCheck())

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
            on_page=self._keep,
        )
        for location in over:
            self._keep_record(
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
            self.ctx.events.emit("web_unreachable", message=verification.UNREACHED_NOTICE)

    def _keep(self, page: FetchedPage) -> None:
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
            self._ledger(record)

    def _ledger(self, record: SourceRecord) -> None:
        """Note in the state what was stored (called under the mutex; saved with the state)."""
        self.ctx.state.sources.digests[record.url] = record_digest(record)

    def _keep_record(self, record: SourceRecord) -> None:
        self._keep(FetchedPage(record=record, text=None))

    def fetch_seconds(self, cap: float, *, before_review: bool) -> float:
        """How long fetching may take now: the cap, less what the budget cannot spare (the
        review's call and the final cycle's reserve come first)."""
        ctx = self.ctx
        left = ctx.budget.remaining_seconds(ctx.now())
        if left is None:
            return cap
        spare = left - ctx.budget.reserve_seconds() if before_review else left * 0.2
        return max(0.0, min(cap, spare * 0.5))

    # --- the report ----------------------------------------------------------------------

    def check_report(self, registry: SourceRegistry, report: str | None, *, stage: str) -> str:
        """Check the report's cited sentences (and note the figures for the Methodology);
        the text for FINAL REVIEW and REVISE."""
        if not self.enabled:
            return NO_SOURCE_CHECK
        ctx = self.ctx
        if report is None:
            return NO_REPORT_YET
        self.fetch(
            [s.url for s in registry.sources], seconds=FETCH_SECONDS_FINAL, before_review=False
        )
        records = self.store.records()
        pages = verification.PageCache(self.store.text)
        claims = verification.check_report(report, registry, records, pages)
        outcomes = verification.citation_outcomes(claims, registry, records, pages)
        summary = verification.summarise(
            claims, outcomes, registry, records, len(self.local_records())
        )
        with ctx.mutex:
            file = self.read_file()
            file.report, file.citations, file.summary = claims, outcomes, summary
            file.pages.update({s.url: records[s.url] for s in registry.sources if s.url in records})
            self.write_file(file)
            ctx.state.final.verification = summary
        ctx.events.emit(
            "report_check",
            stage=stage,
            claims=summary.claims_checked,
            supported=summary.supported,
            weak=summary.weak,
            unsupported=summary.unsupported,
            unverifiable=summary.unverifiable,
            dead_sources=summary.dead,
        )
        return verification.final_text(claims, outcomes)

    # --- verification.json ---------------------------------------------------------------

    def read_file(self) -> VerificationFile:
        text = phases.read_text(self.ctx.paths.verification_file)
        if text:
            try:
                return VerificationFile.model_validate_json(text)
            except ValueError:
                self.ctx.events.emit(
                    "warning",
                    message="verification.json was unreadable; the source check starts it again",
                )
        return VerificationFile(enabled=self.enabled)

    def write_file(self, file: VerificationFile) -> None:
        atomic_write_text(
            self.ctx.paths.verification_file,
            file.model_dump_json(indent=2, exclude_none=False) + "\n",
        )


def registry_records(
    registry: SourceRegistry, records: Callable[[], dict[str, SourceRecord]]
) -> SourceRegistry:
    """The registry with each entry's fetch outcome (for sources.json)."""
    known = records()
    return registry.model_copy(
        update={
            "sources": [s.model_copy(update={"fetch": known.get(s.url)}) for s in registry.sources]
        }
    )

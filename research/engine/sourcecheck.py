"""The source check in the run: fetch what the notes cite (inside the time budget), keep
the snapshots, check the claims, and hand the findings to the reviewers and the report.

Before each REVIEW the topic's new sources are fetched and its findings checked; before
FINAL REVIEW and REVISE the report's cited sentences are. Everything found goes into
`verification.json` and events; the Methodology's figures into the state. The store and
its fetching are `snapshots.py`'s, the user's documents `userdocs.py`'s.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from research.engine.context import RunContext
from research.engine.snapshots import Snapshots
from research.engine.userdocs import UserDocuments
from research.engine.verify import Judge
from research.model import artifacts as phases
from research.model.plan import Topic
from research.prompts.text import NO_REPORT_YET, NO_SOURCE_CHECK, LocalDocuments
from research.sources import verification
from research.sources.records import SourceRecord
from research.sources.registry import SourceRegistry, extract_sources
from research.sources.store import SnapshotStore
from research.sources.verification import TopicCheck, VerificationFile
from research.sources.web import Web
from research.workspace.fsutil import atomic_write_text

FETCH_SECONDS_PER_TOPIC = 120.0
"""At most this long fetching one topic's sources, whatever the budget."""
FETCH_SECONDS_FINAL = 60.0
"""At most this long fetching sources still unfetched when the report is written."""


class SourceChecker:
    """Fetches, keeps and checks the session's sources."""

    def __init__(
        self, ctx: RunContext, web: Callable[[], Web] | None = None, judge: Judge | None = None
    ) -> None:
        self.ctx = ctx
        self.snapshots = Snapshots(ctx, web)
        self.documents = UserDocuments(ctx, self.snapshots)
        self.judge = judge
        """VERIFY's calls on the report's sentences (None: the rules alone)."""

    @property
    def enabled(self) -> bool:
        return self.ctx.state.config.verify_sources

    @property
    def store(self) -> SnapshotStore:
        return self.snapshots.store

    def stored_records(self) -> dict[str, SourceRecord]:
        return self.snapshots.stored_records()

    def local_records(self) -> dict[str, SourceRecord]:
        return self.documents.records()

    def local_documents(self, topic: Topic) -> LocalDocuments | None:
        """The user's documents most relevant to the topic, for its RESEARCH prompt."""
        return self.documents.for_topic(topic)

    def fetch(self, locations: list[str], *, seconds: float, before_review: bool) -> None:
        self.snapshots.fetch(locations, seconds=seconds, before_review=before_review)

    def start(self) -> None:
        """At the start of a run: read the local documents; say in verification.json when
        checking is off."""
        self.documents.read()
        if not self.enabled:
            with self.ctx.mutex:
                self.write_file(VerificationFile(enabled=False))

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
        text_of = functools.lru_cache(maxsize=None)(self.store.text)
        pages = verification.PageCache(text_of)
        claims = verification.check_report(report, registry, records, pages)
        with ctx.mutex:
            record = self.read_file().judge
        if self.judge is not None:
            self.judge.judge(claims, pages, record)
        claims = verification.apply_judgements(claims, record, text_of)
        outcomes = verification.citation_outcomes(claims, registry, records, pages)
        summary = verification.summarise(
            claims, outcomes, registry, records, len(self.local_records())
        ).model_copy(
            update={
                "judge": ctx.state.config.judge.value,
                "judge_calls": record.calls,
                "judge_failed": record.failed,
                "judge_skipped": record.skipped,
            }
        )
        with ctx.mutex:
            file = self.read_file()
            file.report, file.citations, file.summary = claims, outcomes, summary
            file.judge = record
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
            decided_by_judge=summary.decided_by_judge,
            judge_voided=summary.judge_voided,
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

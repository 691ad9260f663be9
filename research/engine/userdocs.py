"""The user's own documents (--sources): read into the snapshot store once per run, and
the ones most relevant to a topic named in its RESEARCH prompt."""

from __future__ import annotations

from pathlib import Path

from research.engine.context import RunContext
from research.engine.snapshots import Snapshots
from research.model.plan import Topic
from research.prompts.text import LocalDocuments
from research.sources import local
from research.sources.records import FetchedPage, SourceRecord
from research.sources.store import local_page

LOCAL_BATCH = 100
"""Local documents stored with one write of the store's index."""
BATCH_CHARS = 20_000_000
"""A batch is stored sooner once its texts are this long (memory)."""


class UserDocuments:
    """The --sources folders, as the snapshot store keeps them."""

    def __init__(self, ctx: RunContext, snapshots: Snapshots) -> None:
        self.ctx = ctx
        self.snapshots = snapshots
        self._read = False
        self._words: dict[str, frozenset[str]] = {}

    def read(self) -> None:
        """Read the --sources folders into the store (once per run; known ones are kept)."""
        if self._read:
            return
        self._read = True
        folders = [Path(folder) for folder in self.ctx.state.config.source_dirs]
        if not folders:
            return
        found = local.find_documents(folders, self.ctx.paths.root)
        store = self.snapshots.store
        skipped: dict[str, str] = {}
        batch: list[FetchedPage] = []
        added = 0
        for location, path in found.documents:
            if store.known(location):
                continue
            why = local.too_large(path)
            extracted = None if why else local.read_document(path)
            if extracted is None:
                skipped[location] = why or "no readable text in it"
                continue
            batch.append(local_page(location, extracted))
            if len(batch) >= LOCAL_BATCH or sum(len(p.text or "") for p in batch) > BATCH_CHARS:
                added += self.snapshots.keep_all(batch)
                batch = []
        added += self.snapshots.keep_all(batch)
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
            total=len(self.records()),
        )
        for line in local.skipped_lines(skipped, found.over_cap):
            self.ctx.events.emit("warning", message=f"--sources: {line}")

    def records(self) -> dict[str, SourceRecord]:
        stored = self.snapshots.stored_records()
        return {url: r for url, r in stored.items() if url.startswith("file:")}

    def for_topic(self, topic: Topic) -> LocalDocuments | None:
        """The user's documents most relevant to the topic, for its RESEARCH prompt."""
        records = self.records()
        if not records:
            return None
        store = self.snapshots.store
        for location in records:
            if location not in self._words:
                self._words[location] = local.document_words(store.text(location) or "")
        chosen = local.relevant(
            self._words,
            " ".join([topic.name, topic.description or "", *topic.criteria]),
            self.ctx.state.config.original_topic,
        )
        return LocalDocuments(
            total=len(records), chosen=[(loc, records[loc].title) for loc in chosen]
        )

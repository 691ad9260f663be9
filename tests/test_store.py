"""The snapshot store: what it keeps, that it survives a restart, and that a session
directory an agent tampered with is never read or written through."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from research.core.errors import ResearchError
from research.sources.extract import Extracted
from research.sources.fetch import FetchedPage
from research.sources.records import FetchStatus, SourceRecord
from research.sources.store import (
    SnapshotIndex,
    SnapshotStore,
    StoreTampered,
    record_digest,
    snapshot_key,
)

URL = "https://example.org/heat-pumps"
TEXT = "Cold-climate heat pumps kept a seasonal COP of 2.7.\n| -25 °C | 1.9 |"


def ok_page(url: str = URL, text: str = TEXT) -> FetchedPage:
    record = SourceRecord(
        url=url,
        status=FetchStatus.OK,
        final_url=url,
        http_status=200,
        content_type="text/html; charset=utf-8",
        title="Heat pumps",
        sha256=hashlib.sha256(text.encode()).hexdigest(),
        fetched_at=datetime(2026, 11, 24, 12, 0, tzinfo=UTC),
        chars=len(text),
    )
    return FetchedPage(record=record, text=text)


def failed_page(url: str = "https://example.org/gone") -> FetchedPage:
    record = SourceRecord(url=url, status=FetchStatus.NOT_FOUND, reason="HTTP 404", http_status=404)
    return FetchedPage(record=record, text=None)


def test_an_ok_page_is_kept_as_text_metadata_and_index(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path / "sources")
    record = store.add(ok_page())
    key = snapshot_key(URL)
    assert key == hashlib.sha256(URL.encode()).hexdigest()[:16]
    assert record.snapshot == f"{key}.txt"
    directory = tmp_path / "sources"
    assert (directory / f"{key}.txt").read_text(encoding="utf-8") == TEXT
    assert SourceRecord.model_validate_json((directory / f"{key}.json").read_text()) == record
    index = SnapshotIndex.model_validate_json((directory / "index.json").read_text())
    assert index.records == {URL: record}
    assert store.text(URL) == TEXT and store.known(URL) and store.get(URL) == record
    assert store.problem is None


def test_a_failed_fetch_is_indexed_without_a_snapshot(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path / "sources")
    record = store.add(failed_page())
    assert record.snapshot is None and store.known(record.url)
    assert store.text(record.url) is None
    assert sorted(p.name for p in (tmp_path / "sources").iterdir()) == ["index.json"]


def test_records_survive_a_restart(tmp_path: Path) -> None:
    first = SnapshotStore(tmp_path / "sources")
    kept = first.add(ok_page())
    gone = first.add(failed_page())
    local = first.add_local("file:docs/a.pdf", Extracted(title="A", text="Local figures: 42"))
    again = SnapshotStore(tmp_path / "sources")
    assert again.records() == {URL: kept, gone.url: gone, "file:docs/a.pdf": local}
    assert again.known(URL) and again.known(gone.url) and not again.known("https://x.org/")
    assert again.text(URL) == TEXT and again.text("file:docs/a.pdf") == "Local figures: 42"
    assert again.problem is None


def test_a_local_document_is_kept_as_ok(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path / "sources")
    record = store.add_local("file:docs/a.pdf", Extracted(title="Report", text="COP 3.1"))
    assert record.status == FetchStatus.OK and record.title == "Report"
    assert record.chars == 7 and record.sha256 == hashlib.sha256(b"COP 3.1").hexdigest()
    assert record.snapshot == f"{snapshot_key('file:docs/a.pdf')}.txt"
    assert record.fetched_at is not None


def test_sha256_and_chars_follow_the_kept_text(tmp_path: Path) -> None:
    page = ok_page()
    wrong = page.record.model_copy(update={"sha256": None, "chars": 0})
    record = SnapshotStore(tmp_path / "s").add(FetchedPage(record=wrong, text=TEXT))
    assert record.sha256 == hashlib.sha256(TEXT.encode()).hexdigest() and record.chars == len(TEXT)


def test_a_snapshot_edited_or_replaced_is_not_returned(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path / "sources")
    store.add(ok_page())
    snapshot = tmp_path / "sources" / f"{snapshot_key(URL)}.txt"
    snapshot.write_text("The COP was 9.9.", encoding="utf-8")
    assert store.text(URL) is None
    outside = tmp_path / "outside.txt"
    outside.write_text(TEXT, encoding="utf-8")
    snapshot.unlink()
    snapshot.symlink_to(outside)
    assert store.text(URL) is None  # a link is not followed, even to the right text
    snapshot.unlink()
    os.mkfifo(snapshot)
    assert store.text(URL) is None  # and a FIFO is not opened for reading (no hang)


def test_a_symlinked_store_directory_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "index.json").write_text(
        SnapshotIndex(records={URL: ok_page().record}).model_dump_json(), encoding="utf-8"
    )
    link = tmp_path / "sources"
    link.symlink_to(elsewhere)
    store = SnapshotStore(link)
    assert store.records() == {} and store.problem is not None  # not read through the link
    with pytest.raises(StoreTampered, match="symbolic link"):
        store.add(ok_page())
    assert isinstance(StoreTampered("x"), ResearchError)
    assert sorted(p.name for p in elsewhere.iterdir()) == ["index.json"]


def test_a_store_path_that_is_a_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "sources"
    path.write_text("not a directory", encoding="utf-8")
    with pytest.raises(StoreTampered, match="not a directory"):
        SnapshotStore(path).add(failed_page())
    assert path.read_text(encoding="utf-8") == "not a directory"


def test_an_index_replaced_by_a_fifo_is_not_opened_and_is_replaced(tmp_path: Path) -> None:
    directory = tmp_path / "sources"
    SnapshotStore(directory).add(ok_page())
    index = directory / "index.json"
    index.unlink()
    os.mkfifo(index)
    store = SnapshotStore(directory)  # would hang if it opened the FIFO for reading
    assert store.records() == {} and store.problem and "not a regular file" in store.problem
    store.add(failed_page())
    assert index.is_file() and not index.is_symlink()


def test_an_index_replaced_by_a_symlink_is_not_followed(tmp_path: Path) -> None:
    directory = tmp_path / "sources"
    SnapshotStore(directory).add(failed_page())
    outside = tmp_path / "outside.json"
    forged = SnapshotIndex(records={URL: ok_page().record}).model_dump_json()
    outside.write_text(forged, encoding="utf-8")
    index = directory / "index.json"
    index.unlink()
    index.symlink_to(outside)
    store = SnapshotStore(directory)
    assert store.records() == {} and store.problem is not None
    store.add(ok_page())
    assert outside.read_text(encoding="utf-8") == forged  # the link was replaced, not followed
    assert not index.is_symlink() and URL in json.loads(index.read_text())["records"]


@pytest.mark.parametrize(
    "content",
    [
        "",
        "{",
        "[]",
        '{"version": 1, "records": {"u": {"status": "ok"}}}',
        '{"version": 99, "records": {}}',
        '{"version": 1, "records": {}, "extra": 1}',
        "\udcff",
    ],
)
def test_a_corrupt_index_is_treated_as_empty(tmp_path: Path, content: str) -> None:
    directory = tmp_path / "sources"
    directory.mkdir()
    (directory / "index.json").write_bytes(content.encode("utf-8", "surrogateescape"))
    store = SnapshotStore(directory)
    assert store.records() == {} and store.problem is not None
    store.add(failed_page())
    assert SnapshotStore(directory).known(failed_page().record.url)


def test_an_index_that_became_a_directory_is_refused_on_write(tmp_path: Path) -> None:
    directory = tmp_path / "sources"
    store = SnapshotStore(directory)
    store.add(failed_page())
    (directory / "index.json").unlink()
    (directory / "index.json").mkdir()
    with pytest.raises(StoreTampered, match="is a directory"):
        store.add(failed_page("https://example.org/other"))


def test_a_forged_snapshot_name_is_never_used_as_a_path(tmp_path: Path) -> None:
    directory = tmp_path / "sources"
    SnapshotStore(directory).add(ok_page())
    secret = tmp_path / "secret.txt"
    secret.write_text("secret", encoding="utf-8")
    index = json.loads((directory / "index.json").read_text())
    index["records"][URL].update(
        snapshot="../secret.txt", sha256=hashlib.sha256(b"secret").hexdigest()
    )
    (directory / "index.json").write_text(json.dumps(index), encoding="utf-8")
    assert SnapshotStore(directory).text(URL) is None


def test_adds_from_many_threads_all_land(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path / "sources")

    def work(n: int) -> None:
        for i in range(25):
            url = f"https://example.org/{n}/{i}"
            store.add(ok_page(url, f"text {n} {i}") if i % 2 else failed_page(url))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    again = SnapshotStore(tmp_path / "sources")
    assert len(again.records()) == 150
    assert again.text("https://example.org/3/7") == "text 3 7"


def test_a_store_opened_with_the_ledger_loads_only_the_records_it_names(tmp_path: Path) -> None:
    first = SnapshotStore(tmp_path / "sources")
    kept = first.add(ok_page())
    gone = first.add(failed_page())
    ledger = {kept.url: record_digest(kept), gone.url: record_digest(gone)}
    assert SnapshotStore(tmp_path / "sources", ledger).records() == {URL: kept, gone.url: gone}

    # The index rewritten outside the orchestrator: the dead page now "ok", with a snapshot
    # to match; and a record nobody stored.
    index = json.loads((tmp_path / "sources" / "index.json").read_text())
    forged = "Invented support for the claim."
    index["records"][gone.url].update(
        status="ok", sha256=hashlib.sha256(forged.encode()).hexdigest(), snapshot="x.txt"
    )
    index["records"]["https://planted.example/"] = dict(
        index["records"][URL], url="https://planted.example/"
    )
    (tmp_path / "sources" / "index.json").write_text(json.dumps(index))
    again = SnapshotStore(tmp_path / "sources", ledger)
    assert again.records() == {URL: kept}
    assert again.text(URL) == TEXT and not again.known(gone.url)
    assert again.problem is not None and again.problem.startswith("2 record(s) of index.json")
    # Without a ledger (a reader such as --status) the index is read as it is.
    assert len(SnapshotStore(tmp_path / "sources").records()) == 3

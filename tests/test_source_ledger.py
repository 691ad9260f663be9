"""The source ledger in state.json: signed with the user's key, and a ledger that this key
did not sign (an older version's, a migrated session's, another account's) is re-checked
without blaming anyone for tampering."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import read_json, read_jsonl
from test_cli_run import QUESTION, as_schema_1, session

from research.model.state import SourceLedger
from research.sources.records import FetchedPage, FetchStatus, SourceRecord
from research.sources.store import SnapshotStore, record_digest, trusted_store
from research.workspace.userkey import key_id, user_key


def stored(directory: Path) -> SourceRecord:
    page = FetchedPage(
        record=SourceRecord(url="https://example.org/a", status=FetchStatus.OK), text="Some text."
    )
    return SnapshotStore(directory).add(page)


def test_an_unsigned_ledger_is_moved_to_this_key_without_blaming_a_tamperer(
    tmp_path: Path,
) -> None:
    stored(tmp_path / "sources")
    ledger = SourceLedger()  # what a session migrated from before the ledger has
    store = trusted_store(tmp_path / "sources", ledger)
    assert store.records() == {}
    assert store.problem is not None and "older version" in store.problem
    assert "changed outside" not in store.problem
    assert ledger.key_id == key_id(user_key()) and ledger.digests == {}


def test_a_ledger_of_another_key_says_so(tmp_path: Path) -> None:
    record = stored(tmp_path / "sources")
    ledger = SourceLedger(key_id="0" * 16, digests={record.url: record_digest(record)})
    store = trusted_store(tmp_path / "sources", ledger)
    assert store.problem is not None and "another key" in store.problem
    assert store.records() == {}


def test_a_signed_record_is_trusted_and_a_plain_sha256_is_not(tmp_path: Path) -> None:
    import hashlib

    record = stored(tmp_path / "sources")
    mine = key_id(user_key())
    good = SourceLedger(key_id=mine, digests={record.url: record_digest(record)})
    assert trusted_store(tmp_path / "sources", good).records() == {record.url: record}
    plain = hashlib.sha256(record.model_dump_json().encode()).hexdigest()
    forged = SourceLedger(key_id=mine, digests={record.url: plain})
    store = trusted_store(tmp_path / "sources", forged)
    assert store.records() == {} and "changed outside the orchestrator" in (store.problem or "")


def test_a_migrated_schema_1_session_is_not_said_to_be_tampered_with(run_cli, mock_script) -> None:
    script = mock_script(faults=[{"action": "reject", "phase": "review"}])
    args = ("--mock-mode", "--verify-sources", "--name", "old", "--breadth", "2", "--depth", "2")
    assert run_cli(*args, "--mock-script", str(script), QUESTION).exit_code == 0
    path = session("old") / "state.json"
    first = read_json(path)
    assert first["sources"]["digests"]  # the source check stored pages
    path.write_text(json.dumps(as_schema_1(first), indent=2))

    result = run_cli(*args, "--resume", "--max-iterations", "40")
    assert result.exit_code == 0, result.stderr
    warnings = [
        e["message"] for e in read_jsonl(session("old") / "events.jsonl") if e["type"] == "warning"
    ]
    store = [w for w in warnings if "index.json" in w]
    assert store and all("older version" in w for w in store), warnings
    assert not any("changed outside" in w for w in warnings)
    assert "changed outside" not in result.stderr
    assert read_json(path)["sources"]["key_id"] == key_id(user_key())


def test_sources_says_what_it_skipped_and_why_on_the_terminal_and_in_the_methodology(
    run_cli, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    with (docs / "big.txt").open("wb") as big:  # sparse: 60 MB on paper, nothing on disk
        big.truncate(60_000_000)
    for number in range(1200):
        (docs / f"doc{number:04d}.txt").write_text(f"Document {number} on heat pumps.\n")
    result = run_cli(
        "--mock-mode", "--name", "docs", "--breadth", "1", "--depth", "1",
        "--sources", str(docs), QUESTION,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    said = result.stdout + result.stderr
    big_line = "big.txt was not read: 60 MB, over the 50 MB limit"
    cap_line = "201 documents beyond the first 1,000 were not read"
    assert big_line in said and cap_line in said, said
    report = Path("reports/docs/report.md").read_text(encoding="utf-8")
    methodology = report[report.index("Methodology") :]
    assert big_line in methodology and cap_line in methodology

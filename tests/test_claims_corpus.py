"""The labelled corpus of real documents (issue 26, bench/corpus): every half but dev is
exactly what its manifest says, every claim of every half is well formed and points at its
page, and every complete half has its minimum size."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO

CORPUS = REPO / "bench" / "corpus"
FROZEN = CORPUS / "frozen"
FRESH = CORPUS / "fresh"
UNSEEN = CORPUS / "unseen"
BLIND = CORPUS / "blind"
SEALED = CORPUS / "sealed"
GUARDED = (FROZEN, FRESH, UNSEEN, BLIND, SEALED)
"""Halves with a manifest: the held-out ones (frozen, sealed) and the tuning halves that were
held out when written (fresh, unseen, blind), which never change either."""
BENCH = REPO / "bench" / "claims_corpus.py"
KINDS = {
    "true_plain": "supported",
    "true_careful": "supported",
    "changed_figure": "unsupported",
    "flipped_meaning": "unsupported",
}
SUBKINDS = {"unit", "number_words", "fraction", "rounding", "date", "derived", "scale"}
SIZE = {
    "frozen": (12, 100, 25),
    "dev": (12, 100, 25),
    "fresh": (12, 100, 20),
    "unseen": (12, 100, 20),
    "blind": (12, 100, 20),
    "sealed": (12, 100, 20),
}
"""Per half: at least this many documents, claims, and claims of each kind."""


def halves() -> list[Path]:
    """Every half: one that lost its claims fails its tests, it is not left out."""
    return [FROZEN, FRESH, UNSEEN, BLIND, SEALED, CORPUS / "dev"]


def rows(half: Path) -> list[dict[str, Any]]:
    lines = (half / "claims.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def squeezed(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def manifest_mismatch(half: Path) -> list[str]:
    """The files of a half that differ from its MANIFEST.sha256: added, removed, changed."""
    listed = {}
    for line in (half / "MANIFEST.sha256").read_text(encoding="utf-8").splitlines():
        digest, name = line.split(maxsplit=1)
        listed[name] = digest
    present = {
        path.relative_to(half).as_posix()
        for path in half.rglob("*")
        if path.is_file() and path.name != "MANIFEST.sha256"
    }
    changed = [
        name
        for name, digest in listed.items()
        if name in present and hashlib.sha256((half / name).read_bytes()).hexdigest() != digest
    ]
    return sorted(present ^ set(listed)) + sorted(changed)


@pytest.mark.parametrize("half", GUARDED, ids=lambda half: half.name)
def test_a_guarded_half_is_exactly_what_its_manifest_says(half: Path) -> None:
    """A guarded half is measured, never edited: a changed, added or removed file fails.
    (A half being written is named in the bench's GROWING; its writers regenerate its
    manifest with `python bench/claims_corpus.py --half <it> --write-manifest`.)"""
    assert not manifest_mismatch(half), f"{half.name} corpus files differ from the manifest"


@pytest.mark.parametrize("half", halves(), ids=lambda half: half.name)
def test_every_claim_is_well_formed_and_its_passage_is_on_its_page(half: Path) -> None:
    sources = json.loads((half / "sources.json").read_text(encoding="utf-8"))
    pages = {path.stem for path in (half / "pages").glob("*.txt")}
    assert pages == set(sources)
    texts = {doc: squeezed((half / "pages" / f"{doc}.txt").read_text("utf-8")) for doc in pages}
    claims = rows(half)
    assert len({row["id"] for row in claims}) == len(claims)
    for row in claims:
        assert row["doc"] in pages, row["id"]
        assert KINDS[row["kind"]] == row["label"], row["id"]
        assert (row["subkind"] in SUBKINDS) == (row["kind"] == "true_careful"), row["id"]
        assert row["claim"].strip() and row["passage"].strip(), row["id"]
        assert squeezed(row["passage"]) in texts[row["doc"]], row["id"]
    per_doc = Counter(row["doc"] for row in claims)
    assert set(per_doc) == pages
    assert all(n >= 8 for n in per_doc.values()), per_doc


@pytest.mark.parametrize("half", halves(), ids=lambda half: half.name)
def test_a_complete_half_has_its_minimum_size(half: Path) -> None:
    """Documents, claims, and claims of every kind, at least SIZE's (a half still being
    written, named in the bench's GROWING, is skipped until it has its documents)."""
    n_docs, n_claims, per_kind = SIZE[half.name]
    docs = json.loads((half / "sources.json").read_text(encoding="utf-8"))
    if half.name in load_bench().GROWING and len(docs) < n_docs:
        pytest.skip(f"the {half.name} half is being written: {len(docs)} of {n_docs} documents")
    claims = rows(half)
    kinds = Counter(row["kind"] for row in claims)
    assert set(kinds) == set(KINDS), kinds
    assert len(docs) >= n_docs and len(claims) >= n_claims, (len(docs), len(claims))
    assert min(kinds.values()) >= per_kind, kinds


def test_no_document_is_in_two_halves() -> None:
    docs = [path.stem for half in halves() for path in (half / "pages").glob("*.txt")]
    assert {half.name for half in halves()} == {
        "frozen",
        "fresh",
        "unseen",
        "blind",
        "sealed",
        "dev",
    }
    assert not [doc for doc, n in Counter(docs).items() if n > 1]


def test_the_corpus_bench_runs_and_keeps_the_frozen_half_aggregate(tmp_path: Path) -> None:
    """A smoke run of bench/claims_corpus.py on a few claims (no rate asserted: the bench
    measures, the rates go to BENCHMARKS.md)."""
    out = tmp_path / "corpus.json"
    bench = [sys.executable, str(BENCH)]
    proc = subprocess.run(
        [*bench, "--limit", "12", "--json", str(out)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    results = json.loads(out.read_text(encoding="utf-8"))
    assert results["half"] == "frozen" and results["claims"] == 12
    assert sum(results["rules"][kind]["n"] for kind in KINDS) == 12
    assert "rules alone" in proc.stdout and "rules + scripted judge" in proc.stdout
    if results["judge"] is not None:
        assert 0.0 <= results["judge"]["passage_recall"] <= 1.0
        assert results["judge"]["voided_changed_verdict"] == 0
    for half in ("frozen", "sealed"):
        refused = subprocess.run(
            [*bench, "--half", half, "--list"], capture_output=True, text=True, timeout=120
        )
        assert refused.returncode == 2 and f"the {half} half is held out" in refused.stderr
        assert not refused.stdout


def load_bench() -> Any:
    spec = importlib.util.spec_from_file_location("claims_corpus", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules["claims_corpus"] = bench  # dataclasses look their module up
    spec.loader.exec_module(bench)
    return bench


def test_the_written_manifest_guards_a_half(tmp_path: Path) -> None:
    """What `--write-manifest` writes is what the guard reads: it passes on the files it was
    written for and fails when one changes, appears or disappears."""
    bench = load_bench()
    half = tmp_path / "fresh"
    (half / "pages").mkdir(parents=True)
    (half / "claims.jsonl").write_text("{}\n", encoding="utf-8")
    (half / "pages" / "a.txt").write_text("page a\n", encoding="utf-8")
    (half / "MANIFEST.sha256").write_text(bench.manifest(half), encoding="utf-8")
    assert manifest_mismatch(half) == []
    (half / "pages" / "a.txt").write_text("page a, edited\n", encoding="utf-8")
    assert manifest_mismatch(half) == ["pages/a.txt"]
    (half / "MANIFEST.sha256").write_text(bench.manifest(half), encoding="utf-8")
    (half / "pages" / "b.txt").write_text("page b\n", encoding="utf-8")
    (half / "claims.jsonl").unlink()
    assert manifest_mismatch(half) == ["claims.jsonl", "pages/b.txt"]


def test_write_manifest_is_for_the_halves_being_written_only() -> None:
    for half in ("frozen", "sealed", "blind", "fresh", "unseen", "dev"):
        proc = subprocess.run(
            [sys.executable, str(BENCH), "--half", half, "--write-manifest"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 2, proc.stderr
        assert "for a half being written" in proc.stderr, proc.stderr
    assert not any(manifest_mismatch(half) for half in GUARDED)


def test_write_manifest_writes_the_guard_of_a_half_being_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--write-manifest` for a half being written (the next session's, named in GROWING)
    writes the manifest the guard reads (into a scratch corpus: the real halves are not
    touched), and a half that is not there is one clear message."""
    bench = load_bench()
    name = "next"
    bench.GROWING = (name,)
    half = tmp_path / name
    (half / "pages").mkdir(parents=True)
    (half / "claims.jsonl").write_text("{}\n", encoding="utf-8")
    (half / "pages" / "a.txt").write_text("page a\n", encoding="utf-8")
    assert bench.write_manifest(name, corpus=tmp_path) == 0
    assert manifest_mismatch(half) == []
    assert (half / "MANIFEST.sha256").read_text(encoding="utf-8").count("\n") == 2
    assert bench.write_manifest(name, corpus=tmp_path / "elsewhere") == 2
    assert f"there is no {name} half" in capsys.readouterr().err


def test_the_scripted_judge_quotes_the_page_verbatim_and_lies_off_the_page() -> None:
    bench = load_bench()
    claim = next(c for c in bench.load("dev") if c.row["passage"] == "Created: 23-Aug-2016")
    quote = bench.quote_of(claim.page_text, claim.row["passage"])
    assert len(quote.split()) >= bench.QUOTE_MIN_WORDS and quote in claim.page_text
    assert "Created: 23-Aug-2016" in quote
    given = [quote]
    answers = [
        bench.scripted_answer(claim, given, random.Random(n), 0.85, 0.15) for n in range(400)
    ]
    lies = [q for _, q in answers if q not in claim.page_text]
    right = sum(a == "says" for a, q in answers if q in claim.page_text)
    assert all(q == claim.row["claim"] for q in lies) and 30 <= len(lies) <= 90
    assert 0.75 <= right / (len(answers) - len(lies)) <= 0.95
    assert bench.scripted_answer(claim, ["another passage"], random.Random(1), 1.0, 0.0) == (
        "not_said",
        "another passage",
    )


def test_the_hash_bench_prints_one_digest_over_the_halves_it_is_given() -> None:
    """bench/claims_hash.py: the same checkout gives the same digest twice, and another set
    of halves another digest (so a verdict that changes changes it)."""
    bench = [sys.executable, str(REPO / "bench" / "claims_hash.py")]
    runs = [
        subprocess.run([*bench, *args], capture_output=True, text=True, timeout=300)
        for args in (["--half", "dev"], ["--half", "dev"], ["--half", "fresh"])
    ]
    assert all(run.returncode == 0 for run in runs), [run.stderr for run in runs]
    digests = [run.stdout.split()[0] for run in runs]
    assert re.fullmatch(r"[0-9a-f]{64}", digests[0])
    assert digests[0] == digests[1] != digests[2]
    assert "(dev and bench/claims.py's 500 claims)" in runs[0].stdout

"""The labelled corpus of real documents (issue 26, bench/corpus): the frozen half never
changes, and every claim of either half is well formed and points at its page."""

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
BENCH = REPO / "bench" / "claims_corpus.py"
KINDS = {
    "true_plain": "supported",
    "true_careful": "supported",
    "changed_figure": "unsupported",
    "flipped_meaning": "unsupported",
}
SUBKINDS = {"unit", "number_words", "fraction", "rounding", "date", "derived", "scale"}


def halves() -> list[Path]:
    return [half for half in (FROZEN, CORPUS / "dev") if (half / "claims.jsonl").is_file()]


def rows(half: Path) -> list[dict[str, Any]]:
    lines = (half / "claims.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def squeezed(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def test_the_frozen_half_is_exactly_what_its_manifest_says() -> None:
    """The held-out half is measured, never edited: a changed, added or removed file fails."""
    listed = {}
    for line in (FROZEN / "MANIFEST.sha256").read_text(encoding="utf-8").splitlines():
        digest, name = line.split(maxsplit=1)
        listed[name] = digest
    present = {
        path.relative_to(FROZEN).as_posix()
        for path in FROZEN.rglob("*")
        if path.is_file() and path.name != "MANIFEST.sha256"
    }
    assert present == set(listed), present ^ set(listed)
    changed = [
        name
        for name, digest in listed.items()
        if hashlib.sha256((FROZEN / name).read_bytes()).hexdigest() != digest
    ]
    assert not changed, f"frozen corpus files changed: {changed}"


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
    assert {row["doc"] for row in claims} == pages
    kinds = Counter(row["kind"] for row in claims)
    assert len(pages) >= 12 and len(claims) >= 100 and min(kinds.values()) >= 25, kinds
    assert Counter(row["doc"] for row in claims).most_common()[-1][1] >= 8


def test_no_document_is_in_both_halves() -> None:
    docs = [{path.stem for path in (half / "pages").glob("*.txt")} for half in halves()]
    assert len(docs) < 2 or not docs[0] & docs[1]


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
    refused = subprocess.run([*bench, "--list"], capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "held out" in refused.stderr


def test_the_scripted_judge_quotes_the_page_verbatim_and_lies_off_the_page() -> None:
    spec = importlib.util.spec_from_file_location("claims_corpus", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules["claims_corpus"] = bench  # dataclasses look their module up
    spec.loader.exec_module(bench)
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

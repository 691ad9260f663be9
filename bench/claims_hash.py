"""Did a change to the claim check change any verdict? One sha256 over every ClaimCheck.

Checks every claim of the named halves of bench/corpus against its page, then the 500
claims of bench/claims.py's 100 KB page (seed 11), and prints one sha256 over the
ClaimChecks' JSON, in order. Two checkouts that print the same hash give every claim the
same verdict, reason and figures: the test of a change that should only move code or make
it faster. Nothing but the hash is printed, so it may be run on the held-out halves too.

    python bench/claims_hash.py                      # the tuning halves
    python bench/claims_hash.py --half frozen --half sealed
    python bench/claims_hash.py --all                # every half
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

import claims as speed_bench  # noqa: E402

from research.sources.claims import check_claim, index_page  # noqa: E402
from research.sources.pageindex import PageIndex  # noqa: E402

CORPUS = REPO / "bench" / "corpus"
TUNING = ("dev", "fresh", "unseen", "blind")
ALL = (*TUNING, "frozen", "sealed")


def half_checks(half: str, digest: hashlib._Hash) -> None:
    root = CORPUS / half
    sources = json.loads((root / "sources.json").read_text(encoding="utf-8"))
    pages: dict[str, PageIndex] = {}
    for line in (root / "claims.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        doc = row["doc"]
        if doc not in pages:
            pages[doc] = index_page((root / "pages" / f"{doc}.txt").read_text(encoding="utf-8"))
        check = check_claim(row["claim"], pages[doc], sources[doc]["url"])
        digest.update(check.model_dump_json().encode())


def bench_checks(digest: hashlib._Hash) -> None:
    rng = random.Random(11)
    page = speed_bench.build_page(100, rng)
    index = index_page(page)
    for claim in speed_bench.build_claims(page, 500, rng):
        digest.update(check_claim(claim, index).model_dump_json().encode())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", action="append", choices=ALL, help="a half (repeatable)")
    parser.add_argument("--all", action="store_true", help="every half")
    args = parser.parse_args(argv)
    halves = ALL if args.all else tuple(args.half or TUNING)
    digest = hashlib.sha256()
    for half in halves:
        half_checks(half, digest)
    bench_checks(digest)
    print(f"{digest.hexdigest()}  ({', '.join(halves)} and bench/claims.py's 500 claims)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

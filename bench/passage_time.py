"""How long choosing the judge's passages takes per claim (`research.sources.passages`).

Two pages: each page of the dev half of bench/corpus with its own claims, and a synthetic
100 KB page dense with figures (every sentence three of them; seeded), the worst case for
the figures computed from the page's (`sources/passagefigures.py`), with claims of a
hedged figure, a duration and a share. The page is indexed once (as VERIFY does) and not
timed; per claim, `PassageIndex.best` is.

    python bench/passage_time.py
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from claims_corpus import load  # noqa: E402

from research.sources.claims import ClaimCheck, check_claim  # noqa: E402
from research.sources.passages import PassageIndex  # noqa: E402

DENSE_CHARS = 100_000
DENSE_CLAIMS = (
    "The tool read about 4,321 files in close to 12 seconds.",
    "It took about three weeks.",
    "Some 37.5% of files were cached in the slowest run.",
    "Run 17 read 2,000 more files than run 18.",
)
ROUNDS = 5


def dense_page() -> str:
    rng = random.Random(26)
    lines: list[str] = []
    size = 0
    while size < DENSE_CHARS:
        a, b, c = rng.randint(10, 9999), rng.randint(10, 999), rng.randint(1, 99)
        lines.append(f"In run {len(lines)} the tool read {a} files in {b}.{c} s, {c}% cached.")
        size += len(lines[-1]) + 1
    return "\n".join(lines)


def timed(index: PassageIndex, claims: list[str]) -> list[float]:
    """Milliseconds per claim, the best of ROUNDS runs each."""
    out = []
    for claim in claims:
        check = check_claim(claim, index.page)
        best = min(_once(index, check) for _ in range(ROUNDS))
        out.append(best * 1000)
    return out


def _once(index: PassageIndex, check: ClaimCheck) -> float:
    started = time.perf_counter()
    index.best(check)
    return time.perf_counter() - started


def report(name: str, times: list[float]) -> None:
    times = sorted(times)
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    print(
        f"{name}: {len(times)} claims, ms per claim median {statistics.median(times):.2f}, "
        f"p99 {p99:.2f}, max {times[-1]:.2f}"
    )


def main() -> int:
    by_doc: dict[str, list[str]] = {}
    texts: dict[str, str] = {}
    for claim in load("dev"):
        by_doc.setdefault(claim.row["doc"], []).append(claim.row["claim"])
        texts[claim.row["doc"]] = claim.page_text
    dev = [t for doc, claims in by_doc.items() for t in timed(PassageIndex(texts[doc]), claims)]
    report("dev half pages", dev)
    dense = timed(PassageIndex(dense_page()), list(DENSE_CLAIMS))
    report("a 100 KB page dense with figures", dense)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

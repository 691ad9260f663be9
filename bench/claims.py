"""How fast is the claim check (issue 11)? Index one ~100 KB page, check ~500 claims against it.

The page is the 12 fixture pages of tests/fixtures/claims (24 KB) followed by variants of
them (sentences shuffled within each line, every figure changed) until it reaches
`--kb` kilobytes, so most claims match several passages equally and the tie-breaking runs
(a harder case than a real page). The claims are the fixture's claims that cite a page
(111), then sentences of the page as written and with a figure changed, then claims made of
words from other pages, 500 in all. Each claim is timed on its own (`perf_counter_ns`),
over several rounds; the index build is timed cold (first build in the process, empty
stem cache) and warm (median of the rest). Also prints the fixture's confusion table.

    python bench/claims.py                # 100 KB page, 500 claims, 5 rounds
    python bench/claims.py --json out.json
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from machine import machine  # noqa: E402  (bench/ is the script's folder)

from research.sources.claims import Support, check_claim, index_page  # noqa: E402

FIXTURE = REPO / "tests" / "fixtures" / "claims"
LABELS = (
    "supported",
    "careful",
    "number_changed",
    "meaning_flipped",
    "unrelated",
    "dead_url",
    "invented_host",
)


def fixture_rows() -> list[dict[str, object]]:
    lines = (FIXTURE / "claims.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def page_texts() -> list[str]:
    return [p.read_text(encoding="utf-8") for p in sorted((FIXTURE / "pages").glob("*.txt"))]


def _bump(match: re.Match[str]) -> str:
    digits = match.group(0)
    return digits[:-1] + str((int(digits[-1]) + 3) % 10)


def variant(text: str, rng: random.Random) -> str:
    """`text` with sentences shuffled within each line and every figure changed."""
    lines = []
    for line in text.splitlines():
        sentences = re.split(r"(?<=[.!?])\s+", line)
        rng.shuffle(sentences)
        lines.append(re.sub(r"\d+", _bump, " ".join(sentences)))
    return "\n".join(lines)


def build_page(kb: int, rng: random.Random) -> str:
    texts = page_texts()
    parts = list(texts)
    while sum(len(p.encode()) for p in parts) < kb * 1000:
        parts.append(variant(rng.choice(texts), rng))
    return "\n\n".join(parts)[: kb * 1000]


def build_claims(page: str, count: int, rng: random.Random) -> list[str]:
    claims = [str(row["claim"]) for row in fixture_rows() if row["page"]]
    sentences = [s for s in re.split(r"(?<=[.!?])\s+|\n+", page) if len(s.split()) >= 6]
    words = re.findall(r"[A-Za-z]{4,}", page)
    while len(claims) < count:
        kind = len(claims) % 3
        if kind == 0:
            claims.append(rng.choice(sentences))
        elif kind == 1:
            claims.append(re.sub(r"\d+", _bump, rng.choice(sentences), count=1))
        else:
            claims.append(" ".join(rng.sample(words, 12)) + f" rose {rng.randint(1, 99)}%.")
    return claims[:count]


def confusion_table() -> str:
    indexed = {}
    counts: Counter[tuple[str, Support]] = Counter()
    for row in fixture_rows():
        page = None
        if row["page"]:
            name = str(row["page"])
            if name not in indexed:
                indexed[name] = index_page((FIXTURE / "pages" / name).read_text(encoding="utf-8"))
            page = indexed[name]
        counts[str(row["label"]), check_claim(str(row["claim"]), page).support] += 1
    header = ["label \\ outcome", *(s.value for s in Support), "flagged"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for label in LABELS:
        cells = [counts[label, s] for s in Support]
        flagged = sum(cells) - counts[label, Support.SUPPORTED]
        lines.append(f"| {label} | " + " | ".join(map(str, cells)) + f" | {flagged}/{sum(cells)} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", type=int, default=100, help="page size in kilobytes")
    parser.add_argument("--claims", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write every figure here")
    args = parser.parse_args()

    rng = random.Random(11)
    page_text = build_page(args.kb, rng)
    builds, build_cpu = [], []
    for _ in range(7):
        started, cpu = time.perf_counter_ns(), time.thread_time_ns()
        page = index_page(page_text)
        builds.append((time.perf_counter_ns() - started) / 1e6)
        build_cpu.append((time.thread_time_ns() - cpu) / 1e6)
    claims = build_claims(page_text, args.claims, rng)

    per_claim: list[float] = []
    per_claim_cpu: list[float] = []
    outcomes: Counter[str] = Counter()
    for round_ in range(args.rounds):
        for claim in claims:
            started, cpu = time.perf_counter_ns(), time.thread_time_ns()
            check = check_claim(claim, page)
            per_claim.append((time.perf_counter_ns() - started) / 1e6)
            per_claim_cpu.append((time.thread_time_ns() - cpu) / 1e6)
            if round_ == 0:
                outcomes[check.support.value] += 1

    def summary(times: list[float]) -> dict[str, float]:
        ordered = sorted(times)
        return {
            "mean": statistics.fmean(ordered),
            "p50": ordered[len(ordered) // 2],
            "p99": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))],
            "max": ordered[-1],
        }

    results = {
        "machine": machine(),
        "page": {
            "bytes": len(page_text.encode()),
            "sentences": len(page.sentences),
            "passages": len(page.passages),
            "stems": len(page.postings),
        },
        "index_ms": {
            "cold": builds[0],
            "warm_median": statistics.median(builds[1:]),
            "cpu_warm_median": statistics.median(build_cpu[1:]),
        },
        "claims": len(claims),
        "rounds": args.rounds,
        "check_ms": summary(per_claim),
        "check_cpu_ms": summary(per_claim_cpu),
        "outcomes": dict(outcomes),
    }
    info = results["page"]
    print(
        f"page: {info['bytes']:,} bytes, {info['sentences']} sentences, "
        f"{info['passages']} passages, {info['stems']} stems"
    )
    index_ms = results["index_ms"]
    print(
        f"index_page: {index_ms['cold']:.1f} ms cold (first build), "
        f"{index_ms['warm_median']:.1f} ms warm (median of 6), "
        f"{index_ms['cpu_warm_median']:.1f} ms CPU"
    )
    for key, what in (("check_ms", "wall"), ("check_cpu_ms", "CPU ")):
        timing = results[key]
        print(
            f"check_claim {what} over {len(claims)} claims x {args.rounds} rounds: mean "
            f"{timing['mean']:.3f} ms, p50 {timing['p50']:.3f} ms, p99 {timing['p99']:.3f} ms, "
            f"max {timing['max']:.3f} ms (target: <= 1 ms per claim)"
        )
    print("outcomes:", ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    print("\nfixture confusion table (tests/fixtures/claims):\n" + confusion_table())
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How often does the claim check flag each kind of claim of the real-document corpus?

Runs the product's claim check (`research.sources.claims`) over one half of bench/corpus
(issue 26) and prints, per kind of claim, how many come out supported, weak, unsupported
or unverifiable, and the share flagged (anything but supported), in two modes:

- rules: the rules alone;
- judge: the rules, then a scripted judge through the product's own decision function
  (`research.sources.judging.decide`) on the passages the product's passage selector
  (`research.sources.passages.PassageIndex`, one a page as VERIFY builds it) would send.
  The scripted judge is right `--accuracy` of the time (seeded, per claim), and a
  `--lie-rate` share of its answers quote text that is not on the page (the sentence under
  test itself). It answers "says" (true claims) or "opposite" (the others) when right, the
  other way round when wrong; it quotes the decisive passage when a passage it was given
  holds it, and otherwise can only say "not_said" with a quote of what it was given. Also
  measured: voided judgements and whether any voided one changed a verdict (it must not),
  and passage recall, the share of claims whose decisive passage is inside the passages
  given to the judge.

Until the judge's modules are on this checkout, the judge mode says so and only the rules
run (the hook is `product_judge`).

    python bench/claims_corpus.py                       # frozen half, both modes
    python bench/claims_corpus.py --half sealed         # sealed half, aggregates only
    python bench/claims_corpus.py --half unseen --list  # a tuning half, every claim's outcome
    python bench/claims_corpus.py --json out.json

The frozen and sealed halves are held out: the bench prints only aggregate rates for them
(`--list` is refused), so that nobody tunes a rule on their sentences. dev, fresh, unseen and
blind are tuning halves (fresh, unseen and blind were held out when written, and were used up
by the sessions that checked rules on them). Every half but dev has a MANIFEST.sha256 that
tests/test_claims_corpus.py checks. `--write-manifest` rewrites the manifest of a half named
in GROWING while its writers add documents (none is now: sealed was completed in session 5).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import random
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from research.sources.claims import ClaimCheck, Support, check_claim, index_page  # noqa: E402

CORPUS = REPO / "bench" / "corpus"
KINDS = ("true_plain", "true_careful", "changed_figure", "flipped_meaning")
KIND_NAMES = {
    "true_plain": "true, plainly restated",
    "true_careful": "true, carefully phrased",
    "changed_figure": "a figure changed to another of the page",
    "flipped_meaning": "figures kept, meaning flipped",
}
HELD_OUT = ("frozen", "sealed")
"""Halves whose claims nobody tuning the rules may see: aggregate rates only."""
GROWING: tuple[str, ...] = ()
"""Held-out halves whose writers add documents (and rewrite the manifest) during a session."""
MANIFEST = "MANIFEST.sha256"
GOALS = {"true_plain": "<= 3%", "true_careful": "<= 10%", "changed_figure": ">= 90%"}
JUDGE_GOALS = {**GOALS, "flipped_meaning": ">= 70%"}
QUOTE_MIN_WORDS = 8
"""The scripted judge quotes whole lines around the decisive passage until it has this many
words (a real judge quotes a sentence, not "Created: 24-Feb-2023")."""


@dataclass
class Claim:
    row: dict[str, Any]
    page_text: str
    source: str


@dataclass
class Outcome:
    claim: Claim
    rules: ClaimCheck
    final: Support
    decided_by: str = "rules"
    voided: bool = False
    voided_changed: bool = False
    recalled: bool | None = None
    notes: list[str] = field(default_factory=list)


def load(half: str) -> list[Claim]:
    root = CORPUS / half
    sources = json.loads((root / "sources.json").read_text(encoding="utf-8"))
    pages = {doc: (root / "pages" / f"{doc}.txt").read_text(encoding="utf-8") for doc in sources}
    lines = (root / "claims.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    return [Claim(row, pages[row["doc"]], sources[row["doc"]]["url"]) for row in rows]


def manifest(root: Path) -> str:
    """The MANIFEST.sha256 of a half: `<sha256>  <path>` for every file under it but the
    manifest itself, sorted by path (the format `sha256sum` writes and checks)."""
    files = sorted(
        path.relative_to(root).as_posix()
        for path in root.rglob("*")
        if path.is_file() and path.name != MANIFEST
    )
    return "".join(
        f"{hashlib.sha256((root / name).read_bytes()).hexdigest()}  {name}\n" for name in files
    )


def write_manifest(half: str, corpus: Path = CORPUS) -> int:
    if half not in GROWING:
        why = "has no manifest" if half == "dev" else "never changes"
        print(
            f"--write-manifest is for a half being written ({', '.join(GROWING) or 'none'} now):"
            f" the {half} half {why}.",
            file=sys.stderr,
        )
        return 2
    root = corpus / half
    if not root.is_dir():
        print(f"--write-manifest: there is no {half} half at {root}.", file=sys.stderr)
        return 2
    (root / MANIFEST).write_text(manifest(root), encoding="utf-8")
    print(f"wrote the manifest of the {half} half: {root / MANIFEST}")
    return 0


def product_judge() -> tuple[ModuleType, ModuleType] | None:
    """The hook: the product's judge decision and passage selector, when this checkout
    has them (issue 26 part 2), else None."""
    try:
        judging = importlib.import_module("research.sources.judging")
        passages = importlib.import_module("research.sources.passages")
    except ImportError:
        return None
    needed = ("decide", "Judgement", "Answer", "normalised")
    if not all(hasattr(judging, name) for name in needed):
        return None
    return (judging, passages) if hasattr(passages, "PassageIndex") else None


def squeezed(text: str) -> str:
    return " ".join(text.split()).casefold()


def holds(passages: list[str], decisive: str) -> bool:
    return squeezed(decisive) in squeezed("\n".join(passages))


def quote_of(page: str, decisive: str) -> str:
    """The decisive passage as a judge would quote it: verbatim from the page, widened to
    whole lines until it has QUOTE_MIN_WORDS words."""
    pattern = r"\s+".join(re.escape(word) for word in decisive.split())
    found = re.search(pattern, page)
    if found is None:
        return decisive
    start, end = found.start(), found.end()
    while len(page[start:end].split()) < QUOTE_MIN_WORDS and (start > 0 or end < len(page)):
        start = page.rfind("\n", 0, max(start - 1, 0)) + 1 if start > 0 else 0
        end = page.find("\n", end + 1) if end < len(page) else end
        end = len(page) if end == -1 else end
    return page[start:end].strip()


def clipped(passage: str, limit: int = 1_000) -> str:
    """A passage as a quote the judge may give: whole, or its words up to `limit`
    characters (judging.MAX_QUOTE_CHARS; the prompt asks for at most two sentences)."""
    if len(passage) <= limit:
        return passage
    return passage[: passage.rfind(" ", 0, limit + 1)].rstrip()


def scripted_answer(
    claim: Claim, given: list[str], rng: random.Random, accuracy: float, lie_rate: float
) -> tuple[str, str]:
    """(answer, quote) of the scripted judge for one claim."""
    true_claim = claim.row["label"] == "supported"
    right = rng.random() < accuracy
    lies = rng.random() < lie_rate
    says = true_claim == right
    if lies:
        return ("says" if says else "opposite"), claim.row["claim"]
    if not holds(given, claim.row["passage"]):
        return "not_said", clipped(given[0] if given else "")
    return ("says" if says else "opposite"), quote_of(claim.page_text, claim.row["passage"])


def run_rules(claims: list[Claim]) -> list[Outcome]:
    indexed = {}
    outcomes = []
    for claim in claims:
        doc = claim.row["doc"]
        if doc not in indexed:
            indexed[doc] = index_page(claim.page_text)
        check = check_claim(claim.row["claim"], indexed[doc], claim.source)
        outcomes.append(Outcome(claim, check, check.support))
    return outcomes


def run_judge(
    outcomes: list[Outcome],
    modules: tuple[ModuleType, ModuleType],
    *,
    seed: int,
    accuracy: float,
    lie_rate: float,
    mode: str,
) -> list[Outcome]:
    judging, passages = modules
    judged = []
    normal_pages: dict[str, str] = {}
    indexes: dict[str, Any] = {}  # one PassageIndex a page, as VERIFY reads it
    for done in outcomes:
        claim = done.claim
        rng = random.Random(f"{seed}:{claim.row['id']}")
        doc = claim.row["doc"]
        if doc not in indexes:
            indexes[doc] = passages.PassageIndex(claim.page_text)
        given = list(indexes[doc].best(done.rules))
        recalled = holds(given, claim.row["passage"])
        if mode == "flagged" and done.rules.support is Support.SUPPORTED:
            judged.append(Outcome(claim, done.rules, done.rules.support, recalled=recalled))
            continue
        answer, quote = scripted_answer(claim, given, rng, accuracy, lie_rate)
        page = normal_pages.setdefault(claim.row["doc"], judging.normalised(claim.page_text))
        judgement = judging.Judgement(id="s1", answer=judging.Answer(answer), quote=quote)
        decision = judging.decide(done.rules, judgement, page)
        judged.append(
            Outcome(
                claim,
                done.rules,
                decision.support,
                decided_by=decision.decided_by,
                voided=decision.voided,
                voided_changed=decision.voided and decision.support is not done.rules.support,
                recalled=recalled,
            )
        )
    return judged


def flagged(support: Support) -> bool:
    return support is not Support.SUPPORTED


def table(outcomes: list[Outcome], goals: dict[str, str]) -> tuple[str, dict[str, Any]]:
    columns = ["kind of claim", "n", *(s.value for s in Support), "flagged", "goal"]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    figures: dict[str, Any] = {}
    for kind in KINDS:
        mine = [o for o in outcomes if o.claim.row["kind"] == kind]
        counts = Counter(o.final for o in mine)
        share = sum(flagged(o.final) for o in mine) / len(mine) if mine else 0.0
        figures[kind] = {"n": len(mine), "flagged": share, **{s.value: counts[s] for s in Support}}
        cells = " | ".join(str(counts[s]) for s in Support)
        n_flag = sum(flagged(o.final) for o in mine)
        lines.append(
            f"| {KIND_NAMES[kind]} | {len(mine)} | {cells} | {n_flag} ({share:.0%}) | "
            f"{goals.get(kind, '')} |"
        )
    careful = [o for o in outcomes if o.claim.row["kind"] == "true_careful"]
    subs = sorted({o.claim.row["subkind"] for o in careful})
    parts = []
    for sub in subs:
        mine = [o for o in careful if o.claim.row["subkind"] == sub]
        n_flag = sum(flagged(o.final) for o in mine)
        figures.setdefault("careful_by_subkind", {})[sub] = {"n": len(mine), "flagged": n_flag}
        parts.append(f"{sub} {n_flag}/{len(mine)}")
    lines.append("\ncarefully phrased, flagged by sub-kind: " + ", ".join(parts))
    return "\n".join(lines), figures


def judge_summary(judged: list[Outcome]) -> tuple[str, dict[str, Any]]:
    voided = [o for o in judged if o.voided]
    changed = sum(o.voided_changed for o in voided)
    by = Counter(o.decided_by for o in judged)
    recall = [o.recalled for o in judged if o.recalled is not None]
    share = sum(recall) / len(recall) if recall else 0.0
    text = (
        f"decided by the rules {by['rules']}, by the judge {by['judge']}; voided judgements "
        f"(quote not on the page) {len(voided)}, of which changed a verdict: {changed} "
        f"(must be 0)\npassage recall (the decisive passage inside the passages given to "
        f"the judge): {sum(recall)}/{len(recall)} = {share:.1%} (goal >= 95%)"
    )
    figures = {
        "decided_by": dict(by),
        "voided": len(voided),
        "voided_changed_verdict": changed,
        "passage_recall": share,
    }
    return text, figures


def listing(outcomes: list[Outcome]) -> str:
    lines = []
    for o in outcomes:
        row = o.claim.row
        mark = "FLAGGED" if flagged(o.final) else "ok"
        wrong = flagged(o.final) == (row["label"] == "supported")
        lines.append(
            f"{'x' if wrong else ' '} {row['id']} [{row['kind']}] {mark} {o.final.value}: "
            f"{o.rules.reason}\n      {row['claim']}"
        )
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--half", choices=("frozen", "sealed", "blind", "fresh", "unseen", "dev"), default="frozen"
    )
    parser.add_argument("--mode", choices=("rules", "judge", "both"), default="both")
    parser.add_argument("--judge", choices=("all", "flagged"), default="all")
    parser.add_argument("--accuracy", type=float, default=0.85)
    parser.add_argument("--lie-rate", type=float, default=0.15)
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--limit", type=int, help="only the first N claims (a smoke run)")
    parser.add_argument(
        "--list", action="store_true", help="every claim's outcome (tuning halves only)"
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument(
        "--write-manifest",
        action="store_true",
        help="rewrite the manifest of a half being written (GROWING), exit",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.write_manifest:
        return write_manifest(args.half)
    if args.list and args.half in HELD_OUT:
        print(
            f"--list is for the tuning halves: the {args.half} half is held out.", file=sys.stderr
        )
        return 2
    claims = load(args.half)[: args.limit]
    docs = len({c.row["doc"] for c in claims})
    print(f"corpus: {args.half} half, {len(claims)} claims over {docs} documents")
    results: dict[str, Any] = {"half": args.half, "claims": len(claims), "documents": docs}
    rules = run_rules(claims)
    if args.mode in ("rules", "both"):
        text, results["rules"] = table(rules, GOALS)
        print("\nrules alone (flagged = not supported):\n" + text)
        if args.list:
            print(listing(rules))
    if args.mode in ("judge", "both"):
        modules = product_judge()
        if modules is None:
            print("\nrules + scripted judge: not available (this checkout has no judge yet)")
            results["judge"] = None
        else:
            judged = run_judge(
                rules,
                modules,
                seed=args.seed,
                accuracy=args.accuracy,
                lie_rate=args.lie_rate,
                mode=args.judge,
            )
            text, figures = table(judged, JUDGE_GOALS)
            summary, extra = judge_summary(judged)
            results["judge"] = {**figures, **extra, "accuracy": args.accuracy}
            print(
                f"\nrules + scripted judge (--judge {args.judge}, right {args.accuracy:.0%} "
                f"of the time, {args.lie_rate:.0%} of answers quoting text not on the page, "
                f"seed {args.seed}):\n{text}\n{summary}"
            )
            if args.list:
                print(listing(judged))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

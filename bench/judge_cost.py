"""What the judge (VERIFY, --judge) costs per 20 cited sentences: calls, and tokens in and out.

Builds the batches the orchestrator would send for the claims of one half of bench/corpus
(real pages, real claims; 20 sentences a batch, in corpus order, as `engine/verify.py`
does), with the product's own rules verdicts, passage selector and batch model, renders the
VERIFY prompt from templates/verify.md, and writes the answers a judge would give (each
quoting about 25 words of its first passage). Tokens are estimated at 4 characters each
(no tokenizer is available offline); the agent's own fixed overhead per call (its system
prompt and tool definitions, the same for every phase) is not included.

    python bench/judge_cost.py              # the dev half
    python bench/judge_cost.py --half frozen
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from string import Template

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from claims_corpus import load  # noqa: E402

from research.engine.verify import BATCH_SENTENCES  # noqa: E402
from research.sources.claims import PageIndex, check_claim, index_page  # noqa: E402
from research.sources.judging import JudgeBatch, batch_item  # noqa: E402
from research.sources.passages import PassageIndex  # noqa: E402

CHARS_PER_TOKEN = 4
QUOTE_WORDS = 25


def prompt_chars(count: int) -> int:
    template = Template((REPO / "templates" / "verify.md").read_text(encoding="utf-8"))
    text = template.safe_substitute(
        original_topic="How fast are the common compression tools on real corpora?",
        date="2026-01-01",
        judge_batch_file=".research/session/judge.batch.json",
        judge_answers_file=".research/session/judge.answers.json",
        judge_count=str(count),
    )
    return len(text)


def batches(half: str) -> list[JudgeBatch]:
    claims = load(half)
    rules_pages: dict[str, PageIndex] = {}
    passages: dict[str, PassageIndex] = {}
    items = []
    for number, claim in enumerate(claims, 1):
        doc = claim.row["doc"]
        if doc not in passages:
            rules_pages[doc] = index_page(claim.page_text)
            passages[doc] = PassageIndex(claim.page_text, rules_pages[doc])
        check = check_claim(claim.row["claim"], rules_pages[doc], claim.source)
        items.append(batch_item(f"s{number}", check, passages[doc].best(check)))
    return [
        JudgeBatch(items=items[i : i + BATCH_SENTENCES])
        for i in range(0, len(items) - BATCH_SENTENCES + 1, BATCH_SENTENCES)
    ]


def answers_chars(batch: JudgeBatch) -> int:
    judgements = [
        {
            "id": item.id,
            "answer": "says",
            "quote": " ".join((item.passages or [""])[0].split()[:QUOTE_WORDS]),
        }
        for item in batch.items
    ]
    return len(json.dumps({"judgements": judgements}, indent=2))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", default="dev", choices=("dev", "fresh", "unseen", "frozen"))
    args = parser.parse_args(argv)
    found = batches(args.half)
    rows = []
    for batch in found:
        batch_text = batch.model_dump_json(indent=2)
        tokens_in = (prompt_chars(len(batch.items)) + len(batch_text)) // CHARS_PER_TOKEN
        tokens_out = answers_chars(batch) // CHARS_PER_TOKEN
        rows.append((tokens_in, tokens_out))
    print(
        f"corpus {args.half} half: {len(found)} batches of {BATCH_SENTENCES} cited sentences, "
        "1 VERIFY call each"
    )
    ins = [r[0] for r in rows]
    outs = [r[1] for r in rows]
    print(
        f"tokens in per batch: median {statistics.median(ins):,.0f} "
        f"(min {min(ins):,}, max {max(ins):,}); "
        f"tokens out: median {statistics.median(outs):,.0f} (min {min(outs):,}, max {max(outs):,})"
    )
    print("(4 characters a token; plus the agent's own fixed overhead per call, as for any phase)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

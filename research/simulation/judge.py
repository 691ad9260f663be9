"""The simulated agent as judge (VERIFY): it reads the orchestrator's batch and answers each
sentence with a quote of its first passage (the start of that passage's sentence sharing the
most words with it), so that `--mock-mode` shows the whole path. It
agrees with a sentence the rules found supported, says the page says the opposite where a
figure of the sentence is not on the page (the simulator misreads one on purpose), and
otherwise that the page does not say it. Every answer says it is simulated."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from research.agents.base import AgentCall
from research.sources.words import split_sentences
from research.workspace.fsutil import atomic_write_text

QUOTE_WORDS = 12


def answers(batch: dict[str, Any]) -> dict[str, Any]:
    """The simulated judge's answers file for a batch (as the orchestrator wrote it)."""
    judgements = []
    for item in batch.get("items", []):
        passages = item.get("passages") or [""]
        quote = _quote(str(item.get("sentence", "")), str(passages[0]))
        if item.get("rules") == "supported":
            answer = "says"
        elif "not on the page" in str(item.get("reason", "")):
            answer = "opposite"
        else:
            answer = "not_said"
        judgements.append(
            {"id": item.get("id"), "answer": answer, "quote": quote, "note": "[simulated]"}
        )
    return {"judgements": judgements}


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.casefold()))


def _quote(sentence: str, passage: str) -> str:
    """The first QUOTE_WORDS words of the passage's sentence that shares the most words
    with `sentence` (the first such one)."""
    mine = _words(sentence)
    pieces = split_sentences(passage) or [""]
    best = max(pieces, key=lambda piece: len(mine & _words(piece)))
    return " ".join(best.split()[:QUOTE_WORDS])


def judge(batch_file: Path, answers_file: Path) -> None:
    """Read the batch and write the answers beside it (nothing when there is no batch)."""
    try:
        batch = json.loads(batch_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    atomic_write_text(answers_file, json.dumps(answers(batch), indent=2) + "\n")


def verify(call: AgentCall) -> None:
    """The VERIFY call: the batch and answers files its prompt's variables name."""
    judge(
        call.cwd / call.context["judge_batch_file"], call.cwd / call.context["judge_answers_file"]
    )


def batch_chars(call: AgentCall) -> int:
    """The length of the batch a VERIFY call reads (0 for other phases)."""
    name = call.context.get("judge_batch_file")
    if call.phase != "verify" or not name:
        return 0
    try:
        return (call.cwd / name).stat().st_size
    except OSError:
        return 0

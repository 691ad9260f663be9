"""VERIFY: after the rules, the agent judges the report's cited sentences against their
pages, through the same agent backend and model as the reviews.

The orchestrator writes a batch (`judge.batch.json`: per sentence its id, the sentence, the
cited source, the rules' verdict and reason, and the page's best passages, verbatim), the
agent writes its answers beside it (`judge.answers.json`), and the answers are kept in
verification.json, each sentence sent once. What an answer does to a verdict is decided
in `sources/judging.py`; here only the calls: never for a page without text, never past the
time, token or cost budget, and a call that fails or leaves a malformed file leaves its
sentences to the rules.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from research.engine import limits
from research.engine.agentcall import AgentCaller
from research.engine.context import RunContext
from research.engine.staging import Stage
from research.model import artifacts as phases
from research.model.state import Phase
from research.prompts import variables as prompts
from research.prompts.render import phase_prompt
from research.prompts.variables import PromptInput
from research.sources.claims import ClaimCheck
from research.sources.judging import (
    JudgeBatch,
    JudgeItem,
    batch_item,
    judge_key,
    read_answers,
    wanted,
)
from research.sources.passages import PassageIndex
from research.sources.verification import CitedClaim, JudgeRecord, PageCache
from research.workspace.fsutil import atomic_write_text

BATCH_SENTENCES = 20
"""Sentences judged in one call."""
MAX_BATCHES = 5
"""Calls at most per check of the report; later sentences keep the rules' verdicts."""
TIME_SHARE = 0.3
"""A judge call may use at most this share of the time left (the final cycle goes on)."""
MAX_ANSWERS_BYTES = 1_000_000
"""A larger answers file is not read (the agent wrote it): the rules decide its batch."""


def _answers_text(path: Path) -> str | None:
    """The answers file's text, or None when it is missing, not a regular file, or too
    large to be a batch's answers."""
    try:
        if os.lstat(path).st_size > MAX_ANSWERS_BYTES:
            return None
    except OSError:
        return None
    return phases.read_text(path)


class Judge:
    """Sends the report's checked sentences to the agent as judge, a batch per call."""

    def __init__(self, ctx: RunContext, calls: AgentCaller) -> None:
        self.ctx = ctx
        self.calls = calls
        self._pages: dict[str, PassageIndex] = {}

    def judge(self, claims: Sequence[CitedClaim], pages: PageCache, record: JudgeRecord) -> None:
        """Judge the sentences --judge asks for that were never sent, against the pages the
        rules checked them on (`pages`, indexed once); the answers go into `record` (the
        caller saves it)."""
        mode = self.ctx.state.config.judge.value
        self._pages.clear()  # this check's pages, as `pages` read them
        done = set(record.judgements) | set(record.unanswered)
        pending: dict[str, ClaimCheck] = {}
        for claim in claims:
            key = judge_key(claim.check)
            if key not in done and wanted(claim.check, mode) and pages(claim.check.source):
                pending.setdefault(key, claim.check)
        checks = list(pending.values())
        for start in range(0, min(len(checks), BATCH_SENTENCES * MAX_BATCHES), BATCH_SENTENCES):
            why = self.cannot_call()
            if why is not None:
                record.skipped = why
                self.ctx.events.emit("warning", message=f"the judge was not asked: {why}")
                return
            self.call(checks[start : start + BATCH_SENTENCES], pages, record)
        over = len(checks) - BATCH_SENTENCES * MAX_BATCHES
        if over > 0:
            record.skipped = (
                f"{over} sentences beyond the {BATCH_SENTENCES * MAX_BATCHES} one check of the "
                "report judges"
            )

    def cannot_call(self) -> str | None:
        """Why no judge call may start now (a budget is used up), or None."""
        if self.ctx.budget.used_up(self.ctx.now()):
            return "the time budget is used up"
        spent = limits.usage_spent_kind(self.ctx)
        return None if spent is None else f"the {spent.replace('_', ' ')} is used up"

    def passages(self, check: ClaimCheck, pages: PageCache) -> list[str]:
        index = self._pages.get(check.source)
        if index is None:
            text = pages.text_of(check.source) or ""
            index = self._pages[check.source] = PassageIndex(text, pages(check.source))
        return index.best(check)

    def call(self, checks: Sequence[ClaimCheck], pages: PageCache, record: JudgeRecord) -> None:
        """One VERIFY call on a batch; its answers (or its failure) noted in `record`."""
        ctx, paths = self.ctx, self.ctx.paths
        items = [
            batch_item(f"s{number}", check, self.passages(check, pages))
            for number, check in enumerate(checks, 1)
        ]
        ctx.archive_files(paths.judge_answers_file)  # an earlier call's answers never count
        stage = Stage(ctx)  # the judge writes its answers there, not here
        batch = JudgeBatch(items=items)
        atomic_write_text(paths.judge_batch_file, batch.model_dump_json(indent=2) + "\n")
        try:
            self.judged(checks, items, record, stage)
        finally:
            stage.discard()

    def judged(
        self,
        checks: Sequence[ClaimCheck],
        items: list[JudgeItem],
        record: JudgeRecord,
        stage: Stage,
    ) -> None:
        """The call in its scratch area; the answers read once taken into the session."""
        ctx, paths = self.ctx, self.ctx.paths
        with ctx.mutex:
            stage.fresh(Phase.VERIFY)
            source = PromptInput(
                state=ctx.state,
                paths=stage.paths,
                phase=Phase.VERIFY,
                remaining_minutes=ctx.now_remaining(),
                judge_sentences=len(items),
            )
            values = prompts.variables(source)
            text = phase_prompt(ctx.templates, "verify", values, None)
        left = ctx.budget.remaining_seconds(ctx.now())
        started = ctx.now()
        ctx.events.emit("phase_start", phase=Phase.VERIFY.value, topic=None, round=0, **ctx.owner)
        result = self.calls.call_agent(
            Phase.VERIFY,
            text,
            model=ctx.state.config.review_model,
            context=values,
            timeout_cap=None if left is None else left * TIME_SHARE,
            stage=stage,
        )
        answers = read_answers(_answers_text(paths.judge_answers_file), items)
        record.calls += 1
        if answers is None:
            record.failed += 1
        for item, check in zip(items, checks, strict=True):
            answer = None if answers is None else answers.get(item.id)
            if answer is None:
                record.unanswered.append(judge_key(check))
            else:
                record.judgements[judge_key(check)] = answer
        outcome = {"outcome": "ok"}
        if answers is None:
            why = result.error or "no valid answers file"
            outcome.update(
                outcome="failed",
                kind="invalid_answers",
                error=f"{why}; the rules' verdicts stand for its {len(items)} sentences",
            )
        ctx.events.emit(
            "phase_end",
            phase=Phase.VERIFY.value,
            topic=None,
            duration=round(ctx.now() - started, 3),
            **outcome,
            **ctx.owner,
        )
        ctx.events.emit(
            "judge",
            sentences=len(items),
            answered=0 if answers is None else len(answers),
        )

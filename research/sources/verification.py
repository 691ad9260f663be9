"""The source check: the notes' findings and the report's cited sentences, each checked
against the text of the page it cites, and what that tells the reviewer and the reader.

Pure functions over the snapshot store's records and texts; the engine fetches, persists
and emits events (`research.engine.sourcecheck`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from research.model.state import FlaggedSentence, UnverifiedCitation, VerificationSummary
from research.sources.claims import (
    ClaimCheck,
    PageIndex,
    Support,
    check_claim,
    finding_claims,
    index_page,
    report_claims,
)
from research.sources.judging import (
    Decider,
    FigureTest,
    Judgement,
    decide,
    holds_figures,
    judge_key,
    normalised,
)
from research.sources.records import FetchStatus, SourceRecord
from research.sources.registry import SourceRegistry

DEAD = frozenset({FetchStatus.NOT_FOUND, FetchStatus.UNREACHABLE, FetchStatus.TIMEOUT})
"""Outcomes that say the page is not there (as opposed to blocked, refused or not text)."""
MAX_LISTED = 12
"""Problems named in one prompt section; the rest are counted."""
MAX_APPENDIX = 100

_RANK = {Support.SUPPORTED: 3, Support.WEAK: 2, Support.UNSUPPORTED: 1, Support.UNVERIFIABLE: 0}

TextOf = Callable[[str], str | None]
"""A location's snapshot text, or None when there is none."""
Pages = Callable[[str], PageIndex | None]
"""A location's indexed page, or None when it has no text (a `PageCache`)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class SourceProblem(_Model):
    """A cited source the check could not read."""

    location: str
    """The URL or file:<path>."""
    status: str
    """The fetch outcome (not_found, blocked, ...), or `unknown` when it was never fetched."""
    reason: str = ""


class TopicCheck(_Model):
    """The source check of one topic's notes."""

    sources: list[str] = Field(default_factory=list)
    """Every location the notes cite."""
    unavailable: list[SourceProblem] = Field(default_factory=list)
    """Cited sources with no snapshot."""
    findings: list[ClaimCheck] = Field(default_factory=list)
    """Each finding line, checked against the best of the pages it cites."""


class CitedClaim(_Model):
    """A report sentence (or table row) with its citation ids, checked."""

    ids: list[int]
    check: ClaimCheck
    """The verdict the reader is told: the rules', or the judge's where it decided."""
    decided_by: Decider = "rules"
    quote: str = ""
    """The judge's quote of the page, when the judge decided."""
    voided: bool = False
    """The judge's quote was not on the page, so its judgement was void."""
    rules: ClaimCheck | None = None
    """The rules' own check, when the judge decided."""


class CitationOutcome(_Model):
    """What the check says about one citation id of the report."""

    id: int
    location: str
    outcome: str
    """supported, weak, unsupported, or unverifiable."""
    reason: str = ""


class JudgeRecord(_Model):
    """The judge's answers on the report's sentences, and its calls."""

    judgements: dict[str, Judgement] = Field(default_factory=dict)
    """Per `judge_key`: the answer as the judge gave it (decided again at every check)."""
    unanswered: list[str] = Field(default_factory=list)
    """Keys sent in a call that failed or left no answer for them: not sent again."""
    calls: int = 0
    failed: int = 0
    skipped: str = ""
    """Why sentences were not sent at all (the budget), when that happened."""


class VerificationFile(_Model):
    """verification.json: everything the source check found."""

    enabled: bool = True
    """False when the session runs with --no-verify-sources."""
    topics: dict[str, TopicCheck] = Field(default_factory=dict)
    """Per topic slug, the check made before its review."""
    report: list[CitedClaim] = Field(default_factory=list)
    """The report's cited sentences, as last checked."""
    citations: list[CitationOutcome] = Field(default_factory=list)
    """Per citation id of the report: its outcome."""
    pages: dict[str, SourceRecord] = Field(default_factory=dict)
    """Per cited location: what fetching (or reading) it gave."""
    summary: VerificationSummary | None = None
    judge: JudgeRecord = Field(default_factory=JudgeRecord)
    """What the judge (VERIFY) answered, kept so no sentence is sent twice."""


def apply_judgements(
    claims: Sequence[CitedClaim],
    record: JudgeRecord,
    text_of: TextOf,
    figures_held: FigureTest = holds_figures,
) -> list[CitedClaim]:
    """The rules' verdicts with the judge's answers decided on (`judging.decide`)."""
    pages: dict[str, str | None] = {}
    decided: list[CitedClaim] = []
    for claim in claims:
        rules = claim.check
        judgement = record.judgements.get(judge_key(rules))
        if judgement is None:
            decided.append(claim)
            continue
        if rules.source not in pages:
            text = text_of(rules.source)
            pages[rules.source] = normalised(text) if text else None
        verdict = decide(rules, judgement, pages[rules.source], figures_held)
        if verdict.decided_by == "rules":
            decided.append(claim.model_copy(update={"voided": verdict.voided}))
            continue
        check = rules.model_copy(
            update={"support": verdict.support, "reason": verdict.reason, "evidence": verdict.quote}
        )
        decided.append(
            CitedClaim(
                ids=claim.ids, check=check, decided_by="judge", quote=verdict.quote, rules=rules
            )
        )
    return decided


def best_check(
    claim: str,
    locations: Iterable[str],
    pages: Pages,
    records: Mapping[str, SourceRecord],
) -> ClaimCheck:
    """The claim checked against each cited page; the best outcome counts (a claim needs
    one page that says it)."""
    best: ClaimCheck | None = None
    for location in locations:
        check = _checked(claim, pages(location), location, records)
        if best is None or (_RANK[check.support], check.coverage) > (
            _RANK[best.support],
            best.coverage,
        ):
            best = check
    if best is None:
        return check_claim(claim, None, "", unavailable_reason="it cites no source")
    return best


def _checked(
    claim: str, page: PageIndex | None, location: str, records: Mapping[str, SourceRecord]
) -> ClaimCheck:
    """The claim against one page; a page the rules fail on (a bug, met on a page nobody
    tried) leaves the sentence unverifiable, saying so, instead of ending the run."""
    try:
        return check_claim(claim, page, location, unavailable_reason=_why_none(location, records))
    except Exception as exc:  # noqa: BLE001 - the page is untrusted text; the run goes on
        why = f"the automatic check failed on this page ({type(exc).__name__}): read it yourself"
        return check_claim(claim, None, location, unavailable_reason=why)


def _why_none(location: str, records: Mapping[str, SourceRecord]) -> str:
    record = records.get(location)
    if record is None:
        if location.startswith("file:"):
            return "not one of the local documents given with --sources"
        return "never fetched"
    if record.status is FetchStatus.OK:
        return "no text was kept"
    if record.status is FetchStatus.NOT_CHECKED:
        return f"not checked: {record.reason}"
    return f"{record.status.value}: {record.reason}" if record.reason else record.status.value


class PageCache:
    """Each location's snapshot read and indexed once per check: one cache for all of a
    check's claims and citations."""

    def __init__(self, text_of: TextOf) -> None:
        self.text_of = text_of
        self.indexed: dict[str, PageIndex | None] = {}

    def __call__(self, location: str) -> PageIndex | None:
        if location not in self.indexed:
            text = self.text_of(location)
            self.indexed[location] = index_page(text) if text else None
        return self.indexed[location]


def check_topic(
    notes: str, locations: Sequence[str], records: Mapping[str, SourceRecord], text_of: TextOf
) -> TopicCheck:
    """The notes' cited sources (`locations`, as `extract_sources` reads them) and finding
    lines against the kept pages."""
    pages = PageCache(text_of)
    unavailable = [_problem(location, records) for location in locations if pages(location) is None]
    findings = [
        best_check(claim.text, claim.sources, pages, records) for claim in finding_claims(notes)
    ]
    return TopicCheck(sources=list(locations), unavailable=unavailable, findings=findings)


def _problem(location: str, records: Mapping[str, SourceRecord]) -> SourceProblem:
    record = records.get(location)
    if record is None:
        return SourceProblem(
            location=location, status="unknown", reason=_why_none(location, records)
        )
    return SourceProblem(location=location, status=record.status.value, reason=record.reason)


def check_report(
    report: str, registry: SourceRegistry, records: Mapping[str, SourceRecord], pages: Pages
) -> list[CitedClaim]:
    """Each cited sentence of the report against the pages of the ids it cites."""
    checked: list[CitedClaim] = []
    for claim in report_claims(report):
        ids = [int(i) for i in claim.sources if i.isdigit()]
        locations = [s.url for i in ids if (s := registry.get(i)) is not None]
        if not locations:
            continue  # unknown ids are the citation audit's business
        checked.append(CitedClaim(ids=ids, check=best_check(claim.text, locations, pages, records)))
    return checked


def citation_outcomes(
    claims: Sequence[CitedClaim],
    registry: SourceRegistry,
    records: Mapping[str, SourceRecord],
    pages: Pages,
) -> list[CitationOutcome]:
    """Per cited id: unverifiable without a snapshot, else the worst outcome of the
    sentences citing it (one misread sentence is enough to flag a citation)."""
    worst: dict[int, ClaimCheck] = {}
    for claim in claims:
        for ident in claim.ids:
            source = registry.get(ident)
            if source is None or claim.check.source != source.url:
                continue
            if ident not in worst or _RANK[claim.check.support] < _RANK[worst[ident].support]:
                worst[ident] = claim.check
    outcomes: list[CitationOutcome] = []
    for ident in sorted({i for claim in claims for i in claim.ids}):
        source = registry.get(ident)
        if source is None:
            continue
        if pages(source.url) is None:
            outcome, reason = Support.UNVERIFIABLE, _why_none(source.url, records)
        elif ident in worst:
            outcome, reason = worst[ident].support, worst[ident].reason
        else:
            outcome, reason = Support.SUPPORTED, "its sentences were matched by another cited page"
        outcomes.append(
            CitationOutcome(id=ident, location=source.url, outcome=outcome.value, reason=reason)
        )
    return outcomes


def summarise(
    claims: Sequence[CitedClaim],
    outcomes: Sequence[CitationOutcome],
    registry: SourceRegistry,
    records: Mapping[str, SourceRecord],
    local_documents: int,
) -> VerificationSummary:
    """The Methodology's figures."""
    fetched = [records[s.url] for s in registry.sources if s.url in records]
    kept = sum(1 for record in fetched if record.snapshot)
    dead = sum(1 for record in fetched if record.status in DEAD)
    unreached = sum(1 for record in fetched if record.status is FetchStatus.NOT_CHECKED)
    counts = dict.fromkeys(Support, 0)
    for claim in claims:
        counts[claim.check.support] += 1
    unverified = [
        UnverifiedCitation(id=o.id, location=o.location, outcome=o.outcome, reason=o.reason)
        for o in outcomes
        if o.outcome != Support.SUPPORTED.value
    ]
    flagged = [
        FlaggedSentence(
            ids=claim.ids,
            sentence=claim.check.claim,
            outcome=claim.check.support.value,
            reason=claim.check.reason,
            passage=claim.check.evidence,
            decided_by=claim.decided_by,
        )
        for claim in claims
        if claim.check.support is not Support.SUPPORTED
    ]
    return VerificationSummary(
        flagged=flagged[:MAX_APPENDIX],
        sources_cited=len(registry.sources),
        snapshotted=kept,
        dead=dead,
        not_checked=len(registry.sources) - kept - dead - unreached,
        not_reached=unreached,
        local_documents=local_documents,
        claims_checked=len(claims),
        supported=counts[Support.SUPPORTED],
        weak=counts[Support.WEAK],
        unsupported=counts[Support.UNSUPPORTED],
        unverifiable=counts[Support.UNVERIFIABLE],
        unverified=unverified[:MAX_APPENDIX],
        decided_by_judge=sum(1 for claim in claims if claim.decided_by == "judge"),
        decided_by_rules=sum(1 for claim in claims if claim.decided_by == "rules"),
        judge_voided=sum(1 for claim in claims if claim.voided),
    )


# --- the flagged sentences ------------------------------------------------------------------


def flagged_keys(claims: Iterable[CitedClaim]) -> set[str]:
    """The claim keys of the sentences whose check is not SUPPORTED."""
    return {c.check.claim for c in claims if c.check.support is not Support.SUPPORTED}


# --- what the prompts are told ---------------------------------------------------------------


def _evidence(check: ClaimCheck) -> str:
    # Not cut again: the check cut the passage around the page's own figure.
    text = " ".join(check.evidence.split())
    return f'best passage on the page: "{text}"' if text else "no matching passage"


def _clip(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"


def _unreached(problem: SourceProblem) -> bool:
    return problem.status == FetchStatus.NOT_CHECKED.value


def _listed_problems(title: str, problems: Sequence[SourceProblem]) -> list[str]:
    lines = ["", title]
    for problem in problems[:MAX_LISTED]:
        why = f"{problem.status}" + (f", {problem.reason}" if problem.reason else "")
        lines.append(f"- {problem.location} ({_clip(why, 120)})")
    if len(problems) > MAX_LISTED:
        lines.append(f"- … and {len(problems) - MAX_LISTED} more")
    return lines


def review_text(check: TopicCheck) -> str:
    """REVIEW's `source_check`: sources that could not be read, sources this machine could
    not reach (not checked: never a reason to reject), and findings whose numbers or words
    are not on the page they cite."""
    unreached = [p for p in check.unavailable if _unreached(p)]
    unreadable = [p for p in check.unavailable if not _unreached(p)]
    fetched = len(check.sources) - len(check.unavailable)
    lines = [
        f"The orchestrator fetched the {len(check.sources)} sources these notes cite "
        f"and checked each finding against its page: {fetched} could be read"
        + (f", {len(unreached)} could not be fetched from this machine." if unreached else ".")
    ]
    if unreached:
        lines += _listed_problems(
            "Sources not checked: this machine could not reach the web. Nothing is known "
            "against them; judge the findings that cite them on their own merits:",
            unreached,
        )
    if unreadable:
        lines += _listed_problems(
            "Sources that could not be read (dead, invented, blocked or not text):", unreadable
        )
    doubtful = [f for f in check.findings if f.support in (Support.UNSUPPORTED, Support.WEAK)]
    if doubtful:
        lines.append("")
        lines.append("Findings the cited page does not (fully) support:")
        for finding in doubtful[:MAX_LISTED]:
            lines.append(
                f'- {finding.support.value}: "{_clip(finding.claim)}" '
                f"({finding.source}): {finding.reason}; {_evidence(finding)}"
            )
        if len(doubtful) > MAX_LISTED:
            lines.append(f"- … and {len(doubtful) - MAX_LISTED} more")
    lines += ["", _review_advice(check, bool(unreadable or doubtful))]
    return "\n".join(lines)


def _review_advice(check: TopicCheck, found_problems: bool) -> str:
    supported = sum(1 for f in check.findings if f.support is Support.SUPPORTED)
    unchecked = sum(1 for f in check.findings if f.support is Support.UNVERIFIABLE)
    counts = f"{supported} of {len(check.findings)} findings were matched by their page"
    if unchecked:
        counts += f" and {unchecked} could not be checked"
    if not found_problems:
        return f"{counts}."
    return (
        f"{counts}. Reject the topic if a key finding rests on a source that could not be "
        "read or says something else; an automatic check can miss a paraphrase, so judge "
        "the passages yourself."
    )


def final_text(claims: Sequence[CitedClaim], outcomes: Sequence[CitationOutcome]) -> str:
    """FINAL REVIEW's and REVISE's `source_verification`: the report's dead, unsupported and
    weak citations, each with its evidence passage, and apart the citations this machine
    could not check."""
    if not claims:
        return "No cited sentence of the report could be checked yet."
    unreadable = [o for o in outcomes if o.outcome == Support.UNVERIFIABLE.value]
    unreached = [o for o in unreadable if o.reason.startswith("not checked")]
    dead = [o for o in unreadable if o not in unreached]
    doubtful = [c for c in claims if c.check.support in (Support.UNSUPPORTED, Support.WEAK)]
    supported = sum(1 for c in claims if c.check.support is Support.SUPPORTED)
    lines = [
        f"{len(claims)} cited sentences checked against their pages: {supported} "
        f"supported, {len(doubtful)} unsupported or weak, "
        f"{sum(1 for c in claims if c.check.support is Support.UNVERIFIABLE)} "
        "unverifiable (no page text)."
    ]
    if unreached:
        lines += [
            "",
            "Citations not checked: this machine could not reach the web, so nothing is "
            "known against them (keep them unless the progress notes disagree):",
            *_outcome_lines(unreached),
        ]
    if dead:
        lines += [
            "",
            "Citations whose page could not be read (drop them or cite another "
            "recorded source for the claim):",
            *_outcome_lines(dead),
        ]
    if doubtful:
        lines += _doubtful_lines(doubtful)
    if not dead and not doubtful and not unreached:
        lines.append("Every checked sentence was matched by its page.")
    return "\n".join(lines)


def _doubtful_lines(doubtful: Sequence[CitedClaim]) -> list[str]:
    lines = [
        "",
        "Sentences the cited page does not (fully) support (correct the claim to "
        "what the page says, or drop the citation):",
    ]
    for claim in doubtful[:MAX_LISTED]:
        ids = ", ".join(str(i) for i in claim.ids)
        if claim.decided_by == "judge":
            why = f'judge: {claim.check.reason}: "{" ".join(claim.quote.split())}"'
        else:
            why = f"{claim.check.reason}; {_evidence(claim.check)}"
        lines.append(f'- {claim.check.support.value} [{ids}]: "{_clip(claim.check.claim)}": {why}')
    if len(doubtful) > MAX_LISTED:
        lines.append(f"- … and {len(doubtful) - MAX_LISTED} more")
    return lines


def _outcome_lines(outcomes: Sequence[CitationOutcome]) -> list[str]:
    lines = [f"- [{o.id}] {o.location}: {_clip(o.reason, 120)}" for o in outcomes[:MAX_LISTED]]
    if len(outcomes) > MAX_LISTED:
        lines.append(f"- … and {len(outcomes) - MAX_LISTED} more")
    return lines

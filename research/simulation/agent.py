"""The simulated agent of `--mock-mode`: a pure simulator of a well-behaved agent.

It performs the file edits a real agent would make — plan, progress notes with findings,
sources and gaps, subtopic proposals, review verdicts, a cited report — deterministically
and without any network. Everything it writes says it is simulated. So that a run shows the
whole cycle it rejects the first topic's first review and the first final
review, proposes one duplicate subtopic, and misreads one figure of the first topic's notes
for the source check to catch.

Each call is `run` → `edit` → the phase's method (`initial_plan`, `research`, `review`,
`final_review`, `synthesize`, `revise`, `verify`, `recovery`), which use the smaller steps
`progress_notes`, `misreads`, `proposals`, `review_rejects`, `final_review_rejects`,
`write_verdict`, `report` and `cited_sources`, and `result` gives the call's result. A
subclass may override any of them (the tests' scripted double does, to misbehave).
The report's text is built in `mock_report.py`.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from research.agents.base import Agent, AgentCall, AgentResult, FailureKind
from research.core.tiers import TIERS, Tier
from research.model.plan import Plan, TopicStatus, parse_plan, render_plan
from research.simulation import judge, offline_web
from research.simulation.judge import verify
from research.simulation.mock_report import (
    REVISED_MARK,
    REVISION_VERDICT,
    simulated_report,
    with_trade_off,
)
from research.simulation.mock_report import cite_findings as cite_findings  # re-exported
from research.simulation.mock_report import notes_findings as notes_findings  # re-exported
from research.workspace.fsutil import atomic_write_text


@dataclass(frozen=True)
class Simulation:
    """What the simulator does to show the whole cycle."""

    reject_first_review: bool = True
    reject_final_review: bool = True
    propose_duplicate: bool = True


TOP_FACETS = (
    "background and definitions",
    "measured performance",
    "costs and economics",
    "risks and limitations",
    "policy and regulation",
    "outlook and open questions",
    "practical deployment",
    "comparisons with alternatives",
    "user experience",
    "environmental impact",
)
SUB_FACETS = (
    "field data",
    "laboratory results",
    "expert guidance",
    "regional differences",
    "historical trends",
    "failure cases",
    "maintenance needs",
    "installation practice",
    "market data",
    "standards and testing",
)
WORDS = (
    "amber basalt cedar delta ember fjord garnet harbor indigo juniper kestrel lagoon "
    "meadow nectar orchid prairie quartz raven sierra tundra umber valley willow xenon "
    "yarrow zephyr alder birch cobalt dune estuary falcon glacier heron iris jasper kelp "
    "lichen maple nimbus onyx pebble quill reef saffron thistle upland vesper wren yew"
).split()


class MockAgent(Agent):
    """A deterministic simulated agent. Its edits depend only on the call, so a resumed
    run behaves exactly like an uninterrupted one."""

    name = "mock"
    reports_usage = True  # simulated figures, labelled as such

    def __init__(self, simulation: Simulation | None = None, *, latency: float = 0.0) -> None:
        self.simulation = simulation or Simulation()
        self.latency = latency
        """Seconds each call takes (--mock-latency), so that a run can be watched."""
        self.calls: list[AgentCall] = []
        self._lock = threading.Lock()  # parallel topics call one agent from several threads

    # -------------------------------------------------------------- protocol

    def check_available(self) -> str:
        """The simulator needs nothing installed."""
        return "mock (simulated, built in)"

    def run(self, call: AgentCall) -> AgentResult:
        with self._lock:
            self.calls.append(call)
        if self.latency > 0:
            time.sleep(min(self.latency, call.timeout))
        self.edit(call)
        return self.result(call)

    # --------------------------------------------------------------- helpers

    def result(
        self,
        call: AgentCall,
        ok: bool = True,
        exit_code: int | None = 0,
        failure: FailureKind | None = None,
        error: str | None = None,
        duration: float = 0.0,
    ) -> AgentResult:
        """The call's result, with its log written as a real agent's would be."""
        output = "[simulated] done" if ok else ""
        if call.log_path is not None:
            write_call_log(call, call.log_path, ok, exit_code, failure, error, output)
        tokens_in, tokens_out, cost = simulated_usage(call) if ok else (None, None, None)
        return AgentResult(
            ok=ok,
            exit_code=exit_code,
            output=output,
            duration=duration,
            failure=failure,
            error=error,
            input_tokens=tokens_in,
            output_tokens=tokens_out,
            cost=cost,
        )

    def _path(self, call: AgentCall, key: str) -> Path:
        return call.cwd / call.context[key]

    # ----------------------------------------------------------------- edits

    def edit(self, call: AgentCall) -> None:
        """The file edits of the call's phase."""
        handler = {
            "initial_plan": self.initial_plan,
            "research": self.research,
            "review": self.review,
            "synthesize": self.synthesize,
            "final_review": self.final_review,
            "revise": self.revise,
            "verify": verify,
            "recovery": self.recovery,
        }.get(call.phase)
        if handler is not None:
            handler(call)

    def initial_plan(self, call: AgentCall) -> None:
        ctx = call.context
        breadth, depth = int(ctx["breadth"]), int(ctx["depth"])
        chosen = _CHOSEN_TIER.search(call.prompt)  # the prompt names a tier the user chose
        tier, reason = classify(ctx["original_topic"], chosen[1] if chosen else None)
        if chosen is None:  # its own class: no more topics than it allows
            breadth = min(breadth, TIERS[Tier(tier)].breadth)
        subject = _subject(ctx["original_topic"])
        plan = Plan(topic=ctx["original_topic"], breadth=breadth, depth=depth)
        for facet in TOP_FACETS[:breadth]:
            plan.add_topic(
                f"{subject}: {facet}",
                parent=None,
                description=f"[simulated] What is known about {facet} of {subject.lower()}.",
                criteria=[
                    f"Summarises {facet} with at least two sources",
                    "Names the main open question",
                ],
            )
        plan.questions = SIMULATED_QUESTIONS
        # The plan is saved whole (as an editor would), so crash tests see only torn files
        # that the orchestrator left.
        text = with_complexity(render_plan(plan), tier, reason)
        atomic_write_text(self._path(call, "plan_file"), text)

    def research(self, call: AgentCall) -> None:
        ctx = call.context
        name = ctx["topic_name"]
        progress = self._path(call, "progress_file")
        progress.parent.mkdir(parents=True, exist_ok=True)
        notes = self.progress_notes(call)
        proposals = self.proposals(call)
        if not may_write(call, "plan_file"):  # own notes only; subtopics are proposed in them
            if proposals:
                notes += "\n## Proposed Subtopics\n" + "".join(
                    f"\n### {title}\n- Description: [simulated] {title.lower()}.\n"
                    "- Acceptance Criteria:\n  - Reports at least one finding with a source\n"
                    for title, _ in proposals
                )
            progress.write_text(notes, encoding="utf-8")
            return
        progress.write_text(notes, encoding="utf-8")
        index = self._path(call, "progress_index_file")
        with index.open("a", encoding="utf-8") as handle:
            handle.write(f"- [simulated] Researched {name} (attempt {ctx['attempt']}).\n")
        plan_path = self._path(call, "plan_file")
        text = _set_status(plan_path.read_text(encoding="utf-8"), name, "In Review")
        blocks = "".join(
            f"\n### {title} (Depth: {depth})\n"
            f"- Status: Pending\n- Parent: {name}\n"
            f"- Description: [simulated] {title.lower()}.\n"
            f"- Acceptance Criteria:\n  - Reports at least one finding with a source\n"
            for title, depth in proposals
        )
        atomic_write_text(plan_path, _insert_before_completion(text, blocks))

    def progress_notes(self, call: AgentCall) -> str:
        """The research call's notes on its topic."""
        ctx = call.context
        name, slug = ctx["topic_name"], ctx["topic_slug"]
        return notes_text(name, slug, int(ctx["attempt"]), slug, name, self.misreads(call))

    def misreads(self, call: AgentCall) -> bool:
        """Whether the notes misreport a figure (the first topic's, for the source check)."""
        return _is_first_topic(_read(self._path(call, "plan_file")), call.context["topic_name"])

    def proposals(self, call: AgentCall) -> list[tuple[str, int]]:
        """The subtopics this research call proposes, each with the depth it writes."""
        ctx = call.context
        name = ctx["topic_name"]
        room = subtopic_room(call.prompt)
        if room <= 0:
            return []
        facet = name.split(": ", 1)[-1]
        titles = [f"{sub.capitalize()}: {facet}" for sub in _pick(SUB_FACETS, name, room)]
        text = self._path(call, "plan_file").read_text(encoding="utf-8")
        if self.simulation.propose_duplicate and _is_first_topic(text, name):
            first = titles[0].split(": ", 1)
            titles.append(f"{first[1].capitalize()}: {first[0].lower()}")
        depth = int(ctx["topic_depth"]) + 1
        return [(title, depth) for title in titles]

    def review(self, call: AgentCall) -> None:
        ctx = call.context
        name = ctx["topic_name"]
        plan_text = self._path(call, "plan_file").read_text(encoding="utf-8")
        reject = self.review_rejects(call, plan_text)
        verdict = {
            "verdict": "rejected" if reject else "accepted",
            "summary": (
                f"[simulated] The notes on {name} lack field measurements."
                if reject
                else f"[simulated] The notes on {name} meet the criteria."
            ),
            "gaps": [f"No field measurements for {name.lower()}"] if reject else [],
            "nextSearchTopic": f"{name} field measurements" if reject else None,
            "urlToSearch": "https://example.org/mock/field-data" if reject else None,
            "confidence": 0.6 if reject else 0.9,
            "new_queries": [f"{name} field measurements", f"{name} case studies"] if reject else [],
        }
        self.write_verdict(call, verdict)
        if not reject and may_write(call, "completed_file") and _only_open_topic(plan_text, name):
            self._path(call, "completed_file").write_text("<promise>COMPLETE</promise>\n")

    def review_rejects(self, call: AgentCall, plan_text: str) -> bool:
        """The simulated reviewer rejects the first topic's first attempt."""
        return (
            self.simulation.reject_first_review
            and call.context["attempt"] == "1"
            and _is_first_topic(plan_text, call.context["topic_name"])
        )

    def final_review(self, call: AgentCall) -> None:
        report = self._path(call, "report_file")
        text = report.read_text(encoding="utf-8") if report.exists() else ""
        reject = self.final_review_rejects(call, text)
        verdict = {
            "verdict": "rejected" if reject else "accepted",
            "summary": "[simulated] The executive summary should state the main trade-off."
            if reject
            else "[simulated] The report is complete and cited.",
            "gaps": ["State the main trade-off in the executive summary"] if reject else [],
            "nextSearchTopic": None,
            "urlToSearch": None,
        }
        self.write_verdict(call, verdict)

    def final_review_rejects(self, call: AgentCall, report_text: str) -> bool:
        """The simulated reviewer rejects an unrevised report, and any the citation audit
        found defects in."""
        defects = call.context.get("citation_audit", "no defects found")
        return (
            self.simulation.reject_final_review and REVISED_MARK not in report_text
        ) or defects != "no defects found"

    def write_verdict(self, call: AgentCall, verdict: dict[str, Any]) -> None:
        key = "rejected_file" if verdict["verdict"] == "rejected" else "accepted_file"
        path = self._path(call, key)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            verdict_document(verdict["summary"], json.dumps(verdict, indent=2)), encoding="utf-8"
        )

    def synthesize(self, call: AgentCall) -> None:
        report = self._path(call, "report_file")
        report.parent.mkdir(parents=True, exist_ok=True)
        report.write_text(self.report(call), encoding="utf-8")

    def revise(self, call: AgentCall) -> None:
        report = self._path(call, "report_file")
        defects = call.context.get("citation_audit", "no defects found") != "no defects found"
        if defects or not report.exists():
            # Fix the audit's defects as a careful reviser would: rewrite from the notes with
            # registry ids only.
            text = self.report(call)
        else:
            text = report.read_text(encoding="utf-8")
        report.write_text(with_trade_off(text), encoding="utf-8")
        self._path(call, "accepted_file").write_text(REVISION_VERDICT, encoding="utf-8")

    def recovery(self, call: AgentCall) -> None:
        self._path(call, "recovery_notes_file").write_text(
            f"# Recovery notes (simulated)\n\n- Failed phase: {call.context['failed_phase']}\n"
            f"- Error: {call.context['last_error']}\n- Advice: write every required file.\n",
            encoding="utf-8",
        )

    def report(self, call: AgentCall) -> str:
        """A report built from the progress files, citing the registry's ids."""
        return simulated_report(call, self.cited_sources)

    def cited_sources(self, ids: list[int]) -> list[int]:
        """Which of a topic's registry ids the report cites: all of them."""
        return ids


SIMULATED_OUTPUT_TOKENS = {
    "initial_plan": 800,
    "research": 2500,
    "review": 600,
    "synthesize": 3000,
    "final_review": 700,
    "revise": 3000,
    "recovery": 300,
}
SIMULATED_PRICE_PER_MILLION = (2.0, 8.0)
"""A simulated price in USD per million input and output tokens."""


def simulated_usage(call: AgentCall) -> tuple[int, int, float]:
    """Simulated token counts and cost of a call: the prompt's length in tokens (about four
    characters each) in, a fixed amount per phase out, at a simulated price. Labelled as
    simulated in the call's log; the Methodology says the whole run was simulated."""
    tokens_in = (len(call.prompt) + judge.batch_chars(call)) // 4  # a judge reads its batch
    tokens_out = SIMULATED_OUTPUT_TOKENS.get(call.phase, 500)
    price_in, price_out = SIMULATED_PRICE_PER_MILLION
    return tokens_in, tokens_out, round((tokens_in * price_in + tokens_out * price_out) / 1e6, 6)


def write_call_log(
    call: AgentCall,
    path: Path,
    ok: bool,
    exit_code: int | None,
    failure: FailureKind | None,
    error: str | None,
    output: str,
) -> None:
    """The call's log, written as a real agent's would be."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"agent: mock (simulated)\nphase: {call.phase}\nmodel: {call.model}\n"
        f"timeout: {call.timeout}\nexit code: {exit_code}\nfailure: {failure}\n"
        f"error: {error}\n{usage_line(call) if ok else ''}"
        f"--- prompt ---\n{call.prompt}\n--- stdout ---\n{output}\n",
        encoding="utf-8",
    )


def usage_line(call: AgentCall) -> str:
    tokens_in, tokens_out, cost = simulated_usage(call)
    return f"usage (simulated): {tokens_in} input tokens, {tokens_out} output tokens, ${cost}\n"


_LOOKUP = re.compile(r"^\s*(what is|what are|who|when|where|which)\b", re.IGNORECASE)
_DEEP = re.compile(r"\b(compare|comparison|in depth|in-depth|comprehensive)\b", re.IGNORECASE)


_CHOSEN_TIER = re.compile(r"The user chose the `(simple|standard|deep)` tier")


def classify(question: str, chosen: str | None) -> tuple[str, str]:
    """The simulated planner's complexity class and its reason: the user's tier if one was
    chosen; else simple for a short factual question, deep for a comparison or an in-depth
    request, standard otherwise."""
    if chosen:
        return chosen, "[simulated] the tier the user chose"
    if _DEEP.search(question):
        return "deep", "[simulated] the question asks for a comparison or depth"
    if _LOOKUP.match(question) and len(question.split()) <= 8:
        return "simple", "[simulated] a short factual question"
    return "standard", "[simulated] a question with several aspects"


SIMULATED_QUESTIONS = (
    "- [simulated] Which period should the research cover?\n"
    "- [simulated] Which readers is the report for: specialists or the general public?"
)
"""The Open questions section of the simulated plan (the INITIAL PLAN template asks for it)."""


def with_complexity(plan_text: str, tier: str, reason: str) -> str:
    """The plan with its Metadata's Complexity line, after the Depth line."""
    lines = plan_text.split("\n")
    at = next((i + 1 for i, line in enumerate(lines) if line.startswith("- Depth:")), 2)
    lines.insert(at, f"- Complexity: {tier} — {reason}")
    return "\n".join(lines)


def verdict_document(summary: str, block: str) -> str:
    """A review file: the summary, then the verdict's JSON block."""
    return f"# Review (simulated)\n\n{summary}\n\n```json\n{block}\n```\n"


def _subject(question: str) -> str:
    """A short subject from the question: its first three content words."""
    from research.core.similarity import STOPWORDS

    words = [
        w
        for w in re.findall(r"[A-Za-z0-9]+", question)
        if w.lower() not in STOPWORDS and len(w) > 1
    ]
    return " ".join(words[:3]).capitalize() or "The question"


def _digest(*parts: str) -> int:
    return int(hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:12], 16)


def _pick(options: tuple[str, ...], key: str, count: int) -> list[str]:
    start = _digest(key) % len(options)
    return [options[(start + i) % len(options)] for i in range(min(count, len(options)))]


def _code(slug: str, attempt: int, index: int) -> str:
    value = _digest(slug, str(attempt), str(index))
    return f"{WORDS[value % len(WORDS)]}{value % 997}"


def notes_text(
    name: str, key: str, attempt: int, pages: str, subject: str, misread: bool = False
) -> str:
    """Progress notes headed `name` whose distinctive words (study codes, figures) come from
    `key` and `attempt`, on pages under /mock/`pages`/, with findings about `subject`. Each
    finding states what its simulated page says (`offline_web`), except that with `misread`
    the survey's site count is misreported, for the source check to catch."""
    codes = [_code(key, attempt, i) for i in range(8)]
    base = f"https://{offline_web.HOST}/mock/{pages}"
    title = subject
    study, survey, estimate = codes[0], codes[1], codes[3]
    sites, practice = offline_web.survey_facts(survey)
    units, item, year = offline_web.report_facts(estimate)
    if misread:
        sites += 7
    return "\n".join(
        [
            f"# Progress: {name}",
            "",
            "## Findings",
            f"- [simulated] Study {study} reports a {offline_web.study_figure(study)}% change for "
            f"{title.lower()} (source: {base}/study-{study}).",
            f"- [simulated] Survey {survey} of {sites} sites finds {practice} practice dominant "
            f"(source: {base}/survey-{survey}).",
            f"- [simulated] Report {estimate} estimates {units} units of {item} demand by {year} "
            f"(source: {base}/report-{estimate}).",
            "",
            "## Sources",
            f"- Simulated study {study} — {base}/study-{study}",
            f"- Simulated survey {survey} — {base}/survey-{survey}?utm_source=mock",
            f"- Simulated report {estimate} — {base}/report-{estimate}",
            "",
            "## Queries Tried",
            f"- [simulated] {title.lower()} study {study}",
            f"- [simulated] {title.lower()} survey sites practice",
            f"- [simulated] {item} demand estimate {year} (few results) → retried as: "
            f"{item} demand forecast",
            "",
            "## Knowledge Gaps",
            f"- [simulated] No independent replication of {codes[5]} results.",
            f"- [simulated] Long-term {codes[6]} data are missing.",
            "",
            "## Notes for Subtopics",
            f"- [simulated] Compare {codes[7]} results across regions.",
            "",
        ]
    )


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _topic_blocks(text: str) -> list[tuple[str, str]]:
    return [
        (m.group(1).strip(), m.group(0))
        for m in re.finditer(
            r"^###\s+(.+?)\s*\(Depth:[^)]*\)\s*$.*?(?=^###\s|^##\s|\Z)",
            text,
            re.MULTILINE | re.DOTALL,
        )
    ]


def _set_status(text: str, name: str, status: str) -> str:
    for title, block in _topic_blocks(text):
        if title == name:
            new_block = re.sub(
                r"^- Status:.*$", f"- Status: {status}", block, count=1, flags=re.MULTILINE
            )
            return text.replace(block, new_block, 1)
    return text


def _is_first_topic(plan_text: str, name: str) -> bool:
    blocks = _topic_blocks(plan_text)
    return bool(blocks) and blocks[0][0] == name


def _only_open_topic(plan_text: str, name: str) -> bool:
    try:
        parsed = parse_plan(plan_text)
    except Exception:  # noqa: BLE001 - a broken plan just means "not sure": no marker
        return False
    open_states = {TopicStatus.PENDING, TopicStatus.IN_PROGRESS, TopicStatus.IN_REVIEW}
    return all(t.status not in open_states for t in parsed.topics if t.name != name)


def _insert_before_completion(text: str, blocks: str) -> str:
    marker = re.search(r"^## Completion Status", text, re.MULTILINE)
    if marker is None:
        return text.rstrip("\n") + "\n" + blocks
    return text[: marker.start()].rstrip("\n") + "\n" + blocks + "\n" + text[marker.start() :]


def may_write(call: AgentCall, key: str) -> bool:
    """Whether the prompt lists the file named by the variable `key` among the files the
    call may write (a `- `path`` line): with several topics in flight, the plan and the
    completion marker are the orchestrator's."""
    path = re.escape(call.context.get(key, ""))
    return re.search(rf"^- `{path}`", call.prompt, re.MULTILINE) is not None


def subtopic_room(prompt: str) -> int:
    """How many subtopics the prompt allows this topic (its subtopic rule says)."""
    match = re.search(r"You may propose up to (\d+) subtopics", prompt)
    return int(match.group(1)) if match else 0

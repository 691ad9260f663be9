"""The simulated agent of `--mock-mode`: a pure simulator.

It performs the file edits a real agent would make — plan, progress notes with findings,
sources and gaps, subtopic proposals, review verdicts, a cited report — deterministically
and without any network. Everything it writes says it is simulated. By default it rejects
the first topic's first review and the first final review, and proposes one duplicate
subtopic, so that a run shows the whole cycle (SPEC §7.3).

It is also the base of the tests' scripted double: the misbehaviours below (`Fault`) are
selected only by a subclass's `faults_for`, which the product never overrides.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from research.agents import mock_web
from research.agents.base import AgentCall, AgentResult, FailureKind
from research.fsutil import atomic_write_text
from research.plan import ParsedTopic, Plan, TopicStatus, parse_plan, render_plan, slugify


@dataclass(frozen=True)
class Fault:
    """One misbehaviour of a call (selected by a test double, never by the product)."""

    action: str
    duration: float | None = None
    """Simulated seconds the call takes (a call longer than its timeout times out)."""
    subtopic: str | None = None
    """The name `propose_subtopic` proposes (first, before the usual proposals)."""


@dataclass(frozen=True)
class Simulation:
    """What the simulator does to show the whole cycle."""

    reject_first_review: bool = True
    reject_final_review: bool = True
    propose_duplicate: bool = True


TOP_FACETS = (
    "background and definitions", "measured performance", "costs and economics",
    "risks and limitations", "policy and regulation", "outlook and open questions",
    "practical deployment", "comparisons with alternatives", "user experience",
    "environmental impact",
)
SUB_FACETS = (
    "field data", "laboratory results", "expert guidance", "regional differences",
    "historical trends", "failure cases", "maintenance needs", "installation practice",
    "market data", "standards and testing",
)
WORDS = (
    "amber basalt cedar delta ember fjord garnet harbor indigo juniper kestrel lagoon "
    "meadow nectar orchid prairie quartz raven sierra tundra umber valley willow xenon "
    "yarrow zephyr alder birch cobalt dune estuary falcon glacier heron iris jasper kelp "
    "lichen maple nimbus onyx pebble quill reef saffron thistle upland vesper wren yew"
).split()


class MockAgent:
    """A deterministic simulated agent. Its edits depend only on the call, so a resumed
    run behaves exactly like an uninterrupted one."""

    name = "mock"

    def __init__(self, simulation: Simulation | None = None) -> None:
        self.simulation = simulation or Simulation()
        self.calls: list[AgentCall] = []
        self._lock = threading.Lock()  # parallel topics call one agent from several threads
        self._local = threading.local()
        """`proposed`: subtopic names the current call's `propose_subtopic` faults add."""

    # -------------------------------------------------------------- protocol

    def check_available(self) -> str:
        """The simulator needs nothing installed."""
        return "mock (simulated, built in)"

    def run(self, call: AgentCall) -> AgentResult:
        with self._lock:
            self.calls.append(call)
            number = len(self.calls)
            faults = self.faults_for(call)
        actions: set[str] = {fault.action for fault in faults}
        self._local.proposed = [f.subtopic for f in faults
                                if f.action == "propose_subtopic" and f.subtopic]
        duration = max([f.duration for f in faults if f.duration is not None],
                       default=self.call_seconds())
        self.before_edits(call, number)
        if duration > call.timeout or "timeout" in actions:
            self.advance(call.timeout)
            return self._result(False, None, FailureKind.TIMEOUT, "simulated timeout",
                                call.timeout, call)
        self.advance(duration)
        if "fail" in actions:
            return self._result(False, 1, FailureKind.EXIT_NONZERO,
                                "simulated provider error", duration, call)
        if "no_output" in actions:
            return self._result(False, 0, FailureKind.NO_OUTPUT, "simulated empty output",
                                duration, call)
        if "agent_error" in actions:
            return self._result(False, 0, FailureKind.AGENT_ERROR,
                                "simulated error event: permission rejected", duration, call)
        if "skip_files" not in actions:
            self._edit(call, actions)
        self.after_edits(call, number)
        return self._result(True, 0, None, None, duration, call)

    # ------------------------------------------------- hooks for test doubles

    def faults_for(self, call: AgentCall) -> list[Fault]:
        """The misbehaviours of this call: none in the product."""
        return []

    def call_seconds(self) -> float:
        """Simulated seconds a call takes when no fault says otherwise."""
        return 0.0

    def advance(self, seconds: float) -> None:
        """Let `seconds` of simulated time pass (the product has no simulated clock)."""

    def before_edits(self, call: AgentCall, number: int) -> None:
        """Called before the call's work; `number` counts calls from 1."""

    def after_edits(self, call: AgentCall, number: int) -> None:
        """Called after the call's file edits."""

    # --------------------------------------------------------------- helpers

    def _result(self, ok: bool, exit_code: int | None, failure: FailureKind | None,
                error: str | None, duration: float, call: AgentCall) -> AgentResult:
        output = "[simulated] done" if ok else ""
        if call.log_path is not None:
            call.log_path.parent.mkdir(parents=True, exist_ok=True)
            call.log_path.write_text(
                f"agent: mock (simulated)\nphase: {call.phase}\nmodel: {call.model}\n"
                f"timeout: {call.timeout}\nexit code: {exit_code}\nfailure: {failure}\n"
                f"error: {error}\n--- prompt ---\n{call.prompt}\n--- stdout ---\n{output}\n",
                encoding="utf-8")
        return AgentResult(ok=ok, exit_code=exit_code, output=output, duration=duration,
                           failure=failure, error=error)

    def _path(self, call: AgentCall, key: str) -> Path:
        return call.cwd / call.context[key]

    # ----------------------------------------------------------------- edits

    def _edit(self, call: AgentCall, actions: set[str]) -> None:
        handler = getattr(self, f"_phase_{call.phase}", None)
        if handler is not None:
            handler(call, actions)
        if "garbage_plan" in actions:
            self._path(call, "plan_file").write_text("lorem ipsum\n{not: a plan}\n")
        if "delete_plan" in actions:
            self._path(call, "plan_file").unlink(missing_ok=True)
        if "delete_state" in actions:
            (self._path(call, "session_dir") / "state.json").unlink(missing_ok=True)
        if "corrupt_state" in actions:
            (self._path(call, "session_dir") / "state.json").write_text('{"hacked": true}')
        if "false_completion" in actions:
            self._path(call, "completed_file").write_text("<promise>COMPLETE</promise>\n")

    def _phase_initial_plan(self, call: AgentCall, actions: set[str]) -> None:
        ctx = call.context
        breadth, depth = int(ctx["breadth"]), int(ctx["depth"])
        subject = _subject(ctx["original_topic"])
        plan = Plan(topic=ctx["original_topic"], breadth=breadth, depth=depth)
        for facet in TOP_FACETS[:breadth]:
            plan.add_topic(
                f"{subject}: {facet}",
                parent=None,
                description=f"[simulated] What is known about {facet} of {subject.lower()}.",
                criteria=[f"Summarises {facet} with at least two sources",
                          "Names the main open question"],
            )
        text = render_plan(plan)
        if "many_subtopics" in actions:
            text = _insert_before_completion(text, "".join(
                f"\n### Extra topic {i} (Depth: 0)\n- Status: Pending\n" for i in range(50)))
        # The plan is saved whole (as an editor would), so crash tests see only torn files
        # that are the orchestrator's fault.
        atomic_write_text(self._path(call, "plan_file"), text)

    def _phase_research(self, call: AgentCall, actions: set[str]) -> None:
        ctx = call.context
        name, slug = ctx["topic_name"], ctx["topic_slug"]
        progress = self._path(call, "progress_file")
        progress.parent.mkdir(parents=True, exist_ok=True)
        redundant = "redundant" in actions
        misread = _is_first_topic(_read(self._path(call, "plan_file")), name)
        notes = _progress_notes(name, slug, int(ctx["attempt"]), redundant, misread)
        if ctx.get("parallel") == "1":  # own notes only; subtopics are proposed in them
            proposals, _ = self._proposals(call, actions)
            if proposals:
                notes += "\n## Proposed Subtopics\n" + "".join(
                    f"\n### {title}\n- Description: [simulated] {title.lower()}.\n"
                    "- Acceptance Criteria:\n  - Reports at least one finding with a source\n"
                    for title in proposals)
            progress.write_text(notes, encoding="utf-8")
            return
        progress.write_text(notes, encoding="utf-8")
        index = self._path(call, "progress_index_file")
        with index.open("a", encoding="utf-8") as handle:
            handle.write(f"- [simulated] Researched {name} (attempt {ctx['attempt']}).\n")
        self._edit_plan_after_research(call, actions)

    def _edit_plan_after_research(self, call: AgentCall, actions: set[str]) -> None:
        ctx = call.context
        plan_path = self._path(call, "plan_file")
        name = ctx["topic_name"]
        text = _set_status(plan_path.read_text(encoding="utf-8"), name, "In Review")
        proposals, depth_note = self._proposals(call, actions)
        depth = int(ctx["topic_depth"]) + 1
        blocks = "".join(
            f"\n### {title} (Depth: {depth_note if title.startswith('Deep dive') else depth})\n"
            f"- Status: Pending\n- Parent: {name}\n"
            f"- Description: [simulated] {title.lower()}.\n"
            f"- Acceptance Criteria:\n  - Reports at least one finding with a source\n"
            for title in proposals
        )
        if "edit_other_topics" in actions:
            text = re.sub(r"- Status: Pending", "- Status: Complete", text)
        text = _insert_before_completion(text, blocks)
        atomic_write_text(plan_path, text)

    def _proposals(self, call: AgentCall, actions: set[str]) -> tuple[list[str], int]:
        """The subtopics this research call proposes, and the depth it writes for them."""
        ctx = call.context
        text = self._path(call, "plan_file").read_text(encoding="utf-8")
        name = ctx["topic_name"]
        room = int(ctx.get("max_subtopics", "0"))
        proposals: list[str] = []
        facet = name.split(": ", 1)[-1]
        if room > 0 and "redundant" not in actions:
            proposals = [f"{sub.capitalize()}: {facet}" for sub in _pick(SUB_FACETS, name, room)]
            if self.simulation.propose_duplicate and _is_first_topic(text, name):
                first = proposals[0].split(": ", 1)
                proposals.append(f"{first[1].capitalize()}: {first[0].lower()}")
        proposals[:0] = getattr(self._local, "proposed", [])
        if "duplicate_subtopics" in actions and proposals:
            proposals += [p + " overview" for p in proposals]
        if "many_subtopics" in actions:
            proposals += [f"Extra angle {i} on {facet}" for i in range(50)]
        depth = int(ctx["topic_depth"]) + 1
        if "too_deep" in actions:
            proposals.append(f"Deep dive on {facet}")
            return proposals, 99
        return proposals, depth

    def _phase_review(self, call: AgentCall, actions: set[str]) -> None:
        ctx = call.context
        name = ctx["topic_name"]
        plan_text = self._path(call, "plan_file").read_text(encoding="utf-8")
        reject = "reject" in actions or (
            self.simulation.reject_first_review and ctx["attempt"] == "1"
            and _is_first_topic(plan_text, name))
        if "accept" in actions:
            reject = False
        verdict = {
            "verdict": "rejected" if reject else "accepted",
            "summary": (f"[simulated] The notes on {name} lack field measurements."
                        if reject else f"[simulated] The notes on {name} meet the criteria."),
            "gaps": [f"No field measurements for {name.lower()}"] if reject else [],
            "nextSearchTopic": f"{name} field measurements" if reject else None,
            "urlToSearch": "https://example.org/mock/field-data" if reject else None,
        }
        self._write_verdict(call, verdict, actions)
        if not reject and ctx.get("parallel") != "1" and _only_open_topic(plan_text, name):
            self._path(call, "completed_file").write_text("<promise>COMPLETE</promise>\n")

    def _phase_final_review(self, call: AgentCall, actions: set[str]) -> None:
        report = self._path(call, "report_file")
        text = report.read_text(encoding="utf-8") if report.exists() else ""
        defects = call.context.get("citation_audit", "no defects found")
        reject = "reject" in actions or (
            (self.simulation.reject_final_review and REVISED_MARK not in text)
            or defects != "no defects found")
        if "accept" in actions:
            reject = False
        verdict = {
            "verdict": "rejected" if reject else "accepted",
            "summary": "[simulated] The executive summary should state the main trade-off."
            if reject else "[simulated] The report is complete and cited.",
            "gaps": ["State the main trade-off in the executive summary"] if reject else [],
            "nextSearchTopic": None,
            "urlToSearch": None,
        }
        self._write_verdict(call, verdict, actions)

    def _write_verdict(self, call: AgentCall, verdict: dict[str, Any],
                       actions: set[str]) -> None:
        key = "rejected_file" if verdict["verdict"] == "rejected" else "accepted_file"
        block = json.dumps(verdict, indent=2)
        if "invalid_verdict" in actions:
            block = '{"verdict": "maybe", "summary": 3'
        if "wrong_verdict_fields" in actions:  # valid JSON, wrong schema
            block = json.dumps({"verdict": verdict["verdict"], "summary": 3, "gaps": "none"})
        if "no_verdict" in actions:
            return
        body = f"# Review (simulated)\n\n{verdict['summary']}\n\n```json\n{block}\n```\n"
        self._path(call, key).parent.mkdir(parents=True, exist_ok=True)
        self._path(call, key).write_text(body, encoding="utf-8")
        if "both_verdicts" in actions:
            other = "accepted_file" if key == "rejected_file" else "rejected_file"
            self._path(call, other).write_text(body, encoding="utf-8")

    def _phase_synthesize(self, call: AgentCall, actions: set[str]) -> None:
        report = self._path(call, "report_file")
        report.parent.mkdir(parents=True, exist_ok=True)
        if "empty_report" in actions:
            report.write_text("", encoding="utf-8")
            return
        report.write_text(_report(call, actions), encoding="utf-8")

    def _phase_revise(self, call: AgentCall, actions: set[str]) -> None:
        report = self._path(call, "report_file")
        defects = call.context.get("citation_audit", "no defects found") != "no defects found"
        if defects or not report.exists():
            # Fix the audit's defects as a careful reviser would: rewrite from the notes with
            # registry ids only (a scripted citation fault in REVISE keeps its defect).
            text = _report(call, actions)
        else:
            text = report.read_text(encoding="utf-8")
        lines = text.splitlines()
        insert_at = next((i for i, line in enumerate(lines) if line.startswith("## ")),
                         len(lines))
        lines[insert_at:insert_at] = [
            "The main trade-off across the simulated sources is between up-front cost and "
            "long-run efficiency.", "", REVISED_MARK, ""]
        report.write_text("\n".join(lines) + "\n", encoding="utf-8")
        self._path(call, "accepted_file").write_text(
            "# Revision (simulated)\n\nStated the main trade-off in the summary.\n\n```json\n"
            + json.dumps({"verdict": "accepted", "summary": "Revised.", "gaps": [],
                          "nextSearchTopic": None, "urlToSearch": None}) + "\n```\n",
            encoding="utf-8")

    def _phase_recovery(self, call: AgentCall, actions: set[str]) -> None:
        self._path(call, "recovery_notes_file").write_text(
            f"# Recovery notes (simulated)\n\n- Failed phase: {call.context['failed_phase']}\n"
            f"- Error: {call.context['last_error']}\n- Advice: write every required file.\n",
            encoding="utf-8")


REVISED_MARK = "<!-- simulated: revised after final review -->"


def _subject(question: str) -> str:
    """A short subject from the question: its first three content words."""
    from research.similarity import STOPWORDS

    words = [w for w in re.findall(r"[A-Za-z0-9]+", question)
             if w.lower() not in STOPWORDS and len(w) > 1]
    return " ".join(words[:3]).capitalize() or "The question"


def _digest(*parts: str) -> int:
    return int(hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:12], 16)


def _pick(options: tuple[str, ...], key: str, count: int) -> list[str]:
    start = _digest(key) % len(options)
    return [options[(start + i) % len(options)] for i in range(min(count, len(options)))]


def _code(slug: str, attempt: int, index: int) -> str:
    value = _digest(slug, str(attempt), str(index))
    return f"{WORDS[value % len(WORDS)]}{value % 997}"


def _progress_notes(name: str, slug: str, attempt: int, redundant: bool,
                    misread: bool = False) -> str:
    """Notes whose distinctive words (study codes, figures) are unique to the topic. Each
    finding states what its simulated page says (`mock_web`), except that with `misread`
    the survey's site count is misreported, for the source check to catch."""
    key = "redundant" if redundant else slug
    codes = [_code(key, 0 if redundant else attempt, i) for i in range(8)]
    base = f"https://{mock_web.HOST}/mock/{slug if not redundant else 'shared'}"
    title = name if not redundant else "Shared background"
    study, survey, estimate = codes[0], codes[1], codes[3]
    sites, practice = mock_web.survey_facts(survey)
    units, item, year = mock_web.report_facts(estimate)
    if misread:
        sites += 7
    return "\n".join([
        f"# Progress: {name}",
        "",
        "## Findings",
        f"- [simulated] Study {study} reports a {mock_web.study_figure(study)}% change for "
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
        "## Knowledge Gaps",
        f"- [simulated] No independent replication of {codes[5]} results.",
        f"- [simulated] Long-term {codes[6]} data are missing.",
        "",
        "## Notes for Subtopics",
        f"- [simulated] Compare {codes[7]} results across regions.",
        "",
    ])


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _topic_blocks(text: str) -> list[tuple[str, str]]:
    return [(m.group(1).strip(), m.group(0)) for m in
            re.finditer(r"^###\s+(.+?)\s*\(Depth:[^)]*\)\s*$.*?(?=^###\s|^##\s|\Z)", text,
                        re.MULTILINE | re.DOTALL)]


def _set_status(text: str, name: str, status: str) -> str:
    for title, block in _topic_blocks(text):
        if title == name:
            new_block = re.sub(r"^- Status:.*$", f"- Status: {status}", block, count=1,
                               flags=re.MULTILINE)
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
    return text[:marker.start()].rstrip("\n") + "\n" + blocks + "\n" + text[marker.start():]


def _report(call: AgentCall, actions: set[str]) -> str:
    """A report built from the progress files, citing the registry's ids."""
    ctx = call.context
    registry = _parse_registry(ctx.get("source_registry", ""))
    urls = _registry_urls(ctx.get("source_registry", ""))
    lines = [f"# {ctx['original_topic']}", "",
             "[simulated] This report was written by the simulated agent of --mock-mode from "
             "simulated findings; it contains no real research."]
    all_ids = sorted(registry)
    cited = set(all_ids[:1])
    summary_at = len(lines) - 1
    highlight = ""
    plan_path = call.cwd / ctx["plan_file"]
    try:
        topics = _tree_order(parse_plan(plan_path.read_text(encoding="utf-8")).topics)
    except Exception:  # noqa: BLE001 - fall back to the progress files alone
        topics = []
    progress_dir = call.cwd / ctx["progress_dir"]
    for topic in topics:
        notes_path = progress_dir / f"{slugify(topic.name)}.md"
        if not notes_path.exists():
            continue
        findings = re.findall(r"^- \[simulated\] (.+?) \(source: (\S+?)\)\.?$",
                              notes_path.read_text(), re.MULTILINE)
        ids = [i for i, slugs in registry.items() if slugify(topic.name) in slugs]
        if "uncited_sources" in actions:
            ids = ids[:1]  # cite (and list) only one source per topic
        cited.update(ids)
        # Each finding cites its own source where the registry has it; the topic's other
        # sources go on its last sentence.
        own = {url: i for i, (url, _) in urls.items() if i in ids}
        sentences, used = [], set()
        for text, url in findings:
            ident = own.get(url)
            used.add(ident)
            sentences.append(text.rstrip(".") + (f" [{ident}]." if ident else "."))
        rest = [i for i in ids if i not in used]
        if rest and sentences:
            sentences[-1] = sentences[-1][:-1] + f" [{', '.join(str(i) for i in rest)}]."
        level = "##" if (topic.depth or 0) == 0 else "###"
        lines += ["", f"{level} {topic.name}", "", " ".join(sentences)]
        highlight = highlight or next((s for s in sentences if "[" in s), "")
    # The summary leads with a cited finding; with the notes gone (archived), with a source.
    if highlight:
        lines[summary_at] += f" Among the simulated findings: {highlight}"
    elif all_ids:
        lines[summary_at] += (f" The simulated sources include {urls[all_ids[0]][1]} "
                              f"[{all_ids[0]}].")
    if "fabricated_citation" in actions:
        lines += ["", "An unsupported claim about efficiency [99]."]
    if "no_sources_section" not in actions and all_ids:
        lines += ["", "## Sources", ""]
        lines += [f"[{i}] {title} — {url}" for i, (url, title) in
                  sorted(_registry_urls(ctx.get("source_registry", "")).items()) if i in cited]
    return "\n".join(lines) + "\n"


def _tree_order(topics: list[ParsedTopic]) -> list[ParsedTopic]:
    """Each topic followed by its subtopics, as the report's sections should be."""
    ordered: list[ParsedTopic] = []

    def visit(parent: str | None) -> None:
        for topic in topics:
            if topic.parent_name == parent and topic not in ordered:
                ordered.append(topic)
                visit(topic.name)

    visit(None)
    return ordered + [t for t in topics if t not in ordered]


REGISTRY_LINE = re.compile(r"^\[(\d+)\]\s+(.*?)\s+—\s+(\S+)(?:\s+\(topics:\s*(.*?)\))?\s*$")


def _parse_registry(text: str) -> dict[int, list[str]]:
    found = {}
    for line in text.splitlines():
        match = REGISTRY_LINE.match(line.strip())
        if match:
            found[int(match.group(1))] = [s.strip() for s in (match.group(4) or "").split(",")]
    return found


def _registry_urls(text: str) -> dict[int, tuple[str, str]]:
    found = {}
    for line in text.splitlines():
        match = REGISTRY_LINE.match(line.strip())
        if match:
            found[int(match.group(1))] = (match.group(3), match.group(2))
    return found

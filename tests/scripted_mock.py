"""The tests' scripted double: the simulated agent with faults selected by a JSON script.

The product's `--mock-mode` agent (`research.simulation.agent.MockAgent`) is a pure simulator
of a well-behaved agent. Every misbehaviour lives here, in `ScriptedMockAgent`, which
overrides the simulator's steps to act before, after or instead of them. Tests that need
misbehaviour give a script (the old `--mock-script` format): failing or slow calls on a
simulated clock, missing or corrupt files, hostile edits, bad verdicts and reports,
redundant notes, real latency, a record of every call, and a SIGKILL of the whole process
at a chosen call (for crash-and-resume tests).

The CLI is reached through one test-only hook, `installed(args)`: it takes
`--mock-script PATH` out of the arguments and, while active, makes the CLI's
`build_agent` return the scripted double for `--mock-mode`. In-process runs use it through
the `run_cli` fixture; child processes run `tests/scripted_cli.py` instead of
`research.py`.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

import research.session.run
from research.agents.base import AgentCall, AgentResult, FailureKind
from research.engine import Clock
from research.simulation.agent import (
    MockAgent,
    Simulation,
    may_write,
    notes_text,
    verdict_document,
)
from research.workspace.fsutil import atomic_write_text

FaultAction = Literal[
    "fail",
    "timeout",
    "no_output",
    "agent_error",
    "skip_files",
    "invalid_verdict",
    "both_verdicts",
    "no_verdict",
    "reject",
    "accept",
    "garbage_plan",
    "delete_plan",
    "many_subtopics",
    "too_deep",
    "edit_other_topics",
    "delete_state",
    "corrupt_state",
    "false_completion",
    "empty_report",
    "no_sources_section",
    "fabricated_citation",
    "redundant",
    "duplicate_subtopics",
    "propose_subtopic",
    "uncited_sources",
    "wrong_verdict_fields",
    "hijack_other_notes",
    "link_sources",
    "edit_progress_index",
]
LINK_SOURCES_HOLD_SECONDS = 3.0
"""How long a `link_sources` call stays in its call after planting the link: long enough
for another topic's call to end and its sources to be stored (parallel mode)."""


class MockFault(BaseModel):
    """One scripted misbehaviour."""

    model_config = ConfigDict(extra="forbid")

    action: FaultAction
    phase: str = "*"
    """Phase name, or '*' for any."""
    topic: str | None = None
    """Topic slug or name the fault is limited to (research/review phases)."""
    calls: list[int] | None = None
    """Which matching calls (1-based, counted per fault) to affect; None means every one."""
    duration: float | None = None
    """Simulated seconds the call takes (a call longer than its timeout times out)."""
    subtopic: str | None = None
    """The name `propose_subtopic` proposes (first, before the usual proposals)."""


class MockScript(BaseModel):
    """What the scripted double does beyond the simulator's default behaviour."""

    model_config = ConfigDict(extra="forbid")

    simulated_clock: bool = False
    """Run the orchestrator on a simulated clock that agent calls advance."""
    call_seconds: float = 0.0
    """Simulated duration of every call (when simulated_clock is on)."""
    reject_first_review: bool = True
    reject_final_review: bool = True
    propose_duplicate: bool = True
    faults: list[MockFault] = Field(default_factory=list)
    kill_at_call: int | None = None
    """SIGKILL the orchestrator during this call (1-based), after the call's file edits."""
    kill_before_edits: bool = False
    sleep_seconds: float = 0.0
    """Real seconds every call sleeps: latency, or a live lock holder."""
    record_file: str | None = None
    """Append one JSON line per call (phase, model, timeout, topic) to this file."""
    victim: str | None = None
    """`hijack_other_notes` turns every other topic's notes into a link to this file;
    `link_sources` puts a link to this directory in place of the session's sources/."""
    web: Literal["simulated", "unresolvable"] = "simulated"
    """The web the source check reaches: the simulator's, or one where no name resolves
    (a machine without DNS)."""

    @classmethod
    def load(cls, path: Path) -> MockScript:
        return cls.model_validate_json(path.read_text(encoding="utf-8"))


class SimulatedClock:
    """A clock that only moves when told to; shared by the loop and the double."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.current = start
        self._lock = threading.Lock()

    def now(self) -> float:
        return self.current

    def sleep(self, seconds: float) -> None:
        self.advance(seconds)

    def advance(self, seconds: float) -> None:
        with self._lock:
            self.current += max(0.0, seconds)


class ScriptedMockAgent(MockAgent):
    """The simulator, with the script's faults, latency, record and kill.

    `run` selects the call's faults (kept per thread: parallel topics call one agent from
    several threads), fails or times the call out, or lets the simulator's steps do the
    work, each override below bending its step as the faults say."""

    def __init__(self, script: MockScript, clock: SimulatedClock | None = None) -> None:
        super().__init__(
            Simulation(
                reject_first_review=script.reject_first_review,
                reject_final_review=script.reject_final_review,
                propose_duplicate=script.propose_duplicate,
            )
        )
        self.script = script
        self.clock = clock
        self.fault_hits: dict[int, int] = {}
        self._local = threading.local()

    # ------------------------------------------------------------- the call

    def run(self, call: AgentCall) -> AgentResult:
        with self._lock:
            self.calls.append(call)
            number = len(self.calls)
            faults = self._faults_for(call)
        actions = {fault.action for fault in faults}
        self._local.actions = actions
        self._local.proposed = [
            f.subtopic for f in faults if f.action == "propose_subtopic" and f.subtopic
        ]
        duration = max(
            [f.duration for f in faults if f.duration is not None], default=self.script.call_seconds
        )
        if "link_sources" in actions and self.script.victim:
            self._link_sources(call)
        if self.script.sleep_seconds > 0:
            time.sleep(self.script.sleep_seconds)
        if self.script.kill_at_call == number and self.script.kill_before_edits:
            os.kill(os.getpid(), signal.SIGKILL)
        if duration > call.timeout or "timeout" in actions:
            self._advance(call.timeout)
            return self.result(
                call, False, None, FailureKind.TIMEOUT, "simulated timeout", call.timeout
            )
        self._advance(duration)
        if "fail" in actions:
            return self.result(
                call, False, 1, FailureKind.EXIT_NONZERO, "simulated provider error", duration
            )
        if "no_output" in actions:
            return self.result(
                call, False, 0, FailureKind.NO_OUTPUT, "simulated empty output", duration
            )
        if "agent_error" in actions:
            return self.result(
                call,
                False,
                0,
                FailureKind.AGENT_ERROR,
                "simulated error event: permission rejected",
                duration,
            )
        if "skip_files" not in actions:
            self.edit(call)
        if self.script.kill_at_call == number:  # after the call's file edits
            os.kill(os.getpid(), signal.SIGKILL)
        return self.result(call, duration=duration)

    def _link_sources(self, call: AgentCall) -> None:
        """For LINK_SOURCES_HOLD_SECONDS from the start of the call, keep a link to the
        victim directory in place of the session's sources/: whenever the orchestrator puts
        the directory back, it is moved away and the link planted again."""
        sources = self._path(call, "session_dir") / "sources"
        assert self.script.victim is not None
        end = time.monotonic() + LINK_SOURCES_HOLD_SECONDS
        moved = 0
        while time.monotonic() < end:
            if not sources.is_symlink():
                if os.path.lexists(sources):
                    moved += 1
                    os.rename(sources, call.cwd / f"agent-moved-sources-{moved}")
                with contextlib.suppress(FileExistsError):
                    sources.symlink_to(self.script.victim, target_is_directory=True)
            time.sleep(0.002)

    def _actions(self) -> set[str]:
        actions: set[str] = getattr(self._local, "actions", set())
        return actions

    def _faults_for(self, call: AgentCall) -> list[MockFault]:  # under the agent's lock
        self._record(call)
        topic = call.context.get("topic_slug")
        topic_name = call.context.get("topic_name")
        matched = []
        for index, fault in enumerate(self.script.faults):
            if fault.phase not in ("*", call.phase):
                continue
            if fault.topic is not None and fault.topic not in (topic, topic_name):
                continue
            self.fault_hits[index] = self.fault_hits.get(index, 0) + 1
            if fault.calls is None or self.fault_hits[index] in fault.calls:
                matched.append(fault)
        return matched

    def _advance(self, seconds: float) -> None:
        if self.clock is not None:
            self.clock.advance(seconds)

    def _record(self, call: AgentCall) -> None:
        if not self.script.record_file:
            return
        line = json.dumps(
            {
                "phase": call.phase,
                "model": call.model,
                "timeout": call.timeout,
                "topic": call.context.get("topic_slug"),
                "attempt": call.context.get("attempt"),
            }
        )
        with open(self.script.record_file, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")

    # ---------------------------------------------------- the bent steps

    def edit(self, call: AgentCall) -> None:
        super().edit(call)
        actions = self._actions()
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
        if "edit_progress_index" in actions:  # the orchestrator's own file in parallel mode
            index = self._path(call, "progress_index_file")
            with index.open("a", encoding="utf-8") as handle:
                handle.write("- an agent's own line in the progress index\n")
        if "hijack_other_notes" in actions and self.script.victim:
            own = self._path(call, "progress_file")
            for notes in own.parent.glob("*.md"):
                if notes != own:
                    notes.unlink()
                    notes.symlink_to(self.script.victim)

    def initial_plan(self, call: AgentCall) -> None:
        super().initial_plan(call)
        if "many_subtopics" in self._actions():
            plan = self._path(call, "plan_file")
            atomic_write_text(
                plan,
                _insert_before_completion(
                    plan.read_text(encoding="utf-8"),
                    "".join(
                        f"\n### Extra topic {i} (Depth: 0)\n- Status: Pending\n" for i in range(50)
                    ),
                ),
            )

    def research(self, call: AgentCall) -> None:
        if "edit_other_topics" in self._actions() and may_write(call, "plan_file"):
            # Every other open topic marked done (the researched one becomes In Review and
            # its proposals are added Pending by the simulator's edit that follows).
            plan = self._path(call, "plan_file")
            plan.write_text(
                re.sub(
                    r"- Status: Pending", "- Status: Complete", plan.read_text(encoding="utf-8")
                ),
                encoding="utf-8",
            )
        super().research(call)

    def progress_notes(self, call: AgentCall) -> str:
        if "redundant" not in self._actions():
            return super().progress_notes(call)
        # Notes that repeat the same shared background whatever the topic or attempt.
        name = call.context["topic_name"]
        return notes_text(name, "redundant", 0, "shared", "Shared background", self.misreads(call))

    def proposals(self, call: AgentCall) -> list[tuple[str, int]]:
        actions = self._actions()
        depth = int(call.context["topic_depth"]) + 1
        facet = call.context["topic_name"].split(": ", 1)[-1]
        found = [(title, depth) for title in getattr(self._local, "proposed", [])]
        if "redundant" not in actions:
            found += super().proposals(call)
        if "duplicate_subtopics" in actions and found:
            found += [(f"{title} overview", level) for title, level in found]
        if "many_subtopics" in actions:
            found += [(f"Extra angle {i} on {facet}", depth) for i in range(50)]
        if "too_deep" in actions:
            found.append((f"Deep dive on {facet}", 99))
        return found

    def review_rejects(self, call: AgentCall, plan_text: str) -> bool:
        actions = self._actions()
        if "accept" in actions:
            return False
        return "reject" in actions or super().review_rejects(call, plan_text)

    def final_review_rejects(self, call: AgentCall, report_text: str) -> bool:
        actions = self._actions()
        if "accept" in actions:
            return False
        return "reject" in actions or super().final_review_rejects(call, report_text)

    def write_verdict(self, call: AgentCall, verdict: dict[str, Any]) -> None:
        actions = self._actions()
        if "no_verdict" in actions:
            return
        key = "rejected_file" if verdict["verdict"] == "rejected" else "accepted_file"
        block = None
        if "invalid_verdict" in actions:
            block = '{"verdict": "maybe", "summary": 3'
        if "wrong_verdict_fields" in actions:  # valid JSON, wrong schema
            block = json.dumps({"verdict": verdict["verdict"], "summary": 3, "gaps": "none"})
        if block is None:
            super().write_verdict(call, verdict)
        else:
            self._path(call, key).parent.mkdir(parents=True, exist_ok=True)
            self._path(call, key).write_text(
                verdict_document(verdict["summary"], block), encoding="utf-8"
            )
        if "both_verdicts" in actions:
            other = "accepted_file" if key == "rejected_file" else "rejected_file"
            self._path(call, other).write_text(
                self._path(call, key).read_text("utf-8"), encoding="utf-8"
            )

    def synthesize(self, call: AgentCall) -> None:
        if "empty_report" not in self._actions():
            super().synthesize(call)
            return
        report = self._path(call, "report_file")
        report.parent.mkdir(parents=True, exist_ok=True)
        report.write_text("", encoding="utf-8")

    def report(self, call: AgentCall) -> str:
        text = super().report(call)
        actions = self._actions()
        sources = text.find("\n\n## Sources\n")
        if "no_sources_section" in actions and sources >= 0:
            text, sources = text[:sources] + "\n", -1
        if "fabricated_citation" in actions:
            claim = "\n\nAn unsupported claim about efficiency [99]."
            text = (
                text[:sources] + claim + text[sources:]
                if sources >= 0
                else text.rstrip("\n") + claim + "\n"
            )
        return text

    def cited_sources(self, ids: list[int]) -> list[int]:
        if "uncited_sources" in self._actions():
            return ids[:1]  # cite (and list) only one source per topic
        return super().cited_sources(ids)


def _insert_before_completion(text: str, blocks: str) -> str:
    marker = re.search(r"^## Completion Status", text, re.MULTILINE)
    if marker is None:
        return text.rstrip("\n") + "\n" + blocks
    return text[: marker.start()].rstrip("\n") + "\n" + blocks + "\n" + text[marker.start() :]


def split_script(args: list[str]) -> tuple[list[str], Path | None]:
    """The arguments without `--mock-script PATH`, and PATH."""
    if "--mock-script" not in args:
        return args, None
    at = args.index("--mock-script")
    return args[:at] + args[at + 2 :], Path(args[at + 1])


@contextmanager
def installed(args: list[str]) -> Iterator[list[str]]:
    """While active, `--mock-mode` runs drive the scripted double given by `--mock-script`."""
    rest, path = split_script(list(args))
    if path is None:
        yield rest
        return
    script = MockScript.load(path)
    original = research.session.run.build_agent

    def build_agent(settings: Any) -> Any:
        if not settings.mock_mode:
            return original(settings)
        if script.simulated_clock:
            clock = SimulatedClock()
            return ScriptedMockAgent(script, clock), Clock(now=clock.now, sleep=clock.sleep)
        return ScriptedMockAgent(script), Clock(sleep=lambda _: None)

    original_web = research.session.run._web

    def web(settings: Any) -> Any:
        if script.web == "unresolvable" and settings.mock_mode:
            return unresolvable_web
        return original_web(settings)

    research.session.run.build_agent = build_agent
    research.session.run._web = web
    try:
        yield rest
    finally:
        research.session.run.build_agent = original
        research.session.run._web = original_web


def unresolvable_web() -> Any:
    """The simulated web as seen from a machine where no name resolves."""
    from research.simulation.offline_web import simulated_web
    from research.sources.fetch import fixed_resolver
    from research.sources.web import Web

    return Web(transport=simulated_web().transport, resolve=fixed_resolver({}, default=None))

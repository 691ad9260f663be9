"""The tests' scripted double: the simulated agent with faults selected by a JSON script.

The product's `--mock-mode` agent is a pure simulator. Tests that need misbehaviour give a
script (the old `--mock-script` format): failing or slow calls on a simulated clock,
missing or corrupt files, hostile edits, redundant notes, real latency, a record of every
call, and a SIGKILL of the whole process at a chosen call (for crash-and-resume tests).

The CLI is reached through one test-only hook, `installed(args)`: it takes
`--mock-script PATH` out of the arguments and, while active, makes the CLI's
`build_agent` return the scripted double for `--mock-mode`. In-process runs use it through
the `run_cli` fixture; child processes run `tests/scripted_cli.py` instead of
`research.py`.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

import research.session
from research.agents.base import AgentCall
from research.agents.mock import Fault, MockAgent, Simulation
from research.engine import Clock

FaultAction = Literal[
    "fail", "timeout", "no_output", "agent_error", "skip_files", "invalid_verdict",
    "both_verdicts", "no_verdict", "reject", "accept", "garbage_plan", "delete_plan",
    "many_subtopics", "too_deep", "edit_other_topics", "delete_state", "corrupt_state",
    "false_completion", "empty_report", "no_sources_section", "fabricated_citation",
    "redundant", "duplicate_subtopics", "propose_subtopic", "uncited_sources",
    "wrong_verdict_fields", "kill", "hijack_other_notes",
]


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
    """`hijack_other_notes` turns every other topic's notes into a link to this file."""

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
    """The simulator, with the script's faults, latency, record and kill."""

    def __init__(self, script: MockScript, clock: SimulatedClock | None = None) -> None:
        super().__init__(Simulation(reject_first_review=script.reject_first_review,
                                    reject_final_review=script.reject_final_review,
                                    propose_duplicate=script.propose_duplicate))
        self.script = script
        self.clock = clock
        self.fault_hits: dict[int, int] = {}

    def faults_for(self, call: AgentCall) -> list[Fault]:  # called under the agent's lock
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
                matched.append(Fault(fault.action, fault.duration, fault.subtopic))
        return matched

    def call_seconds(self) -> float:
        return self.script.call_seconds

    def _edit(self, call: AgentCall, actions: set[str]) -> None:
        super()._edit(call, actions)
        if "hijack_other_notes" in actions and self.script.victim:
            own = self._path(call, "progress_file")
            for notes in own.parent.glob("*.md"):
                if notes != own:
                    notes.unlink()
                    notes.symlink_to(self.script.victim)

    def advance(self, seconds: float) -> None:
        if self.clock is not None:
            self.clock.advance(seconds)

    def before_edits(self, call: AgentCall, number: int) -> None:
        if self.script.sleep_seconds > 0:
            time.sleep(self.script.sleep_seconds)
        if self.script.kill_at_call == number and self.script.kill_before_edits:
            os.kill(os.getpid(), signal.SIGKILL)

    def after_edits(self, call: AgentCall, number: int) -> None:
        if self.script.kill_at_call == number:
            os.kill(os.getpid(), signal.SIGKILL)

    def _record(self, call: AgentCall) -> None:
        if not self.script.record_file:
            return
        line = json.dumps({"phase": call.phase, "model": call.model, "timeout": call.timeout,
                           "topic": call.context.get("topic_slug"),
                           "attempt": call.context.get("attempt")})
        with open(self.script.record_file, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")


def split_script(args: list[str]) -> tuple[list[str], Path | None]:
    """The arguments without `--mock-script PATH`, and PATH."""
    if "--mock-script" not in args:
        return args, None
    at = args.index("--mock-script")
    return args[:at] + args[at + 2:], Path(args[at + 1])


@contextmanager
def installed(args: list[str]) -> Iterator[list[str]]:
    """While active, `--mock-mode` runs drive the scripted double given by `--mock-script`."""
    rest, path = split_script(list(args))
    if path is None:
        yield rest
        return
    script = MockScript.load(path)
    original = research.session.build_agent

    def build_agent(settings: Any) -> Any:
        if not settings.mock_mode:
            return original(settings)
        if script.simulated_clock:
            clock = SimulatedClock()
            return ScriptedMockAgent(script, clock), Clock(now=clock.now, sleep=clock.sleep)
        return ScriptedMockAgent(script), Clock(sleep=lambda _: None)

    research.session.build_agent = build_agent
    try:
        yield rest
    finally:
        research.session.build_agent = original

"""The state machine: INITIAL PLAN → (RESEARCH → REVIEW)* → SYNTHESIZE → FINAL REVIEW → [REVISE].

The loop owns every decision — which topic is next, when research stops, what a failed
phase costs — and saves the state after every phase so a kill loses at most the phase in
flight. It drives any `Agent`; it never knows which one.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from research import archive, phases, prompts, report, workspace
from research.agents.base import Agent, AgentCall, AgentResult, FailureKind
from research.budget import TimeBudget, backoff_delay, breaker_reason
from research.errors import PhaseFailed, PlanParseError, RunFailed
from research.events import EventLog, logger
from research.fsutil import append_line, atomic_write_text, write_if_changed
from research.lock import SessionLock
from research.orphans import session_marker
from research.paths import SessionPaths
from research.plan import (
    Plan,
    ReconcileResult,
    Topic,
    TopicStatus,
    parse_plan,
    reconcile,
    render_plan,
)
from research.settings import (
    HEARTBEAT_INTERVAL_SECONDS,
    MAX_PHASE_RECOVERIES,
    MAX_TOPIC_ATTEMPTS,
    MAX_TRANSIENT_ATTEMPTS,
)
from research.similarity import content_words, find_duplicate, novelty
from research.sources import (
    CitationAudit,
    SourceRegistry,
    audit_report,
    build_registry,
)
from research.state import (
    LoopDecision,
    Phase,
    PhaseUsage,
    RWRState,
    StopReason,
    Verdict,
    kept_from_agent,
    save_state,
)
from research.templates import PromptTemplates


@dataclass
class Clock:
    """Time and sleep, injectable so tests run on a simulated clock."""

    now: Callable[[], float] = time.time
    sleep: Callable[[float], None] = time.sleep


class ResearchLoop:
    """Runs one session from its saved phase to the written report."""

    def __init__(
        self,
        *,
        state: RWRState,
        paths: SessionPaths,
        agent: Agent,
        templates: PromptTemplates,
        events: EventLog,
        lock: SessionLock | None = None,
        clock: Clock | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.state = state
        self.paths = paths
        self.agent = agent
        self.templates = templates
        self.events = events
        self.lock = lock
        self.clock = clock or Clock()
        self.rng = rng or random.Random()
        self.budget = TimeBudget(state.config.time_budget_minutes, state.progress.elapsed_seconds,
                                 self.clock.now())
        self.events.iteration = state.progress.iteration
        self.call_number = state.usage.agent_calls

    # ----------------------------------------------------------------- driver

    def run(self) -> RWRState:
        """Run phases until the report is written. Saves state after every phase."""
        state = self.state
        steps = {
            Phase.INITIAL_PLAN: self.initial_plan,
            Phase.RESEARCH: self.research,
            Phase.REVIEW: self.review,
            Phase.SYNTHESIZE: self.synthesize,
            Phase.FINAL_REVIEW: self.final_review,
            Phase.REVISE: self.revise,
        }
        while state.progress.current_phase is not Phase.DONE:
            step = steps.get(state.progress.current_phase)
            if step is None:  # a state saved mid-RECOVERY resumes the phase that failed
                state.progress.current_phase = state.progress.failed_phase or Phase.RESEARCH
                continue
            step()
            self.save()
        return state

    def save(self) -> None:
        if not self.state.progress.is_complete:  # a finished session's time is final
            self.state.progress.elapsed_seconds = self.budget.elapsed(self.clock.now())
        self.state.progress.lock_token = self.lock.token if self.lock else None
        save_state(self.state, self.paths.state_file)
        self.write_plan(self.state.plan)
        self.write_progress_index()

    def write_progress_index(self) -> None:
        if self.state.progress.is_complete and not self.paths.progress_index.exists():
            return
        plan = self.state.plan
        total = sum(1 for t in plan.topics if t.status is not TopicStatus.SKIPPED)
        text = phases.progress_index_text(
            phases.read_text(self.paths.progress_index), iteration=self.state.progress.iteration,
            completed=plan.counts()[TopicStatus.COMPLETE], total=total)
        write_if_changed(self.paths.progress_index, text)

    def write_plan(self, plan: Plan) -> None:
        write_if_changed(self.paths.plan_file, render_plan(plan))

    def now_remaining(self) -> float | None:
        return self.budget.remaining_minutes(self.clock.now())

    def reopen(self) -> bool:
        """Continue research in a finished session whose limit has since been raised.

        Only a session that ended on a limit with topics still open is reopened, and only
        when that limit no longer holds; the archived notes are put back so the new
        report covers everything.
        """
        state = self.state
        reopenable = (StopReason.ITERATION_LIMIT, StopReason.TIME_BUDGET, StopReason.LOW_NOVELTY)
        if not state.progress.is_complete or state.progress.stop_reason not in reopenable:
            return False
        if not state.config.early_termination:
            state.progress.consecutive_low_novelty = 0
        previous = state.progress.stop_reason
        if self.stop_reason() is not None:
            return False
        for topic in state.plan.topics:
            copy = archive.latest_archived(self.paths.archive_dir, f"{topic.slug}.progress.md")
            target = self.paths.progress_file(topic.slug)
            if copy is not None and not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(copy.read_bytes())
        state.progress.is_complete = False
        state.progress.stop_reason = None
        state.progress.stop_detail = ""
        # What the last final cycle did describes the old report, not the next one.
        state.final.final_review_accepted = state.final.final_review_rejected = False
        state.final.report_fallback = state.final.revision_failed = state.final.sources_section_rebuilt = False
        state.final.citation_ids_removed = []
        state.progress.current_phase = Phase.RESEARCH
        self.events.emit("run_start", reopened=True, previous_stop=previous.value)
        return True

    # ----------------------------------------------------------------- phases

    def initial_plan(self) -> None:
        def validate(_: AgentResult) -> None:
            text = phases.require_file(self.paths.plan_file, self.paths, what="the plan")
            parsed = parse_plan(text)
            result = reconcile(self.state.plan, parsed, focus=None,
                               find_duplicate=self.duplicate_finder())
            if not any(t.depth == 0 for t in result.plan.topics):
                raise PhaseFailed("the plan has no depth-0 topics")
            self.apply_reconcile(result)

        outcome = self.run_phase(Phase.INITIAL_PLAN, validate, variables=self.base_variables)
        if outcome is FAILED:
            raise RunFailed(
                f"the INITIAL PLAN phase failed after {MAX_PHASE_RECOVERIES} recoveries: "
                f"{self.state.progress.last_error}"
            )
        self.state.progress.current_phase = Phase.RESEARCH

    def research(self) -> None:
        state = self.state
        if state.progress.current_topic is None:
            stop = self.stop_reason()
            if stop is not None:
                self.stop_research(*stop)
                return
            topic = state.plan.next_topic()
            assert topic is not None  # stop_reason() returns ALL_DONE otherwise
            state.progress.current_topic = topic.slug
            state.progress.iteration += 1
            topic.attempts += 1
            self.events.iteration = state.progress.iteration
        topic = state.plan.get(state.progress.current_topic)
        if topic.status is TopicStatus.PENDING:
            topic.status = TopicStatus.IN_PROGRESS

        progress = self.paths.progress_file(topic.slug)
        notes_before = phases.modification_stamp(progress)

        def validate(_: AgentResult) -> None:
            self.sync_plan(focus=topic.slug)
            phases.require_file(progress, self.paths, what="the progress file")
            if notes_before is not None and phases.modification_stamp(progress) == notes_before:
                # The notes of an earlier attempt must not pass for this attempt's work.
                raise PhaseFailed(f"the progress file {self.paths.relative(progress)} was not "
                                  "updated by this research phase", kind="missing_files")

        outcome = self.run_phase(Phase.RESEARCH, validate,
                                 variables=lambda: self.topic_variables(topic))
        topic = state.plan.get(topic.slug)  # reconciling replaced the plan's objects
        if outcome is FAILED:
            self.topic_failed(topic, f"research failed: {state.progress.last_error}")
            self.record_decision(topic, summary="The research phase failed.",
                                 gaps=[state.progress.last_error or "unknown error"], verdict=None,
                                 researched=False)
            return
        topic.status = TopicStatus.IN_REVIEW
        self.measure_novelty(topic)
        state.progress.current_phase = Phase.REVIEW

    def review(self) -> None:
        state = self.state
        topic = state.plan.get(state.progress.current_topic) if state.progress.current_topic else None
        if topic is None:  # nothing in review (e.g. state edited): go back to choosing
            state.progress.current_phase = Phase.RESEARCH
            return
        if self.budget.used_up(self.clock.now()):
            self.review_out_of_time(topic)
            return
        self.archive_verdicts()

        def validate(_: AgentResult) -> Verdict:
            verdict = phases.read_verdict(self.paths)
            self.sync_plan(focus=None)
            return verdict

        outcome = self.run_phase(Phase.REVIEW, validate, model=state.config.review_model,
                                 variables=lambda: self.topic_variables(topic))
        topic = state.plan.get(topic.slug)  # reconciling replaced the plan's objects
        if outcome is FAILED:
            self.topic_failed(topic, f"review failed: {state.progress.last_error}")
            self.record_decision(topic, summary="The review phase failed.",
                                 gaps=[state.progress.last_error or "unknown error"], verdict=None)
            return
        verdict: Verdict = outcome
        if verdict.verdict == "accepted":
            topic.status = TopicStatus.COMPLETE
            state.progress.review_feedback.pop(topic.slug, None)
        else:
            state.progress.review_feedback[topic.slug] = verdict
            if topic.attempts >= MAX_TOPIC_ATTEMPTS:
                self.exhaust(topic, "rejected by review on its last attempt")
            else:
                topic.status = TopicStatus.IN_PROGRESS
        self.check_completion_marker()
        self.record_decision(topic, summary=verdict.summary, gaps=verdict.gaps, verdict=verdict)
        state.progress.current_topic = None
        state.progress.current_phase = Phase.RESEARCH

    def review_out_of_time(self, topic: Topic) -> None:
        """The research call used the last of the budget: the notes stay unreviewed and the
        topic open, without costing it an attempt, and the final cycle starts next."""
        state = self.state
        topic.status = TopicStatus.IN_PROGRESS
        self.events.emit("warning", message=f"the review of {topic.name!r} was not run: the "
                         "time budget is used up")
        self.record_decision(topic, summary="Not reviewed: the time budget ran out.", gaps=[],
                             verdict=None)
        state.progress.current_topic = None
        state.progress.current_phase = Phase.RESEARCH

    def synthesize(self) -> None:
        registry = self.source_registry(rebuild=True)
        outcome = self.run_phase(
            Phase.SYNTHESIZE,
            lambda _: phases.require_file(self.paths.report_file, self.paths, what="the report"),
            variables=lambda: self.final_variables(registry),
            final_cycle=True,
        )
        if outcome is FAILED:
            self.events.emit("warning", message="synthesis failed; the orchestrator compiled "
                             "the report from the progress files itself")
            atomic_write_text(self.paths.report_file,
                              report.fallback_report(self.state, self.paths, registry))
            self.state.final.report_fallback = True
            self.finish()
            return
        self.write_audit(registry, stage="synthesize")
        self.state.progress.current_phase = Phase.FINAL_REVIEW

    def final_review(self) -> None:
        if phases.read_text(self.paths.report_file) is None:
            self.state.progress.current_phase = Phase.SYNTHESIZE  # report lost: write it again
            return
        registry = self.source_registry()
        self.archive_verdicts()
        outcome = self.run_phase(
            Phase.FINAL_REVIEW,
            lambda _: phases.read_verdict(self.paths),
            model=self.state.config.review_model,
            variables=lambda: self.final_variables(registry),
            final_cycle=True,
        )
        if outcome is FAILED:
            self.events.emit("warning", message="final review failed; the report is kept "
                             "as synthesized")
            self.finish()
            return
        if outcome.verdict == "accepted":
            self.state.final.final_review_accepted = True
            self.finish()
            return
        self.state.final.final_review_rejected = True
        self.state.progress.current_phase = Phase.REVISE

    def revise(self) -> None:
        registry = self.source_registry()
        before = phases.read_text(self.paths.report_file) or ""
        outcome = self.run_phase(
            Phase.REVISE,
            lambda _: phases.require_file(self.paths.report_file, self.paths, what="the report"),
            variables=lambda: self.final_variables(registry),
            final_cycle=True,
        )
        if outcome is FAILED:
            self.state.final.revision_failed = True
            if before.strip():
                atomic_write_text(self.paths.report_file, before)
                self.events.emit("warning", message="revision failed; the synthesized report "
                                 "was restored")
        else:
            self.write_audit(registry, stage="revise")
        self.finish()

    # ----------------------------------------------------------- phase runner

    def run_phase(
        self,
        phase: Phase,
        validate: Callable[[AgentResult], object],
        *,
        variables: Callable[[], dict[str, str]],
        model: str | None = None,
        final_cycle: bool = False,
    ) -> object:
        """One phase with ralph.py's recovery: up to MAX_PHASE_RECOVERIES retries after
        a RECOVERY call. Returns the validated value, or FAILED."""
        state = self.state
        state.progress.current_phase = phase
        rounds = MAX_PHASE_RECOVERIES
        if final_cycle and state.progress.stop_reason is StopReason.CIRCUIT_BREAKER:
            rounds = 0  # the agent is failing: one attempt, then the orchestrator's fallback
        for round_number in range(state.progress.retry_count, rounds + 1):
            state.progress.retry_count = round_number
            values = variables()
            prompt = self.templates.render(phase.value, values)
            if round_number > 0:
                prompt += "\n\n" + self.templates.render("phase_recovery",
                                                         {**values, **self.recovery_variables()})
            started = self.clock.now()
            self.events.emit("phase_start", phase=phase.value, topic=values.get("topic_slug"),
                             round=round_number)
            state.progress.phase_history.append(phase.value)
            result = self.call_agent(phase, prompt, model=model or state.config.model,
                                     final_cycle=final_cycle, context=values)
            try:
                if not result.ok and result.failure is not FailureKind.AGENT_ERROR:
                    raise PhaseFailed(self.describe_failure(result),
                                      kind=(result.failure or FailureKind.NO_OUTPUT).value)
                try:
                    value = validate(result)
                except PhaseFailed as exc:
                    if result.failure is FailureKind.AGENT_ERROR:
                        raise PhaseFailed(f"{self.describe_failure(result)}; {exc}",
                                          kind=FailureKind.AGENT_ERROR.value) from None
                    raise
                if result.failure is FailureKind.AGENT_ERROR:
                    self.events.emit("warning", message="the agent reported an error but the "
                                     f"phase's files are valid: {result.error}")
            except PhaseFailed as exc:
                self.restore_plan_file()
                state.progress.last_error = str(exc)
                state.progress.failed_phase = phase
                self.events.emit("phase_end", phase=phase.value, outcome="failed",
                                 kind=exc.kind, error=str(exc),
                                 duration=round(self.clock.now() - started, 3))
                if round_number >= rounds or self.stop_recovering(phase):
                    break
                self.recover(phase, values)
                if self.stop_recovering(phase):
                    break
                continue
            self.events.emit("phase_end", phase=phase.value, outcome="ok",
                             duration=round(self.clock.now() - started, 3))
            state.progress.retry_count = 0
            state.progress.failed_phase = None
            state.progress.phase_recovered = round_number > 0
            state.progress.consecutive_failed_phases = 0
            return value
        state.progress.retry_count = 0
        state.usage.failed_phases += 1
        state.progress.consecutive_failed_phases += 1
        return FAILED

    def stop_recovering(self, phase: Phase) -> bool:
        """A failing RESEARCH or REVIEW gets no more recovery rounds once the time budget is
        used up or the circuit breaker is open: research is about to stop anyway."""
        if phase not in (Phase.RESEARCH, Phase.REVIEW):
            return False
        state = self.state
        why = ("the time budget is used up" if self.budget.used_up(self.clock.now())
               else breaker_reason(state.progress.consecutive_failed_phases, state.usage.agent_calls,
                                   state.usage.agent_failures))
        if why is None:
            return False
        self.events.emit("warning", message=f"no further recovery of the {phase.value} "
                         f"phase: {why}")
        return True

    def recover(self, phase: Phase, values: dict[str, str]) -> None:
        """ralph.py's RECOVERY phase: the agent diagnoses and writes recovery notes."""
        state = self.state
        state.usage.recoveries += 1
        state.progress.phase_recovered = True
        archive.archive_file(self.paths.archive_dir, self.paths.recovery_notes, self.token)
        self.paths.recovery_notes.unlink(missing_ok=True)
        recovery_values = {**values, **self.recovery_variables()}
        self.events.emit("recovery", phase=phase.value, round=state.progress.retry_count + 1,
                         error=state.progress.last_error)
        prompt = self.templates.render("recovery", recovery_values)
        self.call_agent(Phase.RECOVERY, prompt, model=state.config.model,
                        final_cycle=phase in FINAL_PHASES, context=recovery_values)
        self.restore_plan_file()
        if phase in (Phase.REVIEW, Phase.FINAL_REVIEW):  # the retry must write a fresh verdict
            self.archive_verdicts()
        state.progress.retry_count += 1
        self.save()

    def call_agent(self, phase: Phase, prompt: str, *, model: str, final_cycle: bool,
                   context: dict[str, str]) -> AgentResult:
        """One agent call with transient retries (exponential backoff with jitter)."""
        state = self.state
        result = AgentResult(ok=False, exit_code=None, failure=FailureKind.NO_OUTPUT)
        for attempt in range(MAX_TRANSIENT_ATTEMPTS):
            timeout = self.budget.call_timeout(state.config.timeout, self.clock.now(),
                                               final_cycle=final_cycle)
            log_path = self.new_log_path(phase)
            call = AgentCall(phase=phase.value, prompt=prompt, model=model, timeout=timeout,
                             cwd=self.paths.root, log_path=log_path, context=context,
                             env=session_marker(self.paths.session_dir))
            before = self.clock.now()
            with workspace.watch_for_stray_files(self.paths, self.events, phase.value), \
                    kept_from_agent(self.paths.state_file, self.state_file_restored):
                if self.lock is not None:
                    with self.lock.keep_alive(HEARTBEAT_INTERVAL_SECONDS):
                        result = self.agent.run(call)
                else:
                    result = self.agent.run(call)
            self.count_call(phase, result, self.clock.now() - before)
            self.events.emit(
                "agent_call", phase=phase.value, agent=self.agent.name, model=model,
                timeout=round(timeout, 3), exit_code=result.exit_code, ok=result.ok,
                failure=result.failure.value if result.failure else None,
                error=result.error, duration=round(result.duration, 3),
                input_tokens=result.input_tokens, output_tokens=result.output_tokens,
                cost=result.cost, log=self.paths.relative(log_path),
            )
            if result.ok or result.failure is None or not result.failure.transient:
                return result
            if attempt + 1 >= MAX_TRANSIENT_ATTEMPTS:
                break
            delay = backoff_delay(attempt, self.rng)
            if not final_cycle and (self.budget.research_time_over(self.clock.now())
                                    or self.budget.used_up(self.clock.now() + delay)):
                break
            self.events.emit("retry", phase=phase.value, attempt=attempt + 1,
                             delay=round(delay, 3), failure=result.failure.value)
            self.clock.sleep(delay)
        return result

    def new_log_path(self, phase: Phase) -> Path:
        """A log file of its own for the next call; numbers continue across resumed runs, and
        an existing log (such as an interrupted call's) is never overwritten."""
        while True:
            self.call_number += 1
            path = self.paths.logs_dir / (
                f"{self.state.progress.iteration:03d}-{phase.value}-{self.call_number:03d}.log")
            if not path.exists():
                return path

    def state_file_restored(self, what: str) -> None:
        self.events.emit("warning", message=f"the agent {what} state.json during a call; the "
                         "orchestrator restored it", file="state.json", repair=what)

    def count_call(self, phase: Phase, result: AgentResult, seconds: float) -> None:
        state = self.state
        state.usage.agent_calls += 1
        usage = state.usage.phases.setdefault(phase.value, PhaseUsage())
        usage.calls += 1
        usage.seconds += seconds
        if not result.ok:
            state.usage.agent_failures += 1
            usage.failures += 1
        if result.input_tokens is not None:
            usage.input_tokens = (usage.input_tokens or 0) + result.input_tokens
        if result.output_tokens is not None:
            usage.output_tokens = (usage.output_tokens or 0) + result.output_tokens
        if result.cost is not None:
            usage.cost = (usage.cost or 0.0) + result.cost

    @staticmethod
    def describe_failure(result: AgentResult) -> str:
        kind = result.failure.value if result.failure else "failure"
        detail = result.error or (result.stderr.strip().splitlines() or [""])[-1]
        if result.failure is FailureKind.TIMEOUT:
            return "the agent call timed out"
        if result.exit_code not in (None, 0):
            return f"the agent exited with code {result.exit_code}: {detail}".rstrip(": ")
        return f"the agent call failed ({kind}): {detail}".rstrip(": ")

    # ------------------------------------------------------------ plan upkeep

    def duplicate_finder(self) -> Callable[[str, list[str]], str | None]:
        threshold = self.state.config.duplicate_threshold

        def finder(name: str, existing: list[str]) -> str | None:
            return find_duplicate(name, existing, threshold)

        return finder

    def sync_plan(self, *, focus: str | None) -> None:
        """Read the agent's plan file and reconcile it with the orchestrator's plan."""
        text = phases.read_text(self.paths.plan_file)
        if text is None:
            self.events.emit("plan_repair", action="restored", detail="the plan file was deleted")
            self.write_plan(self.state.plan)
            return
        if text == render_plan(self.state.plan):  # untouched by the agent: nothing to reconcile
            return
        try:
            parsed = parse_plan(text)
        except PlanParseError as exc:
            self.restore_plan_file()
            raise PhaseFailed(f"research_plan.md could not be parsed: {exc}",
                              kind="invalid_plan") from None
        self.apply_reconcile(reconcile(self.state.plan, parsed, focus=focus,
                                       find_duplicate=self.duplicate_finder()))

    def apply_reconcile(self, result: ReconcileResult) -> None:
        state = self.state
        for event in result.events:
            if event.kind == "added":
                continue
            if event.kind == "duplicate":
                self.events.emit("topic_skipped", topic=event.topic, reason="duplicate",
                                 detail=event.detail)
                logger.info("skipped duplicate topic %r: %s", event.topic, event.detail)
            else:
                self.events.emit("plan_repair", action=event.kind, topic=event.topic,
                                 detail=event.detail)
        for name, _ in result.duplicates:
            if name not in state.progress.skipped_topics:
                state.progress.skipped_topics.append(name)
        state.plan = result.plan
        self.write_plan(state.plan)

    def restore_plan_file(self) -> None:
        self.write_plan(self.state.plan)

    # ------------------------------------------------------ topics and limits

    def topic_failed(self, topic: Topic, why: str) -> None:
        if topic.attempts >= MAX_TOPIC_ATTEMPTS:
            self.exhaust(topic, why)
        else:
            topic.status = TopicStatus.IN_PROGRESS
        self.state.progress.current_topic = None
        self.state.progress.current_phase = Phase.RESEARCH

    def exhaust(self, topic: Topic, why: str) -> None:
        topic.status = TopicStatus.EXHAUSTED
        topic.note = None
        if topic.name not in self.state.progress.exhausted_topics:
            self.state.progress.exhausted_topics.append(topic.name)
        self.events.emit("topic_exhausted", topic=topic.name, attempts=topic.attempts,
                         reason=why, tag="#RETRY_EXHAUSTED")

    def measure_novelty(self, topic: Topic) -> None:
        """Novelty of the new notes against earlier topics' notes (SPEC §6.2)."""
        state = self.state
        text = phases.read_text(self.paths.progress_file(topic.slug)) or ""
        seen: set[str] = set()
        for other in state.plan.topics:
            if other.slug != topic.slug and other.slug in state.progress.novelty:
                seen |= content_words(phases.read_text(self.paths.progress_file(other.slug)) or "")
        score = novelty(text, seen)
        state.progress.novelty[topic.slug] = round(score, 4)
        if not state.config.early_termination:
            return
        if score >= state.config.min_novelty:
            state.progress.consecutive_low_novelty = 0
            return
        state.progress.consecutive_low_novelty += 1
        for child in state.plan.children(topic.slug):
            if child.status is TopicStatus.PENDING:
                child.status = TopicStatus.SKIPPED
                child.note = "low novelty"
                if child.name not in state.progress.skipped_topics:
                    state.progress.skipped_topics.append(child.name)
                self.events.emit("topic_skipped", topic=child.name, reason="low_novelty",
                                 detail=f"parent novelty {score:.2f} < {state.config.min_novelty}")
                logger.info("skipped low-novelty subtopic %r", child.name)

    def stop_reason(self) -> tuple[StopReason, str] | None:
        """The rule that ends research now, if any (checked before each RESEARCH)."""
        state = self.state
        plan = state.plan
        breaker = breaker_reason(state.progress.consecutive_failed_phases, state.usage.agent_calls,
                                 state.usage.agent_failures)
        if breaker is not None:
            return StopReason.CIRCUIT_BREAKER, breaker
        if not plan.open_topics():
            exhausted = [t for t in plan.topics if t.status is TopicStatus.EXHAUSTED]
            completed = [t for t in plan.topics if t.status is TopicStatus.COMPLETE]
            if exhausted and not completed:
                return StopReason.ALL_EXHAUSTED, f"all {len(exhausted)} open topics were exhausted"
            return StopReason.ALL_DONE, "no open topics remain"
        if state.config.early_termination and state.progress.consecutive_low_novelty >= state.config.breadth:
            return (StopReason.LOW_NOVELTY,
                    f"{state.progress.consecutive_low_novelty} consecutive topics brought novelty below "
                    f"{state.config.min_novelty}")
        if self.budget.research_time_over(self.clock.now()):
            left = self.now_remaining() or 0.0
            return StopReason.TIME_BUDGET, f"{left:.2f} minutes left, below the synthesis reserve"
        if state.progress.iteration >= state.config.max_iterations:
            return (StopReason.ITERATION_LIMIT,
                    f"iteration limit of {state.config.max_iterations} reached")
        return None

    def stop_research(self, reason: StopReason, detail: str) -> None:
        state = self.state
        state.progress.stop_reason = reason
        state.progress.stop_detail = detail
        self.events.emit("research_stopped", reason=reason.value, detail=detail)
        if reason is StopReason.ALL_DONE and phases.read_text(self.paths.completed_file) is None:
            atomic_write_text(self.paths.completed_file, phases.COMPLETION_PROMISE + "\n")
            self.events.emit("completion_marker", action="written_by_orchestrator")
        state.progress.current_phase = Phase.SYNTHESIZE

    def check_completion_marker(self) -> None:
        """Never end research on the agent's marker alone while topics remain open."""
        if phases.read_text(self.paths.completed_file) is None:
            return
        open_topics = self.state.plan.open_topics()
        if open_topics:
            archive.archive_file(self.paths.archive_dir, self.paths.completed_file, self.token)
            self.paths.completed_file.unlink(missing_ok=True)
            self.events.emit("completion_marker", action="removed_false_marker",
                             open_topics=len(open_topics))
        else:
            self.events.emit("completion_marker", action="accepted")

    def record_decision(self, topic: Topic, *, summary: str, gaps: list[str],
                        verdict: Verdict | None, researched: bool = True) -> None:
        """Append the iteration's loop decision (SPEC §5.4); `researched` is False when this
        iteration wrote no new notes, so it has no novelty of its own."""
        state = self.state
        stop = self.stop_reason()
        decision = LoopDecision(
            iteration=state.progress.iteration,
            topic=topic.name,
            summary=summary,
            gaps=list(gaps),
            shouldContinue=stop is None,
            reason=(f"{stop[0].value}: {stop[1]}" if stop
                    else f"{len(state.plan.open_topics())} open topics remain"),
            nextSearchTopic=verdict.nextSearchTopic if verdict else None,
            urlToSearch=verdict.urlToSearch if verdict else None,
            timeRemainingMinutes=(None if self.now_remaining() is None
                                  else round(self.now_remaining() or 0.0, 3)),
            novelty=state.progress.novelty.get(topic.slug) if researched else None,
        )
        state.progress.last_decision = decision
        append_line(self.paths.decisions_file, decision.model_dump_json())
        self.events.emit("decision", **decision.model_dump())

    # ------------------------------------------------------------ final cycle

    def source_registry(self, *, rebuild: bool = False) -> SourceRegistry:
        """The numbered sources: built from the progress files (and written to sources.json)
        at SYNTHESIZE, then read back, so the ids the report cites never shift."""
        stored = self.stored_registry()
        if stored is not None and not rebuild:
            return stored
        pairs = []
        for topic in phases.tree_order(self.state.plan):
            text = phases.read_text(self.paths.progress_file(topic.slug))
            if text:
                pairs.append((topic.slug, text))
        if not pairs and stored is not None:  # the notes were already archived
            return stored
        registry = build_registry(pairs)
        atomic_write_text(self.paths.sources_file, registry.model_dump_json(indent=2) + "\n")
        return registry

    def stored_registry(self) -> SourceRegistry | None:
        text = phases.read_text(self.paths.sources_file)
        if text is None:
            return None
        try:
            return SourceRegistry.model_validate_json(text)
        except ValueError:
            self.events.emit("warning", message="sources.json was unreadable; it is rebuilt "
                             "from the progress files")
            return None

    def write_audit(self, registry: SourceRegistry, *, stage: str) -> CitationAudit:
        """Audit the report as it is now; `stage` says which phase's text was checked."""
        text = phases.read_text(self.paths.report_file) or ""
        audit = audit_report(text, registry)
        record = {"stage": stage, **audit.model_dump(), "ok": audit.ok,
                  "removed_by_orchestrator": self.state.final.citation_ids_removed}
        atomic_write_text(self.paths.citations_file, json.dumps(record, indent=2) + "\n")
        self.events.emit("citation_audit", stage=stage, ok=audit.ok, unknown=audit.unknown,
                         defects=audit.defects)
        return audit

    def finish(self) -> None:
        """Make the report true (citations, methodology, banners), archive, and mark done.

        The figures the methodology states are saved before the report is written, and the
        report is written before the session is saved as done: a crash anywhere in between
        resumes the last phase, and finalising again gives the same report.
        """
        state = self.state
        registry = self.source_registry()
        body = report.final_body(phases.read_text(self.paths.report_file) or "", registry)
        if body.removed:
            state.final.citation_ids_removed = sorted(set(state.final.citation_ids_removed)
                                                | set(body.removed))
            self.events.emit("citation_fix", removed_ids=body.removed)
        state.final.sources_section_rebuilt = state.final.sources_section_rebuilt or body.rebuilt
        state.final.sources_found = len(registry.sources)
        state.final.sources_cited = len(body.cited)
        self.save()
        atomic_write_text(self.paths.report_file, report.assemble_report(body.text, state))
        self.write_audit(registry, stage="final")
        state.progress.is_complete = True  # from here on save() keeps elapsed_seconds as reported
        state.progress.current_phase = Phase.DONE
        # Saved as done before the notes are archived and removed: a kill in between
        # leaves a finished session whose cleanup is simply done again on --resume.
        self.save()
        self.cleanup()

    def cleanup(self) -> None:
        """Archive the intermediate files of a finished session and remove them."""
        archived = archive.archive_session(self.paths, self.token, remove=True)
        self.events.emit("archive", files=len(archived))

    @property
    def token(self) -> str:
        return (self.lock.token if self.lock else None) or self.state.progress.lock_token or "nolock"

    def archive_verdicts(self) -> None:
        for path in (self.paths.accepted_file, self.paths.rejected_file):
            archive.archive_file(self.paths.archive_dir, path, self.token)
        phases.clear_verdicts(self.paths)

    # -------------------------------------------------------------- variables

    def base_variables(self) -> dict[str, str]:
        return prompts.base_variables(self.state, self.paths, self.now_remaining())

    def topic_variables(self, topic: Topic) -> dict[str, str]:
        return prompts.topic_variables(self.state, self.paths, topic, self.now_remaining())

    def final_variables(self, registry: SourceRegistry) -> dict[str, str]:
        return prompts.final_variables(self.state, self.paths, registry, self.now_remaining())

    def recovery_variables(self) -> dict[str, str]:
        return prompts.recovery_variables(self.state)


FAILED = object()
FINAL_PHASES = frozenset({Phase.SYNTHESIZE, Phase.FINAL_REVIEW, Phase.REVISE})

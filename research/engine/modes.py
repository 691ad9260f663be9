"""What differs between one topic in flight and several: where the state records the
topics in flight, who keeps the plan, and on which threads the iterations run.

The topic iteration (`iteration.py`) and the scheduler (`scheduler.py`) are written once
and call these hooks; `topic_mode` is the one place that chooses between the two.

- `OneTopic` (`--parallel 1`): the agent edits the plan and the progress index itself (the
  plan is reconciled after each call), and the reviewer of the last open topic writes the
  completion marker. The state names the topic in `current_topic` and `current_phase`,
  and a call's recovery rounds are saved, so a resumed run continues the round it lost.
  The iteration runs on the caller's thread.
- `SeveralTopics` (`--parallel N`): each call writes only its own topic's files. Subtopics
  are proposed in the notes and added by the orchestrator (`plan.propose`); what a call
  wrote outside its topic's files is put back (`TopicFileGuard`). The state lists the
  topics in `in_flight`; each iteration runs on a worker thread with its own agent process.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Protocol, TypeVar

from research.engine import decisions
from research.engine.context import RunContext
from research.engine.outcome import Failed, Ok, Outcome
from research.engine.rules import Rules
from research.engine.topicfiles import TopicFileGuard
from research.model import artifacts as phases
from research.model.plan import Topic, level_order, propose
from research.model.state import InFlight, Phase
from research.workspace import orphans
from research.workspace.fsutil import NOT_REGULAR, read_regular
from research.workspace.lock import own_agent_groups

Job = Callable[[], None]
T = TypeVar("T")


class TopicMode(Protocol):
    """The hooks the topic iteration and the scheduler call."""

    persist: bool
    """Keep a call's recovery rounds in the state (only one topic can own them)."""

    def lost(self) -> dict[str, InFlight]:
        """The calls a stopped or killed run left in flight, in this mode's records."""
        ...

    def begin(self, slug: str, iteration: int) -> None:
        """Record that the topic's iteration starts (or resumes) with its RESEARCH."""
        ...

    def resume(self, slug: str, flight: InFlight) -> None:
        """Record that a call lost in flight is made again."""
        ...

    def reviewing(self, slug: str) -> None:
        """The topic's research is over: its REVIEW is next."""
        ...

    def release(self, slug: str) -> int:
        """The topic's iteration is over; returns the iteration it counted as."""
        ...

    def sync_plan(self, focus: str | None) -> None:
        """In a call's validation: take the agent's edits of the plan."""
        ...

    def after_call(self, slug: str, phase: Phase, outcome: Outcome[T]) -> Outcome[T]:
        """After a call of the topic: put back what it may not write."""
        ...

    def take_proposals(self, topic: Topic) -> None:
        """After a successful RESEARCH: add the subtopics it proposed."""
        ...

    def after_verdict(self) -> None:
        """After a review's verdict is applied."""
        ...

    def executor(self) -> Executor:
        """Where the iterations run."""
        ...


class Executor(Protocol):
    def submit(self, job: Job, done: Callable[[], None]) -> Future[None]: ...

    def cancel(self) -> None:
        """Interrupted: stop the agents of the iterations still running."""
        ...

    def shutdown(self) -> None: ...


def topic_mode(ctx: RunContext, rules: Rules) -> TopicMode:
    """The mode of this run: one topic in flight, or several."""
    return SeveralTopics(ctx) if ctx.mode.own_files else OneTopic(ctx, rules)


class OneTopic:
    """One topic in flight: see the module docstring."""

    persist = True

    def __init__(self, ctx: RunContext, rules: Rules) -> None:
        self.ctx = ctx
        self.rules = rules
        self.iteration = ctx.state.progress.iteration

    def lost(self) -> dict[str, InFlight]:
        state = self.ctx.state
        progress = state.progress
        known = {t.slug for t in state.plan.topics}
        calls = {}
        if progress.current_topic in known:
            phase = Phase.REVIEW if progress.current_phase is Phase.REVIEW else Phase.RESEARCH
            calls[progress.current_topic] = InFlight(phase=phase, iteration=progress.iteration)
        else:  # none, or one the plan does not have (the state was edited)
            progress.current_topic = None
        # Left by a run with several topics in flight: made again one at a time.
        calls.update({s: f for s, f in progress.in_flight.items() if s in known})
        return calls

    def begin(self, slug: str, iteration: int) -> None:
        progress = self.ctx.state.progress
        progress.current_topic = slug
        progress.current_phase = Phase.RESEARCH
        self.iteration = iteration

    def resume(self, slug: str, flight: InFlight) -> None:
        progress = self.ctx.state.progress
        progress.in_flight.pop(slug, None)
        progress.current_topic = slug
        progress.current_phase = flight.phase
        self.iteration = flight.iteration

    def reviewing(self, slug: str) -> None:
        self.ctx.state.progress.current_phase = Phase.REVIEW

    def release(self, slug: str) -> int:
        progress = self.ctx.state.progress
        progress.current_topic = None
        progress.current_phase = Phase.RESEARCH
        return self.iteration

    def sync_plan(self, focus: str | None) -> None:
        decisions.sync_plan(self.ctx, focus=focus)

    def after_call(self, slug: str, phase: Phase, outcome: Outcome[T]) -> Outcome[T]:
        return outcome

    def take_proposals(self, topic: Topic) -> None:
        """Nothing to take: the agent added them to the plan, reconciled in validation."""

    def after_verdict(self) -> None:
        self.rules.check_completion_marker()

    def executor(self) -> Executor:
        return Inline()


class SeveralTopics:
    """Several topics in flight: see the module docstring."""

    persist = False

    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx
        self.guard = TopicFileGuard(ctx)

    def lost(self) -> dict[str, InFlight]:
        state = self.ctx.state
        progress = state.progress
        if progress.current_topic is not None:  # left by a run with one topic in flight
            phase = Phase.REVIEW if progress.current_phase is Phase.REVIEW else Phase.RESEARCH
            progress.in_flight.setdefault(
                progress.current_topic, InFlight(phase=phase, iteration=progress.iteration)
            )
            progress.current_topic = None
        for slug in list(progress.in_flight):
            if not any(t.slug == slug for t in state.plan.topics):
                del progress.in_flight[slug]
        progress.current_phase = Phase.RESEARCH
        self.guard.record_all()
        return dict(progress.in_flight)

    def begin(self, slug: str, iteration: int) -> None:
        """Recorded and saved before the call starts, so that a resumed run makes exactly
        the calls a kill or a stop lost."""
        self.ctx.state.progress.in_flight[slug] = InFlight(
            phase=Phase.RESEARCH, iteration=iteration
        )
        self.announce()
        self.ctx.save()

    def resume(self, slug: str, flight: InFlight) -> None:
        """Already recorded in `in_flight`."""

    def reviewing(self, slug: str) -> None:
        self.ctx.state.progress.in_flight[slug].phase = Phase.REVIEW
        self.guard.record(slug)  # the notes its review will judge
        self.announce()

    def release(self, slug: str) -> int:
        progress = self.ctx.state.progress
        flight = progress.in_flight.pop(slug, None)
        self.guard.record(slug)
        self.announce()
        return flight.iteration if flight else progress.iteration

    def announce(self) -> None:
        self.ctx.events.emit(
            "topics_in_flight",
            topics={
                slug: flight.phase.value
                for slug, flight in self.ctx.state.progress.in_flight.items()
            },
        )

    def sync_plan(self, focus: str | None) -> None:
        """Nothing to take: the agents do not edit the plan (the guard puts it back)."""

    def after_call(self, slug: str, phase: Phase, outcome: Outcome[T]) -> Outcome[T]:
        ctx = self.ctx
        self.guard.check(slug, phase)
        if phase is not Phase.RESEARCH or not isinstance(outcome, Ok):
            return outcome
        notes = ctx.paths.progress_file(slug)
        data = read_regular(notes)
        if data is None or data == NOT_REGULAR or not data.strip():
            # Valid when checked, then replaced by a link and undone since.
            return Failed(
                f"the progress file {ctx.paths.relative(notes)} was "
                "replaced after the research call",
                "missing_files",
            )
        self.guard.keep(notes, data)  # the notes its review will judge
        return outcome

    def take_proposals(self, topic: Topic) -> None:
        """Add the subtopics the notes propose, through the same gates (depth, breadth,
        duplicates) as an agent's edit of the plan with one topic in flight. Under the
        mutex, so a subtopic two topics propose at once is added once."""
        ctx = self.ctx
        notes = phases.read_text(ctx.paths.progress_file(topic.slug)) or ""
        proposals = phases.proposed_subtopics(notes)
        if not proposals:
            return
        finder = decisions.duplicate_finder(ctx.state.config.duplicate_threshold)
        result = propose(ctx.state.plan, topic.slug, proposals, find_duplicate=finder)
        result.plan.topics = level_order(result.plan.topics)  # not in completion order
        decisions.apply_reconcile(ctx, result)

    def after_verdict(self) -> None:
        """Nothing: the guard archived any completion marker an agent wrote."""

    def executor(self) -> Executor:
        return Threads(self.ctx)


class Inline:
    """Runs each iteration at once on the caller's thread."""

    def submit(self, job: Job, done: Callable[[], None]) -> Future[None]:
        job()
        future: Future[None] = Future()
        future.set_result(None)
        done()
        return future

    def cancel(self) -> None:
        """Nothing runs beside the caller: its agent call was stopped with it."""

    def shutdown(self) -> None:
        pass


class Threads:
    """Runs each iteration on a worker thread of its own (up to `--parallel` at once)."""

    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx
        self.pool = ThreadPoolExecutor(
            max_workers=ctx.mode.slots, thread_name_prefix="research-topic"
        )

    def submit(self, job: Job, done: Callable[[], None]) -> Future[None]:
        future = self.pool.submit(job)
        future.add_done_callback(lambda _: done())
        return future

    def cancel(self) -> None:
        """Stop every agent's process group and wait for the topic threads; the calls in
        flight stay recorded in the state, so --resume makes them again."""
        self.ctx.cancelled.set()
        session_dir = self.ctx.paths.session_dir
        # Only our own agents: after a takeover, the new holder's are not ours to stop.
        orphans.stop_process_groups(own_agent_groups(session_dir), grace=2.0)
        self.pool.shutdown(wait=True, cancel_futures=True)
        orphans.stop_process_groups(own_agent_groups(session_dir), grace=2.0)

    def shutdown(self) -> None:
        self.pool.shutdown(wait=True)

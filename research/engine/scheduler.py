"""Which topics run now: the research stage, with one topic in flight or up to N.

Topics start in the orchestrator's breadth-first order, topics sent back by a review first
(see `ready_topics`), until a stop rule holds and nothing is in flight; then SYNTHESIZE is next.
Each topic runs the one iteration of `iteration.py`; never two calls on one topic at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future

from research.engine import decisions
from research.engine.context import RunContext
from research.engine.iteration import TopicIteration
from research.engine.modes import Executor, TopicMode
from research.engine.rules import Rules
from research.engine.topics import TopicPhases
from research.model.plan import Plan, Topic, TopicStatus
from research.model.state import InFlight, Phase, StopReason


class TopicScheduler:
    """Runs the research stage with up to `--parallel` topics in flight."""

    def __init__(self, ctx: RunContext, rules: Rules, topics: TopicPhases, mode: TopicMode) -> None:
        self.ctx = ctx
        self.rules = rules
        self.mode = mode
        self.wakeup = threading.Event()
        """Set when a topic's research or whole iteration ends: new topics may be ready."""
        self.iteration = TopicIteration(ctx, rules, topics, mode, research_over=self.wakeup.set)

    def ready(self) -> list[Topic]:
        """Topics that may start now, best first (`ready_topics`)."""
        return ready_topics(self.ctx.state.plan, self.ctx.state.progress.in_flight)

    def run(self) -> None:
        """Research until a stop rule holds and nothing is in flight; then SYNTHESIZE."""
        ctx = self.ctx
        with ctx.mutex:
            lost = self.mode.lost()
            decisions.forget_unfinished(ctx, {f.iteration for f in lost.values()})
        executor = self.mode.executor()
        try:
            self.schedule(executor, lost)
        except BaseException:
            executor.cancel()
            raise
        finally:
            executor.shutdown()

    def schedule(self, executor: Executor, lost: dict[str, InFlight]) -> None:
        ctx = self.ctx
        running: set[Future[None]] = set()
        stop: tuple[StopReason, str] | None = None
        for slug, flight in lost.items():  # calls lost by a kill or a stop
            with ctx.mutex:
                self.mode.resume(slug, flight)
            running.add(executor.submit(self.job(slug, flight.phase), self.wakeup.set))
        while True:
            with ctx.mutex:
                started, stop = self.start_topics(len(running), stop)
                if not started and not running:
                    self.stop_research(stop)
                    return
            for slug in started:
                running.add(executor.submit(self.job(slug, Phase.RESEARCH), self.wakeup.set))
            self.wakeup.wait(timeout=1.0)
            self.wakeup.clear()
            for future in [f for f in running if f.done()]:
                running.discard(future)
                future.result()  # an internal error ends the run

    def start_topics(
        self, running: int, stop: tuple[StopReason, str] | None
    ) -> tuple[list[str], tuple[StopReason, str] | None]:
        """Begin topics while a slot is free and no stop rule holds (under the mutex)."""
        ctx = self.ctx
        started: list[str] = []
        while stop is None and running + len(started) < ctx.mode.slots:
            stop = self.rules.stop_reason()
            ready = self.ready() if stop is None else []
            if not ready:
                break
            topic = ready[0]
            self.mode.begin(topic.slug, self.rules.start_iteration(topic))
            started.append(topic.slug)
        return started, stop

    def stop_research(self, stop: tuple[StopReason, str] | None) -> None:
        stop = stop or self.rules.stop_reason()
        if stop is None:  # nothing ready and nothing running: the rest cannot be researched
            stop = (StopReason.ALL_DONE, "no open topic can be researched")
        self.rules.stop_research(*stop)

    def job(self, slug: str, start: Phase) -> Callable[[], None]:
        return lambda: self.iteration.run(slug, start)


def ready_topics(plan: Plan, in_flight: Mapping[str, InFlight]) -> list[Topic]:
    """The topics that may start now, best first: the rule of which topic runs next.

    Breadth-first: the shallowest first, then a topic sent back by its review (In Progress)
    before a new one, then plan order. A subtopic may start once its parent's research is
    over: that research proposed it and measured the novelty that decides whether it is
    skipped; the parent's review never changes either (a rejected or exhausted parent's
    subtopics are researched all the same). A topic in flight is not ready again.
    """
    researched = {
        t.slug
        for t in plan.topics
        if t.status is not TopicStatus.PENDING
        and not (t.slug in in_flight and in_flight[t.slug].phase is Phase.RESEARCH)
    }
    candidates = [
        (topic.depth, topic.status is not TopicStatus.IN_PROGRESS, index, topic)
        for index, topic in enumerate(plan.topics)
        if topic.status in (TopicStatus.PENDING, TopicStatus.IN_PROGRESS)
        and topic.slug not in in_flight
        and (topic.parent is None or topic.parent in researched)
    ]
    return [c[3] for c in sorted(candidates, key=lambda c: c[:3])]

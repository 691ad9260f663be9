"""Parallel mode (`--parallel N`): up to N topics' iterations in flight at once.

Each in-flight topic runs its RESEARCH → REVIEW on a thread of its own that drives its own
agent process. Which topics may run: open topics whose parent's research is over (see
`ready`), in the orchestrator's breadth-first order, topics sent back by a review first —
the order SPEC §4.4 gives the sequential loop. Agents write only their own topic's
files; the orchestrator alone writes the plan, the progress index and the state, under
one lock, and saves after every finished call. Never two calls on one topic at once.
"""

from __future__ import annotations

import re
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from research.core.errors import PlanParseError
from research.engine import decisions
from research.engine.context import RunContext, put_back
from research.engine.outcome import Failed, Ok
from research.engine.scheduler import Rules
from research.engine.topics import TopicPhases
from research.model import artifacts as phases
from research.model.artifacts import NOT_REGULAR, read_regular
from research.model.plan import Topic, TopicStatus, parse_plan, reconcile, render_plan
from research.model.state import InFlight, Phase, StopReason
from research.workspace import orphans
from research.workspace.lock import own_agent_groups

PROPOSED = re.compile(r"^## Proposed Subtopics[ \t]*$(.*?)(?=^## |\Z)", re.MULTILINE | re.DOTALL)
HEADING = re.compile(r"^###[ \t]+(.+?)[ \t]*(?:\(Depth:[^)]*\))?[ \t]*$", re.MULTILINE)


def proposed_blocks(notes: str) -> list[tuple[str, str]]:
    """(name, body) of each `### Name` entry under the notes' `## Proposed Subtopics`."""
    match = PROPOSED.search(notes)
    if match is None:
        return []
    section = match.group(1)
    heads = list(HEADING.finditer(section))
    blocks = []
    for index, head in enumerate(heads):
        end = heads[index + 1].start() if index + 1 < len(heads) else len(section)
        body = "\n".join(
            line
            for line in section[head.end() : end].strip("\n").splitlines()
            if not re.match(r"^- (Status|Parent):", line)
        )
        blocks.append((head.group(1).strip(), body))
    return blocks


class ParallelScheduler:
    """Runs the research stage with up to `ctx.parallel` topics in flight."""

    def __init__(self, ctx: RunContext, rules: Rules, topics: TopicPhases) -> None:
        self.ctx = ctx
        self.rules = rules
        self.topics = topics
        self.guard = TopicFileGuard(ctx)
        self.wakeup = threading.Event()
        """Set when a topic's research or whole iteration ends: new topics may be ready."""

    def ready(self) -> list[Topic]:
        """Topics that may start now, best first.

        A subtopic may start once its parent's research is over: that research proposed
        it and measured the novelty that decides whether it is skipped; the parent's
        review never changes either (in SPEC §5 a rejected or exhausted parent's
        subtopics are researched all the same).
        """
        state = self.ctx.state
        plan = state.plan
        in_flight = state.progress.in_flight
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

    def run(self) -> None:
        """Research until a stop rule holds and nothing is in flight; then SYNTHESIZE."""
        ctx, state = self.ctx, self.ctx.state
        progress = state.progress
        with ctx.mutex:
            if progress.current_topic is not None:  # saved by a sequential run
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
            decisions.forget_unfinished(ctx, {f.iteration for f in progress.in_flight.values()})
        pool = ThreadPoolExecutor(max_workers=ctx.parallel, thread_name_prefix="research-topic")
        try:
            self.schedule(pool)
        except BaseException:
            self.cancel(pool)
            raise
        finally:
            pool.shutdown(wait=True)

    def cancel(self, pool: ThreadPoolExecutor) -> None:
        """Interrupted: stop every agent's process group and wait for the topic threads; the
        calls in flight stay recorded in the state, so --resume makes them again."""
        self.ctx.cancelled.set()
        session_dir = self.ctx.paths.session_dir
        # Only our own agents: after a takeover, the new holder's are not ours to stop.
        orphans.stop_process_groups(own_agent_groups(session_dir), grace=2.0)
        pool.shutdown(wait=True, cancel_futures=True)
        orphans.stop_process_groups(own_agent_groups(session_dir), grace=2.0)

    def schedule(self, pool: ThreadPoolExecutor) -> None:
        ctx, state = self.ctx, self.ctx.state
        progress = state.progress
        futures: dict[Future[None], str] = {}
        stop: tuple[StopReason, str] | None = None
        for slug, flight in list(progress.in_flight.items()):  # calls lost by a kill
            futures[self.submit(pool, slug, flight.phase)] = slug
        while True:
            with ctx.mutex:
                while stop is None and len(futures) < ctx.parallel:
                    stop = self.rules.stop_reason()
                    if stop is not None:
                        break
                    ready = self.ready()
                    if not ready:
                        break
                    topic = ready[0]
                    iteration = self.rules.start_iteration(topic)
                    progress.in_flight[topic.slug] = InFlight(
                        phase=Phase.RESEARCH, iteration=iteration
                    )
                    self.announce()
                    ctx.save()
                    futures[self.submit(pool, topic.slug, Phase.RESEARCH)] = topic.slug
                if not futures:
                    stop = stop or self.rules.stop_reason()
                    if stop is None:  # nothing ready and nothing running: the rest
                        stop = (StopReason.ALL_DONE, "no open topic can be researched")
                    self.rules.stop_research(*stop)
                    return
            self.wakeup.wait(timeout=1.0)
            self.wakeup.clear()
            for future in [f for f in futures if f.done()]:
                del futures[future]
                future.result()  # an internal error ends the run, as in sequential mode

    def submit(self, pool: ThreadPoolExecutor, slug: str, phase: Phase) -> Future[None]:
        future = pool.submit(self.cycle, slug, phase)
        future.add_done_callback(lambda _: self.wakeup.set())
        return future

    def announce(self) -> None:
        self.ctx.events.emit(
            "topics_in_flight",
            topics={
                slug: flight.phase.value
                for slug, flight in self.ctx.state.progress.in_flight.items()
            },
        )

    def cycle(self, slug: str, start: Phase) -> None:
        """One topic's iteration: RESEARCH (unless resuming at REVIEW), then REVIEW."""
        ctx = self.ctx
        with ctx.mutex:
            topic = ctx.state.plan.get(slug)
        if start is Phase.RESEARCH:
            outcome = self.topics.research(topic, persist=False)
            with ctx.mutex:
                self.guard.check(slug, Phase.RESEARCH)
                topic = ctx.state.plan.get(slug)
                notes = ctx.paths.progress_file(slug)
                if isinstance(outcome, Ok) and not (phases.read_text(notes) or "").strip():
                    # Valid when checked, then replaced by a link and undone since.
                    outcome = Failed(
                        f"the progress file {ctx.paths.relative(notes)} was "
                        "replaced after the research call",
                        "missing_files",
                    )
                if isinstance(outcome, Failed):
                    self.finish(topic, "research", outcome, researched=False)
                    return
                self.take_proposals(topic)
                topic = ctx.state.plan.get(slug)
                topic.status = TopicStatus.IN_REVIEW
                decisions.measure_novelty(ctx, topic)
                ctx.state.progress.in_flight[slug].phase = Phase.REVIEW
                self.guard.record(slug)  # the notes its review will judge
                self.announce()
                ctx.save()
            self.wakeup.set()  # its subtopics may start now
        with ctx.mutex:
            topic = ctx.state.plan.get(slug)
            if ctx.budget.research_time_over(ctx.now()):
                topic.status = TopicStatus.IN_PROGRESS
                ctx.events.emit(
                    "warning",
                    message=f"the review of {topic.name!r} was not run: the time budget is used up",
                )
                iteration = self.release(slug)
                self.rules.decide(
                    topic,
                    iteration=iteration,
                    summary="Not reviewed: the time budget ran out.",
                    gaps=[],
                    verdict=None,
                )
                ctx.save()
                return
        review = self.topics.review(topic, persist=False)
        with ctx.mutex:
            self.guard.check(slug, Phase.REVIEW)
            topic = ctx.state.plan.get(slug)
            if isinstance(review, Failed):
                self.finish(topic, "review", review)
                return
            assert isinstance(review, Ok)
            self.rules.apply_verdict(topic, review.value)
            iteration = self.release(slug)
            self.rules.decide(
                topic,
                iteration=iteration,
                summary=review.value.summary,
                gaps=review.value.gaps,
                verdict=review.value,
            )
            ctx.save()

    def finish(self, topic: Topic, what: str, outcome: Failed, *, researched: bool = True) -> None:
        self.rules.topic_failed(topic, f"{what} failed: {outcome.error}")
        iteration = self.release(topic.slug)
        self.rules.decide(
            topic,
            iteration=iteration,
            summary=f"The {what} phase failed.",
            gaps=[outcome.error],
            verdict=None,
            researched=researched,
        )
        self.ctx.save()

    def release(self, slug: str) -> int:
        """The topic's call is over: it is no longer in flight. Returns its iteration."""
        flight = self.ctx.state.progress.in_flight.pop(slug, None)
        self.guard.record(slug)
        self.announce()
        return flight.iteration if flight else self.ctx.state.progress.iteration

    def take_proposals(self, topic: Topic) -> None:
        """Add the subtopics the notes propose, through the same gates (depth, breadth,
        duplicates) as an agent's edit of the plan in sequential mode. Under the lock, so a
        subtopic two topics propose at once is added once."""
        ctx = self.ctx
        notes = phases.read_text(ctx.paths.progress_file(topic.slug)) or ""
        blocks = proposed_blocks(notes)
        if not blocks:
            return
        plan = ctx.state.plan
        entries = "".join(
            f"\n### {name} (Depth: {topic.depth + 1})\n- Status: Pending\n"
            f"- Parent: {topic.name}\n{body}\n"
            for name, body in blocks
        )
        text = render_plan(plan)
        marker = text.index("## Completion Status")
        text = text[:marker].rstrip("\n") + "\n" + entries + "\n" + text[marker:]
        try:
            parsed = parse_plan(text)
        except PlanParseError as exc:
            ctx.events.emit(
                "warning",
                message=f"the proposed subtopics of {topic.name!r} could not be read: {exc}",
            )
            return
        decisions.apply_reconcile(
            ctx,
            reconcile(
                plan,
                parsed,
                focus=topic.slug,
                find_duplicate=decisions.duplicate_finder(ctx.state.config.duplicate_threshold),
            ),
        )


class TopicFileGuard:
    """Undo what an agent wrote into files that are not its to write (parallel mode).

    The orchestrator's own files (plan, progress index, state, completion marker) and the
    files of every topic with no call in flight are compared, after each call, with what
    the orchestrator last recorded; a difference is reported and put back.
    """

    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx
        self.recorded: dict[Path, bytes | None] = {}

    def files(self, slug: str) -> tuple[Path, ...]:
        return self.ctx.mode.topic_files(self.ctx.paths, slug)

    def record(self, slug: str) -> None:
        for path in self.files(slug):
            self.recorded[path] = read_regular(path)

    def record_all(self) -> None:
        for topic in self.ctx.state.plan.topics:
            if topic.slug not in self.ctx.state.progress.in_flight:
                self.record(topic.slug)

    def check(self, slug: str, phase: Phase) -> None:
        """After a call for `slug` ended: restore what no agent may have written."""
        ctx = self.ctx
        undone: list[str] = []
        if phases.read_text(ctx.paths.plan_file) != render_plan(ctx.state.plan):
            undone.append(ctx.paths.relative(ctx.paths.plan_file))
            ctx.write_plan()
        if ctx.paths.completed_file.exists():
            undone.append(ctx.paths.relative(ctx.paths.completed_file))
            ctx.archive_files(ctx.paths.completed_file)
        in_flight = ctx.state.progress.in_flight
        for topic in ctx.state.plan.topics:
            for path in self.files(topic.slug):
                before = self.recorded.get(path)
                now = read_regular(path)
                # A topic in flight writes its own files; a link or FIFO is nobody's to make.
                if now == before or (topic.slug in in_flight and now != NOT_REGULAR):
                    continue
                undone.append(ctx.paths.relative(path))
                put_back(path, before)
        if not undone:
            return
        others = sorted(s for s in in_flight if s != slug)
        who = f"the {phase.value} call of {slug!r}" + (
            f" (or a call of {', '.join(map(repr, others))}, also in flight)" if others else ""
        )
        ctx.events.emit(
            "stray_files",
            phase=phase.value,
            topic=slug,
            modified=undone,
            created=[],
            deleted=[],
            count=len(undone),
            undone=True,
        )
        ctx.events.emit(
            "warning",
            message=f"{who} wrote files that are not its topic's: "
            f"{', '.join(undone)}; the orchestrator put them back",
        )

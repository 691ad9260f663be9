"""Undo what an agent wrote into files that are not its to write, with several topics in
flight: the orchestrator's own files and the files of every topic with no call in flight."""

from __future__ import annotations

from pathlib import Path

from research.engine.context import RunContext, put_back
from research.model import artifacts as phases
from research.model.artifacts import NOT_REGULAR, read_regular
from research.model.plan import render_plan
from research.model.state import Phase


class TopicFileGuard:
    """Undo what an agent wrote into files that are not its to write (several topics in
    flight).

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
        """Take the topic's files as they are now as what is theirs to hold; a link or
        FIFO an agent planted since is never taken (the file is put back at the next
        check)."""
        for path in self.files(slug):
            self.keep(path, read_regular(path))

    def keep(self, path: Path, data: bytes | None) -> None:
        if data != NOT_REGULAR:
            self.recorded[path] = data

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
        index = ctx.paths.progress_index
        if ctx.written_index is not None and read_regular(index) != ctx.written_index.encode():
            undone.append(ctx.paths.relative(index))
            put_back(index, ctx.written_index.encode())
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

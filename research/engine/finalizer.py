"""The final cycle: SYNTHESIZE → FINAL REVIEW → [REVISE], the orchestrator's fallback
report, and finishing (citations, methodology, banners, archive). The report's side files
(sources.json, citations.json, report.html) are `reportfiles.ReportFiles`'."""

from __future__ import annotations

from research.agents.base import AgentResult
from research.engine import limits
from research.engine.context import RunContext
from research.engine.outcome import Failed
from research.engine.reportfiles import ReportFiles
from research.engine.runner import PhaseRunner
from research.engine.sourcecheck import SourceChecker
from research.model import artifacts as phases
from research.model.state import Phase, Verdict
from research.prompts.variables import PromptInput
from research.sources.registry import (
    SourceRegistry,
)
from research.views import report
from research.views.notices import mark_flagged, mark_snapshots
from research.workspace import archive
from research.workspace.fsutil import atomic_write_text


class Finalizer:
    """Writes the report and marks the session done."""

    def __init__(self, ctx: RunContext, runner: PhaseRunner, sources: SourceChecker) -> None:
        self.ctx = ctx
        self.runner = runner
        self.sources = sources
        self.files = ReportFiles(ctx, sources)

    def prompt(
        self, phase: Phase, registry: SourceRegistry, source_check: str | None = None
    ) -> PromptInput:
        """What a final-cycle prompt is built from."""
        ctx = self.ctx
        return PromptInput(
            state=ctx.state,
            paths=ctx.paths,
            phase=phase,
            remaining_minutes=ctx.now_remaining(),
            registry=registry,
            source_check=source_check,
        )

    def source_check(self, registry: SourceRegistry, stage: Phase) -> str:
        """The report's cited sentences checked against their pages, for the prompt."""
        return self.sources.check_report(
            registry, phases.read_text(self.ctx.paths.report_file), stage=stage.value
        )

    def out_of_time(self) -> bool:
        """True (and noted for the report's banner) when the budget ran out in the final
        cycle: the call in flight was cut, and nothing more is tried."""
        if not self.ctx.budget.used_up(self.ctx.now()):
            return False
        self.ctx.state.final.time_ran_out = True
        return True

    def budget_spent(self, what: str) -> bool:
        """True (and noted for the banner) when the token or cost budget is used up, so the
        final-cycle call `what` is not made."""
        spent = limits.usage_spent_kind(self.ctx)
        if spent is None:
            return False
        self.ctx.state.final.budget_ran_out = spent
        self.ctx.events.emit(
            "warning", message=f"{what} was not run: the {spent.replace('_', ' ')} is used up"
        )
        return True

    def require_report(self, _: AgentResult) -> str:
        return phases.require_file(self.ctx.paths.report_file, self.ctx.paths, what="the report")

    def synthesize(self) -> None:
        ctx = self.ctx
        registry = self.files.registry(rebuild=True)
        if self.budget_spent("the synthesis"):
            self.fallback(registry)
            return
        outcome = self.runner.run(
            Phase.SYNTHESIZE,
            self.require_report,
            prompt=lambda: self.prompt(Phase.SYNTHESIZE, registry),
        )
        if isinstance(outcome, Failed):
            self.out_of_time()
            self.fallback(registry)
            return
        self.files.write_audit(registry, stage="synthesize")
        ctx.state.progress.current_phase = Phase.FINAL_REVIEW

    def fallback(self, registry: SourceRegistry) -> None:
        """The orchestrator compiles the report from the progress files itself."""
        ctx = self.ctx
        ctx.events.emit(
            "warning",
            message="synthesis failed; the orchestrator compiled "
            "the report from the progress files itself",
        )
        atomic_write_text(
            ctx.paths.report_file, report.fallback_report(ctx.state, ctx.paths, registry)
        )
        ctx.state.final.report_fallback = True
        self.finish()

    def final_review(self) -> None:
        ctx = self.ctx
        if phases.read_text(ctx.paths.report_file) is None:
            ctx.state.progress.current_phase = Phase.SYNTHESIZE  # report lost: write it again
            return
        registry = self.files.registry()
        if self.budget_spent("the final review"):
            self.finish()
            return
        ctx.archive_files(ctx.paths.accepted_file, ctx.paths.rejected_file)
        check = self.source_check(registry, Phase.FINAL_REVIEW)

        def validate(_: AgentResult) -> Verdict:
            return phases.read_verdict(ctx.paths)

        outcome = self.runner.run(
            Phase.FINAL_REVIEW,
            validate,
            prompt=lambda: self.prompt(Phase.FINAL_REVIEW, registry, check),
        )
        if isinstance(outcome, Failed):
            self.out_of_time()
            ctx.events.emit(
                "warning", message="final review failed; the report is kept as synthesized"
            )
            self.finish()
            return
        if outcome.value.verdict == "accepted":
            ctx.state.final.final_review_accepted = True
            self.finish()
            return
        ctx.events.emit("report_rejected", summary=outcome.value.summary, gaps=outcome.value.gaps)
        ctx.state.final.final_review_rejected = True
        ctx.state.progress.current_phase = Phase.REVISE

    def revise(self) -> None:
        ctx = self.ctx
        registry = self.files.registry()
        if self.budget_spent("the revision"):
            self.finish()
            return
        before = phases.read_text(ctx.paths.report_file) or ""
        check = self.source_check(registry, Phase.REVISE)
        outcome = self.runner.run(
            Phase.REVISE,
            self.require_report,
            prompt=lambda: self.prompt(Phase.REVISE, registry, check),
        )
        if isinstance(outcome, Failed):
            self.out_of_time()
            ctx.state.final.revision_failed = True
            if before.strip():
                atomic_write_text(ctx.paths.report_file, before)
                ctx.events.emit(
                    "warning", message="revision failed; the synthesized report was restored"
                )
        else:
            self.files.write_audit(registry, stage="revise")
        self.finish()

    def finish(self) -> None:
        """Make the report true (citations, methodology, banners), archive, and mark done.

        The figures the methodology states are saved before the report is written, and the
        report is written before the session is saved as done: a crash anywhere in between
        resumes the last phase, and finalising again gives the same report.
        """
        ctx = self.ctx
        state = ctx.state
        registry = self.files.registry()
        body = report.final_body(phases.read_text(ctx.paths.report_file) or "", registry)
        if body.removed:
            state.final.citation_ids_removed = sorted(
                set(state.final.citation_ids_removed) | set(body.removed)
            )
            ctx.events.emit("citation_fix", removed_ids=body.removed)
        state.final.sources_section_rebuilt = state.final.sources_section_rebuilt or body.rebuilt
        state.final.sources_found = len(registry.sources)
        state.final.sources_cited = len(body.cited)
        self.sources.check_report(registry, body.text, stage="final")
        text = body.text
        if self.sources.enabled:
            registry = self.files.write_registry(registry)
            text = mark_snapshots(text, registry)
            text = mark_flagged(text, self.sources.read_file().report)
        ctx.save()
        atomic_write_text(ctx.paths.report_file, report.assemble_report(text, state))
        self.files.write_audit(registry, stage="final")
        state.progress.is_complete = True  # from here on save() keeps elapsed_seconds
        state.progress.current_phase = Phase.DONE
        # Saved as done before the notes are archived and removed: a kill in between
        # leaves a finished session whose cleanup is simply done again on --resume.
        ctx.save()
        self.cleanup()

    def cleanup(self) -> None:
        """Archive the intermediate files of a finished session and remove them."""
        archived = archive.archive_session(self.ctx.paths, self.ctx.token, remove=True)
        verdicts = self.ctx.paths.session_dir / "review"  # parallel mode's per-topic verdicts
        if verdicts.is_dir() and not verdicts.is_symlink():
            files = sorted(p for p in verdicts.glob("*.md") if p.is_file() and not p.is_symlink())
            self.ctx.archive_files(*files)
            if not any(verdicts.iterdir()):
                verdicts.rmdir()
        self.ctx.events.emit("archive", files=len(archived))

"""The report's side files, written at every report stage: the numbered sources
(sources.json), the citation audit (citations.json) and report.html."""

from __future__ import annotations

import json

from research.engine.context import RunContext
from research.engine.sourcecheck import SourceChecker, registry_records
from research.model import artifacts as phases
from research.sources.registry import (
    CitationAudit,
    SourceRegistry,
    audit_report,
    build_registry,
)
from research.views import report
from research.views.html_report import ReportPage, render_report_html
from research.workspace.fsutil import atomic_write_bytes, atomic_write_text


class ReportFiles:
    """sources.json, citations.json and report.html of one session."""

    def __init__(self, ctx: RunContext, sources: SourceChecker) -> None:
        self.ctx = ctx
        self.sources = sources

    def registry(self, *, rebuild: bool = False) -> SourceRegistry:
        """The numbered sources: built from the progress files (and written to sources.json)
        at SYNTHESIZE, then read back, so the ids the report cites never shift."""
        ctx = self.ctx
        stored = self.stored()
        if stored is not None and not rebuild:
            return stored
        pairs = []
        for topic in phases.tree_order(ctx.state.plan):
            text = phases.read_text(ctx.paths.progress_file(topic.slug))
            if text:
                pairs.append((topic.slug, text))
        if not pairs and stored is not None:  # the notes were already archived
            return stored
        registry = build_registry(pairs)
        atomic_write_text(ctx.paths.sources_file, registry.model_dump_json(indent=2) + "\n")
        return registry

    def write_registry(self, registry: SourceRegistry) -> SourceRegistry:
        """sources.json with each entry's fetch outcome."""
        with_outcomes = registry_records(registry, self.sources.stored_records)
        atomic_write_text(
            self.ctx.paths.sources_file, with_outcomes.model_dump_json(indent=2) + "\n"
        )
        return with_outcomes

    def stored(self) -> SourceRegistry | None:
        text = phases.read_text(self.ctx.paths.sources_file)
        if text is None:
            return None
        try:
            return SourceRegistry.model_validate_json(text)
        except ValueError:
            self.ctx.events.emit(
                "warning",
                message="sources.json was unreadable; it is rebuilt from the progress files",
            )
            return None

    def write_audit(self, registry: SourceRegistry, *, stage: str) -> CitationAudit:
        """Audit the report as it is now; `stage` says which phase's text was checked."""
        ctx = self.ctx
        text = phases.read_text(ctx.paths.report_file) or ""
        audit = audit_report(text, registry)
        record = {
            "stage": stage,
            **audit.model_dump(),
            "ok": audit.ok,
            "removed_by_orchestrator": ctx.state.final.citation_ids_removed,
        }
        atomic_write_text(ctx.paths.citations_file, json.dumps(record, indent=2) + "\n")
        ctx.events.emit(
            "citation_audit", stage=stage, ok=audit.ok, unknown=audit.unknown, defects=audit.defects
        )
        html = self.write_html(text, registry)
        if stage == "final" and html is not None:
            self.write_exports(html)
        return audit

    def write_html(self, markdown: str, registry: SourceRegistry) -> str | None:
        """reports/<name>/report.html beside the Markdown, at every report stage."""
        paths = self.ctx.paths
        page = ReportPage(
            plan=self.ctx.state.plan,
            registry=registry,
            verification=self.sources.read_file(),
            root=paths.root,
            report_dir=paths.report_file.parent,
            judge=report.judge_label(self.ctx.state),
        )
        try:
            html = render_report_html(markdown, page)
        except Exception as exc:  # the agent wrote the Markdown: never lose the run over it
            self.ctx.events.emit("warning", message=f"report.html was not written: {exc!r}")
            return None
        atomic_write_text(paths.report_html_file, html)
        return html

    def write_exports(self, html: str) -> None:
        """report.pdf and report.docx (--export) from the final report.html."""
        from research.views import exports

        paths = self.ctx.paths
        for fmt in exports.export_formats(self.ctx.state.config.export):
            target = paths.report_export_file(fmt)
            try:
                data = (
                    exports.report_pdf(html, paths.report_dir)
                    if fmt == "pdf"
                    else exports.report_docx(html)
                )
            except Exception as exc:  # the agent wrote the Markdown: never lose the run over it
                self.ctx.events.emit(
                    "warning", message=f"{paths.relative(target)} was not written: {exc!r}"
                )
                continue
            atomic_write_bytes(target, data)

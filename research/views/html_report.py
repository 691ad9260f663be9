"""reports/<name>/report.html: the report as one self-contained page (styles inline, no
script, nothing fetched), readable on a phone, with the topic tree as an SVG and, on each
citation, the source, its verification outcome and the passage of its snapshot.

Markdown is rendered by markdown-it-py with raw HTML off: the agent wrote the report, so
its HTML is shown as text, never run. Each citation is a button that opens a popover
(the browser's own `popover` attribute, no script).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from html import escape
from pathlib import Path
from urllib.parse import quote

from markdown_it import MarkdownIt

from research.model.plan import Plan
from research.sources.claims import rewrite_report_citations
from research.sources.registry import Source, SourceRegistry
from research.sources.verification import CitationOutcome, CitedClaim, VerificationFile
from research.views.notices import FLAG_MARK
from research.views.topic_svg import topic_tree_svg

_OPEN, _CLOSE = "\ue000", "\ue001"
_TOKEN = re.compile(f"{_OPEN}(c\\d+|tree){_CLOSE}({FLAG_MARK}?)")
_MERMAID = re.compile(r"^```mermaid[ \t]*\n.*?^```[ \t]*$", re.MULTILINE | re.DOTALL)
_COMMENT = re.compile(r"^[ \t]*<!--.*?-->[ \t]*$", re.MULTILINE | re.DOTALL)
_SOURCES_HEADING = re.compile(r"^##[ \t]+(?:sources|references|bibliography)\b", re.I | re.M)
_BARE_URL = re.compile(r"(?<![<(])\bhttps?://[^\s<>]+[^\s<>.,;:!?)\]]")
_FILE_REF = re.compile(r"(?<![\w/])file:(?:<([^<>\n]+)>|([^\s<>\"'`()\[\],;]+))")
OUTCOME_TEXT = {
    "supported": "supported: the page says this",
    "weak": "weak: only partly on the page",
    "unsupported": "unsupported: the page says something else",
    "unverifiable": "unverifiable: no text of the page to check",
}


@dataclass(frozen=True)
class ReportPage:
    """Everything the page shows besides the Markdown."""

    plan: Plan
    registry: SourceRegistry
    verification: VerificationFile
    root: Path
    """The working directory: local documents (file:<path>) are relative to it."""
    report_dir: Path
    """Where report.html is written: links to local documents are relative to it."""
    judge: str = "judge"
    """Who the judge was, as the reader is told ("judge (simulated)" in --mock-mode)."""


@dataclass(frozen=True)
class _Cite:
    group: str
    """The citation as written: "[2]", "[1, 3]"."""
    ids: list[int]
    claim: CitedClaim | None
    """The checked sentence that carries it, when the check saw that sentence."""


def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table")


def render_report_html(markdown: str, page: ReportPage) -> str:
    """The whole report.html for the report's Markdown."""
    claims = {c.check.claim: c for c in page.verification.report}
    cites: list[_Cite] = []
    markdown = markdown.replace(_OPEN, "").replace(_CLOSE, "")  # only ours are placeholders

    def token(owner: str, group: str, ids: list[int]) -> str:
        cites.append(_Cite(group, ids, claims.get(owner)))
        return f"{_OPEN}c{len(cites) - 1}{_CLOSE}"

    text = _COMMENT.sub("", rewrite_report_citations(markdown, token))
    text, drawn = _MERMAID.subn(f"{_OPEN}tree{_CLOSE}", text)
    if not drawn:
        text += f"\n\n## Topic tree\n\n{_OPEN}tree{_CLOSE}\n"
    body = _markdown().render(_link_sources(text, page))
    tree = f'<figure class="tree">{topic_tree_svg(page.plan)}</figure>'
    body = body.replace(f"<p>{_OPEN}tree{_CLOSE}</p>", tree)
    body = _TOKEN.sub(
        lambda m: tree + m.group(2) if m.group(1) == "tree" else _cite(m, cites), body
    )
    body = body.replace("<table>", '<div class="table"><table>').replace(
        "</table>", "</table></div>"
    )
    popovers = "".join(_popover(index, cite, page) for index, cite in enumerate(cites))
    return PAGE.format(title=escape(_title(markdown, page.plan)), style=STYLE, body=body + popovers)


def _title(markdown: str, plan: Plan) -> str:
    match = re.search(r"^#[ \t]+(.+?)[ \t#]*$", markdown, re.MULTILINE)
    return match.group(1) if match else plan.topic


def _cite(match: re.Match[str], cites: list[_Cite]) -> str:
    """A citation's button; with its flag, both in one span the line cannot break: the button
    is an atomic inline, so the mark could otherwise start the next line on its own."""
    index = int(match.group(1)[1:])
    cite = cites[index]
    outcome = cite.claim.check.support.value if cite.claim else ""
    button = (
        f'<button type="button" class="cite {escape(outcome)}" popovertarget="cite{index}" '
        f'aria-label="source {escape(", ".join(map(str, cite.ids)))}">{escape(cite.group)}</button>'
    )
    if not match.group(2):
        return button
    return f'<span class="cited">{button}<span class="flag">{FLAG_MARK}</span></span>'


def _popover(index: int, cite: _Cite, page: ReportPage) -> str:
    outcomes = {o.id: o for o in page.verification.citations}
    parts = [
        f'<div id="cite{index}" popover class="pop">'
        f'<button type="button" class="close" popovertarget="cite{index}" '
        'popovertargetaction="hide" aria-label="close">\u00d7</button>'
    ]
    if cite.claim is not None:
        parts.append(f'<p class="claim">\u201c{escape(cite.claim.check.claim)}\u201d</p>')
    for ident in cite.ids:
        source = page.registry.get(ident)
        if source is None:
            parts.append(f"<p>[{ident}] is not a recorded source.</p>")
            continue
        parts.append(_source_block(source, cite.claim, outcomes.get(ident), page))
    parts.append("</div>")
    return "".join(parts)


def _source_block(
    source: Source, claim: CitedClaim | None, outcome: CitationOutcome | None, page: ReportPage
) -> str:
    href = _href(source.url, page)
    title = escape(source.title or source.url)
    lines = [
        f'<div class="src"><p><b>[{source.id}]</b> <a href="{escape(href)}">{title}</a>'
        f'<br><span class="url">{escape(source.url)}</span></p>'
    ]
    if not page.verification.enabled:
        lines.append('<p class="outcome">not checked (--no-verify-sources)</p>')
    elif claim is not None and claim.check.source == source.url:
        check = claim.check
        who = page.judge if claim.decided_by == "judge" else "rules"
        lines.append(_outcome_line(check.support.value, f"{who}: {check.reason}"))
        if check.evidence:
            lines.append(f"<blockquote>{escape(check.evidence)}</blockquote>")
        else:
            lines.append('<p class="none">No passage of the page matches this sentence.</p>')
    elif outcome is not None:
        lines.append(_outcome_line(outcome.outcome, outcome.reason))
    else:
        lines.append('<p class="outcome">not checked yet</p>')
    lines.append("</div>")
    return "".join(lines)


def _outcome_line(outcome: str, reason: str) -> str:
    label = OUTCOME_TEXT.get(outcome, outcome)
    why = f" \u2014 {escape(reason)}" if reason else ""
    return (
        f'<p class="outcome"><span class="badge {escape(outcome)}">{escape(label)}</span>{why}</p>'
    )


def _href(location: str, page: ReportPage) -> str:
    """The link for a source: its URL, or a local document's file relative to the page."""
    if not location.startswith("file:"):
        return location
    path = Path(location[len("file:") :])
    target = path if path.is_absolute() else page.root / path
    try:
        relative = os.path.relpath(target, page.report_dir)
    except ValueError:  # another drive (Windows)
        return target.as_uri()
    return quote(Path(relative).as_posix())


def _link_sources(text: str, page: ReportPage) -> str:
    """The Sources section with its URLs and local documents as links."""
    heading = _SOURCES_HEADING.search(text)
    if heading is None:
        return text
    end = re.search(r"^#{1,2}[ \t]", text[heading.end() :], re.MULTILINE)
    stop = heading.end() + end.start() if end else len(text)
    section = _BARE_URL.sub(lambda m: f"<{m.group(0)}>", text[heading.end() : stop])

    def local(match: re.Match[str]) -> str:
        path = match.group(1) or match.group(2)
        href = _href(f"file:{path}", page).replace(")", "%29").replace(" ", "%20")
        return f"[file:{path}]({href})"

    section = _FILE_REF.sub(local, section)
    # One paragraph per entry, also where the entries are not separated by blank lines.
    section = re.sub(r"\n(?=[ \t]*(?:[-*][ \t]+)?\[\d+\])", "\n\n", section)
    return text[: heading.end()] + section + text[stop:]


STYLE = """
:root{color-scheme:light}
*{box-sizing:border-box}
body{margin:0;font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
color:#1d232b;background:#fff}
main{max-width:46rem;margin:0 auto;padding:1rem}
h1{font-size:1.6rem;line-height:1.25}h2{font-size:1.3rem;margin-top:2rem}h3{font-size:1.1rem}
p,li,td,th,blockquote{overflow-wrap:break-word}
a{color:#0b57d0;overflow-wrap:anywhere}
pre{overflow-x:auto;background:#f5f6f8;padding:.6rem;border-radius:6px}
code{font-size:.9em}
hr{border:0;border-top:1px solid #d0d5dd}
.table{overflow-x:auto;margin:1rem 0}
table{border-collapse:collapse}
td,th{border:1px solid #d0d5dd;padding:.3rem .5rem;vertical-align:top;text-align:left}
button.cite{font:inherit;font-size:.85em;line-height:1.2;color:#0b57d0;background:#eef3fd;
border:1px solid #c7d7f7;border-radius:4px;padding:0 .25em;cursor:pointer;margin:0 .1em}
button.cite.unsupported,button.cite.weak,button.cite.unverifiable{background:#fdeeee;
border-color:#f0b4b4;color:#a11}
.flag{color:#a11;font-weight:bold}
.cited{white-space:nowrap}.cited .cite{white-space:normal;max-width:calc(100% - 1.5em)}
.pop{width:min(36rem,calc(100vw - 1.5rem));max-height:calc(100vh - 2rem);overflow:auto;
border:1px solid #c9ced6;border-radius:10px;padding:1rem 1rem .5rem;
box-shadow:0 8px 30px rgba(0,0,0,.2)}
.pop::backdrop{background:rgba(0,0,0,.15)}
.pop .close{float:right;font-size:1.3rem;line-height:1;border:0;background:none;cursor:pointer}
.pop .claim{font-style:italic;margin-top:0}
.pop .url{color:#555;font-size:.85em;overflow-wrap:anywhere}
.pop blockquote{margin:.4rem 0 .8rem;padding:.4rem .7rem;border-left:3px solid #9aa4b2;
background:#f7f8fa}
.badge{display:inline-block;border-radius:4px;padding:0 .35em;font-size:.9em}
.badge.supported{background:#d4f7d4}.badge.weak{background:#fff4c2}
.badge.unsupported{background:#ffd6d6}.badge.unverifiable{background:#eeeeee}
figure.tree{margin:1rem 0}
figure.tree svg{display:block;max-width:32rem;height:auto}
"""

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; \
style-src 'unsafe-inline'; img-src data:">
<base target="_blank">
<title>{title}</title>
<style>{style}</style>
</head>
<body>
<main>
{body}
</main>
</body>
</html>
"""

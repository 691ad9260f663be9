"""reports/<name>/report.html: written at every report stage, self-contained, the topic tree
as an SVG, and each citation's source, outcome and passage; in headless Chromium at a
desktop and a phone width, where a flag (†) stays on its citation's line (skipped where no
browser or Playwright is installed)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import read_json
from helpers import killed_session, run_demo

from research.model.plan import Plan, Topic, TopicStatus
from research.sources.claims import ClaimCheck, Support
from research.sources.registry import Source, SourceRegistry
from research.sources.verification import CitationOutcome, CitedClaim, VerificationFile
from research.views.html_report import ReportPage, render_report_html
from research.views.topic_svg import topic_tree_svg

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
HTML = Path("reports/demo/report.html")
REPORT = Path("reports/demo/report.md")


def assert_self_contained(html: str) -> None:
    """Nothing the page would load: no script, no stylesheet link, no remote image or frame."""
    assert "<script" not in html.lower()
    assert not re.search(r"<link\b", html, re.I)
    assert not re.search(r"<(?:img|iframe|object|embed|video|audio)\b[^>]*\bsrc=", html, re.I)
    assert "@import" not in html and "url(" not in html
    assert "<style>" in html and "default-src 'none'" in html


# --- the pure renderer ------------------------------------------------------------------------

PLAN = Plan(
    topic="Heat pumps in winter",
    breadth=2,
    depth=2,
    topics=[
        Topic(name="Costs", slug="costs", depth=0, status=TopicStatus.COMPLETE),
        Topic(name="Installers <b>", slug="inst", depth=1, parent="costs"),
        Topic(name="Grid", slug="grid", depth=0, status=TopicStatus.EXHAUSTED),
    ],
)
REGISTRY = SourceRegistry(
    sources=[
        Source(id=1, url="https://a.example/trial", title="Field trial"),
        Source(id=2, url="file:docs/notes one.md", title="My notes"),
    ]
)


def checked(claim: str, source: str, support: Support, evidence: str, reason: str) -> CitedClaim:
    check = ClaimCheck(
        claim=claim, source=source, support=support, coverage=1.0, evidence=evidence, reason=reason
    )
    return CitedClaim(ids=[1], check=check)


def page(tmp_path: Path, verification: VerificationFile | None = None) -> ReportPage:
    return ReportPage(
        plan=PLAN,
        registry=REGISTRY,
        verification=verification or VerificationFile(),
        root=tmp_path,
        report_dir=tmp_path / "reports" / "s",
    )


def test_citations_carry_their_source_outcome_and_passage(tmp_path: Path) -> None:
    markdown = (
        "# Heat pumps\n\nBills fell 45% [1]\u2020. See my notes [2].\n\n"
        "<script>alert(1)</script>\n\n## Sources\n\n[1] Field trial \u2014 "
        "https://a.example/trial\n[2] My notes \u2014 file:<docs/notes one.md>\n"
    )
    verification = VerificationFile(
        report=[
            checked(
                "Bills fell 45%.",
                "https://a.example/trial",
                Support.UNSUPPORTED,
                "Bills fell by 31% over the winter.",
                "45% not on the page",
            )
        ],
        citations=[CitationOutcome(id=2, location="file:docs/notes one.md", outcome="supported")],
    )
    html = render_report_html(markdown, page(tmp_path, verification))
    assert_self_contained(html)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # the agent's HTML is text
    first = html.split('id="cite0"', 1)[1].split("</div></div>", 1)[0]
    assert "Field trial" in first and "https://a.example/trial" in first
    assert "unsupported" in first and "45% not on the page" in first
    assert "<blockquote>Bills fell by 31% over the winter.</blockquote>" in first
    assert 'class="cite unsupported" popovertarget="cite0"' in html
    assert '<span class="cited"><button type="button" class="cite unsupported"' in html
    assert '</button><span class="flag">\u2020</span></span>' in html
    # A local document links to its file, relative to the page.
    assert 'href="../../docs/notes%20one.md"' in html
    assert "<svg" in html and "Topic tree" in html  # no Methodology yet: the tree is added


def test_the_agents_text_cannot_forge_the_pages_placeholders(tmp_path: Path) -> None:
    markdown = "# T\n\nForged \ue000c7\ue001 and \ue000tree\ue001 [1].\n\n```mermaid\nx"
    html = render_report_html(markdown, page(tmp_path))
    assert html.count("<svg") == 1 and 'popovertarget="cite0"' in html
    assert "cite7" not in html and "\ue000" not in html


def test_the_topic_tree_is_an_svg_with_every_topic_and_its_status() -> None:
    svg = topic_tree_svg(PLAN)
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    for text in ("Heat pumps in winter", "Costs", "Installers &lt;b&gt;", "Grid", "Exhausted"):
        assert text in svg
    assert "<b>" not in svg and svg.count("<rect") == 4 and svg.count("<path") == 3


# --- through the CLI ------------------------------------------------------------------------


def test_the_demo_writes_report_html_beside_the_markdown(run_cli) -> None:
    result = run_demo(run_cli, "--verify-sources")
    assert result.exit_code == 0, result.output
    html = HTML.read_text(encoding="utf-8")
    assert_self_contained(html)
    assert "```mermaid" not in html and "<svg" in html
    summary = read_json(Path(".research/demo/verification.json"))["summary"]
    flagged = summary["flagged"]
    assert flagged and html.count('class="flag"') >= len(flagged)
    for item in flagged:
        assert item["passage"] and item["passage"].split()[0] in html


def test_report_html_is_written_at_synthesis_already(isolated: Path, mock_script) -> None:
    # Killed during the final review (call 9): the synthesized report has its page.
    session = killed_session(isolated, mock_script(kill_at_call=9), "demo")
    assert session.is_dir()
    html = (isolated / HTML).read_text(encoding="utf-8")
    markdown = (isolated / REPORT).read_text(encoding="utf-8")
    assert "## Methodology" not in markdown and "Methodology" not in html
    assert "<svg" in html and "cite0" in html


# --- in a browser -----------------------------------------------------------------------------


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium installed")
def test_report_html_in_headless_chromium_at_two_widths(run_cli, tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    result = run_demo(run_cli, "--verify-sources")
    assert result.exit_code == 0, result.output
    url = HTML.resolve().as_uri()
    flagged = read_json(Path(".research/demo/verification.json"))["summary"]["flagged"][0]
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            for width in (1280, 390):
                check_in_browser(browser, url, width, flagged, tmp_path)
        finally:
            browser.close()


def check_in_browser(browser: Any, url: str, width: int, flagged: dict, shots: Path) -> None:
    page = browser.new_page(viewport={"width": width, "height": 900})
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("request", lambda r: None if r.url.startswith("file:") else problems.append(r.url))
    page.goto(url)
    page.screenshot(path=str(shots / f"report-{width}.png"), full_page=True)
    scroll, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll <= inner, (width, scroll, inner)  # no horizontal scroll
    assert page.locator("svg.tree").is_visible()
    button = page.locator("button.cite.unsupported").first
    popover = page.locator(f"#{button.get_attribute('popovertarget')}")
    assert not popover.is_visible()
    button.click()
    assert popover.is_visible()
    text = popover.inner_text()
    assert "unsupported" in text and "https://example.org/mock/" in text
    assert " ".join(flagged["passage"].split()[:4]) in " ".join(text.split())
    box = popover.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
    page.screenshot(path=str(shots / f"report-{width}-citation.png"))
    page.keyboard.press("Escape")
    assert not popover.is_visible()
    assert problems == [], problems
    page.close()


# Each flag's paragraph at 390 px. The filler grows by one narrow letter a paragraph, so in one
# of them the citation ends right where the line does: its button fits and its mark would not,
# and unless they are glued, the mark starts the next line. The last paragraph's citation is
# wider than the line: its button wraps inside, and the mark stays beside its last line.
FLAG_LINES = """() => [...document.querySelectorAll('.flag')].map((flag) => {
    const p = flag.closest('p'), button = p.querySelector('button.cite');
    const range = document.createRange();
    range.setStart(p.firstChild, 0);
    range.setEnd(p.firstChild, 1);
    const b = button.getBoundingClientRect(), f = flag.getBoundingClientRect();
    return {text: p.textContent, button: b.bottom, flag: f.bottom, flagRight: f.right,
            first: range.getBoundingClientRect().bottom, right: p.getBoundingClientRect().right,
            line: parseFloat(getComputedStyle(p).lineHeight), flagWidth: f.width};
})"""
FILLER_WIDTH = """() => {
    const p = [...document.querySelectorAll('main p')].find((p) => p.textContent.includes('ll'));
    const range = document.createRange(), text = p.firstChild, at = text.data.indexOf('ll');
    range.setStart(text, at);
    range.setEnd(text, at + 1);
    return range.getBoundingClientRect().width;
}"""


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium installed")
def test_a_flag_never_wraps_away_from_its_citation(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    sweep = "".join(f"Bills fell {'l' * n} in winter [1]\u2020.\n\n" for n in range(1, 100))
    many = ", ".join(str(n) for n in range(1, 41))
    markdown = f"# Flags\n\n{sweep}Both pages say so [1, 2]\u2020.\n\nAll say so [{many}]\u2020.\n"
    file = tmp_path / "report.html"
    file.write_text(render_report_html(markdown, page(tmp_path)), encoding="utf-8")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            view = browser.new_page(viewport={"width": 390, "height": 900})
            view.goto(file.as_uri())
            view.screenshot(path=str(tmp_path / "flags-390.png"), full_page=True)
            flags, step = view.evaluate(FLAG_LINES), view.evaluate(FILLER_WIDTH)
            scroll, inner = view.evaluate(
                "[document.documentElement.scrollWidth, window.innerWidth]"
            )
        finally:
            browser.close()
    assert len(flags) == 101 and scroll <= inner, (len(flags), scroll, inner)
    # The sweep crosses the line's end in steps narrower than the mark.
    line = flags[0]["line"]
    assert 0 < step < flags[0]["flagWidth"]
    assert abs(flags[0]["button"] - flags[0]["first"]) < line / 3  # on the first line
    assert flags[98]["button"] - flags[98]["first"] > line / 2  # on the second
    # On one line: the mark's bottom and its button's (of its last line) a line apart if not.
    apart = [f["text"] for f in flags if abs(f["flag"] - f["button"]) > line / 3]
    assert apart == []
    assert [f["text"] for f in flags if f["flagRight"] > f["right"] + 0.5] == []

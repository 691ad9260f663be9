"""report.pdf and report.docx (--export): the rendered report.html, printed by WeasyPrint and
rebuilt as a Word document by python-docx, so both carry what the page does (the † marks,
the appendix, the topic tree). Both libraries come from the optional [export] extra and are
imported only here, when a format is asked for.

Nothing is fetched: the report's Markdown is the agent's, and an image it names on the web or
on disk is left out of the PDF (WeasyPrint's fetcher refuses every URL but inline data).
"""

from __future__ import annotations

import importlib
import io
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from research.core import defaults as d
from research.views.topic_svg import INDENT

INSTALL = "pip install 'research-py[export]'"
LIBRARIES = {"pdf": ("weasyprint", "WeasyPrint"), "docx": ("docx", "python-docx")}
PRINT_CSS = """
@page { size: A4; margin: 18mm 16mm; }
body { font-size: 11pt; }
main { max-width: none; padding: 0; }
.pop { display: none !important; }
sup.cite { color: #0b57d0; font-size: .75em; line-height: 1; }
sup.cite.unsupported, sup.cite.weak, sup.cite.unverifiable { color: #a11; }
a { color: #0b57d0; }
figure.tree svg { max-width: 100%; }
h1, h2, h3 { break-after: avoid; }
"""


_CITE_BUTTON = re.compile(r'<button type="button" class="cite ?([^"]*)"[^>]*>(.*?)</button>')


def export_formats(value: str | None) -> tuple[str, ...]:
    """The formats of an --export value ("pdf,docx"), in the one order."""
    asked = {part.strip().lower() for part in (value or "").split(",")}
    return tuple(f for f in d.EXPORT_FORMATS if f in asked)


def missing_library(formats: Iterable[str]) -> str | None:
    """One line saying how to install what the formats need, or None when it is there."""
    for fmt in formats:
        module, label = LIBRARIES[fmt]
        try:
            importlib.import_module(module)
        except ImportError:
            return f"--export {fmt} needs {label}, which is not installed: {INSTALL}"
        except OSError as exc:  # WeasyPrint without the system's pango
            return (
                f"--export {fmt} needs {label}, which cannot load a system library ({exc}); "
                "install pango (Debian: apt-get install libpango-1.0-0 libpangoft2-1.0-0)"
            )
    return None


def report_pdf(html: str, base: Path) -> bytes:
    """The report page printed to PDF (popovers hidden, citations as their numbers)."""
    import weasyprint  # type: ignore[import-untyped, unused-ignore]

    def refuse(url: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        if url.startswith("data:"):
            return weasyprint.default_url_fetcher(url, *args, **kwargs)  # type: ignore[no-any-return]
        raise ValueError(f"not fetched: {url[:80]}")

    html = _CITE_BUTTON.sub(r'<sup class="cite \1">\2</sup>', html)  # paper has no buttons
    document = weasyprint.HTML(string=html, base_url=str(base), url_fetcher=refuse)
    data = document.write_pdf(stylesheets=[weasyprint.CSS(string=PRINT_CSS)])
    assert isinstance(data, bytes)
    return data


def report_docx(html: str) -> bytes:
    """The report page as a Word document: headings, paragraphs with their citations and
    marks, lists, quotes, tables, and the topic tree as indented lines."""
    from docx import Document
    from lxml import html as lxml_html  # type: ignore[import-untyped, unused-ignore]

    root = lxml_html.document_fromstring(html)
    main = root.find(".//main")
    document = Document()
    title = root.findtext(".//title")
    if title:
        document.core_properties.title = title
    writer = _DocxWriter(document)
    for node in main if main is not None else root.iter("body"):
        writer.block(node)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


class _DocxWriter:
    """Walks report.html's <main> and adds each block to the document."""

    def __init__(self, document: Any) -> None:
        self.document = document
        self.handlers: dict[str, Callable[[Any], None]] = {
            "p": lambda node: self.inline(self.document.add_paragraph(), node),
            "ul": lambda node: self.items(node, "List Bullet", 1),
            "ol": lambda node: self.items(node, "List Number", 1),
            "blockquote": self.quote,
            "pre": self.pre,
            "table": self.table,
            "figure": self.figure,
            "hr": lambda node: None,
        }

    def block(self, node: Any) -> None:
        tag = node.tag if isinstance(node.tag, str) else ""
        classes = (node.get("class") or "").split()
        if "pop" in classes:  # a citation's popover: the page's, not the document's
            return
        if re.fullmatch(r"h[1-6]", tag):
            level = min(int(tag[1]), 4)
            self.inline(self.document.add_heading(level=0 if level == 1 else level - 1), node)
        elif tag in self.handlers:
            self.handlers[tag](node)
        elif tag == "div" and "table" in classes:
            for child in node:
                self.block(child)
        elif len(node):
            for child in node:
                self.block(child)
        elif (node.text_content() or "").strip():
            self.document.add_paragraph(node.text_content().strip())

    def inline(self, paragraph: Any, node: Any, style: frozenset[str] = frozenset()) -> None:
        """The node's text and inline children as runs: bold, italic, code, links, the
        citations' numbers and the † marks."""
        if node.text:
            self.run(paragraph, node.text, style)
        for child in node:
            tag = child.tag if isinstance(child.tag, str) else ""
            classes = (child.get("class") or "").split()
            if tag == "br":
                paragraph.add_run().add_break()
            elif tag in ("ul", "ol"):  # a nested list in a list item: after this paragraph
                pass
            elif "flag" in classes:
                self.run(paragraph, child.text_content(), style | {"bold", "flag"})
            else:
                extra = {
                    "strong": "bold",
                    "b": "bold",
                    "em": "italic",
                    "i": "italic",
                    "code": "code",
                    "a": "link",
                    "button": "cite",
                }.get(tag)
                self.inline(paragraph, child, style | ({extra} if extra else set()))
            if child.tail:
                self.run(paragraph, child.tail, style)

    @staticmethod
    def run(paragraph: Any, text: str, style: frozenset[str]) -> None:
        from docx.shared import RGBColor

        text = re.sub(r"\s+", " ", text)
        if not text:
            return
        run = paragraph.add_run(text)
        run.bold = "bold" in style or None
        run.italic = "italic" in style or None
        if "code" in style:
            run.font.name = "Courier New"
        if "link" in style or "cite" in style:
            run.font.color.rgb = RGBColor(0x0B, 0x57, 0xD0)
        if "flag" in style:
            run.font.color.rgb = RGBColor(0xAA, 0x11, 0x11)

    def items(self, node: Any, style: str, level: int) -> None:
        name = style if level == 1 else f"{style} {min(level, 3)}"
        for item in node.findall("li"):
            blocks = [c for c in item if c.tag in ("p", "ul", "ol")]
            paragraph = self.document.add_paragraph(style=name)
            if any(c.tag == "p" for c in blocks):  # a loose list: its paragraphs' text
                for child in (c for c in blocks if c.tag == "p"):
                    self.inline(paragraph, child)
            else:
                self.inline(paragraph, item)
            for nested in (c for c in item if c.tag in ("ul", "ol")):
                kind = "List Bullet" if nested.tag == "ul" else "List Number"
                self.items(nested, kind, level + 1)

    def quote(self, node: Any) -> None:
        children = [c for c in node if isinstance(c.tag, str)]
        for child in children or [node]:
            self.inline(self.document.add_paragraph(style="Quote"), child)

    def pre(self, node: Any) -> None:
        paragraph = self.document.add_paragraph()
        run = paragraph.add_run(node.text_content().rstrip("\n"))
        run.font.name = "Courier New"

    def table(self, node: Any) -> None:
        rows = [
            [cell.text_content().strip() for cell in row if cell.tag in ("td", "th")]
            for row in node.iter("tr")
        ]
        rows = [row for row in rows if row]
        if not rows:
            return
        width = max(len(row) for row in rows)
        table = self.document.add_table(rows=len(rows), cols=width)
        table.style = "Table Grid"
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                table.cell(r, c).text = text

    def figure(self, node: Any) -> None:
        """The topic tree's SVG as one line per row, indented by its depth."""
        from docx.shared import Pt

        for group in node.iter("{http://www.w3.org/2000/svg}g", "g"):
            title = group.findtext("{http://www.w3.org/2000/svg}title") or group.findtext("title")
            rect = group.find("{http://www.w3.org/2000/svg}rect")
            rect = rect if rect is not None else group.find("rect")
            if not title or rect is None:
                continue
            level = max(0, round((float(rect.get("x") or 8) - 8) / INDENT))
            paragraph = self.document.add_paragraph(("\u2514 " if level else "") + title)
            paragraph.paragraph_format.left_indent = Pt(14 * level)

"""PostgreSQL's documentation source (DocBook XML, doc/src/sgml/*.sgml) as plain HTML.

Used by `to_text.py docbook`: the HTML then goes through the product's HTML extractor, as
the page on postgresql.org would. Only what the reader sees is kept: sections, titles,
paragraphs, lists, tables, program listings and inline text. Index terms, a reference
page's volume number and comments are dropped, and a cross-reference (`<xref>`) whose
label the site generator computes ("Table K.1", "Section 65.2") is dropped with it. A
reference page's title (`<refentrytitle>`) becomes its heading.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

_CDATA = re.compile(r"<!\[CDATA\[(.*?)\]\]>", re.DOTALL)
_DROPPED = {"indexterm", "manvolnum", "refmiscinfo"}
_SECTIONS = {
    "appendix",
    "chapter",
    "part",
    "preface",
    "section",
    "sect1",
    "sect2",
    "sect3",
    "sect4",
    "refentry",
    "refsect1",
    "refsect2",
    "refsect3",
    "refsynopsisdiv",
    "refmeta",
    "note",
    "tip",
    "warning",
    "caution",
    "important",
}
_SIMPLE = {
    "para": "p",
    "simpara": "p",
    "formalpara": "div",
    "refnamediv": "p",
    "cmdsynopsis": "p",
    "screen": "pre",
    "programlisting": "pre",
    "synopsis": "pre",
    "literallayout": "pre",
    "table": "table",
    "informaltable": "table",
    "thead": "thead",
    "tbody": "tbody",
    "row": "tr",
    "itemizedlist": "ul",
    "orderedlist": "ol",
    "simplelist": "ul",
    "member": "li",
    "variablelist": "dl",
    "term": "dt",
    "blockquote": "blockquote",
}


class _DocBook(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.stack: list[str] = []
        self.title = ""
        self.in_title = False
        self.dropping = 0
        self.repeats: list[bool] = []

    def _html(self, tag: str) -> str | None:
        parent = self.stack[-2] if len(self.stack) > 1 else ""
        if tag in _SECTIONS:
            return "section"
        if tag == "title":
            return "caption" if parent in ("table", "informaltable") else "h2"
        if tag == "refentrytitle":
            return "h1"
        if tag == "entry":
            return "th" if "thead" in self.stack else "td"
        if tag == "listitem":
            return "dd" if parent == "varlistentry" else "li"
        return _SIMPLE.get(tag)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.dropping or tag in _DROPPED:
            self.dropping += 1
            return
        self.stack.append(tag)
        mapped = self._html(tag)
        if mapped:
            self.out.append(f"<{mapped}>")
        if tag in ("title", "refentrytitle") and not self.title:
            self.in_title = True
        if tag == "refpurpose":
            self.out.append(" — ")
        if tag == "arg":
            self.out.append(" [")
            self.repeats.append(dict(attrs).get("rep") == "repeat")

    def handle_endtag(self, tag: str) -> None:
        if self.dropping:
            self.dropping -= 1
            return
        if tag not in self.stack:
            return
        while self.stack:
            open_tag = self.stack[-1]
            mapped = self._html(open_tag)
            if open_tag == "arg":
                self.out.append("...]" if self.repeats.pop() else "]")
            if mapped:
                self.out.append(f"</{mapped}>")
            self.stack.pop()
            if open_tag in ("title", "refentrytitle"):
                self.in_title = False
            if open_tag == tag:
                break

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pass  # <xref/>, <colspec/>, <co/>: nothing the reader sees as text

    def handle_data(self, data: str) -> None:
        if self.dropping:
            return
        if self.in_title:
            self.title += data
        self.out.append(html.escape(data, quote=False))


def docbook_html(source: str) -> str:
    """The DocBook `source` as an HTML page; ValueError when the parser cannot read it (a
    marked section other than CDATA, IGNORE or INCLUDE: `<![foo[`)."""
    source = _CDATA.sub(lambda block: html.escape(block.group(1), quote=False), source)
    parser = _DocBook()
    try:
        parser.feed(source)
        parser.close()
    except AssertionError as error:  # how html.parser reports markup it cannot read
        raise ValueError(f"unreadable markup: {error}") from None
    head = html.escape(" ".join(parser.title.split()), quote=False)
    body = "".join(parser.out)
    return f"<html><head><title>{head}</title></head><body><article>{body}</article></body></html>"

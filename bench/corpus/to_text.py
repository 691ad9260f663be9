"""Turn a source document into the page text the product keeps for it (issue 26's corpus).

    python bench/corpus/to_text.py md  README.md  out.txt   # Markdown, as GitHub shows it
    python bench/corpus/to_text.py site post.md out.txt     # a blog's Markdown source
    python bench/corpus/to_text.py rst pep-0602.rst out.txt # a raw text file, kept as is
    python bench/corpus/to_text.py man pipe.7 out.txt       # a man page, as `man` renders it
    python bench/corpus/to_text.py docsrc cpu.in out.txt    # a page of SQLite's docsrc
    python bench/corpus/to_text.py docbook limits.sgml out.txt  # PostgreSQL's doc source

Markdown is rendered to HTML (markdown-it, CommonMark with tables) and then goes through the
product's own HTML extractor, as a README page fetched from the web would. A blog's
Markdown source ("site") first loses its front matter (the +++ or --- block the site
generator reads) and its template tags ({{ ... }}, {% ... %}: the site renders them as
charts or drops them). Text files go through the product's plain-text path. Man pages are
rendered by groff (80 columns, no hyphenation, no adjustment, plain UTF-8) and then take
the plain-text path. A page of SQLite's documentation source ("docsrc", pages/*.in) is HTML
with the generator's markup: its <tcl> blocks (keywords, fragments) are dropped, a link
[target|label] or [label] becomes its label, <codeblock> becomes <pre>, and the HTML goes
through the product's HTML extractor as the page on sqlite.org would (pages whose text the
TCL generates, such as limits.in, cannot be made this way). A page of PostgreSQL's
documentation source ("docbook", doc/src/sgml/*.sgml, DocBook XML) becomes plain HTML
(docbook.py: sections, titles, paragraphs, lists, tables and listings kept, index terms
and computed cross-reference labels dropped) and goes through the same HTML extractor as
the page on postgresql.org would. Used once, when the corpus
was written; the pages in bench/corpus/*/pages are its output, never edited.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from research.sources.extract import Extracted, extract  # noqa: E402

_FRONT_MATTER = re.compile(r"\A(\+\+\+|---)\n.*?\n\1\n", re.DOTALL)
_TEMPLATE_TAG = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.DOTALL)
_DOCSRC_TCL = re.compile(r"<tcl>.*?</tcl>", re.DOTALL)
_DOCSRC_TITLE = re.compile(r"<title>(.*?)</title>", re.DOTALL)
_DOCSRC_LINK = re.compile(r"\[(?:[^\[\]|]*\|)?([^\[\]|]+)\]")


def markdown_html(source: str, title: str) -> str:
    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark").enable("table").render(source)
    return f"<html><head><title>{title}</title></head><body><article>{body}</article></body></html>"


def docsrc_html(source: str) -> str:
    title = _DOCSRC_TITLE.search(source)
    body = _DOCSRC_TCL.sub("", _DOCSRC_TITLE.sub("", source))
    body = body.replace("<table_of_contents>", "")
    body = body.replace("<codeblock>", "<pre>").replace("</codeblock>", "</pre>")
    body = _DOCSRC_LINK.sub(lambda link: link.group(1).strip(), body)
    head = title.group(1) if title else ""
    return f"<html><head><title>{head}</title></head><body><article>{body}</article></body></html>"


def man_text(path: Path) -> str:
    rendered = subprocess.run(
        ["groff", "-t", "-man", "-Tutf8", "-P", "-cbou", "-rLL=80n", "-rHY=0", "-dAD=l", str(path)],
        capture_output=True,
        check=True,
    ).stdout
    return rendered.decode("utf-8")


def main() -> int:
    kind, source, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    try:
        found = _extracted(kind, source)
    except (OSError, ValueError) as error:  # no such file, not UTF-8, unreadable markup
        print(f"{source}: {error}", file=sys.stderr)
        return 1
    if found is None:
        print(f"{source}: nothing readable", file=sys.stderr)
        return 1
    out.write_text(found.text + "\n", encoding="utf-8")
    return 0


def _extracted(kind: str, source: Path) -> Extracted | None:
    """The text of `source` read as `kind` (see the module docstring)."""
    if kind in ("md", "site"):
        text = source.read_text(encoding="utf-8")
        if kind == "site":
            text = _TEMPLATE_TAG.sub("", _FRONT_MATTER.sub("", text))
        html = markdown_html(text, source.name)
        return extract(html.encode("utf-8"), "text/html; charset=utf-8")
    if kind == "docsrc":
        html = docsrc_html(source.read_text(encoding="utf-8"))
        return extract(html.encode("utf-8"), "text/html; charset=utf-8")
    if kind == "docbook":
        from docbook import docbook_html

        html = docbook_html(source.read_text(encoding="utf-8"))
        return extract(html.encode("utf-8"), "text/html; charset=utf-8")
    if kind == "man":
        return extract(man_text(source).encode("utf-8"), "text/plain; charset=utf-8")
    return extract(source.read_bytes(), "text/plain; charset=utf-8")


if __name__ == "__main__":
    sys.exit(main())

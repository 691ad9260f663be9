"""Turn a source document into the page text the product keeps for it (issue 26's corpus).

    python bench/corpus/to_text.py md  README.md  out.txt   # Markdown, as GitHub shows it
    python bench/corpus/to_text.py site post.md out.txt     # a blog's Markdown source
    python bench/corpus/to_text.py rst pep-0602.rst out.txt # a raw text file, kept as is
    python bench/corpus/to_text.py man pipe.7 out.txt       # a man page, as `man` renders it

Markdown is rendered to HTML (markdown-it, CommonMark with tables) and then goes through the
product's own HTML extractor, as a README page fetched from the web would. A blog's
Markdown source ("site") first loses its front matter (the +++ or --- block the site
generator reads) and its template tags ({{ ... }}, {% ... %}: the site renders them as
charts or drops them). Text files go through the product's plain-text path. Man pages are
rendered by groff (80 columns, no hyphenation, no adjustment, plain UTF-8) and then take
the plain-text path. Used once, when the corpus was written; the pages in
bench/corpus/*/pages are its output, never edited.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from research.sources.extract import extract  # noqa: E402

_FRONT_MATTER = re.compile(r"\A(\+\+\+|---)\n.*?\n\1\n", re.DOTALL)
_TEMPLATE_TAG = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.DOTALL)


def markdown_html(source: str, title: str) -> str:
    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark").enable("table").render(source)
    return f"<html><head><title>{title}</title></head><body><article>{body}</article></body></html>"


def man_text(path: Path) -> str:
    rendered = subprocess.run(
        ["groff", "-t", "-man", "-Tutf8", "-P", "-cbou", "-rLL=80n", "-rHY=0", "-dAD=l", str(path)],
        capture_output=True,
        check=True,
    ).stdout
    return rendered.decode("utf-8")


def main() -> int:
    kind, source, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    if kind in ("md", "site"):
        text = source.read_text(encoding="utf-8")
        if kind == "site":
            text = _TEMPLATE_TAG.sub("", _FRONT_MATTER.sub("", text))
        html = markdown_html(text, source.name)
        found = extract(html.encode("utf-8"), "text/html; charset=utf-8")
    elif kind == "man":
        found = extract(man_text(source).encode("utf-8"), "text/plain; charset=utf-8")
    else:
        found = extract(source.read_bytes(), "text/plain; charset=utf-8")
    if found is None:
        print(f"{source}: nothing readable", file=sys.stderr)
        return 1
    out.write_text(found.text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

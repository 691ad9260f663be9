"""A fetched body (or a local document) to readable text: HTML main content, PDF text,
plain text or Markdown as is.

The extractors (trafilatura, lxml, pypdf) are imported inside the functions that use
them, so importing this module costs nothing at start-up.

HTML: trafilatura's main-content text (tables kept, recall favoured). When it finds no
main content, or only a sliver of the page (less than `MIN_MAIN_SHARE` of the visible
text), the whole visible text is kept instead: the claim check needs the page's figures
more than it needs clean prose. Pages over `MAX_MAIN_BYTES` keep the visible text at once.

trafilatura reads a corrected tree (research/sources/content_tree.py): content lists,
paragraphs with a few links, figures, callouts, footnotes, times, formulas, headings with
permalinks and <pre> lines that it would otherwise drop or flatten; the whole visible text
gets the corrections that keep figures apart from footnote marks, exponents and formulas
(`correct_visible_tree`). The page's title and the publication date its markup states
come first in the text when the text lacks them (research/sources/pagehead.py).
"""

from __future__ import annotations

import codecs
import io
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from research.sources.content_tree import correct_tree, correct_visible_tree
from research.sources.pagehead import published_date, with_head

if TYPE_CHECKING:
    from lxml.html import HtmlElement  # type: ignore[import-untyped, unused-ignore]

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
PDF_TYPES = frozenset({"application/pdf", "application/x-pdf"})
PLAIN_TYPES = frozenset({"text/plain", "text/markdown", "text/x-markdown"})
SNIFFED_TYPES = frozenset({"", "application/octet-stream", "binary/octet-stream"})
"""Content types that say nothing: the body's first bytes decide (%PDF, or an HTML tag)."""

MIN_MAIN_CHARS = 200
MIN_MAIN_SHARE = 0.1
"""Below max(MIN_MAIN_CHARS, MIN_MAIN_SHARE × visible text) the main content is a sliver."""
MAX_MAIN_BYTES = 2_000_000
"""HTML larger than this skips the main-content pass and keeps the visible text: trafilatura
costs about 0.6 s and 40-50 MB of memory per MB of HTML, lxml alone a tenth of that."""
MAX_TITLE = 300

_CHARSET = re.compile(r"charset\s*=\s*[\"']?([\w.:-]+)", re.IGNORECASE)
_META_CHARSET = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?([\w.:-]+)", re.IGNORECASE)
_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)
_HTML_START = re.compile(
    rb"^\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b", re.IGNORECASE | re.DOTALL
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SOUP_HIDDEN = re.compile(r"<(script|style|noscript|template|head|svg)\b|<!--", re.IGNORECASE)
_SOUP_BLOCK = re.compile(
    r"</?(?:address|article|aside|blockquote|br|caption|dd|div|dl|dt|figcaption|figure|footer|"
    r"h[1-6]|header|hr|li|main|nav|ol|p|pre|section|table|tbody|thead|tfoot|tr|ul)\b[^<>]*>",
    re.IGNORECASE,
)
_SOUP_CELL = re.compile(r"</t[dh]\s*>", re.IGNORECASE)
_SOUP_TAG = re.compile(r"<[^<>]*>")
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")
_BLANK_LINES = re.compile(r"\n{3,}")

_INVISIBLE = ("script", "style", "noscript", "template", "head", "svg", "iframe", "object")
_BLOCKS = frozenset(
    "address article aside blockquote br caption dd details div dl dt fieldset figcaption "
    "figure footer form h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section summary "
    "table tbody thead tfoot tr ul".split()
)
_CELLS = frozenset({"td", "th"})


@dataclass(frozen=True)
class Extracted:
    """A document's readable text and its title (possibly empty)."""

    title: str
    text: str


def media_type(content_type: str) -> str:
    """`text/HTML; charset=utf-8` → `text/html`."""
    return content_type.split(";", 1)[0].strip().lower()


def charset_of(content_type: str) -> str | None:
    """The charset a Content-Type declares, when Python knows it."""
    match = _CHARSET.search(content_type)
    if match is None:
        return None
    try:
        return codecs.lookup(match.group(1)).name
    except LookupError:
        return None


def kind_of(content_type: str, head: bytes = b"") -> str | None:
    """ "html", "pdf" or "plain" for the content types this module reads, else None.

    `head` (the body's first bytes) decides when the type says nothing, and a body that
    starts with %PDF is a PDF whatever the type says."""
    mtype = media_type(content_type)
    if head.lstrip()[:5] == b"%PDF-" or mtype in PDF_TYPES:
        return "pdf"
    if mtype in HTML_TYPES:
        return "html"
    if mtype in PLAIN_TYPES:
        return "plain"
    if mtype in SNIFFED_TYPES and _HTML_START.match(head[:1024]):
        return "html"
    return None


def extract(body: bytes, content_type: str, url: str = "") -> Extracted | None:
    """The readable text of `body`, or None when it is not text or has nothing readable."""
    kind = kind_of(content_type, body[:1024])
    try:
        if kind == "html":
            found = _html(body, charset_of(content_type), url)
        elif kind == "pdf":
            found = _pdf(body)
        elif kind == "plain":
            found = _plain(body, charset_of(content_type))
        else:
            return None
    except ImportError:
        raise  # a broken install, not a page without text: the fetch records what is missing
    except Exception:  # a malformed document is "nothing readable", never a crash
        return None
    if found is None or not found.text.strip():
        return None
    return found


def _clean(text: str) -> str:
    """Valid UTF-8 (lone surrogates replaced), no NULs, trimmed spaces and blank lines."""
    text = _CONTROL.sub("", text.encode("utf-8", "replace").decode("utf-8"))
    lines = (_SPACES.sub(" ", line).strip() for line in text.replace("\r\n", "\n").split("\n"))
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()


def _title(text: str) -> str:
    return _clean(text).replace("\n", " ")[:MAX_TITLE]


def _first_line(text: str) -> str:
    return next((line.strip()[:MAX_TITLE] for line in text.splitlines() if line.strip()), "")


def _decode(body: bytes, declared: str | None) -> str:
    """Declared charset, else a byte-order mark, else utf-8, else windows-1252."""
    if declared:
        return body.decode(declared, errors="replace")
    for bom, encoding in (
        (codecs.BOM_UTF8, "utf-8-sig"),
        (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"),
    ):
        if body.startswith(bom):
            return body.decode(encoding, errors="replace")
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return body.decode("windows-1252", errors="replace")


def _plain(body: bytes, declared: str | None) -> Extracted:
    text = _clean(_decode(body, declared))
    return Extracted(title=_first_line(text), text=text)


def _html_charset(body: bytes, declared: str | None) -> str | None:
    if declared:
        return declared
    match = _META_CHARSET.search(body[:4096])
    if match is None:
        return None
    try:
        return codecs.lookup(match.group(1).decode("ascii", "replace")).name
    except LookupError:
        return None


def _html(body: bytes, declared: str | None, url: str) -> Extracted | None:
    import lxml.html  # type: ignore[import-untyped, unused-ignore]

    markup = _XML_DECL.sub("", _decode(body, _html_charset(body, declared)), count=1)
    if not markup.strip():
        return None
    tree = lxml.html.document_fromstring(markup)
    title = _html_title(tree)
    published = published_date(tree)  # before visible_text strips the scripts (JSON-LD)
    correct_visible_tree(tree)
    visible = _clean(visible_text(tree))
    soup = _clean(tag_soup_text(markup))
    if len(visible) < len(soup) // 2:  # the parser gave up (libxml2 stops 255 levels deep)
        visible = soup
    text = visible
    if len(body) <= MAX_MAIN_BYTES:
        main = _clean(_main_text(markup, url))
        sliver = len(main) < max(MIN_MAIN_CHARS, MIN_MAIN_SHARE * len(visible))
        if not (sliver and len(visible) > len(main)):
            text = main
    return Extracted(title=title or _first_line(text), text=with_head(text, title, published))


def _main_text(markup: str, url: str) -> str:
    """trafilatura's main content of `markup` (empty when it finds none), read from a
    corrected tree (see the module's docstring)."""
    import trafilatura

    tree = trafilatura.load_html(markup)
    if tree is None:
        return ""
    correct_tree(tree)
    main = trafilatura.extract(
        tree,
        url=url or None,
        favor_recall=True,
        include_tables=True,
        include_comments=False,
        deduplicate=False,
    )
    return main or ""


_TITLES = (
    "//head/title",
    "//title[not(ancestor::svg)]",  # an icon's <title> is no title of the page
    '//meta[@property="og:title"]/@content',
    "//h1",
)


def _html_title(tree: HtmlElement) -> str:
    for path in _TITLES:
        found = tree.xpath(path)
        if found:
            first = found[0]
            title = _title(first if isinstance(first, str) else first.text_content())
            if title:
                return title
    return ""


def visible_text(tree: HtmlElement) -> str:
    """All text a reader sees, one line per block, table cells separated by " | ".
    Strips scripts, styles and comments from `tree` in place."""
    from lxml import etree  # type: ignore[import-untyped, unused-ignore]

    parts: list[str] = []
    body = tree.find("body")
    root = body if body is not None else tree
    etree.strip_elements(
        root, etree.Comment, etree.ProcessingInstruction, *_INVISIBLE, with_tail=False
    )
    for event, element in etree.iterwalk(root, events=("start", "end")):
        tag = element.tag
        if event == "start":
            if tag in _BLOCKS:
                parts.append("\n")
            if element.text:
                parts.append(element.text)
            continue
        if tag in _CELLS:
            parts.append(" | ")
        elif tag in _BLOCKS:
            parts.append("\n")
        if element is not root and element.tail:
            parts.append(element.tail)
    return "".join(parts).replace(" | \n", "\n")


def tag_soup_text(markup: str) -> str:
    """The text of `markup` by regular expressions alone: the fallback for pages the HTML
    parser cannot build a tree of (nesting deeper than libxml2's limit)."""
    import html

    text = _drop_hidden(markup)
    text = _SOUP_CELL.sub(" | ", text)
    text = _SOUP_BLOCK.sub("\n", text)
    return html.unescape(_SOUP_TAG.sub("", text))


def _drop_hidden(markup: str) -> str:
    """`markup` without scripts, styles and comments, in one forward pass (an element left
    open hides the rest of the page, as a browser would)."""
    parts: list[str] = []
    pos = 0
    while (found := _SOUP_HIDDEN.search(markup, pos)) is not None:
        parts.append(markup[pos : found.start()])
        name = found.group(1)
        close = re.compile(rf"</{name}\b[^<>]*>" if name else "-->", re.IGNORECASE)
        end = close.search(markup, found.end())
        if end is None:
            return " ".join(parts)
        pos = end.end()
    parts.append(markup[pos:])
    return " ".join(parts)


def _pdf(body: bytes) -> Extracted | None:
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(body))
    if reader.is_encrypted and not reader.decrypt(""):
        return None
    pages: list[str] = []
    for page in reader.pages:
        try:
            pages.append(page.extract_text() or "")
        except Exception:  # one unreadable page does not lose the others
            pages.append("")
    text = _clean("\n\n".join(pages))
    meta_title = ""
    try:
        meta = reader.metadata
        meta_title = _title(str(meta.title)) if meta is not None and meta.title else ""
    except Exception:
        pass
    return Extracted(title=meta_title or _first_line(text), text=text)

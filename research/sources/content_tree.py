"""Corrections to the HTML tree trafilatura reads (research/sources/extract.py), each about
content trafilatura would drop as boilerplate though a reader sees it as part of the text.
Each works in place on the tree `trafilatura.load_html` gives; `correct_tree` runs them all.

- Content lists: a list is kept whole when it is prose (links are less than half its text)
  or when it is nested in a list item with text of its own ("Package managers:" over a list
  of links): its links are unwrapped, since trafilatura drops short link-dense lists as
  navigation and we keep no links anyway. So is a list right after a paragraph ending
  with a colon ("Bindings:" over links to each). Link-only menus (an item that is itself
  a link over a list of links) and lists under a heading ("Related") are still dropped.
- Linked paragraphs: a paragraph (or a <div> holding no block) with two or more links
  that are less than half its text ("Benchmarks: ripgrep is 5x faster than grep and ag.")
  has its links unwrapped, and so has one that ends like a sentence with two words of
  its own ("See PEP 703 and PEP 684."): trafilatura drops a short paragraph whose links
  are mostly short words. "Tags: rust, perf" or "Share: Twitter Facebook" (mostly links,
  no sentence) are still dropped.
- Figures: a <figure> with text (a caption, a quotation, a code block: Jekyll wraps every
  highlighted block in one) becomes a <div> and its <figcaption> a paragraph: trafilatura
  deletes every figure. Image-only figures are left to it.
- Callouts and footnotes: an <aside> marked as a note, tip, warning, caution... (its
  class, role or aria-label: Starlight's and others' admonitions), and an <aside> or
  <footer> marked as footnotes, becomes a <div>: trafilatura deletes every aside and
  footer, and the others (sidebars, the page's footer) stay deleted.
- Captions: an element whose class or id names a caption ("wp-caption-text") loses that
  name: trafilatura deletes captions with the images it does not keep, and a caption
  ("Figure 3: the COP fell to 1.9 at -25 °C") is text.
- Footnote marks: a link to a place on the page whose text is a mark ("1", "[2]", "*")
  inside a <sup> or marked as a footnote reference is removed: glued to the figure it
  follows it changed the figure ("12%<sup>1</sup>" read "12%1", "rose 12<sup>3</sup>"
  read "rose 123"). The footnotes themselves are kept.
- Exponents: a number in a <sup> right after a digit is written with a caret:
  "10<sup>6</sup> tonnes" read "106 tonnes", and the claim check reads "10^6" as a million.
- Formulas: MathML without a TeX annotation or alttext (which trafilatura turns into
  the formula's TeX) gets an alttext written out linearly ("S=3.2", "10^6", "(1)/(2)",
  "sqrt(x)"): trafilatura deletes every <math>, and "The speedup is S = 3.2 on 8 cores"
  came out "The speedup is on 8 cores".
- Times: a <time> is unwrapped, its text kept: trafilatura deletes every <time>, and
  with it the date of "The release on <time>March 2, 2023</time> added 12 checks.".
- Headings: the permalink next to a heading (a link with no word in it: an icon, "#",
  "¶") is removed, and a link to a place on the same page inside a heading unwrapped: a
  short block holding a heading and a link without text (GitHub's rendered READMEs) was
  dropped as a link farm, so every heading of a README was lost.
- Code block wrappers: the elements around a <pre> that hold little else (a language
  label, a copy button) lose their class: trafilatura deletes elements by class words,
  and Prism's "code-toolbar" around every code block of a site holds "bar" (a nav bar's).
- Preformatted lines: a <pre> keeps its lines wherever it is: its content is wrapped in
  one <code>, which trafilatura keeps verbatim (a bare <pre> inside a blockquote, list
  item or definition came out on one line).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lxml.html import HtmlElement  # type: ignore[import-untyped, unused-ignore]

_LISTS = ("ul", "ol", "dl")
_ITEMS = frozenset({"li", "dd"})
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_WORD = re.compile(r"\w")
_TOKEN = re.compile(r"[a-z]+")
_OWN_WORD = re.compile(r"[^\W\d_]{2,}")
CALLOUTS = frozenset("admonition callout caution danger hint important note tip warning".split())
"""Words of an <aside>'s class, role or aria-label that make it part of the text."""
FOOTNOTES = frozenset("endnote endnotes footnote footnotes".split())
"""Words of an <aside>'s or <footer>'s class, role or aria-label that make it part of the
text (a footnote reference's that make it a mark)."""
_NOTE_MARK = re.compile(r"\[?(?:\d{1,3}|[a-z]|[*\u2020\u2021\u00a7]{1,3})\]?")
_NOTE_REFERENCE = FOOTNOTES | {"noteref", "fnref", "ref"}
WRAPPER_CHARS = 40
"""What an element around a <pre> may hold besides it and stay its wrapper (a label)."""
_PAGE_BLOCKS = frozenset({"html", "body", "main", "article", "section"})
_SPACES = re.compile(r"\s+")
_SCRIPTS = {
    "msup": ("^",),
    "msub": ("_",),
    "msubsup": ("_", "^"),
    "mover": ("^",),
    "munder": ("_",),
    "munderover": ("_", "^"),
}
"""MathML's script elements: what marks each script after the base."""
_EXPONENT = re.compile(r"[-\u2212+]?\d{1,3}")
_BLOCK_TAGS = frozenset(
    "address article aside blockquote details div dl figure footer form h1 h2 h3 h4 h5 h6 "
    "header hr nav ol p pre section table ul".split()
)


def correct_tree(tree: HtmlElement) -> None:
    """Every correction of the module's docstring, in place."""
    drop_footnote_marks(tree)  # first: the others unwrap links
    mark_exponents(tree)
    keep_content_lists(tree)
    keep_linked_paragraphs(tree)
    keep_figures(tree)
    keep_callouts(tree)
    keep_captions(tree)
    keep_heading_text(tree)
    keep_code_wrappers(tree)
    keep_times(tree)
    spell_formulas(tree)
    keep_preformatted_lines(tree)


def keep_content_lists(tree: HtmlElement) -> None:
    """Unwrap the links of every list that is content, in place: a list whose links are
    less than half its text, a list nested in an item with text of its own outside links
    and lists, or a list right after a paragraph of prose that ends with a colon
    ("Bindings:"). The whole nested subtree goes with it (sub-lists of links included)."""
    for found in list(tree.iter(*_LISTS)):
        links = found.findall(".//a")
        if not links:
            continue  # no links, or already unwrapped with an enclosing list
        item = next((up for up in found.iterancestors() if up.tag in _ITEMS), None)
        if (
            (item is not None and _WORD.search(_own_text(item)))
            or _is_prose(found, links)
            or _introduced(found)
        ):
            for link in links:
                link.drop_tag()


def _introduced(found: HtmlElement) -> bool:
    """Whether `found` comes right after a paragraph that ends with a colon and is not
    mostly links."""
    before = found.getprevious()
    if before is None or before.tag != "p" or (before.tail or "").strip():
        return False
    text = before.text_content().strip()
    return text.endswith(":") and _is_prose(before, before.findall(".//a"))


def _is_prose(element: HtmlElement, links: list[HtmlElement]) -> bool:
    """Whether the links of `element` are less than half its text (spaces not counted)."""
    link_chars = sum(_visible_chars(link.text_content()) for link in links)
    return 2 * link_chars < _visible_chars(element.text_content())


def _visible_chars(text: str) -> int:
    return len(text) - sum(map(text.count, " \t\r\n\f\v\u00a0"))


def _own_text(element: HtmlElement) -> str:
    """The text of `element` outside links and lists."""
    parts = [element.text or ""]
    for child in element:
        if isinstance(child.tag, str) and child.tag != "a" and child.tag not in _LISTS:
            parts.append(_own_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def keep_code_wrappers(tree: HtmlElement) -> None:
    """Drop the class of every element around a <pre> that holds at most WRAPPER_CHARS
    of text besides it, up to the first that holds more or a page block."""
    for pre in tree.iter("pre"):
        code = len(pre.text_content().strip())
        for wrapper in pre.iterancestors():
            if wrapper.tag in _PAGE_BLOCKS:
                break
            if len(wrapper.text_content().strip()) > code + WRAPPER_CHARS:
                break
            wrapper.attrib.pop("class", None)


def keep_times(tree: HtmlElement) -> None:
    """Unwrap every <time>."""
    for time in list(tree.iter("time")):
        time.drop_tag()


def correct_visible_tree(tree: HtmlElement) -> None:
    """The corrections the whole-page text needs too (`extract.visible_text`, read when the
    main content is a sliver): footnote marks, exponents, and every formula as its text
    (its TeX, its alttext or `linear_math`), not its digits run together ("½" read "12")."""
    drop_footnote_marks(tree)
    mark_exponents(tree)
    for math in list(tree.iter("math")):
        tex = math.xpath(".//annotation[contains(@encoding, 'tex')]")
        text = tex[0].text_content() if tex else math.get("alttext") or linear_math(math)
        math.tail = f" {_SPACES.sub(' ', text).strip()} {math.tail or ''}"
        math.drop_tree()


def spell_formulas(tree: HtmlElement) -> None:
    """Give every <math> without a TeX annotation or alttext its linear text as alttext."""
    for math in list(tree.iter("math")):
        if math.get("alttext") or math.find(".//annotation") is not None:
            continue
        text = linear_math(math).strip()
        if text:
            math.set("alttext", text)


def linear_math(element: HtmlElement) -> str:
    """A MathML element written on one line: fractions as (a)/(b), scripts as a^b and a_b,
    roots as sqrt(a) and root(n)(a), table rows split by "; " and cells by ", "."""
    parts = [linear_math(child) for child in element if isinstance(child.tag, str)]
    tag = element.tag
    if tag in ("mi", "mn", "mo", "mtext", "ms"):
        return _SPACES.sub(" ", element.text_content()).strip()
    if tag == "mfrac" and len(parts) == 2:
        return f"({parts[0]})/({parts[1]})"
    if tag in _SCRIPTS and len(parts) == len(_SCRIPTS[tag]) + 1:
        return parts[0] + "".join(
            f"{mark}{_grouped(part)}" for mark, part in zip(_SCRIPTS[tag], parts[1:], strict=True)
        )
    if tag == "msqrt":
        return f"sqrt({''.join(parts)})"
    if tag == "mroot" and len(parts) == 2:
        return f"root({parts[1]})({parts[0]})"
    if tag in ("mtr", "mlabeledtr"):
        return ", ".join(parts)
    if tag == "mtable":
        return "; ".join(parts)
    if tag == "mspace":
        return " "
    return "".join(parts)


def _grouped(part: str) -> str:
    return part if len(part) == 1 or part.isalnum() else f"({part})"


def keep_preformatted_lines(tree: HtmlElement) -> None:
    """Make every <pre> one <code> (wrapping its content unless it is one already), whose
    text starts with a space: the separator when the <pre> follows text inline. In place."""
    from lxml import etree  # type: ignore[import-untyped, unused-ignore]

    for pre in list(tree.iter("pre")):
        code = pre[0] if len(pre) == 1 and pre[0].tag == "code" else None
        if code is None or (pre.text or "").strip() or (code.tail or "").strip():
            code = etree.SubElement(pre, "code")
            code.text, pre.text = pre.text, None
            code.extend([child for child in pre if child is not code])
        if not (code.text or "")[:1].isspace():
            code.text = " " + (code.text or "")


def keep_linked_paragraphs(tree: HtmlElement) -> None:
    """Unwrap the links of every paragraph, or <div> holding no block, with two or more
    links that are less than half its text or that make a sentence with its other words."""
    for block in list(tree.iter("p", "div")):
        if block.tag == "div" and any(child.tag in _BLOCK_TAGS for child in block):
            continue
        links = block.findall(".//a")
        if len(links) >= 2 and (_is_prose(block, links) or _is_sentence(block)):
            for link in links:
                link.drop_tag()


def _is_sentence(block: HtmlElement) -> bool:
    """Whether `block` ends like a sentence and has two words of its own outside links
    ("See PEP 703 and PEP 684.")."""
    return block.text_content().strip().endswith((".", "!", "?")) and (
        len(_OWN_WORD.findall(_own_text(block))) >= 2
    )


def keep_figures(tree: HtmlElement) -> None:
    """Every <figure> with text becomes a <div>, its <figcaption>s paragraphs."""
    for figure in list(tree.iter("figure")):
        if _WORD.search(figure.text_content()):
            figure.tag = "div"
            for caption in figure.iter("figcaption"):
                caption.tag = "p"


def keep_callouts(tree: HtmlElement) -> None:
    """Every <aside> marked as a callout or footnotes, and every <footer> marked as
    footnotes, becomes a <div>."""
    for element in list(tree.iter("aside", "footer")):
        marks = _marks(element)
        if marks & FOOTNOTES or (element.tag == "aside" and marks & CALLOUTS):
            element.tag = "div"


def _marks(element: HtmlElement) -> set[str]:
    """The words of `element`'s class, role and aria-label, lowercase."""
    names = " ".join(element.get(name, "") for name in ("class", "role", "aria-label"))
    return set(_TOKEN.findall(names.lower()))


def keep_captions(tree: HtmlElement) -> None:
    """Drop the class names and id that name a caption from every element with text."""
    named = tree.xpath("//@class[contains(., 'caption')]|//@id[contains(., 'caption')]")
    for element in {name.getparent() for name in named}:
        if not _WORD.search(element.text_content()):
            continue
        names = [name for name in element.get("class", "").split() if "caption" not in name]
        element.set("class", " ".join(names))
        if "caption" in element.get("id", ""):
            del element.attrib["id"]


def drop_footnote_marks(tree: HtmlElement) -> None:
    """Remove every footnote reference: a link to a place on the page whose text is a
    mark, inside a <sup> (with it, when it is all the <sup> holds) or marked as one."""
    for link in tree.xpath("//a[starts-with(@href, '#')]"):
        if not _NOTE_MARK.fullmatch(link.text_content().strip()):
            continue
        sup = next((up for up in link.iterancestors() if up.tag == "sup"), None)
        if sup is None and link.find(".//sup") is None and not _marks(link) & _NOTE_REFERENCE:
            continue
        if sup is not None and sup.text_content().strip() == link.text_content().strip():
            sup.drop_tree()
        else:
            link.drop_tree()


def keep_heading_text(tree: HtmlElement) -> None:
    """Remove the links without a word in or beside each heading (permalinks), and unwrap
    its links to a place on the same page."""
    for heading in list(tree.iter(*_HEADINGS)):
        parent = heading.getparent()
        beside = [] if parent is None else [child for child in parent if child.tag == "a"]
        for link in [*heading.iter("a"), *beside]:
            if not _WORD.search(link.text_content()):
                link.drop_tree()
            elif link.getparent() is not parent and link.get("href", "").startswith("#"):
                link.drop_tag()


def mark_exponents(tree: HtmlElement) -> None:
    """Write every <sup> holding a number right after a digit as "^number"."""
    for sup in list(tree.iter("sup")):
        exponent = sup.text_content().strip()
        if _EXPONENT.fullmatch(exponent) and _text_before(sup)[-1:].isdigit():
            for child in list(sup):
                sup.remove(child)
            sup.text = "^" + exponent


def _text_before(element: HtmlElement) -> str:
    """The text right before `element` in its parent (not across blocks)."""
    previous = element.getprevious()
    if previous is not None:
        return str(previous.tail or previous.text_content())
    parent = element.getparent()
    return "" if parent is None else str(parent.text or "")

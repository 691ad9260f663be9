"""An HTML page's title and publication date as the first lines of its text, when the text
lacks them: a claim that names the page's title ("Go 1.21 is released") or its date ("in
its post of 8 August 2023") must find them, and the main content often leaves out both
(the heading and dateline sit in the template around the article, and trafilatura drops
bylines and datelines as metadata). The claim check reads them as the page's title block
(research/sources/pageindex.py `_title_block`).

The title is the page's own (<title>, else og:title, else the first <h1>: `extract.py`).
The date is written "Published YYYY-MM-DD", and only when the page's markup states a
publication date and states no other: a `<meta>` of `PUBLISHED_META` (article:published_time,
datePublished, citation_publication_date, ...), a `<time pubdate>` or an element with
itemprop="datePublished", or JSON-LD's "datePublished". A page whose markup gives two
different publication dates (a list of articles) gets none; a modification date is never
taken. Nothing is guessed from the text.
"""

from __future__ import annotations

import re
from datetime import date
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lxml.html import HtmlElement  # type: ignore[import-untyped, unused-ignore]

PUBLISHED_META = frozenset(
    {
        "article:published_time",
        "og:article:published_time",
        "datepublished",
        "citation_publication_date",
        "citation_date",
        "dc.date.issued",
        "dcterms.issued",
    }
)
"""The `<meta>` names or properties (lowercase) that state when a page was published."""

_ISO_DATE = re.compile(r"^\s*(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?!\d)")
_JSON_PUBLISHED = re.compile(r'"datePublished"\s*:\s*"([^"]*)"')
_SPACES = re.compile(r"\s+")
_MONTHS = (
    "January February March April May June July August September October November December"
).split()


def published_date(tree: HtmlElement) -> date | None:
    """The one publication date the page's markup states (see the module), else None.
    Read before anything strips the page's <script> elements."""
    found: set[date] = set()
    for meta in tree.iter("meta"):
        key = meta.get("property") or meta.get("name") or meta.get("itemprop") or ""
        if key.strip().lower() in PUBLISHED_META:
            found.add(_date_of(meta.get("content", "")) or date.min)
    for element in tree.xpath("//*[@itemprop='datePublished'][not(self::meta)]|//time[@pubdate]"):
        stated = element.get("datetime") or element.get("content") or element.text_content()
        found.add(_date_of(stated) or date.min)
    for script in tree.xpath("//script[@type='application/ld+json']"):
        for stated in _JSON_PUBLISHED.findall(script.text_content()):
            found.add(_date_of(stated) or date.min)
    found.discard(date.min)  # an unreadable date says nothing
    return found.pop() if len(found) == 1 else None


def _date_of(text: str) -> date | None:
    match = _ISO_DATE.match(text)
    if match is None:
        return None
    try:
        return date(*(int(part) for part in match.groups()))
    except ValueError:
        return None


def with_head(text: str, title: str, published: date | None) -> str:
    """`text` after what it lacks of `title` (a line of its own) and "Published <date>"
    (the date in any form of `_states`), with a blank line between them and the text. A
    page without text stays without: a title is not text."""
    if not text.strip():
        return text
    lines = []
    if title and _normal(title) not in {_normal(line) for line in text.splitlines()}:
        lines.append(title)
    if published is not None and not _states(text, published):
        lines.append(f"Published {published.isoformat()}")
    return "\n".join(lines) + "\n\n" + text if lines else text


def _normal(text: str) -> str:
    return _SPACES.sub(" ", text).strip().casefold()


def _states(text: str, day: date) -> bool:
    """Whether `text` gives `day` as 2023-08-08, 8 August 2023 or August 8, 2023 (or with
    the month's first three letters)."""
    text = _normal(text)
    month = _MONTHS[day.month - 1].casefold()
    forms = [day.isoformat()]
    for name in (month, month[:3]):
        forms += [f"{day.day} {name} {day.year}", f"{name} {day.day}, {day.year}"]
    return any(form in text for form in forms)

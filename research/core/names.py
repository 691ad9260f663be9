"""Slugs: the ASCII names of sessions and topics."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection

# Letters NFKD does not decompose into ASCII.
_TRANSLITERATE = str.maketrans(
    {"ß": "ss", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O",
     "đ": "d", "Đ": "D", "ł": "l", "Ł": "L", "þ": "th", "Þ": "Th", "ı": "i"}
)  # fmt: skip


def slugify(text: str, max_length: int = 60) -> str:
    """A lowercase ASCII hyphenated slug of `text`, at most `max_length` long ("topic" if empty)."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_TRANSLITERATE))
    # Accents go; any other non-ASCII character (dashes, CJK, emoji) separates words.
    ascii_text = "".join(c for c in decomposed if not unicodedata.combining(c))
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    if len(slug) > max_length:
        cut = slug[:max_length]
        if slug[max_length] != "-" and "-" in cut:
            cut = cut[: cut.rindex("-")]
        slug = cut.strip("-")
    return slug or "topic"


def unique_slug(base: str, taken: Collection[str]) -> str:
    """`base` if free, else the first free one of `base-2`, `base-3`, ..."""
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"

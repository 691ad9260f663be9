"""The key a table is looked up by for what a pattern that ignores case matched (pure).

Such a pattern's ASCII letter also matches a few letters beyond ASCII ("doublİng" matches
"doubling"), whose `str.lower` is no ASCII key ("İ".lower() is "i" and a combining dot): a
lookup by `.lower()` alone would raise KeyError on a page that holds one."""

from __future__ import annotations

ASCII_FOLDS = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})
"""The letters beyond ASCII that an ASCII letter of a pattern matches when case is ignored."""


def key(text: str) -> str:
    """`text` lower-cased as its table's key, the letters of ASCII_FOLDS folded to ASCII."""
    return text.lower() if text.isascii() else text.translate(ASCII_FOLDS).lower()

"""The marks that lay out a page's or a claim's lines, one reading of each for every module
(pure: standard library only): a list item's marker, the mark a block's line starts with,
a rule line, the end of a sentence."""

from __future__ import annotations

import re

BULLETS = r"\-*+\u2022"
"""The characters a list item's bullet is (escaped to stand anywhere in a character set)."""
NUMBERED = r"\d+[.)]"
"""A numbered list item's number ("2.", "3)")."""
LIST_MARK = rf"(?:[{BULLETS}]|{NUMBERED})"
"""A list item's marker: a bullet, or a number with a period or parenthesis ("2.", "3)")."""
BLOCK_MARK = rf"(?:[|>#{BULLETS}]|{NUMBERED}\s)"
"""What a line of a block starts with: a table row, a quote, a heading, a list item."""
_RULE_MARKS = r"-=~*_#^+\u2500\u2550"
RULE = re.compile(rf"[{_RULE_MARKS}]{{3,}}")
"""A rule line (fullmatch): a heading's underline, a break ("***", "\u2500\u2500\u2500")."""
RULE_WITH_SPACES = re.compile(rf"[{_RULE_MARKS}\s]{{3,}}")
"""A rule line with spaces (fullmatch): a table's border over its columns ("==== ====",
"- - -"); between rows of figures only, where it cannot be a list's item ("* -")."""
SENTENCE_ENDS = (".", "!", "?")
"""What a finished sentence ends with (a heading, a row or a lead-in ending in a colon
does not)."""

"""A claim's figure that is part of a name (pure: standard library only): one the page
writes glued to the name's initials (`glued_name`), one after a capitalised word
(`after_name`).

A careful writer spells a name out where the page abbreviates it: "a Visual Studio 2017
build" for the page's "vs2017", "Windows Server 2019" for "ws2019". The page's token is
an identifier (letters glued to digits), not a figure, so the claim's figure is on no
sentence of the page. `glued_name`: the claim's figure comes right after two to four
capitalised words, and the page holds a token of their initials glued to the same digits
(case aside, an optional hyphen or underscore between). A single word's initial is too
short to tell a name ("v2017" could be anything).

`after_name`: a claim's number right after one capitalised word that is not the first of
the text ("RHEL 7", "Python 3") is part of a name, not a count (`counted`). Both readings
share one capitalised word (`_CAPITALISED`). A number after a word that numbers things
("phase 3", "version 2.1") is read where figures are read, as kind "label" or "pinned"
(`figures._LABEL_BEFORE`, `figures._PINNED_BEFORE`): the page index is built on it.
"""

from __future__ import annotations

import re

from research.sources.figures import StatedNumber
from research.sources.pageindex import PageIndex

_CAPITALISED = r"[A-Z][\w+#-]*"
_NAME_BEFORE = re.compile(rf"((?:{_CAPITALISED}\s+){{2,4}})$")
_ONE_NAME_BEFORE = re.compile(rf"(?<=\S)\s+{_CAPITALISED}\s*$")


def after_name(norm: str, number: StatedNumber) -> bool:
    """Whether `number` (read from `norm`) comes right after a capitalised word that is not
    the text's first ("RHEL 7"): part of a name (see the module)."""
    return _ONE_NAME_BEFORE.search(norm, 0, number.span[0]) is not None


def glued_name(page: PageIndex, norm: str, number: StatedNumber) -> bool:
    """Whether the claim's `number` (read from `norm`) follows two to four capitalised words
    whose initials the page glues to the same digits (see the module)."""
    written = norm[number.span[0] : number.span[1]]
    if not written.isdigit():
        return False
    found = _NAME_BEFORE.search(norm, 0, number.span[0])
    if found is None:
        return False
    initials = "".join(word[0] for word in found.group(1).split()).lower()
    token = re.compile(rf"(?<![\w.]){re.escape(initials)}[-_]?{written}(?![\w.])", re.I)
    return any(token.search(sentence.text) for sentence in page.sentences)

"""A claim's figure that is part of a product's name, which the page writes glued to the
name's initials (pure: standard library only).

A careful writer spells a name out where the page abbreviates it: "a Visual Studio 2017
build" for the page's "vs2017", "Windows Server 2019" for "ws2019". The page's token is
an identifier (letters glued to digits), not a figure, so the claim's figure is on no
sentence of the page. `glued_name`: the claim's figure comes right after two to four
capitalised words, and the page holds a token of their initials glued to the same digits
(case aside, an optional hyphen or underscore between). A single word's initial is too
short to tell a name ("v2017" could be anything).
"""

from __future__ import annotations

import re

from research.sources.figures import StatedNumber
from research.sources.pageindex import PageIndex

_NAME_BEFORE = re.compile(r"((?:[A-Z][\w+#-]*\s+){2,4})$")


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

"""Whether a clause says a measure got better or worse (pure: standard library only), the
axis on which a speed word ("6% slower") and a change word ("improved by 6%", "cut latency
by 40%") meet: `research.sources.flips` reads a direction and a speed apart, and compares
them here only where the better side is not in doubt.

One table: a word that says better or worse itself ("improved", "regressed"); a speed
("faster" is better, "slower" worse); and a change up or down of a measure whose better
side is known: a time of something (a startup, build or response time), latency, memory,
overhead (lower is better) or throughput, speed, bandwidth (higher is better). "Time" alone
("at the time", "over time") is no measure. Words that disagree, or a clause naming
measures of both sides, say nothing.
"""

from __future__ import annotations

import re

BETTER = frozenset("improve improved improves improving improvement improvements better".split())
WORSE = frozenset(
    """worsen worsened worsens worsening worse regress regressed regresses regression
    regressions degrade degraded degrades degradation""".split()
)
_LOWER_IS_BETTER = frozenset("latency latencies memory overhead overheads footprint".split())
_HIGHER_IS_BETTER = frozenset("throughput speed speeds bandwidth".split())
_TIMED = re.compile(
    r"\b(?:startup|start-up|boot|build|compile|compilation|response|run|load|loading|wait"
    r"|waiting|execution|processing|query|render|rendering|install|installation|download"
    r"|upload|transfer|cpu|wall|test)[- ](?:times?)\b"
)
"""A time of something, whose lower side is better."""
CUES = BETTER | WORSE | _LOWER_IS_BETTER | _HIGHER_IS_BETTER | {"time", "times"}
"""A clause without one of these words says nothing on this axis (`merit` is not asked)."""


def _way(words: frozenset[str], up: frozenset[str], down: frozenset[str]) -> int:
    is_up, is_down = not words.isdisjoint(up), not words.isdisjoint(down)
    return 0 if is_up == is_down else (1 if is_up else -1)


def merit(text: str, words: frozenset[str], direction: int, speed: int) -> int:
    """+1 when the clause (`text` in lower case, its `words`) says only better, -1 only
    worse, else 0; `direction`: its change up (+1) or down (-1) less the words that say
    better or worse themselves, `speed`: faster (+1) or slower (-1)."""
    lower = not words.isdisjoint(_LOWER_IS_BETTER) or (
        not words.isdisjoint({"time", "times"}) and _TIMED.search(text) is not None
    )
    higher = not words.isdisjoint(_HIGHER_IS_BETTER)
    measure = 0 if lower == higher else (1 if higher else -1)
    said = {_way(words, BETTER, WORSE), speed, direction * measure} - {0}
    return said.pop() if len(said) == 1 else 0

"""Sets of small non-negative integers held as Python ints (bit i set: i is a member), so
that counting over many sets runs a machine word at a time (pure: standard library only).
The claim check counts, over its words' sets of passages, which passages hold the most."""

from __future__ import annotations

from collections.abc import Iterable


def mask_of(members: Iterable[int]) -> int:
    """The set of `members`."""
    mask = 0
    for member in members:
        mask |= 1 << member
    return mask


def most_covered(masks: Iterable[int]) -> tuple[int, int]:
    """How many of `masks` the integers in the most of them are in, and the set of those
    integers; (0, 0) when no mask has a member."""
    planes: list[int] = []  # bit j of each integer's count (a counter per bit position)
    for mask in masks:
        carry, j = mask, 0
        while carry:
            if j == len(planes):
                planes.append(carry)
                break
            planes[j], carry = planes[j] ^ carry, planes[j] & carry
            j += 1
    chosen = 0
    for plane in planes:
        chosen |= plane  # the integers in at least one mask
    best = 0
    for j in range(len(planes) - 1, -1, -1):  # the highest count, bit by bit
        kept = chosen & planes[j]
        if kept:
            chosen, best = kept, best | 1 << j
    return best, chosen


def lowest(mask: int, limit: int) -> list[int]:
    """The `limit` smallest members of `mask`, in order."""
    out: list[int] = []
    while mask and len(out) < limit:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out

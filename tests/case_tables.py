"""The parameters of a case table: groups of (page, claim, supported) cases, each with an id
"<group>-<index>", the ones not yet right marked strict xfail (so that one which starts
passing must leave the not-yet list). Used by test_careful_phrasings.py,
test_derived_figures.py and test_other_words.py."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import pytest


def case_params(
    groups: Mapping[str, Sequence[tuple[str, str, bool]]], not_yet: Collection[str]
) -> list[object]:
    params: list[object] = []
    for group, cases in groups.items():
        for index, (page, claim, supported) in enumerate(cases):
            case_id = f"{group}-{index:02d}"
            marks = [pytest.mark.xfail(strict=True)] if case_id in not_yet else []
            params.append(pytest.param(page, claim, supported, id=case_id, marks=marks))
    return params

"""The parameters of a case table: groups of (page, claim, supported) cases, each with an id
"<group>-<index>", the ones not yet right marked strict xfail (so that one which starts
passing must leave the not-yet list; an id there that names no case is an error, not an
entry silently ignored). Used by the case-table test files (test_careful_phrasings.py,
test_derived_figures.py, test_other_words.py and the others that import it)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import pytest


def case_params(
    groups: Mapping[str, Sequence[tuple[str, str, bool]]], not_yet: Collection[str]
) -> list[object]:
    params: list[object] = []
    ids: set[str] = set()
    for group, cases in groups.items():
        for index, (page, claim, supported) in enumerate(cases):
            case_id = f"{group}-{index:02d}"
            ids.add(case_id)
            marks = [pytest.mark.xfail(strict=True)] if case_id in not_yet else []
            params.append(pytest.param(page, claim, supported, id=case_id, marks=marks))
    if unknown := set(not_yet) - ids:
        raise ValueError(f"not-yet ids that name no case of the table: {sorted(unknown)}")
    return params

"""The parameters of a case table: groups of (page, claim, supported) cases, each with an id
"<group>-<index>", the ones not yet right marked strict xfail (so that one which starts
passing must leave the not-yet list; an id there that names no case is an error, not an
entry silently ignored). Used by the case-table test files (test_careful_phrasings.py,
test_derived_figures.py, test_other_words.py and the others that import it)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import pytest

from research.sources.claims import Support, check_claim, index_page

Case = tuple[str, str, bool]
"""(page, claim, supported)."""


def case_params(groups: Mapping[str, Sequence[Case]], not_yet: Collection[str]) -> list[object]:
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


def assert_checked(page: str, claim: str, supported: bool) -> None:
    """The claim check finds `claim` SUPPORTED by `page` exactly when `supported`."""
    check = check_claim(claim, index_page(page))
    assert (check.support is Support.SUPPORTED) is supported, check

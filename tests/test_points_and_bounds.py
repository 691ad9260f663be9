"""Two soundness holes of the claim check, case by case (issue 26): a difference in
percentage points computed from any two percentages of a passage, and a bound the page
gives ("up to 50%") read as if it were an exact figure. A small page, a claim, and whether
the check must find it SUPPORTED. Written before the rules that mend them; invented, not
from corpus sentences.

`POINTS`: a claim's "X was 12 percentage points higher than Y" is the difference of two
percentages of the page only when they are the two the claim compares: of one series
("44.5% ..., up from 39.1% last year"), or each beside a word of the claim the other lacks
("58% develop on Linux, 27% on macOS"); never with a percentage that is itself a change
("up 4% on last year", "an increase of 19%"), nor with one of a subject the claim does not
name. Each true claim has twins: a wrong difference, and a difference with such a figure.

`BOUNDS`: a bound the page gives is a bound (the semantics are `quantities.bound_meets`'s
table): the claim may restate it ("up to 50%" and "as much as 50%" for "up to 50%", "under
half" for "less than 50%"), but not overstate the page's maximum ("up to 60%" for "up to
50%"), nor bound it the other way ("more than 40%" for "up to 50%", "under 60%" for
"more than 50%", "nearly 50%" for "more than 50%"). `NEGATED` (added with the rule): a
negated bound is read the other way in a claim ("never holds more than 40") and not read
as a bound on a page ("don't add up to 100%").

`QUOTES`: a judge's quote holds a claim's difference in percentage points only as the
check reads it on a page (`claims.quote_holds_quantity`).

`NOT_YET` lists the cases that failed when the table was written (strict xfail): a change
removes its cases from that set, never edits a case.
"""

from __future__ import annotations

import pytest
from case_tables import Case, assert_checked, case_params

from research.sources.claims import quote_holds_quantity

_PLATFORMS = (
    "Platform survey 2025\n\n"
    "Of the respondents, 58% develop on Linux, 27% on macOS and 15% on Windows. Linux use "
    "is up 4% on last year. 31% of respondents write Rust at work."
)
_SDKS = (
    "Cloud report\n\n"
    "Satisfaction with the AWS SDK was 84% this year. Azure SDK satisfaction was lower "
    "(61%). About 45% of teams use both clouds."
)
_NIGHTLY = (
    "Toolchain survey\n\n"
    "This year 44.5% of respondents use the nightly toolchain, up from 39.1% last year. "
    "Stable remains the default for 91% of teams."
)
_CHECKERS = (
    "Adoption report\n\n"
    "Type checkers are used by 62% of projects, an increase of 19% over 2023. Linters are "
    "used by 88% of projects."
)
_EDITORS = (
    "Editors\n\n| Editor | Share |\n|---|---|\n| VS Code | 43% |\n| GoLand | 33% |\n| Vim | 14% |\n"
)

_LANGUAGES = (
    "Language survey\n\n"
    "In 2025, 64% of respondents wrote Python, up 9% on 2024, while 41% wrote Go and 22% had "
    "tried Zig. Rust was used by 18%, versus 12% the year before."
)

POINTS: list[Case] = [
    (_PLATFORMS, "Linux was used by 43 percentage points more respondents than Windows.", True),
    (_PLATFORMS, "In the 2025 survey, macOS led Windows by 12 percentage points.", True),
    (_PLATFORMS, "Linux was used by 33 percentage points more respondents than Windows.", False),
    (_PLATFORMS, "In the 2025 survey, macOS led Windows by 23 percentage points.", False),
    (_PLATFORMS, "In the 2025 survey, Windows trailed macOS by 16 percentage points.", False),
    (_PLATFORMS, "In the 2025 survey, Linux led macOS by 54 percentage points.", False),
    (_SDKS, "Satisfaction with the Azure SDK trailed the AWS SDK by 23 percentage points.", True),
    (_SDKS, "Satisfaction with the Azure SDK trailed the AWS SDK by 16 percentage points.", False),
    (_SDKS, "Satisfaction with the Azure SDK trailed the AWS SDK by 13 percentage points.", False),
    (
        _NIGHTLY,
        "The share of respondents on the nightly toolchain rose 5.4 percentage points.",
        True,
    ),
    (
        _NIGHTLY,
        "The share of respondents on the nightly toolchain rose 46.5 percentage points.",
        False,
    ),
    (
        _NIGHTLY,
        "The share of respondents on the nightly toolchain rose 4.5 percentage points.",
        False,
    ),
    (
        _CHECKERS,
        "Linters were used by 26 percentage points more projects than type checkers.",
        True,
    ),
    (_CHECKERS, "Type checker use rose 43 percentage points over 2023.", False),
    (_EDITORS, "VS Code's share led GoLand's by 10 percentage points.", True),
    (_EDITORS, "GoLand's share led Vim's by 29 percentage points.", False),
    (_LANGUAGES, "In 2025, 23 percentage points more respondents wrote Python than Go.", True),
    (_LANGUAGES, "In 2025, 19 percentage points more respondents wrote Go than tried Zig.", True),
    (_LANGUAGES, "Rust was used by 6 percentage points more than the year before.", True),
    (_LANGUAGES, "In 2025, 42 percentage points more respondents wrote Python than Go.", False),
    (_LANGUAGES, "In 2025, 32 percentage points more respondents wrote Go than Python.", False),
    (_LANGUAGES, "In 2025, 55 percentage points more respondents wrote Python than Go.", False),
    (_LANGUAGES, "In 2025, 29 percentage points more respondents wrote Go than used Rust.", False),
]

_CACHE = (
    "Build cache\n\n"
    "The new build cache cuts CI times by up to 50% on large repositories. Small "
    "repositories see little change."
)
_ADOPTERS = (
    "Adoption\n\n"
    "More than 50% of the surveyed teams run the tool in production. The rest are "
    "evaluating it."
)
_ERRORS = (
    "Reliability\n\n"
    "Fewer than 2% of requests to the gateway failed during the migration. Most failures "
    "were timeouts."
)

BOUNDS: list[Case] = [
    (_CACHE, "The build cache cuts CI times by up to 50% on large repositories.", True),
    (_CACHE, "The build cache cuts CI times by as much as half on large repositories.", True),
    (_CACHE, "On large repositories the build cache cuts CI times by up to 60%.", False),
    (_CACHE, "On large repositories the build cache cuts CI times by more than 40%.", False),
    (_CACHE, "On large repositories the build cache cuts CI times by at least 45%.", False),
    (_CACHE, "On large repositories the build cache cuts CI times by up to 40%.", False),
    (_ADOPTERS, "More than half of the surveyed teams run the tool in production.", True),
    (_ADOPTERS, "Over 50% of the surveyed teams run the tool in production.", True),
    (_ADOPTERS, "More than 40% of the surveyed teams run the tool in production.", True),
    (_ADOPTERS, "Under 60% of the surveyed teams run the tool in production.", False),
    (_ADOPTERS, "Up to 60% of the surveyed teams run the tool in production.", False),
    (_ADOPTERS, "Nearly 50% of the surveyed teams run the tool in production.", False),
    (_ADOPTERS, "More than 60% of the surveyed teams run the tool in production.", False),
    (_ERRORS, "Under 2% of requests to the gateway failed during the migration.", True),
    (_ERRORS, "Less than 2% of requests to the gateway failed during the migration.", True),
    (_ERRORS, "More than 1.5% of requests to the gateway failed during the migration.", False),
    (_ERRORS, "Up to 3% of requests to the gateway failed during the migration.", False),
]

_SHARES = (
    "Survey notes\n\n"
    "Respondents could pick several languages, so the shares don't add up to 100%. "
    "Each release holds no more than 40 changes."
)

NEGATED: list[Case] = [
    (_SHARES, "The shares don't add up to 100%, since respondents could pick several.", True),
    (_SHARES, "Each release never holds more than 40 changes.", True),
    (_SHARES, "Each release holds at least 40 changes.", False),
    (_SHARES, "Each release holds up to 50 changes.", False),
]

GROUPS: dict[str, list[Case]] = {"points": POINTS, "bounds": BOUNDS, "negated": NEGATED}

NOT_YET: frozenset[str] = frozenset({})
"""Ids ("<group>-<index>") of the cases the check does not get right yet."""


@pytest.mark.parametrize(("page", "claim", "supported"), case_params(GROUPS, NOT_YET))
def test_points_and_bounds(page: str, claim: str, supported: bool) -> None:
    assert_checked(page, claim, supported)


_OS_QUOTE = "Of the respondents, 58% develop on Linux, 27% on macOS and 15% on Windows."

QUOTES: list[Case] = [
    (_OS_QUOTE, "Linux was used by 43 percentage points more respondents than Windows.", True),
    (_OS_QUOTE, "macOS was used by 43 percentage points more respondents than Windows.", False),
    (
        "Type checkers are used by 62% of projects, an increase of 19% over 2023.",
        "Type checker use rose 43 percentage points over 2023.",
        False,
    ),
    (
        "This year 44.5% of respondents use the nightly toolchain, up from 39.1% last year.",
        "The share of respondents on the nightly toolchain rose 5.4 percentage points.",
        True,
    ),
]

NOT_YET_QUOTED: frozenset[str] = frozenset()
"""Ids ("quotes-<index>") of the quotes not read right yet."""


@pytest.mark.parametrize(
    ("quote", "claim", "held"), case_params({"quotes": QUOTES}, NOT_YET_QUOTED)
)
def test_a_quote_holds_points_only_of_the_compared_percentages(
    quote: str, claim: str, held: bool
) -> None:
    assert quote_holds_quantity(quote, claim) is held

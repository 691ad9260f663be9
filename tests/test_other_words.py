"""A careful writer's other words, case by case (issue 26): a page, a claim that says what
the page says in other words, and whether the check must find it SUPPORTED.

Written before the word changes that followed it, by listing the words writers swap when
they restate a report: verbs and nouns of change ("grew" for "rose", "fell" for
"dropped", "a 25% increase" for "grew 25%"), a speed-up for "faster", "respondents" for
"participants", "monthly" for "a month", "began" for "started", "shipped" for
"released", and the page's tense changed ("took" for "takes"); not from corpus sentences.
The claims are short on purpose: in a long claim the other words carry it past the
threshold anyway, in a short one the swapped word decides.

Each group has twins that must stay flagged (anything but SUPPORTED): the opposite
direction in other words ("grew" for "dropped", "slower" for "faster"), a wrong figure
in the other words, and a synonym that would make an unrelated sentence of the page
match. (A twin that differs from the page in one word of four or five, "weekly" where it
says "each day", is not here: 60% of the words pass it by design, whatever the words.)
`FLIPS` must be flagged as a flipped meaning, and `NOT_FLIPS` are true claims whose
negation or direction word is not about what the page's clause says (a bound such as
"fewer than 10%", a negated verb the page's clause does not hold).

`REPORT` was added after the first word change, written the same way before the change that
followed it: words of survey and project reports ("developers" for "programmers",
"organizations" for "companies", "most commonly" for "most popular", "responded" for "got
answers", "usage" for "use", "dropped support" for "stopped supporting"). `USERS` was
added after that, the same way: "Linux users" for "use Linux". `BOUNDS` was written with the
change it tests, not before it ("no more than 100" for "at most 100"; on the code before it,
4 of its 8 cases fail: "no more than", "never ... more than", "no fewer than" and "did
not rise above" were read as negations or the wrong way).

`PARAGRAPHS` was written before the rule on paragraphs it tests: a claim's words that the
page gives only in a paragraph after its figure's, one that does not continue it and gives a
figure of that sort of its own, are that figure's ("Version 3.2 cut startup time by 18%"
from "cut memory use by 18%" and, a paragraph later, "Startup time on Windows is 6%
shorter"); an earlier paragraph is context, and a list, or a paragraph starting with "They",
continues the figure's.

`NOT_YET_READ` lists the cases that failed when the table was written (strict xfail): a
change removes its cases from that set, never edits a case.
"""

from __future__ import annotations

import pytest
from case_tables import Case, assert_checked, case_params

from research.sources.claims import Support, check_claim, index_page

_DOWNLOADS = (
    "Package report\n\n"
    "Package downloads rose 40% in 2023. Mirror traffic also rose 40%. About 40% of all "
    "downloads come from CI."
)
_LATENCY = (
    "Incident review\n\n"
    "Latency dropped 30% after the fix. Throughput improved 30%. CPU use is 30% lower."
)
_REGISTRY = "Registry news\n\nThe registry saw strong growth in 2023. Reviews are weekly."
_ERRORS = "Quality report\n\nError rates decreased in 2024. The on-call team was enlarged."
_CRASHES = "Stability report\n\nCrashes saw a sharp drop in 2023. The fix shipped early."
_HZ = (
    "Kernel history\n\n"
    "With kernel 2.6.0, HZ was raised to 1000 on i386. Other architectures kept HZ at 1000. "
    "Later kernels made 1000 one option of several."
)
_SIGNUPS = "Launch review\n\nSignups jumped in 2022 after the launch. The press covered it."
_INSTALLER = "Release notes\n\nThe installer shrank in release 5.2. Startup is unchanged."
_STARS = "Project report\n\nGitHub stars increased in 2024 again. Forks held steady."
_BUDGET = "Finance report\n\nThe budget was cut in 2024. Travel was hit hardest."
_COMPILE = (
    "Rust survey 2023\n\n"
    "In 2023, participants who started using Rust said compile times dropped. Most use "
    "Linux."
)

DIRECTION: list[Case] = [
    (_DOWNLOADS, "Downloads grew 40% in 2023.", True),
    (_DOWNLOADS, "Downloads increased 40% in 2023.", True),
    (_DOWNLOADS, "Downloads saw a 40% increase in 2023.", True),
    (_DOWNLOADS, "Downloads fell 40% in 2023.", False),
    (_DOWNLOADS, "Downloads grew 50% in 2023.", False),
    (_LATENCY, "Latency fell 30%.", True),
    (_LATENCY, "Latency decreased by 30%.", True),
    (_LATENCY, "Latency grew 30%.", False),
    (_REGISTRY, "The registry grew in 2023.", True),
    (_REGISTRY, "The registry shrank in 2023.", False),
    (_ERRORS, "Errors declined in 2024.", True),
    (_ERRORS, "Errors rose in 2024.", False),
    (_CRASHES, "Crashes fell in 2023.", True),
    (_CRASHES, "Crashes rose in 2023.", False),
    (_HZ, "HZ increased to 1000 with kernel 2.6.0.", True),
    (_HZ, "HZ was lowered to 1000 with kernel 2.6.0.", False),
    (_SIGNUPS, "Signups rose in 2022.", True),
    (_SIGNUPS, "Signups fell in 2022.", False),
    (_INSTALLER, "Release 5.2 reduced the installer's size.", True),
    (_INSTALLER, "Release 5.2 grew the installer's size.", False),
    (_STARS, "Stars grew in 2024.", True),
    (_STARS, "Stars dropped in 2024.", False),
    (_BUDGET, "The budget was reduced in 2024.", True),
    (_BUDGET, "The budget decreased in 2024.", True),
    (_BUDGET, "The budget grew in 2024.", False),
    (
        _COMPILE,
        "In 2023, respondents who began using Rust reported that compile times fell.",
        True,
    ),
    (
        _COMPILE,
        "In 2023, respondents who began using Rust reported that compile times grew.",
        False,
    ),
]

_PARSER = "Parser notes\n\nThe new parser is 2.5x faster than the old one. It is written in C."
_BUILDS = "Build notes\n\nBuilds got faster in 2023 thanks to caching. Cold builds did not."
_QUERIES = "Query engine\n\nQueries became quicker in 2022. Joins are next."

SPEED: list[Case] = [
    (_PARSER, "The new parser gives a 2.5x speed-up.", True),
    (_PARSER, "The new parser gives a 2.5x speedup.", True),
    (_PARSER, "The new parser is 2.5x slower than the old one.", False),
    (_PARSER, "The new parser gives a 3.5x speed-up.", False),
    (_BUILDS, "Builds saw a speed-up in 2023.", True),
    (_BUILDS, "Builds sped up in 2023.", True),
    (_BUILDS, "Builds got slower in 2023.", False),
    (_QUERIES, "Queries got faster in 2022.", True),
    (_QUERIES, "Queries got slower in 2022.", False),
]

_PANEL = "Survey notes\n\nThe survey had 4,000 participants. It ran for six weeks."
_GROWING = "Survey notes\n\nThe 2023 survey had more participants than the 2022 survey."
_MIRROR = "Mirror traffic\n\nIn 2023 the mirror served millions of downloads a month."
_DAILY = "Forum report\n\nSince 2021 the forum gets new posts each day. Moderators review them."
_HISTORY = "Project history\n\nThe project started in 2009. It joined a foundation in 2021."
_RELEASE = "Release history\n\nVersion 2.0 was released in 2020. It dropped Python 2."
_TWO_EVENTS = (
    "Community report\n\n"
    "The survey had 4,000 participants. It ran for six weeks.\n\n"
    "The conference drew 900 attendees. Talks were recorded."
)
_TWO_CHANGES = (
    "Growth report\n\n"
    "Signups jumped 80% in May after the launch. The press covered it.\n\n"
    "Churn was flat in May. Support tickets doubled."
)

NOUNS: list[Case] = [
    (_PANEL, "The survey had 4,000 respondents.", True),
    (_PANEL, "The survey had 5,000 respondents.", False),
    (_GROWING, "The 2023 survey had more respondents than the 2022 survey.", True),
    (_MIRROR, "In 2023 the mirror's monthly downloads ran into millions.", True),
    (_DAILY, "Since 2021 the forum gets new posts daily.", True),
    (_HISTORY, "The project began in 2009.", True),
    (_HISTORY, "The project began in 2021.", False),
    (_RELEASE, "Version 2.0 shipped in 2020.", True),
    (_RELEASE, "Version 2.0 shipped in 2021.", False),
    (_TWO_EVENTS, "The conference had 4,000 respondents.", False),
    (_TWO_CHANGES, "Churn grew 80% in May.", False),
]

_BUILD_TIME = "CI notes\n\nSince 2022 each CI build takes longer. Caching is planned."
_SUITE = "Test notes\n\nSince 2020 the suite runs on every commit. All of it passes."
_SPEND = "Grant report\n\nIn 2024 the project spends most of its money on hosting."

TENSE: list[Case] = [
    (_BUILD_TIME, "Since 2022 each CI build took longer.", True),
    (_SUITE, "Since 2020 the suite ran on every commit.", True),
    (_SPEND, "In 2024 the project spent most of its money on hosting.", True),
    (_SPEND, "In 2024 the project spent most of its money on travel.", False),
]

_SURVEY = (
    "Rust survey 2023\n\n"
    "The 2023 survey of Rust users ran for six weeks. Of the 4,000 people who answered, "
    "1,000 said they use Rust at work."
)
_VERSION = "Release history\n\nVersion 3.0 was released in 2021. It dropped Python 2 support."
_WINDOWS = "Survey results\n\nWindows use rose to 9% of respondents in 2024. Linux held at 60%."
_TIMEOUT = "Server notes\n\nThe default timeout was raised to 30 seconds in 2022."
_LIMIT = "Limits\n\nResponses are capped at 100 items. Larger pages are split."

NOT_FLIPS: list[Case] = [
    (_SURVEY, "3,000 people who answered the 2023 survey do not use Rust at work.", True),
    (_VERSION, "Version 3.0 released in 2021 does not support Python 2.", True),
    (_WINDOWS, "Fewer than 10% of respondents used Windows in 2024.", True),
    (_TIMEOUT, "The default timeout was increased to 30 seconds in 2022.", True),
    (_LIMIT, "Responses never hold more than 100 items.", True),
]

_QUILL = (
    "Quillstore 4.2\n\n"
    "Quillstore 4.2 requires Python 3.9 or later and drops support for Python 3.8. The "
    "server is unchanged."
)

FLIPS: list[Case] = [
    (_DOWNLOADS, "Downloads fell 40% in 2023.", False),
    (_LATENCY, "Latency grew 30%.", False),
    (_HZ, "HZ was lowered to 1000 with kernel 2.6.0.", False),
    (_PARSER, "The new parser is 2.5x slower than the old one.", False),
    (_BUILDS, "Builds got slower in 2023.", False),
    (_WINDOWS, "Windows use fell to 9% of respondents in 2024.", False),
    (_TIMEOUT, "The default timeout was cut to 30 seconds in 2022.", False),
    (_VERSION, "Version 3.0 was not released in 2021.", False),
    (_LIMIT, "Responses are capped at no less than 100 items.", False),
    (_GROWING, "The 2023 survey had fewer respondents than the 2022 survey.", False),
    (_REGISTRY, "The registry shrank in 2023.", False),
    (_QUILL, "Quillstore 4.2 does not require Python 3.9 or later.", False),
]
"""The last case was added with the rule that a negation agrees with a change down that
takes its word away ("does not support" and "dropped support"): here the change down is
about another figure of the sentence."""

_EDITORS = (
    "Developer survey\n\n"
    "In 2024 VS Code was the most popular editor among programmers. Vim came second."
)
_PRODUCTION = "Survey results\n\nIn 2023 most companies ran Go in production. Few ran Rust."
_POLL = "Member poll\n\nIn 2022 the poll got answers from most members. It ran online."
_RUST_USE = "Usage report\n\nRust use rose in 2023 across all regions. Go held steady."
_SUPPORT = (
    "Support policy\n\n"
    "In 2024 the project stopped supporting Windows 7. Windows 10 remains supported."
)

REPORT: list[Case] = [
    (_EDITORS, "In 2024 developers most commonly used VS Code.", True),
    (_EDITORS, "In 2024 developers most commonly used Emacs.", False),
    (_PRODUCTION, "In 2023 most organizations used Go in production.", True),
    (_PRODUCTION, "In 2023 most organizations used Zig in production.", False),
    (_POLL, "In 2022 most members responded to the survey.", True),
    (_POLL, "In 2023 most members responded to the survey.", False),
    (_RUST_USE, "Rust usage grew in 2023.", True),
    (_RUST_USE, "Rust usage fell in 2023.", False),
    (_SUPPORT, "In 2024 the project dropped Windows 7 support.", True),
    (_SUPPORT, "In 2024 the project dropped Windows 10 support.", False),
]

_OS = "Survey results\n\nIn 2024 most respondents use Linux at work. Few use Windows there."
_GO_USE = "Go survey\n\nOf the 2023 respondents, most use Go for APIs. Many use it for CLIs."

USERS: list[Case] = [
    (_OS, "In 2024 Linux users were the majority.", True),
    (_OS, "In 2024 BSD users were the majority.", False),
    (_GO_USE, "Most Go users in 2023 built APIs.", True),
    (_GO_USE, "Most Go users in 2023 built games.", False),
]

_AT_MOST = "Limits\n\nEach response holds at most 100 items. Larger pages are split."
_BELOW = "Resource report\n\nMemory use stayed below 5% in 2023. CPU use was higher."

BOUNDS: list[Case] = [
    (_AT_MOST, "Each response holds no more than 100 items.", True),
    (_AT_MOST, "Each response holds up to 100 items.", True),
    (_AT_MOST, "Each response never holds more than 100 items.", True),
    (_AT_MOST, "Each response holds at least 100 items.", False),
    (_AT_MOST, "Each response holds no fewer than 100 items.", False),
    (_AT_MOST, "Each response holds more than 100 items.", False),
    (_BELOW, "Memory use did not rise above 5% in 2023.", True),
    (_BELOW, "Memory use rose above 5% in 2023.", False),
]

_MEMORY = (
    "Memory report\n\n"
    "The relative memory use depends on how much code is hot. The break even point, where "
    "the memory used by the old build is the same as for the new one, is 70%. Experiments "
    "show that 25% of the code can be specialized.\n"
)
_UPLOADS = "Upload report\n\nMost maintainers used the web form in 2024. Few used the API."

INFLECTIONS: list[Case] = [
    (_MEMORY, "The old and new builds use the same memory when 70% of the code is hot.", True),
    (_MEMORY, "The old and new builds use the same memory when 25% of the code is hot.", False),
    (_UPLOADS, "Most maintainers were using the web form in 2024.", True),
    (_UPLOADS, "Most maintainers use the web form in 2024.", True),
]

_EARLIER = (
    "Community report\n\n"
    "The conference survey ran in May.\n\n"
    "It had 4,000 participants. Most of them write code every day."
)
_LISTED = (
    "Community report\n\n"
    "The survey had 4,000 participants.\n\n"
    "- 2,500 were developers\n"
    "- 1,500 were managers\n"
)
_POINTED = (
    "Community report\n\n"
    "The survey had 4,000 participants.\n\n"
    "They came from 120 countries across six continents."
)
_NO_RIVAL = (
    "Community report\n\n"
    "The survey had 4,000 participants.\n\n"
    "Editors were the topic most of them asked about."
)
_RATES = (
    "Growth report\n\nSignups rose 30% in the spring quarter.\n\nChurn rose 5% over the summer."
)
_SECTIONS = (
    "Project numbers\n\n"
    "The package had 12,000 downloads in March.\n\n"
    "Community\n\n"
    "The repository has 800 stars."
)

_TWO_CHANGES_LATER = (
    "Release notes\n\n"
    "Version 3.2 cut memory use by 18% on large inputs.\n\n"
    "Startup time on Windows is 6% shorter."
)

PARAGRAPHS: list[Case] = [
    (_EARLIER, "The conference survey had 4,000 respondents.", True),
    (_LISTED, "The survey had 4,000 participants, developers and managers.", True),
    (_POINTED, "The survey had 4,000 participants from many countries.", True),
    (_NO_RIVAL, "The survey had 4,000 respondents, who asked about editors.", True),
    (_EARLIER, "The conference survey had 5,000 respondents.", False),
    (_RATES, "Churn rose 30% over the summer.", False),
    (_RATES, "Signups rose 30% in the spring quarter.", True),
    (_SECTIONS, "The repository had 12,000 stars in March.", False),
    (_SECTIONS, "The package had 12,000 downloads in March.", True),
    (_TWO_CHANGES_LATER, "Version 3.2 cut memory use by 18% on large inputs.", True),
    (
        _TWO_CHANGES_LATER,
        "Version 3.2 cut memory use by 18% on large inputs, and startup time by 6% on Windows.",
        True,
    ),
    (_TWO_CHANGES_LATER, "Version 3.2 cut startup time by 18% on Windows.", False),
]

GROUPS: dict[str, list[Case]] = {
    "direction": DIRECTION,
    "speed": SPEED,
    "nouns": NOUNS,
    "tense": TENSE,
    "not_flips": NOT_FLIPS,
    "report": REPORT,
    "users": USERS,
    "bounds": BOUNDS,
    "inflections": INFLECTIONS,
    "paragraphs": PARAGRAPHS,
}

NOT_YET_READ: frozenset[str] = frozenset({"nouns-10", "users-00", "users-02"})
"""Ids ("<group>-<index>") of the cases the check does not get right yet. nouns-09 and
nouns-10 passed when written and failed since the other words count (the commit after the
table): "The conference had 4,000 respondents" is supported by a passage joining "The survey
had 4,000 participants." to "The conference drew 900 attendees." a paragraph later, as "The
conference had 4,000 participants" already was before it (and "Churn jumped 80% in May" by
"Signups jumped 80% in May. ... Churn was flat in May."): a passage's sentences lend each
other words, which the other words now reach too. nouns-09 is read since the rule on
paragraphs (`research.sources.paragraphs`: "The conference drew 900 attendees." gives a
count of its own); nouns-10's later paragraph gives no percentage, and a paragraph's words
are cut off only when it does (cutting them always flagged true claims whose words come
from the next paragraph, as "editors" for "3 people using 'ed'"). users-00 and users-02 need "users"
to count as "use": tried, it also made "3,000 who answered the 2023 survey do not use Rust"
a negation of "the 2023 survey of Rust users" again (a negated word must be an inflection
of one the other clause holds, not a synonym: words.py does not tell the two apart yet) and
let "Linux users outnumbered macOS users by 48 percentage points" (62% - 14%, Windows)
through on words alone."""

NOT_YET_FLIPPED: frozenset[str] = frozenset()
"""Ids ("flips-<index>") of the flipped claims not yet flagged as such."""


@pytest.mark.parametrize(("page", "claim", "supported"), case_params(GROUPS, NOT_YET_READ))
def test_other_words_for_what_the_page_says(page: str, claim: str, supported: bool) -> None:
    assert_checked(page, claim, supported)


@pytest.mark.parametrize(
    ("page", "claim", "supported"), case_params({"flips": FLIPS}, NOT_YET_FLIPPED)
)
def test_the_opposite_in_other_words_is_a_flipped_meaning(
    page: str, claim: str, supported: bool
) -> None:
    check = check_claim(claim, index_page(page))
    assert check.support is Support.UNSUPPORTED, check
    assert check.reason.startswith("meaning flipped"), check

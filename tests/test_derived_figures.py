"""True claims whose figure is computed from the page's figures, case by case (issue 26):
a small page, a claim a careful writer would compute from it, and whether the check must
find it SUPPORTED.

Written before the derivation changes that followed it, by listing the computations
writers make (a share, a complement, a difference, a percentage change, "a third less",
"twice as many", a per-unit figure, a product, a sum, a duration between two dates, a
difference in percentage points), each with its inputs in one sentence, in two adjacent
sentences, in a sentence and the next paragraph, and in a table; not from corpus
sentences. Each true claim has a twin where it makes sense that must still be flagged
(anything but SUPPORTED): a wrong computation in the same phrasing, or a figure computable
only from figures that have nothing to do with the claim, on a page full of figures (such a
page holds some pair for almost any figure: false support is the danger).

`MORE` was added after the first derivation change (dd90be6), written the same way before
the change that followed it. `NOT_YET_DERIVED` lists the cases that failed when they were
written (strict xfail): a change removes its cases from that set, never edits a case.
"""

from __future__ import annotations

import pytest
from case_tables import Case, assert_checked, case_params

_SURVEY = (
    "Rust survey 2023\n\n"
    "The 2023 survey of Rust users ran for six weeks. Of the 4,000 people who answered, "
    "1,000 said they use Rust at work. The rest use it for hobby projects or study. "
    "Answers were collected in eleven languages."
)
_POLL = (
    "Contributor poll\n\n"
    "The maintainers polled contributors in January 2024. In the poll, 37% of contributors "
    "said they had reviewed a pull request in the past month. Reviews take a median of two "
    "days. The poll will be repeated every year."
)
_BUILDS = (
    "CI report\n\n"
    "The median CI build took 80 seconds in 2022 and 100 seconds in 2023. The slowdown came "
    "from the new integration tests. Caching is planned for next year."
)
_REGISTRY = (
    "Registry statistics\n\n"
    "The registry lists 1,800 packages for Linux and 900 for Windows. macOS support is "
    "tracked separately. New packages are reviewed within a week."
)
_TICKETS = (
    "Team report\n\n"
    "The team of 12 engineers closed 1,440 tickets last year. Most tickets were bug reports. "
    "The backlog shrank for the first time."
)
_LAUNCH = (
    "Launch review\n\n"
    "The cluster served 7.2 million requests in 24 hours during the launch. Error rates "
    "stayed below 0.1%. No node was restarted."
)
_MAINTAINERS = (
    "Governance\n\n"
    "The project has 120 maintainers in Europe and 80 in North America. A handful more work "
    "from Asia. Maintainers meet online every month."
)
_ADOPTION = (
    "Typing survey\n\n"
    "Adoption of type hints rose from 41% in 2022 to 53% in 2023. Most new projects use "
    "them from the start. Older code bases lag behind."
)
_CRASHES = (
    "Crash triage\n\n"
    "Of 2,000 crash reports filed in the quarter, 500 came from the GPU driver. The driver "
    "team has since shipped a fix. Reports are triaged daily."
)
_PLUGINS = (
    "Plugin ecosystem\n\n"
    "Of the 300 plugins in the catalogue, 45 are maintained by the core team; the rest come "
    "from the community. Each plugin is reviewed before it is listed."
)
_TEAMS = (
    "Flaky tests study\n\n"
    "The study followed 1,495 teams for a year; around 25% of them reported flaky tests "
    "every week. The others saw them rarely."
)
_NODES = (
    "Hardware\n\n"
    "Each of the cluster's 8 nodes has 64 GB of memory. The nodes are connected by a "
    "dedicated switch. They were bought in one batch."
)

ONE_SENTENCE: list[Case] = [
    (_SURVEY, "A quarter of the people who answered the 2023 survey use Rust at work.", True),
    (_SURVEY, "25% of the 2023 survey's respondents said they use Rust at work.", True),
    (_SURVEY, "3,000 of the people who answered the 2023 survey do not use Rust at work.", True),
    (_SURVEY, "75% of the people who answered the 2023 survey do not use Rust at work.", True),
    (_SURVEY, "A third of the people who answered the 2023 survey use Rust at work.", False),
    (_SURVEY, "2,000 of the people who answered the 2023 survey do not use Rust at work.", False),
    (
        _POLL,
        "In the January 2024 poll, 63% of contributors said they had not reviewed a pull "
        "request in the past month.",
        True,
    ),
    (
        _POLL,
        "In the January 2024 poll, 73% of contributors said they had not reviewed a pull "
        "request in the past month.",
        False,
    ),
    (
        _POLL,
        "In the January 2024 poll, 63% of contributors said they had reviewed a pull request "
        "in the past month.",
        False,
    ),
    (_BUILDS, "The median CI build time rose 25% from 2022 to 2023.", True),
    (_BUILDS, "The median CI build took a quarter longer in 2023 than in 2022.", True),
    (_BUILDS, "In 2023 the median CI build took 20 seconds longer than in 2022.", True),
    (_BUILDS, "The median CI build time rose 20% from 2022 to 2023.", False),
    (_BUILDS, "The median CI build time rose 40% from 2022 to 2023.", False),
    (_REGISTRY, "The registry lists twice as many packages for Linux as for Windows.", True),
    (_REGISTRY, "Windows has half as many packages in the registry as Linux.", True),
    (_REGISTRY, "The registry lists three times as many packages for Linux as for Windows.", False),
    (_TICKETS, "Each of the team's engineers closed 120 tickets on average last year.", True),
    (_TICKETS, "Each of the team's engineers closed 140 tickets on average last year.", False),
    (_LAUNCH, "During the launch the cluster served 300,000 requests an hour.", True),
    (_LAUNCH, "During the launch the cluster served 3 million requests an hour.", False),
    (_MAINTAINERS, "The project has 200 maintainers in Europe and North America combined.", True),
    (_MAINTAINERS, "The project has 220 maintainers in Europe and North America combined.", False),
    (_ADOPTION, "Adoption of type hints rose 12 percentage points from 2022 to 2023.", True),
    (_ADOPTION, "Adoption of type hints rose 15 percentage points from 2022 to 2023.", False),
    (_CRASHES, "One in four crash reports filed in the quarter came from the GPU driver.", True),
    (_CRASHES, "One in three crash reports filed in the quarter came from the GPU driver.", False),
    (_PLUGINS, "255 of the 300 plugins in the catalogue come from the community.", True),
    (_PLUGINS, "85% of the plugins in the catalogue come from the community.", True),
    (_PLUGINS, "75% of the plugins in the catalogue come from the community.", False),
    (_TEAMS, "Roughly 370 of the teams in the study reported flaky tests every week.", True),
    (_TEAMS, "Roughly 570 of the teams in the study reported flaky tests every week.", False),
    (_NODES, "The cluster's 8 nodes have 512 GB of memory in total.", True),
    (_NODES, "The cluster's 8 nodes have 640 GB of memory in total.", False),
]

_COLD_START = (
    "Version 4 notes\n\n"
    "Cold start took 1.2 seconds in version 3. In version 4 it takes 0.8 seconds. Memory use "
    "did not change."
)
_BINARY = (
    "Release size\n\n"
    "The old release binary was 14.2 MB. The new one is 9.7 MB after stripping debug "
    "symbols. Both are built with the same compiler."
)
_SUPPORT = (
    "Support policy\n\n"
    "Version 2.0 was released in March 2019. Its support ended in March 2022. Version 3.0 "
    "replaced it."
)
_ARCHIVED = (
    "Project history\n\n"
    "The first release came out in 2012. The project was archived in 2020. Its code remains "
    "online."
)
_BETA = (
    "Beta report\n\n"
    "The public beta opened on 3 May 2021. It closed on 17 May 2021. It drew 900 testers."
)
_MIRROR = (
    "Mirror traffic\n\n"
    "In 2020 the mirror served 1.2 million downloads a month. By 2023 it served 3.5 million "
    "a month. Most downloads are source archives."
)
_CACHE_SIZE = (
    "Cache notes\n\nThe old cache held 256 MB. The new cache holds 512 MB. Eviction is unchanged."
)
_BUILD_HOSTS = (
    "Build farm\n\n"
    "Linux builds ran 4,900 times last month. macOS builds ran 700 times. Windows builds are "
    "paused."
)

ADJACENT: list[Case] = [
    (_COLD_START, "Cold start in version 4 takes a third less time than in version 3.", True),
    (_COLD_START, "Version 4 cuts cold-start time by 0.4 seconds compared with version 3.", True),
    (_COLD_START, "Cold start in version 4 takes 60% less time than in version 3.", False),
    (_BINARY, "Stripping debug symbols made the release binary 4.5 MB smaller.", True),
    (_BINARY, "Stripping debug symbols made the release binary about 32% smaller.", True),
    (_BINARY, "Stripping debug symbols made the release binary 5.5 MB smaller.", False),
    (_SUPPORT, "Version 2.0 was supported for three years.", True),
    (_SUPPORT, "Version 2.0 was supported for four years.", False),
    (_ARCHIVED, "The project was active for eight years before it was archived.", True),
    (_ARCHIVED, "The project was active for ten years before it was archived.", False),
    (_BETA, "The public beta ran for two weeks.", True),
    (_BETA, "The public beta ran for three weeks.", False),
    (_MIRROR, "Monthly downloads from the mirror nearly tripled between 2020 and 2023.", True),
    (_MIRROR, "Monthly downloads from the mirror more than quadrupled from 2020 to 2023.", False),
    (_MIRROR, "The mirror served 2.3 million more downloads a month in 2023 than in 2020.", True),
    (_CACHE_SIZE, "The new cache is twice the size of the old one.", True),
    (_CACHE_SIZE, "The new cache is three times the size of the old one.", False),
    (_BUILD_HOSTS, "Linux builds outnumbered macOS builds seven to one last month.", True),
    (_BUILD_HOSTS, "Linux builds outnumbered macOS builds five to one last month.", False),
]

_STUDENTS = (
    "Developer survey 2024\n\n"
    "The survey ran in May and drew 5,200 responses. It was announced on the blog and the "
    "forum.\n\n"
    "Students sent 1,300 of the responses. Their share has grown every year."
)
_INDEX = (
    "Index growth\n\n"
    "The index held 48,000 crates at the start of the year. Growth was steady.\n\n"
    "By December it held 60,000 crates. Most new crates are libraries."
)
_RELEASES = (
    "Release history\n\n"
    "Version 1.0 shipped on 12 June 2018. It was the first stable release.\n\n"
    "Version 2.0 shipped on 12 June 2020. It dropped Python 2."
)

NEXT_PARAGRAPH: list[Case] = [
    (_STUDENTS, "Students sent a quarter of the responses to the 2024 developer survey.", True),
    (_STUDENTS, "Students sent a third of the responses to the 2024 developer survey.", False),
    (_INDEX, "The index grew by a quarter over the year.", True),
    (_INDEX, "The index added 12,000 crates over the year.", True),
    (_INDEX, "The index added 14,000 crates over the year.", False),
    (_RELEASES, "Version 2.0 shipped two years after version 1.0.", True),
    (_RELEASES, "Version 2.0 shipped three years after version 1.0.", False),
]

_INDEXING = (
    "Benchmark results\n\n"
    "The table gives the time each tool takes to index the test corpus.\n\n"
    "| Tool | Time (s) | Memory (MB) |\n"
    "|---|---|---|\n"
    "| alpha | 12.0 | 340 |\n"
    "| beta | 3.0 | 120 |\n"
    "| gamma | 6.0 | 90 |"
)
_DOWNLOADS = (
    "Package downloads\n\n"
    "Weekly downloads, in thousands:\n\n"
    "| Package | 2022 | 2023 |\n"
    "|---|---|---|\n"
    "| alpha | 120 | 180 |\n"
    "| beta | 300 | 240 |"
)

TABLE: list[Case] = [
    (_INDEXING, "beta indexes the test corpus four times faster than alpha.", True),
    (_INDEXING, "beta indexes the test corpus three times faster than alpha.", False),
    (_INDEXING, "gamma indexes the test corpus four times faster than alpha.", False),
    (_INDEXING, "Indexing the test corpus, alpha uses 220 MB more memory than beta.", True),
    (_INDEXING, "Indexing the test corpus, alpha uses 250 MB more memory than beta.", False),
    (_DOWNLOADS, "Weekly downloads of alpha grew 50% from 2022 to 2023.", True),
    (_DOWNLOADS, "Weekly downloads of beta fell 20% from 2022 to 2023.", True),
    (_DOWNLOADS, "Weekly downloads of alpha grew 60% from 2022 to 2023.", False),
    (_DOWNLOADS, "Weekly downloads of beta fell 25% from 2022 to 2023.", False),
]

_RELEASE_NOTES = (
    "Release 5.2 notes\n\n"
    "The release contains 640 commits from 32 contributors. The test suite now has 2,400 "
    "cases. Startup is 18% faster on Linux. The installer shrank to 48 MB.\n\n"
    "The documentation gained 120 new pages. Translations now cover 16 languages. The bug "
    "tracker closed 800 issues this cycle. The next release is planned for 2025."
)
_RESULTS = (
    "Survey results 2024\n\n"
    "We received 3,200 responses, up from 2,800 last year. Of respondents, 62% use Linux, "
    "24% use macOS and 14% use Windows. 45% write code professionally. The median "
    "respondent has 6 years of experience. 1,100 respondents contribute to open source. "
    "The survey ran for 3 weeks."
)
_CACHE_RUN = (
    "Cache statistics\n\n"
    "The cache answered 400 lookups during the run. Each lookup took under 2 ms.\n\n"
    "The project's test suite has 1,000 cases, all passing. CI runs them on every commit."
)
_TIMELINE = (
    "Project timeline\n\n"
    "The project began in 2009. Its logo was redesigned in 2015. Windows support arrived in "
    "2019. The team moved to a foundation in 2021."
)

FAR_APART: list[Case] = [
    (_RELEASE_NOTES, "Each contributor made 20 commits to release 5.2 on average.", True),
    (_RELEASE_NOTES, "15% of the issues in the bug tracker were closed this cycle.", False),
    (_RELEASE_NOTES, "The installer for release 5.2 is three times smaller than before.", False),
    (_RELEASE_NOTES, "Translations in release 5.2 came from 20 contributors.", False),
    (_RELEASE_NOTES, "The bug tracker closed 50 issues per language this cycle.", False),
    (_RELEASE_NOTES, "The bug tracker closed 920 issues this cycle.", False),
    (_RESULTS, "Responses to the 2024 survey rose by about 14% over last year.", True),
    (_RESULTS, "The 2024 survey received 400 more responses than last year.", True),
    (_RESULTS, "38% of respondents to the 2024 survey do not use Linux.", True),
    (_RESULTS, "55% of respondents to the 2024 survey do not write code professionally.", True),
    (_RESULTS, "Linux users outnumbered macOS users by 38 percentage points in 2024.", True),
    (_RESULTS, "Linux users outnumbered macOS users by 48 percentage points in 2024.", False),
    (_RESULTS, "About a third of 2024 respondents contribute to open source.", True),
    (_RESULTS, "About 40% of 2024 respondents contribute to open source.", False),
    (_CACHE_RUN, "The cache hit rate during the run was 40%.", False),
    (_TIMELINE, "The project's logo was redesigned after six years.", True),
    (_TIMELINE, "Windows support arrived four years after the project began.", False),
]

_GREW = (
    "Team report\n\n"
    "The team grew from 12 to 15 maintainers this year. Reviews got faster. The next "
    "hiring round opens in spring."
)
_HINTS = (
    "Typing report\n\n"
    "Adoption rose from 40% in 2022 to 50% in 2023. Most new projects use hints from the "
    "start. Older code bases lag behind."
)
_MEMORY = "Node report\n\nOf the node's 64 GB of memory, 48 GB is in use. Swap is off."
_OS_SHARES = (
    "Survey results\n\n"
    "Of respondents, 62% use Linux, 24% use macOS and 14% use Windows. The survey ran in "
    "May."
)
_RETIRED = (
    "Support policy\n\n"
    "Version 5 was released in March 2019 and retired in September 2020. Version 6 replaced "
    "it."
)
_DOWNLOADED = (
    "Package report\n\n"
    "The package was downloaded 1.5 million times in 2022. In 2023 it was downloaded 2.1 "
    "million times. Most downloads come from CI."
)
_BUDGET = (
    "Foundation report\n\n"
    "The foundation spent $1.2 million on infrastructure and $800,000 on grants. Both rose "
    "from last year."
)
_CRASH_RATE = (
    "Stability report\n\n"
    "The crash rate was 0.8 per 1,000 sessions in 2022. In 2023 it was 0.2 per 1,000 "
    "sessions. The fix shipped in January."
)

MORE: list[Case] = [
    (_GREW, "The team added three maintainers this year.", True),
    (_GREW, "The team added four maintainers this year.", False),
    (_HINTS, "Adoption grew by a quarter between 2022 and 2023.", True),
    (_HINTS, "Adoption grew by a third between 2022 and 2023.", False),
    (_LAUNCH, "During the launch the cluster served about 83 requests a second.", True),
    (_LAUNCH, "During the launch the cluster served about 830 requests a second.", False),
    (_MEMORY, "75% of the node's memory is in use.", True),
    (_MEMORY, "65% of the node's memory is in use.", False),
    (_OS_SHARES, "Together, macOS and Windows users make up 38% of respondents.", True),
    (_RETIRED, "Version 5 was supported for 18 months.", True),
    (_RETIRED, "Version 5 was supported for two years.", False),
    (_COLD_START, "Version 4 cold-starts 50% faster than version 3.", True),
    (_DOWNLOADED, "Downloads of the package grew 40% from 2022 to 2023.", True),
    (_DOWNLOADED, "Downloads of the package grew 30% from 2022 to 2023.", False),
    (_BUDGET, "The foundation spent $2 million on infrastructure and grants combined.", True),
    (_BUDGET, "The foundation spent $2.2 million on infrastructure and grants combined.", False),
    (_CRASH_RATE, "The crash rate in 2023 was a quarter of its 2022 level.", True),
    (_CRASH_RATE, "The crash rate fell by 75% from 2022 to 2023.", True),
    (_CRASH_RATE, "The crash rate fell by 60% from 2022 to 2023.", False),
    (_CRASH_RATE, "The crash rate fell fourfold from 2022 to 2023.", True),
]

GROUPS: dict[str, list[Case]] = {
    "one_sentence": ONE_SENTENCE,
    "adjacent": ADJACENT,
    "next_paragraph": NEXT_PARAGRAPH,
    "table": TABLE,
    "far_apart": FAR_APART,
    "more": MORE,
}

NOT_YET_DERIVED: frozenset[str] = frozenset(
    {
        "far_apart-10",
        "far_apart-12",
        "more-08",
        "table-06",
    }
)
"""Ids ("<group>-<index>") of the cases the check does not get right yet."""


@pytest.mark.parametrize(("page", "claim", "supported"), case_params(GROUPS, NOT_YET_DERIVED))
def test_a_figure_computed_from_the_page_is_found_where_it_may_be(
    page: str, claim: str, supported: bool
) -> None:
    assert_checked(page, claim, supported)

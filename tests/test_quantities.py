"""Quantities read by libraries (issue 26): units (pint), number words (text2num), dates
(python-dateutil), and the project's own small tables of fractions and hedges.

Written before the rule that reads them, as held-out cases: every sentence here is new,
none is copied from the claim fixture or from the modules' docstrings. Each case is a
claim and a page passage; `quote_holds_quantity` says whether the passage holds a
quantity equal to the claim's figure(s), and `check_claim` whether the page supports it.
"""

from __future__ import annotations

import pytest

from research.sources.claims import Support, check_claim, index_page, quote_holds_quantity
from research.sources.quantities import HEDGES

# --- Units: one quantity, written in other units ----------------------------------------

SAME_QUANTITY = [
    ("The array streams at about 2 GB/s.", "Sequential reads reached 1,950 MB/s."),
    ("A cold start takes 250 milliseconds.", "A cold start takes 0.25 seconds."),
    ("The cache holds three quarters of a GiB.", "The cache holds 768 MiB."),
    ("The link carries 100 Mbit/s.", "The link carries 12.5 MB/s."),
    ("Each attachment may be 1.5 MB.", "Attachments are limited to 1,500 kbytes."),
    ("The lookup takes 500 µs.", "The lookup takes 0.5 ms."),
    ("The plant generates 2 GW.", "The plant generates 2,000 MW at full load."),
    ("Each charge stores 3.6 MJ.", "Each charge stores 1 kWh."),
    ("The span weighs 2.5 tonnes.", "The span weighs 2,500 kg."),
    ("The survey ran for 90 seconds per person.", "The survey ran for 1.5 minutes per person."),
    ("The warranty lasts thirty months.", "The warranty lasts 2.5 years."),
    ("Support ends after two and a half years.", "Support ends after 30 months."),
    ("The route is 12 km long.", "The route is 12,000 metres long."),
]

OTHER_QUANTITY = [
    ("The array streams at about 2 GB/s.", "Sequential reads reached 1,200 MB/s."),
    ("A cold start takes 250 milliseconds.", "A cold start takes 0.35 seconds."),
    ("The cache holds three quarters of a GiB.", "The cache holds 512 MiB."),
    ("The array stores 2 GB.", "The array draws 2 GW."),  # another dimension
    ("The route is 5 km long.", "The load is 5 kg."),
    ("The warranty lasts thirty months.", "The warranty lasts 3 years."),
]


@pytest.mark.parametrize(("claim", "quote"), SAME_QUANTITY)
def test_a_quantity_in_other_units_is_the_same_quantity(claim: str, quote: str) -> None:
    assert quote_holds_quantity(quote, claim)


@pytest.mark.parametrize(("claim", "quote"), OTHER_QUANTITY)
def test_another_quantity_is_not_held(claim: str, quote: str) -> None:
    assert not quote_holds_quantity(quote, claim)


# --- Number words -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("claim", "quote", "held"),
    [
        ("Twelve thousand volunteers signed up.", "12,000 volunteers signed up.", True),
        ("Twelve thousand volunteers signed up.", "12,500 volunteers signed up.", False),
        ("The fund lent four hundred and five loans.", "It made 405 loans.", True),
        ("Some seven hundred million records leaked.", "700 million records leaked.", True),
        ("Forty-two stations were built.", "42 stations were built.", True),
        ("Forty-two stations were built.", "24 stations were built.", False),
    ],
)
def test_number_words_are_figures(claim: str, quote: str, held: bool) -> None:
    assert quote_holds_quantity(quote, claim) is held


# --- Dates ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "written",
    ["3 March 2021", "2021-03-03", "03-Mar-2021", "March 3, 2021", "3rd March 2021"],
)
def test_one_date_in_any_format(written: str) -> None:
    claim = f"The registry went read-only on {written}."
    for quote in ("Read-only since 2021-03-03.", "Read-only from 3 March 2021 onwards."):
        assert quote_holds_quantity(quote, claim), (written, quote)


def test_another_date_is_not_held() -> None:
    claim = "The registry went read-only on 03-Mar-2021."
    assert not quote_holds_quantity("Read-only since 2021-03-04.", claim)
    assert not quote_holds_quantity("Read-only since 3 April 2021.", claim)


@pytest.mark.parametrize(
    ("page", "claim"),
    [
        ("The project has 1,234,567 downloads.", "The project has 1.2 million downloads."),
        ("The project has 1,234,567 downloads.", "The project has 1.2M downloads."),
        ("The project has 1,234,567 downloads.", "The project has more than a million downloads."),
        ("The project has 12,000 stars.", "The project has 12K stars."),
        ("A queue holds at most 65536 messages.", "A queue holds at most 64K messages."),
        ("The default is 1000.", "The default is a thousand."),
    ],
)
def test_a_figure_written_with_a_scale_is_rounded_at_that_scale(page: str, claim: str) -> None:
    check = check_claim(claim, index_page(f"Notes\n\n{page}\n"))
    assert check.support is Support.SUPPORTED, check


@pytest.mark.parametrize(
    ("page", "claim"),
    [
        ("The project has 1,264,567 downloads.", "The project has 1.2 million downloads."),
        ("The project has 13,100 stars.", "The project has 12K stars."),
        ("The project has 1,234,567 downloads.", "The project has 1,200,000 downloads."),
    ],
)
def test_a_figure_past_its_rounding_is_not_supported(page: str, claim: str) -> None:
    check = check_claim(claim, index_page(f"Notes\n\n{page}\n"))
    assert check.support is not Support.SUPPORTED, check


def test_a_weekday_beside_a_date_is_part_of_the_date_not_a_word_of_the_claim() -> None:
    # A schedule names the weekday of every date: "Tuesday" ties a claim to no line.
    page = index_page(
        "Release schedule\n\n- 3.11 development begins: Monday, 2021-05-03\n"
        "- 3.11.0 alpha 1: Tuesday, 2021-10-05\n- 3.11.0 alpha 2: Tuesday, 2021-11-02\n"
    )
    changed = check_claim("Development of Python 3.11 began on Tuesday, 2021-10-05.", page)
    assert changed.support is not Support.SUPPORTED, changed
    true = check_claim("The development of 3.11 begins on Mon 3 May 2021.", page)
    assert true.support is Support.SUPPORTED, true


def test_a_month_in_iso_form_is_the_month() -> None:
    assert quote_holds_quantity("Launched in June 2019.", "It launched in 2019-06.")


# --- Fractions and ratios ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("claim", "quote", "held"),
    [
        ("A fifth of the drivers opted out.", "19.6% of the drivers opted out.", True),
        ("One in six pupils walks to school.", "16.7% of pupils walk to school.", True),
        ("One in six pupils walks to school.", "25% of pupils walk to school.", False),
        ("Two thirds of the grant went on staff.", "67% of the grant went on staff.", True),
        ("Half of the sensors failed.", "50% of the sensors failed.", True),
        ("Three in ten firms export.", "30 per cent of firms export.", True),
        ("Three of every four firms export.", "75% of firms export.", True),
        ("Three out of every four firms export.", "90% of firms export.", False),
        ("The table grows at a load of 7/8.", "The table grows when 87.5% full.", True),
        ("The table grows when 87.5% full.", "The table grows at a load of 7/8.", True),
        ("The table grows at a load of 7/8.", "The table grows when 75% full.", False),
        ("Nearly half of the sensors failed.", "47% of the sensors failed.", True),
        ("Nearly half of the sensors failed.", "51% of the sensors failed.", False),
        ("The new table used half the memory.", "It used 50% of the memory.", True),
    ],
)
def test_fractions_and_ratios_are_shares(claim: str, quote: str, held: bool) -> None:
    assert quote_holds_quantity(quote, claim) is held


@pytest.mark.parametrize(
    ("claim", "quote", "held"),
    [
        ("The mirror served half a million files.", "The mirror served 500,000 files.", True),
        ("The mirror served half a million files.", "The mirror served 1,000,000 files.", False),
        ("The forum has a quarter of a million members.", "It has 250,000 members.", True),
        ("The forum has a quarter million members.", "It has 1,000,000 members.", False),
        ("The restore took half a minute.", "The restore took 30 seconds.", True),
        ("The restore took half a minute.", "The restore took 50 seconds.", False),
        ("The import finished in half an hour.", "The import finished in 30 minutes.", True),
        ("The log keeps about a million lines.", "The log keeps 1,048,576 lines.", True),
    ],
)
def test_a_fraction_of_a_unit_or_a_scale_is_that_quantity(
    claim: str, quote: str, held: bool
) -> None:
    assert quote_holds_quantity(quote, claim) is held


@pytest.mark.parametrize(
    ("claim", "quote", "held"),
    [
        ("The counter wraps after about 4.3 billion events.", "It wraps at 2^32.", True),
        ("The offset tops out at 2,147,483,647.", "The maximum offset is 2**31 - 1.", True),
        ("The offset tops out at 2,147,483,647.", "The maximum offset is 2^32.", False),
        ("The table holds up to 2^20 rows.", "The table holds up to 1,048,576 rows.", True),
        ("The queue accepts a million jobs.", "The queue accepts 10^6 jobs.", True),
    ],
)
def test_a_power_of_two_or_ten_is_its_value(claim: str, quote: str, held: bool) -> None:
    assert quote_holds_quantity(quote, claim) is held


@pytest.mark.parametrize(
    "text",
    [
        "In the second half of the year the survey closed.",
        "Open 24/7 since 2019/20, as dated 3/4/2021 under /proc/sys/fs/1/2.",
        "A second attempt ran over a link.",
        "In 2019 as before, Python 2 has no release at 5 pm.",
        "Music of the 1990s and the 30s.",
    ],
)
def test_parts_paths_ordinals_and_words_are_no_shares_or_quantities(text: str) -> None:
    page = index_page(f"Notes\n\n{text}\n")
    figures = [f for sentence in page.sentences for f in sentence.numbers]
    assert all(f.kind != "percent" and f.quantity is None for f in figures), figures


@pytest.mark.parametrize(
    ("claim", "quote"),
    [
        ("The timeout is half a minute.", "The timeout is 30s."),
        ("It runs at over a gigabyte per second.", "It runs at 1.2 GB/s."),
        ("The build took about an hour.", "The build took 58 minutes."),
        ("The value is 2048 KiB.", "The value is 2 MiB."),
        ("It uses half a percent of CPU.", "It uses 0.5% of CPU."),
    ],
)
def test_units_in_words_and_glued_seconds_are_quantities(claim: str, quote: str) -> None:
    assert quote_holds_quantity(quote, claim)


@pytest.mark.parametrize(
    ("claim", "quote", "held"),
    [
        ("Throughput reached 1.25 GB/s.", "Throughput reached 10 Gb/s.", True),  # gigabits
        ("Throughput reached 10 gigabits per second.", "Throughput reached 10 Gbps.", True),
        ("It copies 500 bytes per second.", "It copies 500 B/s.", True),
        ("It parses 1.2 gigabytes a second.", "It parses 1200 MB/s.", True),
        ("It parses 1.2 gigabytes a second.", "It parses 1500 MB/s.", False),
        ("The build took 62 minutes.", "The build took 1h2m.", True),
        ("It was 1.3 times faster.", "It was 30% faster.", True),
        ("It was 1.3 times faster.", "It was 40% faster.", False),
    ],
)
def test_rates_clocks_and_changes_as_multiples(claim: str, quote: str, held: bool) -> None:
    assert quote_holds_quantity(quote, claim) is held


def test_a_duration_a_day_stays_a_duration() -> None:
    assert quote_holds_quantity("Staff work 8 hours a day.", "Staff work 8 hours a day.")
    assert quote_holds_quantity("Staff work 8 hours.", "Staff work 8 hours a day.")


# --- Hedges: each with one band -----------------------------------------------------------


def test_every_hedge_has_a_band_around_or_beside_the_figure() -> None:
    assert {"about", "roughly", "almost", "nearly", "more than", "less than"} <= set(HEDGES)
    for word, (low, high) in HEDGES.items():
        assert 0 < low <= 1 <= high, word


@pytest.mark.parametrize(
    ("claim", "quote", "held"),
    [
        ("Roughly 12% of requests time out.", "11.8% of requests time out.", True),
        ("Roughly 12% of requests time out.", "15% of requests time out.", False),
        ("More than 400 towns joined.", "419 towns joined.", True),
        ("More than 400 towns joined.", "380 towns joined.", False),
        ("Almost 3,000 bikes were stolen.", "2,950 bikes were stolen.", True),
        ("Almost 3,000 bikes were stolen.", "3,100 bikes were stolen.", False),
        ("Fewer than 50 beds remain.", "47 beds remain.", True),
        ("Fewer than 50 beds remain.", "58 beds remain.", False),
        # no hedge, same unit: the figure itself
        ("410 towns joined.", "412 towns joined.", False),
        ("12% of requests time out.", "12.4% of requests time out.", False),
    ],
)
def test_hedges_widen_by_their_band_only(claim: str, quote: str, held: bool) -> None:
    assert quote_holds_quantity(quote, claim) is held


# --- Derived figures: from two figures of the page ----------------------------------------


@pytest.mark.parametrize(
    ("claim", "quote", "held"),
    [
        # a share from a count and a total
        ("About 21% of the sampled wells were dry.", "Of 1,000 wells sampled, 212 were dry.", True),
        (
            "About 35% of the wells sampled were dry.",
            "Of 1,000 wells sampled, 212 were dry.",
            False,
        ),
        # a change from two figures
        ("Ridership nearly tripled.", "Ridership grew from 1.2 million to 3.5 million.", True),
        ("Ridership nearly tripled.", "Ridership grew from 1.2 million to 2.0 million.", False),
        ("The new cell is a third smaller.", "The cell shrank from 120 mm to 80 mm.", True),
    ],
)
def test_a_figure_derived_from_two_page_figures(claim: str, quote: str, held: bool) -> None:
    assert quote_holds_quantity(quote, claim) is held


# --- Through the check ------------------------------------------------------------------

PAGE = index_page(
    "Storage benchmark, second edition\n"
    "On the reference machine sequential reads reached 1,950 MB/s and a cold start took "
    "0.25 seconds. The cache holds 768 MiB of hot blocks. "
    "Of the 1,000 drives we sampled, 212 failed within 2.5 years of service. "
    "The test rig was commissioned on 2021-03-03."
)


@pytest.mark.parametrize(
    "claim",
    [
        "Sequential reads on the reference machine ran at about 2 GB/s.",
        "A cold start on the reference machine took 250 milliseconds.",
        "The cache holds three quarters of a GiB of hot blocks.",
        "Roughly 21% of the sampled drives failed within thirty months of service.",
        "The test rig was commissioned on 3 March 2021.",
    ],
)
def test_careful_claims_are_supported(claim: str) -> None:
    check = check_claim(claim, PAGE)
    assert check.support is Support.SUPPORTED, check


@pytest.mark.parametrize(
    ("claim", "absent"),
    [
        ("Sequential reads on the reference machine ran at 1,590 MB/s.", "1,590"),
        ("Of the 1,000 drives we sampled, 419 failed within 2.5 years of service.", "419"),
    ],
)
def test_the_reason_names_the_figure_not_on_the_page(claim: str, absent: str) -> None:
    check = check_claim(claim, PAGE)
    assert check.support is Support.UNSUPPORTED, check
    assert f"{absent} not on the page" in check.reason


def test_a_quote_clears_only_the_figure_it_names() -> None:
    claim = "Of the 1,000 drives we sampled, 419 failed."
    assert quote_holds_quantity("we sampled 1,000 drives", claim, "1,000")
    assert not quote_holds_quantity("we sampled 1,000 drives", claim, "419")
    assert not quote_holds_quantity("we sampled 1,000 drives", claim)


# --- Added with the second round of rules (written with them, not held out) ------------


@pytest.mark.parametrize(
    ("claim", "quote", "held"),
    [
        ("The import took 95 seconds.", "import: 1m35s", True),
        ("The import took 95 seconds.", "import: 1m45s", False),
        ("The lookup took 41 milliseconds.", "lookup | 0.041s", True),
        ("Maintenance lasted a year and a half.", "Maintenance lasted 18 months.", True),
        ("Wheels outnumbered eggs by nine to one.", "Wheels outnumbered eggs 9x.", True),
        ("The new build is 40% faster.", "The new build runs 1.4x as fast.", True),
        ("The new build is 60% faster.", "The new build runs 1.4x as fast.", False),
        ("Linux trailed macOS by 12 percentage points.", "macOS 71%, Linux 59%.", True),
        ("Roughly 300 of the owners replied.", "Of 1,210 owners, 25% replied.", True),
        ("Roughly 500 of the owners replied.", "Of 1,210 owners, 25% replied.", False),
        ("The survey drew 4,700 answers.", "The survey drew 4 700 answers.", True),
        ("The 1990s were quiet.", "In the 1990s it was quiet.", True),
        ("A tick lasts 4 milliseconds.", "A tick lasts 0.01, 0.004 or 0.001 seconds.", True),
        ("A tick lasted one millisecond.", "A tick lasted 0.001 seconds.", True),
        ("Of 8,310 entrants, 1,127 did not finish.", "8,310 entered and 7,183 finished.", True),
        ("Of 8,310 entrants, 1,227 did not finish.", "8,310 entered and 7,183 finished.", False),
        ("Caching saved 0.4 seconds.", "It took 1.25s, and 0.85s with the cache.", True),
        ("Stage 1 of 2 is done.", "Stages 2 and 3 are done.", False),  # no small differences
    ],
)
def test_more_ways_of_writing_one_figure(claim: str, quote: str, held: bool) -> None:
    assert quote_holds_quantity(quote, claim) is held


def test_a_hard_wrapped_paragraph_is_one_passage() -> None:
    page = index_page(
        "Release schedule\n\n"
        "The branch received bugfix releases every two months for\n"
        "approximately 18 months, then source-only security fixes.\n\n"
        "| version | date |\n| 1.0 | 2020-01-01 |\n"
    )
    check = check_claim("The branch received bugfix releases for about a year and a half.", page)
    assert check.support is Support.SUPPORTED, check
    assert [s.text for s in page.sentences][-2:] == ["| version | date |", "| 1.0 | 2020-01-01 |"]


def test_a_table_row_is_read_with_its_header() -> None:
    page = index_page(
        "Benchmark\n\n| Tool | Decompression speed |\n|---|---|\n"
        "| unzstd | 1380 MB/s |\n| unlz4 | 4970 MB/s |\n"
    )
    assert "|---|---|" not in [s.text for s in page.sentences]
    check = check_claim("unlz4 decompression speed was nearly 5 GB/s.", page)
    assert check.support is Support.SUPPORTED, check
    changed = check_claim("unzstd decompression speed was 4970 MB/s.", page)
    assert changed.support is not Support.SUPPORTED, changed


# --- Written before the rule (helper rules3): "one"/"two" before a unit, a level as a flag


@pytest.mark.parametrize(
    ("claim", "quote", "held"),
    [
        ("The warm-up took just under two minutes.", "The warm-up took 115 seconds.", True),
        ("The warm-up took just under two minutes.", "The warm-up took 200 seconds.", False),
        ("Each slot keeps two bytes.", "Each slot keeps 16 bits.", True),
        ("The ferry crossing takes two hours.", "The ferry crossing takes 200 minutes.", False),
        ("The new kiln fires two times as fast.", "The new kiln fires 2x as fast.", True),
    ],
)
def test_one_and_two_before_a_unit_are_figures(claim: str, quote: str, held: bool) -> None:
    assert quote_holds_quantity(quote, claim) is held


@pytest.mark.parametrize(
    ("claim", "quote", "held"),
    [
        ("At level 7, squash packed at 20 MB/s.", "| squash -7 | 3.1 | 20 MB/s |", True),
        ("At level 7, squash packed at 20 MB/s.", "| squash -6 | 3.1 | 20 MB/s |", False),
        ("Run it at level 3.", "Run squash -3 on the file.", True),
        ("Run it at level 3.", "Rows 1-3 of the file.", False),  # a range, no option
    ],
)
def test_a_level_may_be_written_as_a_short_option(claim: str, quote: str, held: bool) -> None:
    assert quote_holds_quantity(quote, claim) is held


@pytest.mark.parametrize(
    ("claim", "quote", "held"),
    [
        ("Bookings rose by more than half.", "Bookings rose by 58% this spring.", True),
        ("Bookings rose by more than half.", "Bookings rose by 38% this spring.", False),
        ("The queue was cut by half.", "The queue was cut by 50%.", True),
        ("The queue was cut by half.", "The queue was cut by 30%.", False),
        ("The queue shrank by nearly half.", "The queue shrank by 47%.", True),
    ],
)
def test_by_half_is_a_share_of_change(claim: str, quote: str, held: bool) -> None:
    assert quote_holds_quantity(quote, claim) is held


# Written before the rule (helper rules3): a table row the claim names by its first cell
KETTLE_PAGE = """Kettle benchmark

The tests were run at sea level by the author on three mornings in a row, in a cold
kitchen, with tap water from the same jug each time, and each kettle was descaled first.

| kettle | litres | watts |
|---|---|---|
| Brightwell K2 | 1.7 | 2200 W |
| Ostara Mini | 0.8 | 1350 W |
| Fennick Pro | 1.5 | 3000 W |

Spring rerun

| kettle | litres | watts |
|---|---|---|
| Fennick Pro | 1.5 | 2900 W |
| Halden Slim | 1.2 | 1800 W |
"""


@pytest.mark.parametrize(
    ("claim", "supported"),
    [
        ("A travel-sized Ostara Mini draws 1.35 kW from a cheap hotel socket.", True),
        ("A travel-sized Ostara Mini draws 2.2 kW from a cheap hotel socket.", False),
        ("A travel-sized Fennick Pro draws 3 kW from a cheap hotel socket.", False),  # 2 rows
    ],
)
def test_a_table_row_named_by_the_claim_holds_its_figure(claim: str, supported: bool) -> None:
    check = check_claim(claim, index_page(KETTLE_PAGE), "k")
    assert (check.support is Support.SUPPORTED) is supported, check.reason


@pytest.mark.parametrize(
    ("claim", "quote", "held"),
    [
        ("It streams a roughly nine-gigabyte archive.", "The archive (~9GB) is streamed.", True),
        ("It streams a roughly nine-gigabyte archive.", "The archive (~4GB) is streamed.", False),
        ("The tour ends with a two-hour climb.", "The climb takes 120 minutes.", True),
        ("The tour ends with a twenty-five-minute climb.", "The climb takes 25 min.", True),
        ("The tour ends with a twenty-five-minute climb.", "The climb takes 52 min.", False),
    ],
)
def test_a_number_word_joined_to_its_unit_is_a_quantity(claim: str, quote: str, held: bool) -> None:
    assert quote_holds_quantity(quote, claim) is held


@pytest.mark.parametrize(
    ("claim", "quote", "held"),
    [
        ("Hikers outnumbered riders seven to one.", "Hikers outnumbered riders 7x.", True),
        ("Hikers outnumbered riders seven to one.", "There were 7 hikers.", False),
        ("The new pump is three times as fast.", "The old pump took 3 hours.", False),
        ("The new pump is more than three times as fast.", "It ran for 4 days.", False),
        ("The new pump is more than three times as fast.", "It ran 4 times as fast.", True),
    ],
)
def test_a_multiple_is_held_only_by_a_multiple(claim: str, quote: str, held: bool) -> None:
    assert quote_holds_quantity(quote, claim) is held


# Written before the rule (helper rules3): two rare figures pin a passage with few words
SMELTER_PAGE = """Smelter notes

The crew met on Monday to plan the week and agreed on the order of the repairs.
Safety training took the morning, and the afternoon went to the furnace lining.
$ tally --furnace 3 --shift night
run-7 1,482.6 t 1,397.4 t
The crew also replaced two conveyor belts and cleaned the dust filters on Friday.
"""


@pytest.mark.parametrize(
    ("claim", "supported"),
    [
        (
            "The night shift's daily output slid after relining, from 1,482.6 to 1,397.4 tonnes.",
            True,
        ),
        (
            "The night shift's daily output slid after relining, from 1,482.6 to 1,297.4 tonnes.",
            False,
        ),
    ],
)
def test_two_rare_figures_pin_their_passage(claim: str, supported: bool) -> None:
    check = check_claim(claim, index_page(SMELTER_PAGE), "s")
    assert (check.support is Support.SUPPORTED) is supported, check.reason


@pytest.mark.parametrize(
    ("claim", "quote", "held"),
    [
        # a score out of a scale is the score (the scale a figure too), not a share
        ("Users rated the installer 8 out of 10.", "Its average rating was 8 (of 10).", True),
        ("Users rated the installer 8 out of 10.", "Its average rating was 7 (of 10).", False),
        ("Users rated the installer 8 out of 10.", "80% of users rate it highly.", False),
        ("Most testers scored it 4 out of 5.", "Testers gave it 4 on a 5-point scale.", True),
        # a share stays a share
        ("Eight out of ten firms export.", "80% of firms export.", True),
    ],
)
def test_a_rating_out_of_a_scale_is_the_score(claim: str, quote: str, held: bool) -> None:
    assert quote_holds_quantity(quote, claim) is held


@pytest.mark.parametrize(
    ("claim", "quote", "held"),
    [
        # benchstat writes the SI prefix of its "sec/op" header alone after the figure
        ("Each operation took about 0.37 ms.", "Parse-8 374.5µ ± 1%", True),
        ("Each operation took 374.5 microseconds.", "Parse-8 374.5μ ± 1%", True),
        ("Each operation took about 0.37 ms.", "Parse-8 274.5µ ± 1%", False),
    ],
)
def test_a_bare_micro_prefix_after_a_figure_is_microseconds(
    claim: str, quote: str, held: bool
) -> None:
    assert quote_holds_quantity(quote, claim) is held


@pytest.mark.parametrize(
    ("claim", "quote", "held"),
    [
        # "MB" and "KB" are often written for MiB and KiB: either reading is the quantity
        ("The heap limit is 512 MB.", "The heap limit is 512MiB.", True),
        ("The heap limit is 512 MiB.", "The heap limit is 512 MB.", True),
        ("The tarball is 45 KB.", "The tarball is 46,080 bytes.", True),
        ("The tarball is 45 KB.", "The tarball is 45,000 bytes.", True),
        ("The index is about 4 GB.", "The index is 4.2 GiB.", True),
        ("Each link carries 10 MB/s.", "Each link carries 10 MiB/s.", True),
        # neither reading
        ("The heap limit is 512 MB.", "The heap limit is 560 MiB.", False),
        ("The tarball is 45 KB.", "The tarball is 47,500 bytes.", False),
        ("The heap limit is 512 MB.", "The heap limit is 512 Mbit.", False),
    ],
)
def test_a_decimal_prefix_of_data_may_mean_the_binary_one(
    claim: str, quote: str, held: bool
) -> None:
    assert quote_holds_quantity(quote, claim) is held


@pytest.mark.parametrize(
    ("claim", "quote", "held"),
    [
        # a ratio with the thing counted between its two figures
        ("One user in four opted in.", "25% of users opted in.", True),
        ("It is used by one package in every five.", "20% of the packages use it.", True),
        ("Two packages in every three use it.", "67% of the packages use it.", True),
        ("One user in four opted in.", "40% of users opted in.", False),
        # no ratio: a count of things in a count of places
        ("The tool found 2 files in 3 directories.", "The tool found 67% of the files.", False),
    ],
)
def test_a_ratio_around_the_thing_it_counts_is_a_share(claim: str, quote: str, held: bool) -> None:
    assert quote_holds_quantity(quote, claim) is held


@pytest.mark.parametrize(
    ("claim", "page", "held"),
    [
        ("The share of such packages doubled to 20%.", "Such packages: 20%, up from 10%.", True),
        ("The share of such packages tripled to 20%.", "Such packages: 20%, up from 10%.", False),
    ],
)
def test_a_multiple_of_two_percentages(claim: str, page: str, held: bool) -> None:
    check = check_claim(claim, index_page(f"Packages\n\n{page}\n"))
    assert (check.support is Support.SUPPORTED) is held, check


@pytest.mark.parametrize(
    ("claim", "quote", "held"),
    [
        ("The suite ran a dozen checks.", "The suite ran 12 checks.", True),
        ("The suite ran half a dozen checks.", "The suite ran 6 checks.", True),
        ("The suite ran two dozen checks.", "The suite ran 24 checks.", True),
        ("The suite ran a dozen checks.", "The suite ran 10 checks.", False),
        ("Traffic grew tenfold.", "Traffic grew 10x.", True),
        ("Traffic grew 3-fold.", "Traffic grew three times.", True),
        ("Traffic grew twofold.", "Traffic grew 3x.", False),
        ("A full scan took 1 minute 30 seconds.", "A full scan took 90 seconds.", True),
        ("A full scan took 90 seconds.", "A full scan took 1 minute and 30 seconds.", True),
        ("The upgrade took 2.25 hours.", "The upgrade took 2 hours, 15 minutes.", True),
        ("A full scan took 1 minute 20 seconds.", "A full scan took 90 seconds.", False),
        ("Version 2 shipped on 5 March 2021.", "Version 2 shipped on 2021/03/05.", True),
        ("Version 2 shipped on 6 March 2021.", "Version 2 shipped on 2021/03/05.", False),
    ],
)
def test_dozens_folds_compound_durations_and_slashed_iso_dates(
    claim: str, quote: str, held: bool
) -> None:
    assert quote_holds_quantity(quote, claim) is held

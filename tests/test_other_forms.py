"""A quantity a careful writer states in another form than the page, case by case (issue
26, session 5): a size of data in exact bytes where the page gives a prefixed size (or a hex
literal), a time of day and a date read out of a timestamp, and a fraction whose
denominator is an ordinal past "tenth" ("one thirty-second of", "thousandths of a second").

Invented sentences of each class (not copied from the corpus), each true claim with a twin
that must still be flagged (anything but SUPPORTED): a figure off by a prefix, a wrong time
or date, a wrong fraction. `NOT_YET_READ` lists the cases that failed when the table was
written (strict xfail): a reading fix removes its cases from that set, never edits a case.
"""

from __future__ import annotations

import pytest
from case_tables import Case, assert_checked, case_params

DATA_SIZE: list[Case] = [
    # a binary-prefixed size on the page, exact bytes in the claim
    (
        "Before version 4.0 the default limit of one queue was 16 MB.",
        "Before version 4.0 the default limit of one queue was 16,777,216 bytes.",
        True,
    ),
    (
        "Before version 4.0 the default limit of one queue was 16 MB.",
        "Before version 4.0 the default limit of one queue was 33,554,432 bytes.",
        False,
    ),
    (
        "Before version 4.0 the default limit of one queue was 16 MB.",
        "Before version 4.0 the default limit of one queue was 16,777,217 bytes.",
        False,
    ),
    (
        "Each worker keeps a scratch arena of 256 KB.",
        "Each worker keeps a scratch arena of 262,144 bytes.",
        True,
    ),
    (
        "Each worker keeps a scratch arena of 256 KB.",
        "Each worker keeps a scratch arena of 2,621,440 bytes.",
        False,
    ),
    # a hex literal on the page is its value
    (
        "The magic number at offset zero is 0x10000 in every file.",
        "The magic number at offset zero is 65,536 in every file.",
        True,
    ),
    (
        "The magic number at offset zero is 0x10000 in every file.",
        "The magic number at offset zero is 10,000 in every file.",
        False,
    ),
    # "half megabyte" without "a": half of that unit
    (
        "The sampler takes one sample per half megabyte allocated on the heap.",
        "The sampler takes roughly one sample per 512 KiB allocated on the heap.",
        True,
    ),
    (
        "The sampler takes one sample per half megabyte allocated on the heap.",
        "The sampler takes roughly one sample per 5 MiB allocated on the heap.",
        False,
    ),
    (
        "The watchdog fires after a half second without a heartbeat.",
        "The watchdog fires after 500 milliseconds without a heartbeat.",
        True,
    ),
    (
        "The watchdog fires after a half second without a heartbeat.",
        "The watchdog fires after 50 milliseconds without a heartbeat.",
        False,
    ),
]

TIMESTAMP: list[Case] = [
    # a time of day and a date out of a log line's timestamp
    (
        "The backup log ends with this line:\nSat 2019-06-15 21:42:09 UTC backup finished ok",
        "The backup finished at 21:42 on June 15, 2019, according to its log.",
        True,
    ),
    (
        "The backup log ends with this line:\nSat 2019-06-15 21:42:09 UTC backup finished ok",
        "The backup finished at 21:24 on June 15, 2019, according to its log.",
        False,
    ),
    (
        "The backup log ends with this line:\nSat 2019-06-15 21:42:09 UTC backup finished ok",
        "The backup finished at 21:42 on June 16, 2019, according to its log.",
        False,
    ),
    (
        "The backup log ends with this line:\nSat 2019-06-15 21:42:09 UTC backup finished ok",
        "The backup finished at 9:42 pm on 15 June 2019, according to its log.",
        True,
    ),
    # a date out of a ctime-style version string
    (
        "The build used the compiler below.\ncc version 3.1 (rev 5af3) Wed Jul 10 14:02:55 2019",
        "The build used a compiler revision dated 10 July 2019.",
        True,
    ),
    (
        "The build used the compiler below.\ncc version 3.1 (rev 5af3) Wed Jul 10 14:02:55 2019",
        "The build used a compiler revision dated 11 July 2019.",
        False,
    ),
    (
        "The build used the compiler below.\ncc version 3.1 (rev 5af3) Wed Jul 10 14:02:55 2019",
        "The build used a compiler revision dated July 2018.",
        False,
    ),
]

ORDINAL_FRACTION: list[Case] = [
    (
        "The old pool held 64 pages; the new one holds 2048 pages.",
        "The old pool held 64 pages, one thirty-second of the 2048 pages the new one holds.",
        True,
    ),
    (
        "The old pool held 64 pages; the new one holds 2048 pages.",
        "The old pool held 64 pages, one sixteenth of the 2048 pages the new one holds.",
        False,
    ),
    (
        "The timer counts in milliseconds and wraps after 49 days.",
        "The timer counts in thousandths of a second and wraps after 49 days.",
        True,
    ),
    (
        "The timer counts in milliseconds and wraps after 49 days.",
        "The timer counts in thousandths of a second and wraps after 94 days.",
        False,
    ),
    (
        "The probe waits a thirty-second interval between retries.",
        "The probe waits half a minute between retries.",
        True,
    ),
]

SUB_KINDS = {"data_size": DATA_SIZE, "timestamp": TIMESTAMP, "ordinal_fraction": ORDINAL_FRACTION}

NOT_YET_READ: frozenset[str] = frozenset(
    {
        "timestamp-00",
        "timestamp-04",
        "ordinal_fraction-00",
        "ordinal_fraction-01",
        "ordinal_fraction-02",
    }
)


@pytest.mark.parametrize(("page", "claim", "supported"), case_params(SUB_KINDS, NOT_YET_READ))
def test_a_quantity_in_another_form_is_read_as_the_figure_it_means(
    page: str, claim: str, supported: bool
) -> None:
    assert_checked(page, claim, supported)

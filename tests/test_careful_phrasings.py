"""Carefully phrased claims, case by case (issue 26): a page sentence, a claim a careful
writer would write about it, and whether the check must find it SUPPORTED.

Written before the reading changes that followed it, by brainstorming per sub-kind of the
corpus (other units, number words, fractions and ratios, rounding hedges, date formats,
scales, derived figures), not from corpus sentences. Each true claim has, where it makes
sense, a twin with a wrong figure in the same careful phrasing, which must still be flagged
(anything but SUPPORTED): a reading that makes every careful phrase match anything would
pass the first half and fail the second.

`NOT_YET_READ` lists the cases that failed when the table was written (strict xfail): a
reading fix removes its cases from that set, never edits a case.
"""

from __future__ import annotations

import pytest
from case_tables import Case, assert_checked, case_params

UNIT: list[Case] = [
    ("The archive is 512 kbytes in size.", "The archive is 0.5 MB in size.", True),
    ("The archive is 512 kbytes in size.", "The archive is 5 MB in size.", False),
    ("Each block holds 4096 bytes of data.", "Each block holds 4 KiB of data.", True),
    ("Each block holds 4096 bytes of data.", "Each block holds 8 KiB of data.", False),
    ("Each block holds 4 kB of data.", "Each block holds 4,000 bytes of data.", True),
    ("The ring buffer is 64 KiB.", "The ring buffer is 65,536 bytes.", True),
    ("The disk reads at 550 MB/s.", "The disk reads at about 0.55 GB/s.", True),
    ("The disk reads at 550 MB/s.", "The disk reads at about 5.5 GB/s.", False),
    ("The uplink runs at 10 Gbit/s.", "The uplink runs at 1.25 GB/s.", True),
    ("The uplink runs at 10 Gbit/s.", "The uplink runs at 10 GB/s.", False),
    ("The uplink runs at 10 Gbit/s.", "The uplink runs at ten gigabits per second.", True),
    ("The uplink runs at 100 Mbps.", "The uplink runs at 100 Mbit/s.", True),
    ("The uplink runs at 128 Kbps.", "The uplink runs at 128 kbit/s.", True),
    ("Copies run at 2 GiB/s.", "Copies run at 2,048 MiB/s.", True),
    ("Copies run at 2 GiB/s.", "Copies run at 1,024 MiB/s.", False),
    ("The image is 1.2 GB.", "The image is 1,200 MB.", True),
    ("The image is 1.2 GB.", "The image is 1.2 gigabytes.", True),
    ("The volume holds 1 TB.", "The volume holds 1,000 GB.", True),
    ("The cache holds 2 MiB.", "The cache holds 2,048 KiB.", True),
    ("The tape holds 6 TiB.", "The tape holds 6,144 GiB.", True),
    ("A lookup takes 1500 ns.", "A lookup takes 1.5 µs.", True),
    ("A lookup takes 1500 ns.", "A lookup takes 1.5 us.", True),
    ("A lookup takes 1500 ns.", "A lookup takes 15 µs.", False),
    ("A syscall costs 250 µs.", "A syscall costs 0.25 ms.", True),
    ("A syscall costs 250 µs.", "A syscall costs a quarter of a millisecond.", True),
    ("A syscall costs 500 usec.", "A syscall costs 0.5 ms.", True),
    ("The frame budget is 20 msec.", "The frame budget is 0.02 seconds.", True),
    ("The frame budget is 16 ms.", "The frame budget is 0.016 s.", True),
    ("The nightly job runs for 90 min.", "The nightly job runs for 1.5 hours.", True),
    ("The nightly job runs for 90 min.", "The nightly job runs for an hour and a half.", True),
    ("The nightly job runs for 90 min.", "The nightly job runs for two hours.", False),
    ("The soak test lasted 36 hrs.", "The soak test lasted a day and a half.", True),
    ("The soak test lasted 48 hrs.", "The soak test lasted two days.", True),
    ("The soak test lasted 48 hrs.", "The soak test lasted three days.", False),
    (
        "Each sprint is 15 mins of planning.",
        "Each sprint is a quarter of an hour of planning.",
        True,
    ),
    ("The retry waits 90 secs.", "The retry waits a minute and a half.", True),
    ("Backups are kept for 14 days.", "Backups are kept for a fortnight.", True),
    ("Backups are kept for 10 days.", "Backups are kept for a fortnight.", False),
    ("Backups are kept for 14 days.", "Backups are kept for two weeks.", True),
    ("Backups are kept for 3 weeks.", "Backups are kept for 21 days.", True),
    ("The support window is 24 months.", "The support window is two years.", True),
    ("The support window is 18 months.", "The support window is two years.", False),
    ("The support window is 6 months.", "The support window is half a year.", True),
    ("The project has run for 10 years.", "The project has run for a decade.", True),
    ("The project has run for 6 years.", "The project has run for a decade.", False),
    ("Each licence lasts 5 yrs.", "Each licence lasts five years.", True),
    ("The idle timeout is 30 s.", "The idle timeout is half a minute.", True),
    ("The core clock peaks at 3.2 GHz.", "The core clock peaks at 3,200 MHz.", True),
    ("The modem sends 12 kbit/s.", "The modem sends 12,000 bits per second.", True),
    ("A syscall costs 250 \u03bcs.", "A syscall costs 0.25 ms.", True),
    ("A syscall costs 250 microseconds.", "A syscall costs 250 \u00b5s.", True),
    (
        "The gateway handles 180 requests per minute.",
        "The gateway handles 3 requests per second.",
        True,
    ),
    (
        "The gateway handles 180 requests per minute.",
        "The gateway handles 5 requests per second.",
        False,
    ),
    ("The sensor samples at 250 Hz.", "The sensor samples at 0.25 kHz.", True),
    ("The mirror syncs 600 KB/s.", "The mirror syncs about 0.6 MB/s.", True),
    ("Each run lasts 90 days.", "Each run lasts three months.", True),
]

NUMBER_WORDS: list[Case] = [
    ("The team has 3 maintainers.", "The team has three maintainers.", True),
    ("The team has 3 maintainers.", "The team has four maintainers.", False),
    ("The project made 2 releases this year.", "The project made three releases this year.", False),
    ("The project made 2 releases this year.", "The project made two releases this year.", True),
    ("The project made 3 releases this year.", "The project made two releases this year.", False),
    ("The archive holds 12,000 packages.", "The archive holds twelve thousand packages.", True),
    ("The archive holds 1,500 packages.", "The archive holds fifteen hundred packages.", True),
    ("The archive holds 1,500 packages.", "The archive holds fifteen thousand packages.", False),
    ("The index lists 1,000,000 files.", "The index lists one million files.", True),
    ("The index lists 100 files.", "The index lists a hundred files.", True),
    ("Exactly 25% of jobs failed.", "Exactly twenty-five percent of jobs failed.", True),
    ("Exactly 25% of jobs failed.", "Exactly thirty-five percent of jobs failed.", False),
    ("The fleet has 11 servers.", "The fleet has eleven servers.", True),
    ("The checksum is 32 bits wide.", "The checksum is thirty-two bits wide.", True),
    (
        "The survey drew 1.5 million answers.",
        "The survey drew one and a half million answers.",
        True,
    ),
    ("The survey drew 2,400 answers.", "The survey drew two thousand four hundred answers.", True),
    ("The survey drew 2,400 answers.", "The survey drew two thousand answers.", False),
    ("The grid has 9 regions.", "The grid has nine regions.", True),
    ("The suite has two parts.", "The suite has 2 parts.", True),
    ("The suite has two parts.", "The suite has 3 parts.", False),
    ("The archive holds 1,200 packages.", "The archive holds twelve hundred packages.", True),
    ("The rate rose by 3 percentage points.", "The rate rose by 3 pp.", True),
    ("The rate rose by 0.25 percentage points.", "The rate rose by 25 basis points.", True),
]

FRACTION: list[Case] = [
    ("67% of users run Linux.", "Two-thirds of users run Linux.", True),
    ("45% of users run Linux.", "Two-thirds of users run Linux.", False),
    ("90% of users run Linux.", "Nine in ten users run Linux.", True),
    ("91% of users run Linux.", "Nine out of ten users run Linux.", True),
    ("70% of users run Linux.", "Nine out of ten users run Linux.", False),
    ("20% of users run Linux.", "One out of every five users runs Linux.", True),
    ("40% of users run Linux.", "One out of every five users runs Linux.", False),
    ("60% of users run Linux.", "Three-fifths of users run Linux.", True),
    ("25% of users run Linux.", "A quarter of users run Linux.", True),
    ("25% of users run Linux.", "One-quarter of users run Linux.", True),
    ("50% of users run Linux.", "Half of users run Linux.", True),
    ("50% of the users run Linux.", "Half the users run Linux.", True),
    ("30% of users run Linux.", "Half of users run Linux.", False),
    ("33% of users run Linux.", "One in three users runs Linux.", True),
    ("33.3% of users run Linux.", "A third of users run Linux.", True),
    ("75% of users run Linux.", "Three-quarters of users run Linux.", True),
    ("75% of users run Linux.", "Three quarters of users run Linux.", True),
    ("66% of users run Linux.", "Two out of three users run Linux.", True),
    ("80% of users run Linux.", "Four in five users run Linux.", True),
    ("10% of users run Linux.", "A tenth of users run Linux.", True),
    ("30% of users run Linux.", "One in ten users runs Linux.", False),
    ("The compression ratio is 4:1.", "The compression ratio is four to one.", True),
    ("The compression ratio is 4:1.", "The compression ratio is three to one.", False),
    ("Of 200 respondents, 50 use Vim.", "A quarter of the 200 respondents use Vim.", True),
    ("Of 200 respondents, 90 use Vim.", "A quarter of the 200 respondents use Vim.", False),
    ("Only 0.1% of requests fail.", "Only a tenth of a percent of requests fail.", True),
    ("Only 0.5% of requests fail.", "Only a tenth of a percent of requests fail.", False),
    ("Only 0.25% of requests fail.", "Only a quarter of a percent of requests fail.", True),
    ("Only 0.1% of builds fail.", "Only 1 in 1,000 builds fails.", True),
    ("Only 0.1% of builds fail.", "Only one in a thousand builds fails.", True),
    ("Only 1% of builds fail.", "Only one in a hundred builds fails.", True),
    ("The new build is 33% larger.", "The new build is a third larger.", True),
    ("The new build is 25% smaller.", "The new build is a quarter smaller.", True),
    ("The new build is 50% smaller.", "The new build is a quarter smaller.", False),
    ("65% of respondents use Go at work.", "Roughly two in every three respondents use Go.", True),
    ("33% of respondents use Go at work.", "One in every three respondents uses Go at work.", True),
    ("40% of respondents use Go at work.", "Two in every three respondents use Go at work.", False),
]

ROUNDING: list[Case] = [
    ("Only 0.4% of requests fail.", "Under 1% of requests fail.", True),
    ("Only 1.4% of requests fail.", "Under 1% of requests fail.", False),
    ("Only 0.4% of requests fail.", "Below 1% of requests fail.", True),
    ("Only 0.4% of requests fail.", "Less than 1% of requests fail.", True),
    ("The pool keeps 6 workers busy.", "The pool keeps at most 8 workers busy.", True),
    ("The pool keeps 12 workers busy.", "The pool keeps at most 8 workers busy.", False),
    ("Only 30 beds remain free.", "Fewer than 50 beds remain free.", True),
    ("The heap reached 985 MB.", "The heap reached just under 1,000 MB.", True),
    ("The heap reached 700 MB.", "The heap reached just under 1,000 MB.", False),
    ("The build took 2.1 seconds.", "The build took just over 2 seconds.", True),
    ("The build took 2.9 seconds.", "The build took just over 2 seconds.", False),
    ("The registry hosts 540 mirrors.", "The registry hosts upwards of 500 mirrors.", True),
    ("About 39% of sites use HTTP/2.", "Close to 40% of sites use HTTP/2.", True),
    ("About 29% of sites use HTTP/2.", "Close to 40% of sites use HTTP/2.", False),
    ("The service has 10.4 million users.", "The service has north of 10 million users.", True),
    ("The service has 9.1 million users.", "The service has north of 10 million users.", False),
    (
        "The bug tracker lists 160 open bugs.",
        "The bug tracker lists well over 100 open bugs.",
        True,
    ),
    ("The village has 310 homes.", "The village has some 300 homes.", True),
    ("The image takes 2.1 GB on disk.", "The image takes ~2 GB on disk.", True),
    ("The image takes 3.1 GB on disk.", "The image takes ~2 GB on disk.", False),
    ("The round trip takes 3.1 ms.", "The round trip takes \u2248 3 ms.", True),
    ("The round trip takes 3.1 ms.", "The round trip takes \u22483 ms.", True),
    ("The round trip takes 4.5 ms.", "The round trip takes \u2248 3 ms.", False),
    ("The farm runs 24 nodes.", "The farm runs at least 20 nodes.", True),
    ("The farm runs 16 nodes.", "The farm runs at least 20 nodes.", False),
    ("The queue holds 8 GB of messages.", "The queue holds up to 10 GB of messages.", True),
    ("The queue holds 16 GB of messages.", "The queue holds up to 10 GB of messages.", False),
    ("About 31% of sites use HTTP/2.", "Roughly a third of sites use HTTP/2.", True),
    ("Sales rose from 10 to 23 units.", "Sales more than doubled, from 10 to 23 units.", True),
    ("The service has 1.3 million users.", "The service has over a million users.", True),
    ("Some 24% of sites use HTTP/2.", "Almost a quarter of sites use HTTP/2.", True),
    ("Some 40% of sites use HTTP/2.", "Almost a quarter of sites use HTTP/2.", False),
    ("Some 49% of sites use HTTP/2.", "Just shy of 50% of sites use HTTP/2.", True),
    ("Some 40% of sites use HTTP/2.", "Less than half of sites use HTTP/2.", True),
    ("Some 60% of sites use HTTP/2.", "Less than half of sites use HTTP/2.", False),
    ("Some 93% of sites use HTTP/2.", "Over 90% of sites use HTTP/2.", True),
    ("The p50 latency is 3.2 ms.", "The p50 latency is below 5 ms.", True),
    ("The p50 latency is 7.2 ms.", "The p50 latency is below 5 ms.", False),
    ("The full scan takes 45 seconds.", "The full scan takes under a minute.", True),
    ("The full scan takes 75 seconds.", "The full scan takes under a minute.", False),
    ("Each probe takes 0.4 ms.", "Each probe takes sub-millisecond time.", True),
    ("The new parser is 2.4x faster.", "The new parser is more than 2x faster.", True),
    (
        "The cluster serves 4,870 requests per second.",
        "The cluster serves in the region of 5,000 requests per second.",
        True,
    ),
    ("The repository has 10,000+ stars.", "The repository has more than 10,000 stars.", True),
    ("The overhead is 5-8% per call.", "The overhead is between 5 and 8 percent per call.", True),
]

DATE: list[Case] = [
    ("Version 2 shipped on 05.03.2021.", "Version 2 shipped on 5 March 2021.", True),
    ("Version 2 shipped on 05.04.2021.", "Version 2 shipped on 5 March 2021.", False),
    ("Version 2 shipped on 5 March 2021.", "Version 2 shipped on 05.03.2021.", True),
    ("Version 2 shipped on 2021-03-03.", "Version 2 shipped on March 3rd, 2021.", True),
    ("Version 2 shipped on 2021-03-03.", "Version 2 shipped on March 13th, 2021.", False),
    ("Version 2 shipped on 2021-03-03.", "Version 2 shipped on the 3rd of March 2021.", True),
    ("Version 2 shipped on March 3, 2021.", "Version 2 shipped on 2021/03/03.", True),
    ("Version 2 shipped on 2021-03-03.", "Version 2 shipped on Mar 3 2021.", True),
    ("Version 2 shipped on 2021-03-03.", "Version 2 shipped on 3 Mar. 2021.", True),
    ("Version 2 shipped on 2021-03-15.", "Version 2 shipped on 03/15/2021.", True),
    ("Version 2 shipped on 2021-03-15.", "Version 2 shipped on 15/03/2021.", True),
    ("Version 2 shipped on 2021-03-03T10:00:00Z.", "Version 2 shipped on 3 March 2021.", True),
    ("Version 2 shipped in Sept. 2020.", "Version 2 shipped in September 2020.", True),
    ("Version 2 shipped on 2021-03-03.", "Version 2 shipped in March 2021.", True),
    ("Version 2 shipped on 2021-03-03.", "Version 2 shipped in April 2021.", False),
    ("Version 2 shipped on 15 February 2021.", "Version 2 shipped in Q1 2021.", True),
    ("Version 2 shipped on 15 May 2021.", "Version 2 shipped in Q1 2021.", False),
    ("Version 2 shipped on 1 April 2020.", "Version 2 shipped on the 1st of April, 2020.", True),
    ("Version 2 shipped on 03/05/2021.", "Version 2 shipped on 03/05/2021.", True),
    ("Version 2 shipped in Q1 2021.", "Version 2 shipped in the first quarter of 2021.", True),
    ("Version 2 shipped in Q1 2021.", "Version 2 shipped in Q2 2021.", False),
    ("Version 2 shipped on 2021-03-03.", "Version 2 shipped in 2021.", True),
    ("Version 2 shipped on 2021-06-15.", "Version 2 shipped in mid-2021.", True),
    ("Version 2 shipped in the 2023-24 season.", "Version 2 shipped in the 2023/24 season.", True),
]

DURATION_CLOCK: list[Case] = [
    ("The warm build finished in 1:30.", "The warm build finished in 90 seconds.", True),
    ("The warm build finished in 1:30.", "The warm build finished in 130 seconds.", False),
    ("The average call lasted 4:30.", "The average call lasted four and a half minutes.", True),
    ("The full rebuild took 1:30:00.", "The full rebuild took an hour and a half.", True),
    (
        "The record marathon time is 2:01:09.",
        "The record marathon time is just over two hours.",
        True,
    ),
    (
        "The record marathon time is 2:21:09.",
        "The record marathon time is just over two hours.",
        False,
    ),
    ("The office opens at 10:30 daily.", "The office opens at 10:30 daily.", True),
    ("The office opens at 10:30 daily.", "The office opens at 11:30 daily.", False),
    ("The warm build finished in 1:30.", "The warm build finished in 1:30.", True),
    ("The ratio of reads to writes is 1:30.", "The ratio of reads to writes is 1:30.", True),
    ("The warm build finished in 0:01.23.", "The warm build finished in 1.23 seconds.", True),
]

DECIMAL: list[Case] = [
    ("The scores correlate at .85 overall.", "The scores correlate at 0.85 overall.", True),
    ("The scores correlate at .85 overall.", "The scores correlate at 0.58 overall.", False),
    ("The scores correlate at 0.85 overall.", "The scores correlate at .85 overall.", True),
    ("The sleep lasts 0.5 s per retry.", "The sleep lasts .5 seconds per retry.", True),
    ("The sleep lasts 1.5e-3 s per retry.", "The sleep lasts 1.5 ms per retry.", True),
    ("The table holds 2.5 \u00d7 10^6 rows.", "The table holds 2.5 million rows.", True),
]

SCALE: list[Case] = [
    ("The firm earned 4bn dollars.", "The firm earned 4,000,000,000 dollars.", True),
    ("The firm earned 4,000,000,000 dollars.", "The firm earned 4bn dollars.", True),
    ("The firm earned 4,000,000,000 dollars.", "The firm earned 4 bn dollars.", True),
    ("The firm earned 4,000,000,000 dollars.", "The firm earned 5bn dollars.", False),
    ("The site logs 2,500,000 visits.", "The site logs 2.5M visits.", True),
    ("The site logs 2,900,000 visits.", "The site logs 2.5M visits.", False),
    ("The repo has 1,200 stars.", "The repo has 1.2k stars.", True),
    ("The repo has 12,000 stars.", "The repo has 12K stars.", True),
    ("The repo has 3,000 stars.", "The repo has 3 thousand stars.", True),
    ("The repo has 40,000 stars.", "The repo has 40 thousand stars.", True),
    ("The fund holds $4.2bn in bonds.", "The fund holds $4,200 million in bonds.", True),
    ("The fund holds 1.2B dollars in bonds.", "The fund holds 1.2 billion dollars in bonds.", True),
    ("The census counts 3,200,000 people.", "The census counts 3.2 million people.", True),
    ("The census counts 10M people.", "The census counts 10 million people.", True),
    ("The census counts 500 million people.", "The census counts half a billion people.", True),
    ("The census counts 1.5 mln people.", "The census counts 1.5 million people.", True),
    ("The table holds 1e6 rows.", "The table holds a million rows.", True),
    ("The table holds 1e6 rows.", "The table holds ten million rows.", False),
    ("The fund raised $4,500,000 last year.", "The fund raised $4.5 million last year.", True),
    ("The fund raised \u20ac420 million last year.", "The fund raised \u20ac420m last year.", True),
    ("The fund raised 420 million euros last year.", "The fund raised \u20ac420m last year.", True),
    ("The fund raised $1.2bn last year.", "The fund raised 1.2 billion dollars last year.", True),
]

DERIVED: list[Case] = [
    ("Of 800 tests, 200 failed.", "Of 800 tests, 600 passed.", True),
    ("Of 800 tests, 200 failed.", "Of 800 tests, 500 passed.", False),
    ("Disk use grew from 2 GB to 6 GB.", "Disk use tripled, from 2 GB to 6 GB.", True),
    ("Traffic grew from 40 TB to 60 TB.", "Traffic grew by half, from 40 TB to 60 TB.", True),
    ("Of 400 users, 100 run Linux.", "A quarter of the 400 users run Linux.", True),
    ("Of 400 users, 100 run Linux.", "A third of the 400 users run Linux.", False),
    (
        "Builds went from 120 seconds to 30 seconds.",
        "Builds went four times faster, from 120 seconds to 30 seconds.",
        True,
    ),
]

MULTIPLE: list[Case] = [
    ("The new parser is 3x faster.", "The new parser is three times faster.", True),
    ("The new parser is 3x faster.", "The new parser is four times faster.", False),
    ("The new parser is 2x faster.", "The new parser is twice as fast.", True),
    ("The new parser is 10x faster.", "The new parser is an order of magnitude faster.", True),
    ("The new parser is 2x faster.", "The new parser is an order of magnitude faster.", False),
    ("The new parser is 100x faster.", "The new parser is two orders of magnitude faster.", True),
    ("The new parser is 3-4x faster.", "The new parser is three to four times faster.", True),
    (
        "Throughput rose 25% after the change.",
        "Throughput rose by a quarter after the change.",
        True,
    ),
    ("Throughput fell 50% after the change.", "Throughput halved after the change.", True),
    ("Throughput fell 20% after the change.", "Throughput halved after the change.", False),
    (
        "The new parser runs at 150% of the old speed.",
        "The new parser runs at 1.5 times the old speed.",
        True,
    ),
]

SMALL_COUNT: list[Case] = [
    ("Each node runs 2 workers.", "Each node runs two workers.", True),
    ("Each node runs 4 workers.", "Each node runs two workers.", False),
    ("The release has 1 maintainer.", "The release has only one maintainer.", True),
    ("The release has 2 maintainers.", "The release has only one maintainer.", False),
    ("The audit found two bugs.", "The audit found 2 bugs.", True),
    ("The audit found two bugs.", "The audit found 3 bugs.", False),
    ("Version 4 added 2 new flags.", "Version 4 added two new flags.", True),
    ("Version 4 added 5 new flags.", "Version 4 added two new flags.", False),
    ("It took 3 attempts to pass.", "It took two attempts to pass.", False),
    ("The first two releases fixed 30 bugs.", "The first 2 releases fixed 30 bugs.", True),
    # "one" and "two" that count nothing: no figure the page must hold
    (
        "Among the fastest parsers, it parses a file in 3 ms.",
        "It is one of the fastest parsers, parsing a file in 3 ms.",
        True,
    ),
    ("The pair of them wrote 40 patches.", "The two of them wrote 40 patches.", True),
    ("The patch is a single fix for 3 crashes.", "The patch is a one-off fix for 3 crashes.", True),
    (
        "Unlike its predecessor, the new parser is 3x faster.",
        "Unlike the old one, the new parser is 3x faster.",
        True,
    ),
    ("Each of the 12 tests passed.", "Every one of the 12 tests passed.", True),
    (
        "The fix landed on 3 branches, including the stable branch.",
        "The fix landed on 3 branches, one of them the stable branch.",
        True,
    ),
    (
        "Both teams shipped 14 releases together.",
        "The two teams shipped 14 releases together.",
        True,
    ),
    (
        "A key reason is speed: the parser is 3x faster.",
        "One reason is speed: the parser is 3x faster.",
        True,
    ),
    # added after the reading change, from probing it: a count whose items follow it
    ("The tool runs on Linux and macOS.", "The tool runs on two platforms, Linux and macOS.", True),
]

RATE: list[Case] = [
    ("The API allows 3,600 calls per hour.", "The API allows one call per second.", True),
    ("The API allows 3,600 calls per hour.", "The API allows 60 calls a minute.", True),
    ("The API allows 3,600 calls per hour.", "The API allows 6 calls a minute.", False),
    ("The site serves 7.2 million pages a day.", "The site serves about 83 pages a second.", True),
    (
        "The site serves 7.2 million pages a day.",
        "The site serves about 830 pages a second.",
        False,
    ),
    ("Each worker handles 50 jobs/s.", "Each worker handles 3,000 jobs per minute.", True),
    ("Each worker handles 50 jobs/s.", "Each worker handles 300 jobs per minute.", False),
    ("The mirror syncs every 6 hours.", "The mirror syncs four times a day.", True),
    ("The mirror syncs every 8 hours.", "The mirror syncs four times a day.", False),
    ("Backups run 2 times a day.", "Backups run twice a day.", True),
    ("Backups run 3 times a day.", "Backups run twice a day.", False),
    ("The index is rebuilt every 12 hours.", "The index is rebuilt twice a day.", True),
    ("The cron job runs 4 times per hour.", "The cron job runs every 15 minutes.", True),
    ("The cron job runs 6 times per hour.", "The cron job runs every 15 minutes.", False),
    ("The feed publishes 52 issues a year.", "The feed publishes about one issue a week.", True),
    ("The bot posts 1,440 updates per day.", "The bot posts one update every minute.", True),
    ("Backups run every 2 days.", "Backups run every other day.", True),
    ("Backups run every 3 days.", "Backups run every other day.", False),
    ("The pump moves 120 litres per minute.", "The pump moves 2 litres per second.", True),
    ("The disk writes 3.6 GB per hour.", "The disk writes 1 MB per second.", True),
    # added after the reading change, from probing it: money per unit of time
    ("The plan costs $60 a year.", "The plan costs $5 a month.", True),
    ("The plan costs $60 a year.", "The plan costs $6 a month.", False),
]

CHANGE: list[Case] = [
    ("Memory use is 200% of the baseline.", "Memory use is twice the baseline.", True),
    ("Memory use is 300% of the baseline.", "Memory use is twice the baseline.", False),
    ("Throughput rose 200% after the change.", "Throughput tripled after the change.", True),
    ("Throughput rose 100% after the change.", "Throughput tripled after the change.", False),
    ("Throughput fell 50% after the change.", "Throughput was cut in half after the change.", True),
    (
        "Throughput fell 30% after the change.",
        "Throughput was cut in half after the change.",
        False,
    ),
    (
        "The new parser runs at 250% of the old speed.",
        "The new parser runs at 2.5 times the old speed.",
        True,
    ),
    (
        "The new parser runs at 1.5 times the old speed.",
        "The new parser runs at 150% of the old speed.",
        True,
    ),
    ("The new parser is 1.5 times as fast.", "The new parser is 50% faster.", True),
    ("The new parser is 2.5 times as fast.", "The new parser is 50% faster.", False),
    ("Sign-ups rose by a factor of 3.", "Sign-ups tripled.", True),
    ("Sign-ups rose by a factor of 4.", "Sign-ups tripled.", False),
    ("Sign-ups rose threefold.", "Sign-ups rose by a factor of three.", True),
    ("Costs fell by half after the move.", "Costs halved after the move.", True),
]

BOUNDARY: list[Case] = [
    (
        "Children under 14 make up 18% of the population.",
        "Children under 15 make up 18% of the population.",
        False,
    ),
    (
        "Children under 5 make up 6% of the population.",
        "Children under 15 make up 6% of the population.",
        False,
    ),
    (
        "Children aged under 15 make up 18% of the population.",
        "Children under 15 make up 18% of the population.",
        True,
    ),
    (
        "Children aged 0-14 make up 18% of the population.",
        "Children under 15 make up 18% of the population.",
        True,
    ),
    (
        "Children aged 0-14 make up 18% of the population.",
        "Children under 14 make up 18% of the population.",
        False,
    ),
    (
        "People aged 70 and over make up 20% of the population.",
        "People over 65 make up 20% of the population.",
        False,
    ),
    (
        "People aged 65 and over make up 20% of the population.",
        "People over 65 make up 20% of the population.",
        True,
    ),
    (
        "People aged 65+ make up 20% of the population.",
        "People aged 65 and older make up 20% of the population.",
        True,
    ),
    (
        "People aged 65 and over make up 20% of the population.",
        "The over-65s make up 20% of the population.",
        True,
    ),
    (
        "People aged 70 and over make up 20% of the population.",
        "The over-65s make up 20% of the population.",
        False,
    ),
    (
        "Users younger than 25 make up 30% of the base.",
        "Users under 25 make up 30% of the base.",
        True,
    ),
    (
        "Users younger than 21 make up 30% of the base.",
        "Users under 25 make up 30% of the base.",
        False,
    ),
    (
        "The tax applies to incomes over 60,000 euros.",
        "The tax applies to incomes over 50,000 euros.",
        False,
    ),
    (
        "Firms with fewer than 10 staff employ 40% of workers.",
        "Firms with fewer than 50 staff employ 40% of workers.",
        False,
    ),
    ("Files over 4 GB make up 3% of uploads.", "Files over 2 GB make up 3% of uploads.", False),
    # a hedged figure that is no boundary keeps its band
    ("12,400 residents signed the petition.", "Over 12,000 residents signed the petition.", True),
    ("The town has 12,400 residents.", "The town has over 12,000 residents.", True),
    ("The city has 5.4 million people.", "The city is home to over 5 million people.", True),
    (
        "The trial enrolled 640 patients over 65.",
        "The trial enrolled more than 600 patients over 65.",
        True,
    ),
    # added after the reading change, from probing it: "a staff of over 300" is no group
    (
        "The company has a staff of 320 engineers.",
        "The company has a staff of over 300 engineers.",
        True,
    ),
]

VAGUE_COUNT: list[Case] = [
    ("The project has 4,200 contributors.", "The project has thousands of contributors.", True),
    ("The project has 420 contributors.", "The project has thousands of contributors.", False),
    ("The project has 420 contributors.", "The project has hundreds of contributors.", True),
    ("The project has 42 contributors.", "The project has hundreds of contributors.", False),
    ("The survey drew 38,000 answers.", "The survey drew tens of thousands of answers.", True),
    ("The survey drew 3,800 answers.", "The survey drew tens of thousands of answers.", False),
    ("The package has 3.1 million downloads.", "The package has millions of downloads.", True),
    ("The fleet has 36 servers.", "The fleet has dozens of servers.", True),
    ("The fleet has 8 servers.", "The fleet has dozens of servers.", False),
    ("The cluster has 3 master nodes.", "The cluster has a single master node.", False),
    ("The fix took 2 days.", "The fix took a couple of days.", True),
    ("The site had 250,000 downloads.", "The site had a quarter-million downloads.", True),
    ("The site had 250,000 downloads.", "The site had a quarter of a million downloads.", True),
]

TEMPERATURE: list[Case] = [
    ("The room is kept at 20 \u00b0C.", "The room is kept at 68 \u00b0F.", True),
    ("The room is kept at 20 \u00b0C.", "The room is kept at 78 \u00b0F.", False),
    ("The chip throttles at 95 degrees Celsius.", "The chip throttles at 203 \u00b0F.", True),
]

HALVED: list[Case] = [
    ("The new format is 50% of the old size.", "The new format halves the size.", True),
    ("The new format is 80% of the old size.", "The new format halves the size.", False),
    ("Build time fell from 10 to 5 minutes.", "Build time was cut in half.", True),
    ("Build time fell from 10 to 8 minutes.", "Build time was cut in half.", False),
    ("The patch brought memory use down to half.", "The patch halved memory use.", True),
    ("The patch gave a 2x reduction in memory use.", "The patch halved memory use.", True),
    ("The patch gave a 1.2x reduction in memory use.", "The patch halved memory use.", False),
    ("Memory use dropped by 52% with the patch.", "The patch roughly halved memory use.", True),
    ("Memory use dropped by 20% with the patch.", "The patch roughly halved memory use.", False),
]

SUB_KINDS: dict[str, list[Case]] = {
    "unit": UNIT,
    "number_words": NUMBER_WORDS,
    "fraction": FRACTION,
    "rounding": ROUNDING,
    "date": DATE,
    "clock": DURATION_CLOCK,
    "decimal": DECIMAL,
    "scale": SCALE,
    "derived": DERIVED,
    "multiple": MULTIPLE,
    "small_count": SMALL_COUNT,
    "rate": RATE,
    "change": CHANGE,
    "boundary": BOUNDARY,
    "vague_count": VAGUE_COUNT,
    "temperature": TEMPERATURE,
    "halved": HALVED,
}

NOT_YET_READ: frozenset[str] = frozenset(
    {
        "boundary-04",
        "derived-04",
        "fraction-23",
        "halved-01",
        "halved-03",
        "halved-06",
        "halved-08",
        "multiple-09",
        "small_count-03",
        "temperature-00",
        "temperature-02",
        "vague_count-09",
    }
)
"""Ids ("<sub-kind>-<index>") of the cases the reading does not get right yet. The third
batch (small_count, rate, change, boundary, vague_count, temperature: 76 cases, 36 of them
failing when written) was brainstormed from how careful writers phrase counts ("only one
maintainer", and the "one" and "two" that count nothing), rates ("twice a day", "every 15
minutes", "60 calls a minute"), changes ("cut in half", "200% of", "by a factor of 3"), the
boundary of a group ("children under 15" is no approximate 15: "under 14" is another group),
vague counts ("thousands of", "dozens of", "a couple of") and temperatures. Left: "a
third larger" read as 33% rather than 1.33x (fraction-23), a share of a share (derived-04),
"under 14" found in a page's "0-14" (boundary-04: a page's range end is no boundary of its
own), "a single" and
"only one" (vague_count-09, small_count-03: read as 1, either would need a page's "one
maintainer" and "a single maintainer" read as 1 too, and "one" on a page is too often no
count)
temperatures (pint's offset units: no factor), and "halved" (multiple-09: read as about
0.5 times it passed, but flagged a careful claim of the fresh half that says it another
way than the reading knows, so it stays a word). The halved group, added after that
decision: its true cases pass on words alone; its four wrong twins (a fall of 20% or a
1.2x reduction called "halved") fail for the same reason, and say what reading "halved"
as a figure must also read on a page ("down to half", "a 2x reduction", "50% of")."""


@pytest.mark.parametrize(("page", "claim", "supported"), case_params(SUB_KINDS, NOT_YET_READ))
def test_a_careful_phrasing_is_read_as_the_figure_it_means(
    page: str, claim: str, supported: bool
) -> None:
    assert_checked(f"Release notes\n\n{page}", claim, supported)

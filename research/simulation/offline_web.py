"""The simulated web of `--mock-mode`: the pages the simulated agent cites, served offline.

Every page under `https://example.org/mock/<topic>/<kind>-<code>` is made from its URL
alone, so the notes the simulated agent writes and the pages the orchestrator fetches
agree, except where the agent deliberately misreads a figure (the source check should
catch it). Fetching goes through an httpx transport and a resolver that never touch the
network, so the whole source check (fetch, extract, snapshot, claim check) runs for real.
"""

from __future__ import annotations

import hashlib
import html
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import httpx

    from research.sources.web import Web

HOST = "example.org"
PRACTICES = ("heat-recovery", "zoned", "hybrid", "demand-led", "seasonal", "modular")
ITEMS = ("retrofit", "storage", "sensor", "controller", "installer", "grid")
_PATH = re.compile(r"^/mock/([a-z0-9-]+)/(study|survey|report)-([a-z]+[0-9]+)$")


def _digest(*parts: str) -> int:
    return int(hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:12], 16)


def study_figure(code: str) -> int:
    """The percentage change a simulated study reports."""
    return _digest(code, "change") % 90 + 5


def survey_facts(code: str) -> tuple[int, str]:
    """(sites surveyed, dominant practice) of a simulated survey."""
    return _digest(code, "sites") % 900 + 40, PRACTICES[_digest(code, "practice") % len(PRACTICES)]


def report_facts(code: str) -> tuple[int, str, int]:
    """(units, item, year) a simulated report estimates."""
    return (
        _digest(code, "units") % 9000 + 100,
        ITEMS[_digest(code, "item") % len(ITEMS)],
        2030 + _digest(code, "year") % 10,
    )


def _subject(topic: str) -> str:
    return "shared background" if topic == "shared" else topic.replace("-", " ")


def page(url: str) -> tuple[int, str] | None:
    """(HTTP status, HTML) of a simulated page, or None when there is no such page."""
    if not url.startswith(f"https://{HOST}/"):
        return None
    match = _PATH.match(url[len(f"https://{HOST}") :].split("?", 1)[0])
    if match is None:
        return None
    topic, kind, code = match.groups()
    subject = _subject(topic)
    if kind == "study":
        title = f"Study {code}: {subject}"
        body = [
            f"Study {code} followed {subject} over several seasons of simulated field data.",
            f"Study {code} reports a {study_figure(code)}% change for {subject} compared "
            "with the baseline period.",
            "The authors note that the simulated sample is small and not independently replicated.",
        ]
    elif kind == "survey":
        sites, practice = survey_facts(code)
        title = f"Survey {code} of {subject}"
        body = [
            f"Survey {code} covered {sites} sites where {subject} is in use.",
            f"Across the {sites} sites, survey {code} finds {practice} practice dominant.",
            "Responses were collected by the simulated survey team.",
        ]
    else:
        units, item, year = report_facts(code)
        title = f"Report {code} on {subject}"
        body = [
            f"Report {code} looks at the market for {subject}.",
            f"Report {code} estimates {units} units of {item} demand by {year}.",
            "The estimate assumes current policy stays unchanged.",
        ]
    paragraphs = "".join(f"<p>{html.escape(line)}</p>\n" for line in body)
    return 200, (
        f"<!doctype html>\n<html><head><title>{html.escape(title)} (simulated)</title></head>"
        f"<body><nav><a href='/'>Simulated sources</a></nav>\n<article><h1>"
        f"{html.escape(title)}</h1>\n<p>[simulated] This page is part of the simulated web "
        f"of research.py's --mock-mode; it reports no real research.</p>\n{paragraphs}"
        "</article><footer>Simulated page</footer></body></html>\n"
    )


def _handle(request: httpx.Request) -> httpx.Response:
    import httpx

    found = page(str(request.url))
    status, text, kind = (
        (404, "not found", "text/plain") if found is None else (*found, "text/html")
    )
    # A stream, not content: the fetcher reads the body as it would from the network.
    return httpx.Response(
        status,
        headers={"content-type": f"{kind}; charset=utf-8"},
        stream=httpx.ByteStream(text.encode("utf-8")),
    )


def simulated_web() -> Web:
    """The transport and resolver the source check uses in --mock-mode: the simulated host
    resolves to a public address (so the private-address rule still applies), no other
    name resolves."""
    import httpx

    from research.sources.addresses import PUBLIC_TEST_ADDRESS, fixed_resolver
    from research.sources.web import Web

    resolve = fixed_resolver({HOST: PUBLIC_TEST_ADDRESS}, default=None)
    return Web(transport=httpx.MockTransport(_handle), resolve=resolve)

"""The source fetcher against a local HTTP server: outcomes, the address check, redirects,
limits, timeouts, the deadline and concurrency. Never touches real DNS or the internet.

The URLs name invented hosts (public.test, a.test, ...). A resolver says what they resolve
to (a public address unless a test says otherwise), and the transport `ToLocal` sends
every request to the local server, keeping the Host header, so the fetcher's address
check runs exactly as it would on the internet.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import http.server
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import threading
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from test_extract import PAGES, make_pdf

from research.sources.claims import Support, check_claim
from research.sources.fetch import (
    UNREACHED,
    USER_AGENT,
    FetchedPage,
    FetchPolicy,
    FetchStatus,
    Resolver,
    address_problem,
    fetch_sources,
    fixed_resolver,
)
from research.sources.pageindex import index_page

REPO = Path(__file__).resolve().parent.parent
ARTICLE = (PAGES / "article.html").read_bytes()
CHUNK = b"x" * 65536


class Handler(http.server.BaseHTTPRequestHandler):
    server: Server.HTTPServer

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        self.server.owner.handle(self)

    def send(
        self,
        status: int = 200,
        body: bytes = b"",
        content_type: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


Route = Callable[[Handler], None]


class Server:
    """A threaded local HTTP server with a table of routes; records every request and the
    most requests in flight, overall and per Host header."""

    class HTTPServer(http.server.ThreadingHTTPServer):
        daemon_threads = True
        owner: Server

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.routes: dict[str, Route] = {}
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        self.lock = threading.Lock()
        self.in_flight: Counter[str] = Counter()
        self.most: Counter[str] = Counter()
        self.sent: dict[str, int] = {}
        self.finished: set[str] = set()
        self.stop = threading.Event()
        self.httpd = self.HTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.owner = self
        if tls is not None:
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True)
        self.thread.start()

    def handle(self, handler: Handler) -> None:
        host = handler.headers.get("Host", "").split(":")[0]
        path = urlsplit(handler.path).path
        with self.lock:
            self.requests.append((host, path, dict(handler.headers)))
            for key in ("*", host):
                self.in_flight[key] += 1
                self.most[key] = max(self.most[key], self.in_flight[key])
        try:
            route = self.routes.get(path)
            if route is None:
                handler.send(404, b"no such page", "text/plain")
            else:
                route(handler)
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            with self.lock:
                for key in ("*", host):
                    self.in_flight[key] -= 1
                self.finished.add(path)

    def count(self, path: str) -> int:
        with self.lock:
            return sum(1 for _, p, _ in self.requests if p == path)

    def wait_finished(self, path: str, timeout: float = 5.0) -> None:
        end = time.monotonic() + timeout
        while path not in self.finished and time.monotonic() < end:
            time.sleep(0.01)

    def close(self) -> None:
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()


class ToLocal(httpx.AsyncBaseTransport):
    """Sends every request to the local server, keeping the Host header."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url.copy_with(scheme="http", host="127.0.0.1", port=self.port)
        local = httpx.Request(
            request.method,
            url,
            headers=request.headers,
            stream=request.stream,
            extensions=request.extensions,
        )
        return await self.inner.handle_async_request(local)

    async def aclose(self) -> None:
        await self.inner.aclose()


class NoNetwork(httpx.AsyncBaseTransport):
    """A transport that must not be used: counts the attempts."""

    def __init__(self) -> None:
        self.calls = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        raise AssertionError(f"no request expected, got {request.url}")


def spy_resolver(inner: Resolver) -> tuple[Resolver, list[str]]:
    calls: list[str] = []

    async def resolve(host: str, port: int) -> list[str]:
        calls.append(host)
        return await inner(host, port)

    return resolve, calls


@pytest.fixture
def server() -> Iterator[Server]:
    srv = Server()
    srv.routes.update(
        {
            "/page": lambda h: h.send(200, ARTICLE, "text/html; charset=utf-8"),
            "/text": lambda h: h.send(200, b"Plain notes\nCOP 2.7 at -15 C\n", "text/plain"),
            "/pdf": lambda h: h.send(
                200, make_pdf([["PDF line one", "COP 3.1"]], "Report"), "application/pdf"
            ),
            "/pdf-untyped": lambda h: h.send(
                200, make_pdf([["Sniffed PDF"]]), "application/octet-stream"
            ),
            "/image": lambda h: h.send(200, b"\x89PNG\r\n\x1a\n" + b"\0" * 100, "image/png"),
            "/binary": lambda h: h.send(200, os.urandom(200), "application/octet-stream"),
        }
    )
    yield srv
    srv.close()


def run(
    server: Server, urls: list[str], resolve: Resolver | None = None, **policy: object
) -> list[FetchedPage]:
    policy.setdefault("retry_backoff", 0.01)
    return fetch_sources(
        urls,
        FetchPolicy.model_validate(policy),
        transport=ToLocal(server.port),
        resolve=resolve or fixed_resolver(),
    )


def one(server: Server, url: str, **policy: object) -> FetchedPage:
    [page] = run(server, [url], **policy)  # type: ignore[arg-type]
    return page


# --- pages that work ----------------------------------------------------------------------


def test_an_html_page_is_fetched_with_title_text_and_metadata(server: Server) -> None:
    page = one(server, "http://public.test/page")
    record = page.record
    assert record.status == FetchStatus.OK and record.reason == ""
    assert record.title == "Cold-climate heat pumps: field results | Example Energy News"
    assert page.text is not None and "seasonal coefficient of performance" in page.text
    assert record.sha256 == hashlib.sha256(page.text.encode()).hexdigest()
    assert record.chars == len(page.text)
    assert (record.http_status, record.content_type) == (200, "text/html; charset=utf-8")
    assert record.final_url == "http://public.test/page"
    assert record.fetched_at is not None and record.fetched_at.tzinfo == UTC
    assert record.snapshot is None  # the store sets it


def test_a_page_s_title_and_date_reach_the_snapshot_and_the_claim_check(
    server: Server,
) -> None:
    """A blog post whose heading and dateline are in its template only: the snapshot's text
    starts with its title and publication date, which the claim check reads as the page's
    title block, so a claim giving the post's date finds it (and a wrong date does not)."""
    body = (PAGES / "blog_post.html").read_bytes()
    server.routes["/blog/toolchain-4.2"] = lambda h: h.send(200, body, "text/html")
    page = one(server, "http://public.test/blog/toolchain-4.2")
    assert page.text is not None and page.record.chars == len(page.text)
    assert page.text.startswith(
        "Toolchain 4.2 is released - The Example Blog\nPublished 2023-08-08\n\nToday"
    )
    indexed = index_page(page.text)
    assert indexed.head == 2
    claim = "Toolchain 4.2, released on {}, makes programs built with profiles 2% to 7% faster."
    for day, support in (
        ("8 August 2023", Support.SUPPORTED),
        ("8 August 2022", Support.UNSUPPORTED),
    ):
        assert check_claim(claim.format(day), indexed, page.record.url).support is support


def test_text_and_pdf_pages(server: Server) -> None:
    text, pdf, sniffed = run(
        server,
        ["http://public.test/text", "http://public.test/pdf", "http://public.test/pdf-untyped"],
    )
    assert text.record.status == FetchStatus.OK and text.text == "Plain notes\nCOP 2.7 at -15 C"
    assert text.record.title == "Plain notes"
    assert pdf.record.status == FetchStatus.OK and pdf.record.title == "Report"
    assert pdf.text is not None and "COP 3.1" in pdf.text
    assert sniffed.record.status == FetchStatus.OK and sniffed.text == "Sniffed PDF"


def test_the_user_agent_is_sent(server: Server) -> None:
    one(server, "http://public.test/text")
    [(_, _, headers)] = server.requests
    assert headers["User-Agent"] == USER_AGENT
    assert USER_AGENT.startswith("research.py/0.1.0 (desk-research source check")


def test_duplicates_are_fetched_once_and_on_page_reports_each(server: Server) -> None:
    seen: list[str] = []
    urls = ["http://public.test/page", "http://public.test/text", "http://public.test/page"]
    pages = fetch_sources(
        urls,
        FetchPolicy(),
        transport=ToLocal(server.port),
        resolve=fixed_resolver(),
        on_page=lambda p: seen.append(p.record.url),
    )
    assert [p.record.url for p in pages] == urls[:2]
    assert sorted(seen) == sorted(urls[:2])
    assert server.count("/page") == 1 and server.count("/text") == 1


def test_an_exception_in_on_page_propagates(server: Server) -> None:
    def fail(page: FetchedPage) -> None:
        raise RuntimeError("store broke")

    with pytest.raises(RuntimeError, match="store broke"):
        fetch_sources(
            ["http://public.test/text"],
            FetchPolicy(),
            transport=ToLocal(server.port),
            resolve=fixed_resolver(),
            on_page=fail,
        )


def test_gzip_and_deflate_bodies_are_decoded(server: Server) -> None:
    server.routes["/gz"] = lambda h: h.send(
        200, gzip.compress(b"zipped COP 2.7"), "text/plain", {"Content-Encoding": "gzip"}
    )
    raw = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    deflated = raw.compress(b"raw deflate COP 1.9") + raw.flush()
    server.routes["/deflate"] = lambda h: h.send(
        200, deflated, "text/plain", {"Content-Encoding": "deflate"}
    )
    gz, deflate = run(server, ["http://public.test/gz", "http://public.test/deflate"])
    assert gz.text == "zipped COP 2.7" and deflate.text == "raw deflate COP 1.9"


def test_several_threads_may_fetch_at_once(server: Server) -> None:
    results: list[list[FetchedPage]] = []

    def work(n: int) -> None:
        results.append(run(server, [f"http://t{n}.test/text", f"http://t{n}.test/page"]))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(results) == 4
    assert all(p.record.status == FetchStatus.OK for pages in results for p in pages)


# --- HTTP errors and retries --------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "status"),
    [
        (404, FetchStatus.NOT_FOUND),
        (410, FetchStatus.NOT_FOUND),
        (401, FetchStatus.BLOCKED),
        (403, FetchStatus.BLOCKED),
        (429, FetchStatus.BLOCKED),
        (400, FetchStatus.UNREACHABLE),
        (418, FetchStatus.UNREACHABLE),
    ],
)
def test_http_errors_without_retry(server: Server, code: int, status: FetchStatus) -> None:
    server.routes["/e"] = lambda h: h.send(code, b"nope", "text/html")
    page = one(server, "http://public.test/e")
    assert (page.record.status, page.record.http_status) == (status, code)
    assert page.record.reason == f"HTTP {code}" and page.text is None
    assert server.count("/e") == 1


def test_a_5xx_is_retried_once_after_the_backoff(server: Server) -> None:
    answers = iter([500, 200])
    server.routes["/flaky"] = lambda h: h.send(next(answers), b"recovered", "text/plain")
    server.routes["/down"] = lambda h: h.send(500, b"down", "text/plain")
    start = time.monotonic()
    flaky, down = run(
        server, ["http://public.test/flaky", "http://other.test/down"], retry_backoff=0.2
    )
    assert time.monotonic() - start >= 0.2
    assert flaky.record.status == FetchStatus.OK and flaky.text == "recovered"
    assert down.record.status == FetchStatus.UNREACHABLE
    assert (down.record.http_status, down.record.reason) == (500, "HTTP 500")
    assert server.count("/flaky") == 2 and server.count("/down") == 2


# --- redirects ----------------------------------------------------------------------------


def redirect(location: str, code: int = 302) -> Route:
    return lambda h: h.send(code, b"", "text/html", {"Location": location})


def test_redirect_chains(server: Server) -> None:
    for n in range(1, 7):
        server.routes[f"/r{n}"] = redirect(
            f"/r{n - 1}" if n % 2 else f"http://public.test/r{n - 1}", 301 if n % 2 else 307
        )
    server.routes["/r0"] = lambda h: h.send(200, b"arrived", "text/plain")
    server.routes["/elsewhere"] = redirect("http://other.test/text", 308)
    three, six, five_ok, other = run(
        server,
        [
            "http://public.test/r3",
            "http://public.test/r6",
            "http://x.test/r5",
            "http://public.test/elsewhere",
        ],
    )
    assert three.record.status == FetchStatus.OK and three.text == "arrived"
    assert three.record.final_url == "http://public.test/r0"
    assert six.record.status == FetchStatus.UNREACHABLE
    assert six.record.reason == "too many redirects (more than 5)"
    assert five_ok.record.status == FetchStatus.OK  # exactly max_redirects hops are fine
    assert other.record.final_url == "http://other.test/text" and other.text
    assert run(server, ["http://public.test/r2"], max_redirects=1)[0].record.status == (
        FetchStatus.UNREACHABLE
    )


def test_a_redirect_to_a_private_address_is_refused_before_connecting(server: Server) -> None:
    server.routes["/to-metadata"] = redirect("http://169.254.169.254/latest/meta-data/")
    server.routes["/to-internal"] = redirect("http://internal.test/admin")
    server.routes["/to-file"] = redirect("file:///etc/passwd")
    server.routes["/admin"] = lambda h: h.send(200, b"secret", "text/plain")
    server.routes["/latest/meta-data/"] = lambda h: h.send(200, b"secret", "text/plain")
    resolve = fixed_resolver({"internal.test": "10.0.0.5"})
    metadata, internal, file = run(
        server,
        [
            "http://public.test/to-metadata",
            "http://public.test/to-internal",
            "http://public.test/to-file",
        ],
        resolve,
    )
    assert metadata.record.status == FetchStatus.SKIPPED
    assert metadata.record.reason == "redirect to a private address 169.254.169.254 (link-local)"
    assert metadata.record.final_url == "http://169.254.169.254/latest/meta-data/"
    assert internal.record.status == FetchStatus.SKIPPED
    assert internal.record.reason == "redirect to a private address 10.0.0.5"
    assert file.record.status == FetchStatus.SKIPPED and "file" in file.record.reason
    assert server.count("/admin") == 0 and server.count("/latest/meta-data/") == 0
    # With allow_private the same hop is followed.
    allowed = run(server, ["http://public.test/to-internal"], resolve, allow_private=True)
    assert allowed[0].text == "secret"


# --- refused before any I/O ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://127.0.0.1/", "loopback address 127.0.0.1"),
        ("http://127.0.0.1:8080/admin", "loopback address 127.0.0.1"),
        ("http://[::1]/", "loopback address ::1"),
        ("http://169.254.169.254/latest/meta-data/", "link-local address 169.254.169.254"),
        ("http://10.0.0.5/", "private address 10.0.0.5"),
        ("http://0.0.0.0/", "unspecified address 0.0.0.0"),
        ("http://[::ffff:127.0.0.1]/", "loopback address ::ffff:7f00:1"),
        ("http://224.0.0.1/", "multicast address 224.0.0.1"),
        ("http://100.64.0.1/", "non-global address 100.64.0.1"),
    ],
)
def test_ip_literals_that_are_not_public_are_refused(url: str, reason: str) -> None:
    transport = NoNetwork()
    resolve, calls = spy_resolver(fixed_resolver())
    [page] = fetch_sources([url], FetchPolicy(), transport=transport, resolve=resolve)
    assert (page.record.status, page.record.reason) == (FetchStatus.SKIPPED, reason)
    assert transport.calls == 0 and calls == []


def test_a_name_resolving_to_any_private_address_is_refused(server: Server) -> None:
    resolve = fixed_resolver(
        {"intranet.test": ["93.184.216.34", "10.1.2.3"], "localhost": "127.0.0.1"}
    )
    intranet, local = run(server, ["http://intranet.test/text", "http://localhost/text"], resolve)
    assert intranet.record.reason == "resolves to private address 10.1.2.3"
    assert local.record.reason == "resolves to loopback address 127.0.0.1"
    assert {intranet.record.status, local.record.status} == {FetchStatus.SKIPPED}
    assert server.requests == []
    allowed = run(server, ["http://intranet.test/text"], resolve, allow_private=True)
    assert allowed[0].record.status == FetchStatus.OK


PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy")


def test_the_connection_goes_to_the_address_that_was_checked(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DNS rebinding: on the real network the fetch connects to the address its check
    resolved, not to what the name resolves to later. The names here resolve nowhere but in
    the test's resolver, so a page fetched at all was fetched from the checked address;
    the server still sees the host's name, on the first hop and after a redirect."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    port = server.port
    server.routes["/hop"] = lambda h: h.send(
        302, headers={"Location": f"http://second.invalid:{port}/text"}
    )
    resolve = fixed_resolver(
        {"first.invalid": "127.0.0.1", "second.invalid": "127.0.0.1"}, default=None
    )
    [page] = fetch_sources(
        [f"http://first.invalid:{port}/hop"],
        FetchPolicy(allow_private=True),
        resolve=resolve,
    )
    assert page.record.status == FetchStatus.OK, page.record
    assert page.record.final_url == f"http://second.invalid:{port}/text"
    assert [(host, path) for host, path, _ in server.requests] == [
        ("first.invalid", "/hop"),
        ("second.invalid", "/text"),
    ]
    assert server.requests[0][2]["Host"] == f"first.invalid:{port}"


EC_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"]


def make_certificate(directory: Path, host: str) -> tuple[Path, Path, Path]:
    """A CA and a server certificate for `host`, signed by it (openssl's command line):
    (ca.pem, server.pem, server.key)."""
    ca_key, ca, key, request, cert = (
        directory / name for name in ("ca.key", "ca.pem", "server.key", "server.csr", "server.pem")
    )
    extensions = directory / "server.ext"
    extensions.write_text(
        f"subjectAltName=DNS:{host}\nextendedKeyUsage=serverAuth\n"
        "keyUsage=critical,digitalSignature,keyEncipherment\n"
        "basicConstraints=critical,CA:FALSE\nauthorityKeyIdentifier=keyid\n"
    )
    for argv in (
        ["req", "-x509", *EC_KEY, "-nodes", "-keyout", ca_key, "-out", ca]
        + ["-days", "2", "-subj", "/CN=research.py test CA"]
        + ["-addext", "basicConstraints=critical,CA:TRUE"]
        + ["-addext", "keyUsage=critical,keyCertSign,cRLSign"],
        ["req", *EC_KEY, "-nodes", "-keyout", key, "-out", request] + ["-subj", f"/CN={host}"],
        ["x509", "-req", "-in", request, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial"]
        + ["-out", cert, "-days", "2", "-extfile", extensions],
    ):
        subprocess.run(["openssl", *map(str, argv)], check=True, capture_output=True)
    return ca, cert, key


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
def test_a_pinned_https_fetch_still_checks_the_hosts_certificate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pinned request names the IP, but TLS must still send the host's name (SNI) and
    check the certificate against it: every real source is https."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    ca, cert, key = make_certificate(tmp_path, "pinned.invalid")
    monkeypatch.setenv("SSL_CERT_FILE", str(ca))  # httpx trusts the test's CA
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    seen: list[str | None] = []
    context.sni_callback = lambda sock, name, ctx: seen.append(name)  # type: ignore[assignment]
    server = Server(tls=context)
    server.routes["/text"] = lambda h: h.send(200, b"COP 2.7 at -15 C\n", "text/plain")
    try:
        resolve = fixed_resolver(
            {"pinned.invalid": "127.0.0.1", "other.invalid": "127.0.0.1"}, default=None
        )
        policy = FetchPolicy(allow_private=True, retry_backoff=0.01)
        good, wrong_name = fetch_sources(
            [
                f"https://pinned.invalid:{server.port}/text",
                f"https://other.invalid:{server.port}/text",
            ],
            policy,
            resolve=resolve,
        )
    finally:
        server.close()
    assert good.record.status == FetchStatus.OK, good.record
    assert good.text is not None and "COP 2.7" in good.text
    assert seen[0] == "pinned.invalid"
    # A certificate for another name is refused, as it would be without the pin.
    assert wrong_name.record.status == FetchStatus.UNREACHABLE
    assert "certificate" in wrong_name.record.reason.lower(), wrong_name.record.reason


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "ftp://example.org/file.txt",
        "javascript:alert(1)",
        "data:text/html,<p>hi</p>",
        "mailto:someone@example.org",
        "http://",
        "not a url",
        "http://[::1",
        "",
    ],
)
def test_other_schemes_and_bad_urls_are_skipped_without_io(url: str) -> None:
    transport = NoNetwork()
    [page] = fetch_sources([url], FetchPolicy(), transport=transport, resolve=fixed_resolver())
    assert page.record.status == FetchStatus.SKIPPED and page.record.reason
    assert page.record.url == url and transport.calls == 0


def test_an_unresolvable_host_is_unreachable(server: Server) -> None:
    # Other names resolve (the probe asks example.com), so this host is invented: dead.
    resolver = fixed_resolver({"example.com": "93.184.216.34"}, default=None)
    page = run(server, ["http://nowhere.invalid/x"], resolver)[0]
    assert page.record.status == FetchStatus.UNREACHABLE
    assert page.record.reason.startswith("nowhere.invalid does not resolve")
    assert server.requests == []


def test_an_invented_host_beside_pages_that_answer_is_unreachable(server: Server) -> None:
    resolver = fixed_resolver({"nowhere.invalid": []}, default="93.184.216.34")
    pages = run(server, ["http://nowhere.invalid/x", "http://public.test/page"], resolver)
    assert [p.record.status for p in pages] == [FetchStatus.UNREACHABLE, FetchStatus.OK]


@pytest.mark.parametrize("hosts", [1, 3])
def test_where_no_name_resolves_the_sources_are_not_checked_never_dead(
    server: Server, hosts: int
) -> None:
    urls = [f"http://h{i % hosts}.test/p{i}" for i in range(6)]
    resolve, calls = spy_resolver(fixed_resolver(default=None))
    pages = run(server, urls, resolve)
    assert {p.record.status for p in pages} == {FetchStatus.NOT_CHECKED}
    assert all(p.record.reason.startswith(UNREACHED) for p in pages)
    assert server.requests == []
    # A host that failed once is not tried again in the same batch.
    tried = Counter(host for host in calls if host.endswith(".test"))
    assert all(count <= 2 for count in tried.values()), tried  # per_host=2 race at most


def test_a_resolver_that_never_answers_costs_one_timeout_not_one_per_url() -> None:
    asked: list[str] = []

    async def silent(host: str, port: int) -> list[str]:
        asked.append(host)
        await asyncio.sleep(3600)
        return []

    urls = [f"http://host{i}.test/page" for i in range(40)]
    pages = fetch_sources(
        urls, FetchPolicy(connect_timeout=0.5), transport=NoNetwork(), resolve=silent
    )
    # 8 at a time: the first timeouts show nothing answers, the rest are not tried (counted,
    # not timed: one timeout per URL and a retry each would ask 80 times).
    assert len(asked) <= 16, asked
    assert {p.record.status for p in pages} == {FetchStatus.NOT_CHECKED}


def test_a_refused_connection_is_unreachable() -> None:
    # A port bound but not listening refuses connections; held for the whole fetch, so that
    # no other test (on another pytest-xdist worker) can start listening on it meanwhile.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        [page] = fetch_sources([f"http://127.0.0.1:{port}/"], FetchPolicy(allow_private=True))
    assert page.record.status == FetchStatus.UNREACHABLE
    assert page.record.reason.startswith("cannot connect")


def test_address_problem() -> None:
    assert address_problem("93.184.216.34") is None
    assert address_problem("2606:2800:220:1:248:1893:25c8:1946") is None
    assert address_problem("192.168.1.1") == "private"
    assert address_problem("fe80::1%eth0") == "link-local"
    assert address_problem("fc00::1") == "private"
    assert address_problem("240.0.0.1") == "reserved"
    assert address_problem("nonsense") == "unparseable"


# --- size, type, time ---------------------------------------------------------------------


def stream(size: int, declare: bool = False) -> Route:
    def route(h: Handler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/plain")
        if declare:
            h.send_header("Content-Length", str(size))
        h.end_headers()
        sent = 0
        try:
            while sent < size and not h.server.owner.stop.is_set():
                h.wfile.write(CHUNK)
                sent += len(CHUNK)
        finally:
            h.server.owner.sent[urlsplit(h.path).path] = sent

    return route


def test_a_50_mb_page_is_too_large_and_not_read_to_the_end(server: Server) -> None:
    server.routes["/huge"] = stream(50_000_000)
    server.routes["/huge-declared"] = stream(50_000_000, declare=True)
    huge, declared = run(server, ["http://public.test/huge", "http://public.test/huge-declared"])
    assert (huge.record.status, huge.record.reason) == (FetchStatus.TOO_LARGE, "over 10 MB")
    assert declared.record.status == FetchStatus.TOO_LARGE
    assert declared.record.reason == "over 10 MB (Content-Length 50 MB)"
    for path in ("/huge", "/huge-declared"):
        server.wait_finished(path)
        assert server.sent[path] < 25_000_000  # the client hung up early


def test_a_gzip_bomb_is_too_large(server: Server) -> None:
    bomb = gzip.compress(b"\0" * 20_000_000)
    assert len(bomb) < 100_000
    server.routes["/bomb"] = lambda h: h.send(200, bomb, "text/plain", {"Content-Encoding": "gzip"})
    page = one(server, "http://public.test/bomb", max_bytes=1_000_000)
    assert (page.record.status, page.record.reason) == (FetchStatus.TOO_LARGE, "over 1 MB")


def test_binary_content_is_not_text(server: Server) -> None:
    image, binary = run(server, ["http://public.test/image", "http://public.test/binary"])
    assert (image.record.status, image.record.reason) == (
        FetchStatus.NOT_TEXT,
        "content type image/png",
    )
    assert binary.record.status == FetchStatus.NOT_TEXT
    assert image.record.http_status == 200 and image.text is None


def slow(server: Server, seconds: float = 3.0) -> Route:
    return lambda h: (server.stop.wait(seconds), h.send(200, b"late", "text/plain"))[1]


def test_a_slow_page_times_out_after_one_retry(server: Server) -> None:
    server.routes["/slow"] = slow(server, seconds=600)  # only the read timeout ends it
    page = one(server, "http://public.test/slow", read_timeout=0.2)
    assert (page.record.status, page.record.reason) == (FetchStatus.TIMEOUT, "read timed out")
    assert server.count("/slow") == 2


def test_a_trickling_page_is_cut_by_the_total_timeout(server: Server) -> None:
    def trickle(h: Handler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/plain")
        h.end_headers()
        while not server.stop.wait(0.05):
            h.wfile.write(b"x")
            h.wfile.flush()

    server.routes["/trickle"] = trickle
    page = one(server, "http://public.test/trickle", total_timeout=0.3)
    assert (page.record.status, page.record.reason) == (
        FetchStatus.TIMEOUT,
        "took longer than 0.3 s",
    )
    assert server.count("/trickle") == 1  # not retried


def test_the_deadline_cuts_fetches_and_skips_the_rest(server: Server) -> None:
    # The page never answers (until the server stops): only the deadline can end the fetch.
    # The deadline is far enough for the first fetch to start on a loaded machine; the
    # test waits for it, not for a race.
    server.routes["/slow"] = slow(server, seconds=600)
    urls = [f"http://public.test/slow?{n}" for n in range(3)]
    pages = fetch_sources(
        urls,
        FetchPolicy(concurrency=1),
        deadline=time.monotonic() + 5,
        transport=ToLocal(server.port),
        resolve=fixed_resolver(),
    )
    first, *rest = pages
    assert first.record.status == FetchStatus.TIMEOUT
    assert first.record.reason == "time budget spent during the fetch"
    assert [(p.record.status, p.record.reason) for p in rest] == [
        (FetchStatus.SKIPPED, "time budget spent")
    ] * 2
    assert server.count("/slow") == 1


def test_a_deadline_already_past_starts_nothing() -> None:
    transport = NoNetwork()
    pages = fetch_sources(
        ["http://a.test/", "http://b.test/"],
        FetchPolicy(),
        deadline=time.monotonic() - 1,
        transport=transport,
        resolve=fixed_resolver(),
    )
    assert {p.record.reason for p in pages} == {"time budget spent"}
    assert transport.calls == 0


def test_concurrency_is_bounded_overall_and_per_host(server: Server) -> None:
    server.routes["/busy"] = lambda h: (time.sleep(0.15), h.send(200, b"done", "text/plain"))[1]
    urls = [f"http://h{host}.test/busy?{n}" for host in range(3) for n in range(4)]
    pages = run(server, urls, concurrency=4, per_host=2)
    assert all(p.record.status == FetchStatus.OK for p in pages)
    assert server.most["*"] == 4
    assert max(server.most[f"h{host}.test"] for host in range(3)) == 2
    server.most.clear()
    run(server, [f"http://solo.test/busy?{n}" for n in range(5)], concurrency=8, per_host=1)
    assert server.most["*"] == 1


# --- the benchmark ------------------------------------------------------------------------


def test_the_fetch_benchmark_runs_in_quick_mode(tmp_path: Path) -> None:
    out = tmp_path / "fetch.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("RESEARCH_")}
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "fetch.py"), "--quick", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    results = json.loads(out.read_text(encoding="utf-8"))
    assert results["quick"] is True
    assert results["throughput"]["sources"] > 0 and results["throughput"]["ok"] is True
    assert results["memory"]["status"] == "too_large"

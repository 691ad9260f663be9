"""Fetch the pages the research notes cite and extract their readable text.

`fetch_many` (async) and `fetch_sources` (its sync wrapper) take URLs and return exactly
one `FetchedPage` per distinct URL, in first-seen order; no bad URL or network condition
raises. What they keep:

- Only http and https, fetched with GET. Redirects are followed here (not by httpx), at
  most `max_redirects`, and every hop is checked again: scheme and address.
- Before each hop the host is resolved through the `Resolver` and the hop is refused when
  ANY of its addresses is loopback, private, link-local, reserved, multicast, unspecified
  or otherwise not global (IP literals too), unless `allow_private`.
  On the real network the connection goes to the address that was checked (the request
  names the IP; the Host header and TLS server name stay the host's), so a name whose
  answer changes between the check and the connect (DNS rebinding) cannot reach another
  address. Through a proxy from the environment the proxy connects, and it resolves the
  name itself: there the addresses are checked but cannot be pinned.
- The body is streamed and counted after decompression (gzip/deflate are decoded here,
  with a bounded output); past `max_bytes` the fetch stops at once (TOO_LARGE). A
  Content-Length over the cap is refused before reading. Types that are not text
  (images, video, ...) are refused before reading the body.
- Concurrency is bounded overall and per host (the host of the cited URL; hops to other
  hosts count against it). One retry, after `retry_backoff` seconds, on a 5xx answer or
  an httpx timeout. Each attempt is bounded by `total_timeout` and everything by the
  caller's `deadline`.
- Extraction (`research.sources.extract`) runs in worker threads so a large page does not
  stall the other downloads. A fetch cut by the deadline while its text is extracted lets
  that thread finish in the background.
"""

from __future__ import annotations

import asyncio
import errno
import hashlib
import ipaddress
import os
import socket
import time
import urllib.request
import zlib
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import TracebackType
from typing import Any

import httpx
from pydantic import BaseModel, ConfigDict, Field

from research import __version__
from research.sources.addresses import (
    PUBLIC_TEST_ADDRESS,
    Resolver,
    address_problem,
    fixed_resolver,
    system_resolver,
)
from research.sources.extract import SNIFFED_TYPES, extract, kind_of, media_type
from research.sources.records import (
    BUDGET_SPENT,
    UNREACHED,
    FetchedPage,
    FetchStatus,
    SourceRecord,
)

__all__ = [
    "BUDGET_SPENT",
    "PUBLIC_TEST_ADDRESS",
    "USER_AGENT",
    "FetchPolicy",
    "FetchStatus",
    "FetchedPage",
    "Resolver",
    "SourceRecord",
    "address_problem",
    "fetch_many",
    "fetch_sources",
    "fixed_resolver",
    "system_resolver",
]

USER_AGENT = f"research.py/{__version__} (desk-research source check; checks cited pages)"
"""Says what fetches the page and why; the project has no public home to link to yet."""
ACCEPT = "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,*/*;q=0.1"
REDIRECTS = frozenset({301, 302, 303, 307, 308})
PROBE_HOSTS = ("example.com", "wikipedia.org")
"""Names asked when a whole batch was one host that did not resolve: if none of them
resolves either, the machine cannot resolve names (else the host is invented)."""
GIVE_UP_AFTER = 4
"""Hosts that fail on this machine's side, with nothing answering, before the rest of the
batch is not tried (a resolver that never answers costs one timeout, not one per URL)."""
NOT_TRIED = f"{UNREACHED}: the first fetches of this batch all failed, so this was not tried"
NOT_FOUND = frozenset({404, 410})
BLOCKED = frozenset({401, 403, 429})
DEFAULT_PORTS = {"http": 80, "https": 443}


class FetchPolicy(BaseModel):
    """How sources are fetched: limits, timeouts and what may be reached."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    concurrency: int = Field(default=8, ge=1)
    """Fetches in flight overall."""
    per_host: int = Field(default=2, ge=1)
    """Fetches in flight per host (of the cited URL)."""
    connect_timeout: float = Field(default=10.0, gt=0)
    """Seconds to resolve a name or open a connection."""
    read_timeout: float = Field(default=20.0, gt=0)
    """Seconds of silence while reading (or writing) before the fetch times out."""
    total_timeout: float | None = Field(default=120.0, gt=0)
    """Seconds one attempt may take in all (hops, body, extraction); None = no limit."""
    max_bytes: int = Field(default=10_000_000, ge=1)
    """Cap on the (decompressed) body; over it the fetch stops at once (too_large)."""
    max_redirects: int = Field(default=5, ge=0)
    """Redirects followed; one more is "too many redirects"."""
    allow_private: bool = False
    """Allow loopback, private, link-local, reserved, multicast and unspecified targets."""
    retry_backoff: float = Field(default=1.0, ge=0)
    """Seconds before the one retry on a 5xx answer or a timeout (cut to fit the deadline)."""
    user_agent: str = USER_AGENT
    """The User-Agent header: names the tool and why it fetches."""


# --- outcomes -----------------------------------------------------------------------------


def _size(n: int) -> str:
    if n >= 1_000_000:
        return f"{n // 1_000_000} MB" if n % 1_000_000 == 0 else f"{n / 1_000_000:.1f} MB"
    return f"{n:,} bytes"


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass
class _Attempt:
    """What one attempt has learnt so far (kept when the attempt is cut)."""

    url: str
    current: str
    fetched_at: datetime = field(default_factory=_now)
    http_status: int | None = None
    content_type: str | None = None

    def page(self, status: FetchStatus, reason: str, local: str = "", **extra: Any) -> FetchedPage:
        record = SourceRecord(
            url=self.url,
            status=status,
            reason=reason,
            final_url=self.current,
            http_status=self.http_status,
            content_type=self.content_type,
            fetched_at=self.fetched_at,
            **extra,
        )
        return FetchedPage(record=record, text=None, local=local)


def _same_failure(url: str, earlier: FetchedPage) -> FetchedPage:
    record = earlier.record
    reason = f"{record.reason} (its host failed earlier in this batch; not tried again)"
    update = {"url": url, "final_url": url, "reason": reason[:500]}
    return FetchedPage(record.model_copy(update=update), None, local=earlier.local)


def _skipped(url: str, reason: str) -> FetchedPage:
    return FetchedPage(SourceRecord(url=url, status=FetchStatus.SKIPPED, reason=reason), None)


def _scheme_problem(url: httpx.URL) -> str | None:
    if url.scheme not in DEFAULT_PORTS:
        return f"not an http(s) URL (scheme {url.scheme or 'none'!r})"
    if not url.host:
        return "no host in the URL"
    return None


class _NotStarted(Exception):
    """The deadline came while the fetch waited for a slot."""


class _Retryable(Exception):
    """Internal: an attempt whose outcome earns the one retry."""

    def __init__(self, page: FetchedPage) -> None:
        super().__init__(page.record.reason)
        self.page = page


# --- the fetcher --------------------------------------------------------------------------


class _Fetcher:
    """One `fetch_many` call: the deadline, the slots, the one retry and what the batch
    learnt of its hosts; the requests of each attempt are its `_Downloader`'s."""

    def __init__(
        self,
        policy: FetchPolicy,
        deadline: float | None,
        transport: httpx.AsyncBaseTransport | None,
        resolve: Resolver,
    ) -> None:
        self.policy = policy
        loop = asyncio.get_running_loop()
        # The deadline is a time.monotonic() instant; the loop keeps its own clock.
        self.deadline = None if deadline is None else loop.time() + (deadline - time.monotonic())
        self.slots = asyncio.Semaphore(policy.concurrency)
        self.host_slots: dict[str, asyncio.Semaphore] = {}
        self.failed_hosts: dict[str, FetchedPage] = {}
        """Hosts that gave no answer in this batch, with their first outcome."""
        self.reached = False
        """Whether any fetch of this batch got past this machine (an answer, a refusal)."""
        self.download = _Downloader(policy, transport, resolve)

    async def __aenter__(self) -> _Fetcher:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.download.aclose()

    def remaining(self) -> float | None:
        if self.deadline is None:
            return None
        return self.deadline - asyncio.get_running_loop().time()

    async def _acquire(self, semaphore: asyncio.Semaphore) -> None:
        remaining = self.remaining()
        if remaining is None:
            await semaphore.acquire()
            return
        if remaining <= 0:
            raise _NotStarted
        try:
            async with asyncio.timeout(remaining):
                await semaphore.acquire()
        except TimeoutError:
            raise _NotStarted from None

    async def fetch(self, url: str) -> FetchedPage:
        """The one outcome for `url`; never raises (but for cancellation)."""
        try:
            return await self._fetch(url)
        except Exception as exc:  # a bug's last resort: still one page per URL
            reason = f"unexpected error: {type(exc).__name__}: {exc}"
            return FetchedPage(
                SourceRecord(url=url, status=FetchStatus.UNREACHABLE, reason=reason[:500]), None
            )

    async def _fetch(self, url: str) -> FetchedPage:
        try:
            parsed = httpx.URL(url)
        except Exception:
            return _skipped(url, "not a valid URL")
        problem = _scheme_problem(parsed)
        if problem:
            return _skipped(url, problem)
        page = await self._fetch_host(url, parsed)
        self._note(parsed.host, page)
        return page

    def _known_outcome(self, url: str, host: str) -> FetchedPage | None:
        """The outcome this batch already knows for `url` without trying it: its host failed
        (not tried again), or nothing got through so far (the rest is not tried)."""
        earlier = self.failed_hosts.get(host)
        if earlier is not None:
            return _same_failure(url, earlier)
        if len(self.failed_hosts) >= GIVE_UP_AFTER and not self.reached:
            record = SourceRecord(url=url, status=FetchStatus.NOT_CHECKED, reason=NOT_TRIED)
            return FetchedPage(record, None, local="given up")
        return None

    def _note(self, host: str, page: FetchedPage) -> None:
        """Remember a host that gave no answer, and whether anything answered."""
        record = page.record
        if record.reason.startswith(BUDGET_SPENT):
            return
        silent = record.http_status is None and record.status in (
            FetchStatus.UNREACHABLE,
            FetchStatus.TIMEOUT,
        )
        if page.local or silent:
            self.failed_hosts.setdefault(host, page)
        if not page.local:
            self.reached = True

    async def _fetch_host(self, url: str, parsed: httpx.URL) -> FetchedPage:
        host_slot = self.host_slots.setdefault(parsed.host, asyncio.Semaphore(self.policy.per_host))
        first: FetchedPage | None = None
        for attempt in range(2):
            if attempt == 1:
                assert first is not None
                remaining = self.remaining()
                if remaining is not None and remaining <= 0:
                    return first
                backoff = self.policy.retry_backoff
                await asyncio.sleep(backoff if remaining is None else min(backoff, remaining / 2))
            try:
                await self._acquire(host_slot)  # the host first: waiting for it holds no slot
                try:
                    await self._acquire(self.slots)
                    try:
                        known = self._known_outcome(url, parsed.host)
                        page = known or await self._attempt(url, parsed)
                    finally:
                        self.slots.release()
                finally:
                    host_slot.release()
            except _NotStarted:
                return first or _skipped(url, BUDGET_SPENT)
            except _Retryable as retry:
                if attempt == 1:
                    return retry.page
                first = retry.page
                continue
            return page
        raise AssertionError("unreachable")

    async def _attempt(self, url: str, parsed: httpx.URL) -> FetchedPage:
        """One attempt at `url` (all its hops), bounded by the total timeout and the deadline;
        raises _Retryable for an outcome that earns a retry."""
        state = _Attempt(url=url, current=str(parsed))
        loop = asyncio.get_running_loop()
        total = self.policy.total_timeout
        ends = (self.deadline, None if total is None else loop.time() + total)
        limits = [end for end in ends if end is not None]
        when = min(limits) if limits else None
        try:
            async with asyncio.timeout_at(when):
                return await self.download.hops(state, parsed)
        except TimeoutError:
            if self.deadline is not None and when == self.deadline:
                return state.page(FetchStatus.TIMEOUT, f"{BUDGET_SPENT} during the fetch")
            return state.page(FetchStatus.TIMEOUT, f"took longer than {total:g} s")


class _Downloader:
    """The requests of one attempt: each hop's address checked (and pinned), redirects
    followed, the final answer read and its text extracted in a worker thread."""

    def __init__(
        self, policy: FetchPolicy, transport: httpx.AsyncBaseTransport | None, resolve: Resolver
    ) -> None:
        self.policy = policy
        self.resolve = resolve
        # Pin only where we make the connection: a custom transport (tests, mock mode)
        # routes by host name, and a proxy connects (and resolves) on its own.
        self.pin = transport is None and not urllib.request.getproxies()
        self.client = httpx.AsyncClient(
            transport=transport,
            follow_redirects=False,
            timeout=httpx.Timeout(
                connect=policy.connect_timeout,
                read=policy.read_timeout,
                write=policy.read_timeout,
                pool=policy.connect_timeout,
            ),
            limits=httpx.Limits(
                max_connections=policy.concurrency,
                max_keepalive_connections=policy.concurrency,
            ),
            headers={
                "User-Agent": policy.user_agent,
                "Accept": ACCEPT,
                "Accept-Encoding": "gzip, deflate",
            },
        )
        self.executor = ThreadPoolExecutor(
            max_workers=max(1, min(policy.concurrency, os.cpu_count() or 1)),
            thread_name_prefix="extract",
        )

    async def aclose(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)
        await self.client.aclose()

    async def hops(self, state: _Attempt, target: httpx.URL) -> FetchedPage:
        policy = self.policy
        for hop in range(policy.max_redirects + 1):
            state.current = str(target)
            checked = await self._check_address(state, target, redirected=hop > 0)
            if isinstance(checked, FetchedPage):
                return checked
            url, headers, extensions = self._pinned(target, checked)
            try:
                async with self.client.stream(
                    "GET", url, headers=headers, extensions=extensions
                ) as response:
                    state.http_status = response.status_code
                    state.content_type = response.headers.get("content-type")
                    if response.status_code in REDIRECTS:
                        location = response.headers.get("location")
                        if not location:
                            return state.page(
                                FetchStatus.UNREACHABLE,
                                f"HTTP {response.status_code} without a Location",
                            )
                        try:
                            target = target.join(location)
                        except Exception:
                            return state.page(FetchStatus.UNREACHABLE, "redirect to an invalid URL")
                        problem = _scheme_problem(target)
                        if problem:
                            return state.page(FetchStatus.SKIPPED, f"redirect refused: {problem}")
                        continue
                    return await self._answer(state, response)
            except httpx.TimeoutException as exc:
                raise _Retryable(state.page(FetchStatus.TIMEOUT, _timeout_reason(exc))) from None
            except httpx.HTTPError as exc:
                return state.page(FetchStatus.UNREACHABLE, _error_reason(exc), local=_local(exc))
        state.current = str(target)
        return state.page(
            FetchStatus.UNREACHABLE, f"too many redirects (more than {policy.max_redirects})"
        )

    def _pinned(
        self, target: httpx.URL, address: str
    ) -> tuple[httpx.URL, dict[str, str], dict[str, Any]]:
        """The request for `target` that connects to the checked `address`: the URL names
        the IP, the Host header and the TLS server name (and certificate check) the host."""
        if not self.pin or target.host == address:
            return target, {}, {}
        headers = {"Host": target.netloc.decode("ascii")}
        extensions: dict[str, Any] = {}
        if target.scheme == "https":
            extensions["sni_hostname"] = target.raw_host.decode("ascii")
        return target.copy_with(host=address), headers, extensions

    async def _check_address(
        self, state: _Attempt, url: httpx.URL, *, redirected: bool
    ) -> FetchedPage | str:
        """The address to connect to (the first the host resolves to), or the refusal for
        a host that does not resolve or resolves to a forbidden address."""
        host = url.host
        try:
            addresses = [str(ipaddress.ip_address(host))]
            literal = True
        except ValueError:
            literal = False
            port = url.port or DEFAULT_PORTS[url.scheme]
            try:
                async with asyncio.timeout(self.policy.connect_timeout):
                    addresses = list(await self.resolve(host, port))
            except TimeoutError:
                # Not retried: a resolver that does not answer will not answer the retry.
                reason = f"resolving {host} timed out"
                return state.page(FetchStatus.TIMEOUT, reason, local="resolver")
            except (OSError, ValueError) as exc:
                detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                reason = f"{host} does not resolve" + (f" ({detail})" if detail else "")
                return state.page(FetchStatus.UNREACHABLE, reason, local=_resolver_failure(exc))
            if not addresses:
                return state.page(FetchStatus.UNREACHABLE, f"{host} has no address")
        if self.policy.allow_private:
            return addresses[0]
        for address in addresses:
            kind = address_problem(address)
            if kind is None:
                continue
            if redirected:
                detail = "" if kind == "private" else f" ({kind})"
                reason = f"redirect to a private address {address}{detail}"
            elif literal:
                reason = f"{kind} address {address}"
            else:
                reason = f"resolves to {kind} address {address}"
            return state.page(FetchStatus.SKIPPED, reason)
        return addresses[0]

    async def _answer(self, state: _Attempt, response: httpx.Response) -> FetchedPage:
        """The outcome of a final (non-redirect) answer."""
        code = response.status_code
        if code in NOT_FOUND:
            return state.page(FetchStatus.NOT_FOUND, f"HTTP {code}")
        if code in BLOCKED:
            return state.page(FetchStatus.BLOCKED, f"HTTP {code}")
        if code >= 500:
            raise _Retryable(state.page(FetchStatus.UNREACHABLE, f"HTTP {code}"))
        if not 200 <= code < 300:
            return state.page(FetchStatus.UNREACHABLE, f"HTTP {code}")
        content_type = response.headers.get("content-type", "")
        mtype = media_type(content_type)
        if kind_of(content_type) is None and mtype not in SNIFFED_TYPES:
            return state.page(FetchStatus.NOT_TEXT, f"content type {mtype}")
        cap = self.policy.max_bytes
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > cap and not _encoded(response):
            return state.page(
                FetchStatus.TOO_LARGE, f"over {_size(cap)} (Content-Length {_size(int(declared))})"
            )
        body = await _read_capped(response, cap)
        if body is None:
            return state.page(FetchStatus.TOO_LARGE, f"over {_size(cap)}")
        if isinstance(body, str):
            return state.page(FetchStatus.UNREACHABLE, body)
        if kind_of(content_type, body[:1024]) is None:
            return state.page(FetchStatus.NOT_TEXT, f"content type {mtype or 'none'}")
        loop = asyncio.get_running_loop()
        found = await loop.run_in_executor(self.executor, extract, body, content_type, state.url)
        del body
        if found is None:
            return state.page(FetchStatus.NOT_TEXT, "no readable text")
        digest = hashlib.sha256(found.text.encode("utf-8")).hexdigest()
        page = state.page(
            FetchStatus.OK, "", title=found.title, sha256=digest, chars=len(found.text)
        )
        return FetchedPage(record=page.record, text=found.text)


def _encoded(response: httpx.Response) -> bool:
    encoding: str = response.headers.get("content-encoding", "identity")
    return encoding.strip().lower() not in {"", "identity"}


async def _read_capped(response: httpx.Response, cap: int) -> bytes | str | None:
    """The decoded body; None once it passes `cap` bytes (reading stops there); a str
    (the reason) for a content encoding this cannot decode."""
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    decoder: Any = None
    if encoding in {"gzip", "x-gzip"}:
        decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
    elif encoding == "deflate":
        decoder = zlib.decompressobj()
    elif encoding not in {"", "identity"}:
        return f"unsupported content encoding {encoding}"
    buffer = bytearray()
    first = True
    try:
        async for raw in response.aiter_raw():
            if decoder is None:
                chunk = raw
            else:
                if first and encoding == "deflate":
                    try:  # zlib-wrapped, as the standard says, or raw deflate, as some send
                        chunk = decoder.decompress(raw, cap - len(buffer) + 1)
                    except zlib.error:
                        decoder = zlib.decompressobj(-zlib.MAX_WBITS)
                        chunk = decoder.decompress(raw, cap - len(buffer) + 1)
                else:
                    chunk = decoder.decompress(raw, cap - len(buffer) + 1)
            first = False
            if len(buffer) + len(chunk) > cap:
                return None
            buffer += chunk
        if decoder is not None:
            buffer += decoder.flush()
            if len(buffer) > cap:
                return None
    except zlib.error:
        return f"corrupt {encoding} body"
    return bytes(buffer)


def _timeout_reason(exc: httpx.TimeoutException) -> str:
    if isinstance(exc, httpx.ConnectTimeout):
        return "connect timed out"
    if isinstance(exc, httpx.PoolTimeout):
        return "no connection free in time"
    if isinstance(exc, httpx.WriteTimeout):
        return "write timed out"
    return "read timed out"


def _resolver_failure(exc: OSError | ValueError) -> str:
    """ "resolver" when the resolver could not answer at all (a temporary failure), else
    "dns": the name did not resolve, which one invented host also gives."""
    if isinstance(exc, socket.gaierror) and exc.errno in (socket.EAI_AGAIN, socket.EAI_FAIL):
        return "resolver"
    return "dns"


def _local(exc: httpx.HTTPError) -> str:
    """Whether a request failed on this machine's side: "proxy", "network" or ""."""
    if isinstance(exc, httpx.ProxyError):
        return "proxy"
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, OSError) and cause.errno == errno.ENETUNREACH:
            return "network"
        cause = cause.__cause__ or cause.__context__
    return "network" if "network is unreachable" in str(exc).lower() else ""


def _error_reason(exc: httpx.HTTPError) -> str:
    text = str(exc).strip()
    if isinstance(exc, httpx.ConnectError):
        upper = text.upper()
        if "SSL" in upper or "CERTIFICATE" in upper or "TLS" in upper:
            return f"TLS error: {text}"[:300]
        return f"cannot connect: {text}"[:300] if text else "cannot connect"
    name = type(exc).__name__
    return f"{name}: {text}"[:300] if text else name


# --- entry points -------------------------------------------------------------------------


async def fetch_many(
    urls: Sequence[str],
    policy: FetchPolicy,
    *,
    deadline: float | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    resolve: Resolver | None = None,
    on_page: Callable[[FetchedPage], None] | None = None,
) -> list[FetchedPage]:
    """Fetch each distinct URL once; one page per distinct URL, in first-seen order.

    `deadline` is a time.monotonic() instant: nothing starts after it (SKIPPED "time
    budget spent") and fetches still running are cut (TIMEOUT). `transport` None is the
    real network (honouring the usual proxy variables); mock mode passes an
    httpx.MockTransport. `resolve` None is the system resolver; it is used for the address
    check with any transport. `on_page` is called in the loop as each URL finishes; an
    exception it raises cancels the other fetches and propagates.
    """
    unique = list(dict.fromkeys(urls))
    pages: dict[str, FetchedPage] = {}
    held: list[str] = []  # local failures: handed on once the batch's verdict is known
    async with _Fetcher(policy, deadline, transport, resolve or system_resolver) as fetcher:

        async def one(url: str) -> None:
            page = await fetcher.fetch(url)
            pages[url] = page
            if page.local:
                held.append(url)
            elif on_page is not None:
                on_page(page)

        tasks = [asyncio.create_task(one(url)) for url in unique]
        try:
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    done = [pages[url] for url in unique if url in pages]
    if await _web_unreachable(done, resolve or system_resolver, policy.connect_timeout):
        pages.update({url: not_checked(pages[url]) for url in held})
    else:
        pages.update({url: _undecided(pages[url]) for url in held})
    if on_page is not None:
        for url in held:
            on_page(pages[url])
    return [pages[url] for url in unique]


async def _web_unreachable(pages: Sequence[FetchedPage], resolve: Resolver, timeout: float) -> bool:
    """Whether a batch says this machine cannot reach the web: every fetch failed on this
    machine's side. When that is one name that does not resolve, which an invented host
    also gives, well-known names are asked too (PROBE_HOSTS)."""
    tried = [p for p in pages if not p.record.reason.startswith(BUDGET_SPENT)]
    if not tried or not all(p.local for p in tried):
        return False
    hosts = {httpx.URL(p.record.url).host for p in tried if p.local != "given up"}
    if len(hosts) >= 2 or any(p.local not in ("dns", "given up") for p in tried):
        return True
    for host in PROBE_HOSTS:
        try:
            async with asyncio.timeout(timeout):
                if await resolve(host, 443):
                    return False
        except (OSError, ValueError, TimeoutError):
            continue
    return True


def web_unreachable(pages: Sequence[FetchedPage]) -> bool:
    """Whether a fetched batch found this machine could not reach the web (its pages were
    made NOT_CHECKED)."""
    return any(p.record.status is FetchStatus.NOT_CHECKED and p.local != "given up" for p in pages)


def not_checked(page: FetchedPage) -> FetchedPage:
    """A page of a batch that could not reach the web: NOT_CHECKED, never dead."""
    record = page.record
    reason = (
        record.reason if record.reason.startswith(UNREACHED) else f"{UNREACHED} ({record.reason})"
    )
    update = {"status": FetchStatus.NOT_CHECKED, "reason": reason[:500]}
    return FetchedPage(record.model_copy(update=update), None, local=page.local)


def _undecided(page: FetchedPage) -> FetchedPage:
    """A local failure in a batch where other fetches got through: the page's own failure
    (an invented host), except a page the batch gave up on, which is still not checked."""
    return page if page.local != "given up" else not_checked(page)


def fetch_sources(
    urls: Sequence[str],
    policy: FetchPolicy,
    *,
    deadline: float | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    resolve: Resolver | None = None,
    on_page: Callable[[FetchedPage], None] | None = None,
) -> list[FetchedPage]:
    """`fetch_many` on an event loop of its own: call it from any thread that is not
    running a loop; several threads may call it at once."""
    return asyncio.run(
        fetch_many(
            urls, policy, deadline=deadline, transport=transport, resolve=resolve, on_page=on_page
        )
    )

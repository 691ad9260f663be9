#!/usr/bin/env python3
"""The source fetcher (issue 11) against a local HTTP server: throughput and memory.

    python bench/fetch.py                  # 200 sources (50 hosts × 4 paths), 100 ms each
    python bench/fetch.py --quick          # 12 sources, 20 ms each, a 12 MB page (for tests)
    python bench/fetch.py --json PATH      # also write every figure as JSON

The server runs in a child process (a stdlib ThreadingHTTPServer on 127.0.0.1) and answers
every page after `--latency` seconds. The URLs name distinct invented hosts (h00.bench ...);
a fixed resolver maps them to 127.0.0.1 and `allow_private` lets the fetcher go there, and
an httpx transport sends each request to the server's port with its Host header kept.
Distinct hosts matter: the per-host cap (2) would otherwise serialise the run, which the
"one host" row shows.

throughput  wall time of the default policy (8 in flight, 2 per host) against
            concurrency 1, for the same sources (target ≤ 0.2×)
memory      peak RSS of a child process that fetches one streamed page of `--big-mb` MB
            (no Content-Length) with the default 10 MB cap: the whole process's peak
            (getrusage ru_maxrss, imports included) and, on Linux, the peak during the
            fetch alone (VmHWM after resetting it through /proc/self/clear_refs), with the
            RSS after the imports (target < 100 MB for the process's peak)
extract     the same for a ~9 MB HTML page (just under the cap) that is fetched and
            extracted: no target, for information
"""

from __future__ import annotations

import argparse
import http.server
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # run from a checkout without installing

from machine import machine, verdict  # noqa: E402  (bench/ is on sys.path as the script's folder)

TARGETS = {"ratio": 0.2, "memory_mb": 100.0}
PARAGRAPH = (
    "<p>Field trials in 42 homes found that cold-climate heat pumps kept a seasonal COP of "
    "2.7 through the winter, with resistance backup in only four homes.</p>\n"
)


# ------------------------------------------------------------------ the server (child process)


def page_html(n: int) -> bytes:
    return (
        f"<html><head><title>Page {n}</title></head><body><article><h1>Page {n}</h1>"
        + PARAGRAPH * 12
        + "</article></body></html>"
    ).encode()


def serve(latency: float) -> None:
    """Serve forever; print the port on stdout. /big?mb=N streams N MB of HTML without a
    Content-Length; /bightml?mb=N sends an N MB HTML page; anything else is a small
    article after `latency` seconds."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802
            parts = urlsplit(self.path)
            megabytes = float(parse_qs(parts.query).get("mb", ["1"])[0])
            try:
                if parts.path == "/big":
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html")
                    self.end_headers()
                    chunk = PARAGRAPH.encode() * 400
                    for _ in range(int(megabytes * 1_000_000 / len(chunk)) + 1):
                        self.wfile.write(chunk)
                    return
                if parts.path == "/bightml":
                    repeat = int(megabytes * 1_000_000 / len(PARAGRAPH))
                    body = (
                        "<html><head><title>Big</title></head><body><article>"
                        + PARAGRAPH * repeat
                        + "</article></body></html>"
                    ).encode()
                else:
                    time.sleep(latency)
                    body = page_html(hash(self.path) % 1000)
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 256

    httpd = Server(("127.0.0.1", 0), Handler)
    print(httpd.server_address[1], flush=True)
    httpd.serve_forever()


class LocalServer:
    """The server child process."""

    def __init__(self, latency: float) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--serve", "--latency", str(latency)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.port = int(self.proc.stdout.readline())

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


# ------------------------------------------------------------------ the fetching side


def transport(port: int) -> Any:
    """An httpx transport that sends every request to 127.0.0.1:port, Host header kept."""
    import httpx

    class ToLocal(httpx.AsyncBaseTransport):
        def __init__(self) -> None:
            self.inner = httpx.AsyncHTTPTransport(limits=httpx.Limits(max_connections=100))

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            url = request.url.copy_with(scheme="http", host="127.0.0.1", port=port)
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

    return ToLocal()


def fetch(port: int, urls: list[str], **policy: Any) -> tuple[float, list[Any]]:
    from research.sources.fetch import FetchPolicy, fetch_sources, fixed_resolver

    start = time.perf_counter()
    pages = fetch_sources(
        urls,
        FetchPolicy(allow_private=True, **policy),
        transport=transport(port),
        resolve=fixed_resolver(default="127.0.0.1"),
    )
    return time.perf_counter() - start, pages


def bench_throughput(latency: float, hosts: int, paths: int) -> dict[str, Any]:
    server = LocalServer(latency)
    try:
        urls = [f"http://h{h:02d}.bench/p{p}" for h in range(hosts) for p in range(paths)]
        fetch(server.port, urls[:4])  # warm up: imports, first connections
        default_s, pages = fetch(server.port, urls)
        single_s, single_pages = fetch(server.port, urls, concurrency=1)
        one_host = [f"http://solo.bench/p{n}" for n in range(len(urls))]
        one_host_s, _ = fetch(server.port, one_host)
    finally:
        server.close()
    ok = all(p.record.status.value == "ok" for p in [*pages, *single_pages])
    return {
        "sources": len(urls),
        "hosts": hosts,
        "latency_s": latency,
        "default_s": default_s,
        "concurrency_1_s": single_s,
        "ratio": default_s / single_s,
        "ideal_default_s": latency * len(urls) / 8,
        "one_host_default_s": one_host_s,
        "ok": ok,
    }


def memory_child(port: int, path: str) -> None:
    """In a fresh child process: fetch one page, print RSS before and peak, seconds, the
    outcome and the number of characters extracted."""
    from research.sources.fetch import FetchPolicy, fetch_sources, fixed_resolver

    def rss_mb() -> float:
        kilobytes = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return kilobytes / (1024 * 1024 if sys.platform == "darwin" else 1024)

    before = rss_mb()
    now = current_rss_mb()
    reset = reset_peak_rss()
    start = time.perf_counter()
    [page] = fetch_sources(
        [f"http://big.bench{path}"],
        FetchPolicy(allow_private=True),
        transport=transport(port),
        resolve=fixed_resolver(default="127.0.0.1"),
    )
    seconds = time.perf_counter() - start
    during = status_mb("VmHWM") if reset else float("nan")
    print(before, now, rss_mb(), during, seconds, page.record.status.value, page.record.chars)


def status_mb(field: str) -> float:
    """A figure of /proc/self/status (VmRSS: now, VmHWM: peak) in MB; NaN off Linux."""
    try:
        for line in Path("/proc/self/status").read_text(encoding="utf-8").splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def current_rss_mb() -> float:
    return status_mb("VmRSS")


def reset_peak_rss() -> bool:
    """Start VmHWM afresh (Linux: write 5 to /proc/self/clear_refs), so that it measures
    the fetch alone and not the imports' transient peak."""
    try:
        Path("/proc/self/clear_refs").write_text("5", encoding="ascii")
    except OSError:
        return False
    return True


def child_peak(port: int, path: str) -> dict[str, Any]:
    """Fetch one page in a fresh child process: its RSS after the imports, and its peak."""
    done = subprocess.run(
        [sys.executable, __file__, "--memory-child", str(port), path],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    before, now, peak, during, seconds, status, chars = done.stdout.split()
    return {
        "fetch_peak_mb": float(during),
        "before_mb": float(before),
        "current_before_mb": float(now),
        "peak_rss_mb": float(peak),
        "seconds": float(seconds),
        "status": status,
        "chars": int(chars),
    }


def bench_memory(big_mb: float, html_mb: float) -> dict[str, Any]:
    server = LocalServer(0.0)
    try:
        refused = child_peak(server.port, f"/big?mb={big_mb:g}")
        extracted = child_peak(server.port, f"/bightml?mb={html_mb:g}")
    finally:
        server.close()
    return {"page_mb": big_mb, **refused, "extract": {"page_mb": html_mb, **extracted}}


# ------------------------------------------------------------------ report


def render(results: dict[str, Any]) -> str:
    t, m = results["throughput"], results["memory"]
    x = m["extract"]
    return "\n".join(
        [
            f"source fetching — {results['machine']['date']}, Python "
            f"{results['machine']['python']}, {results['machine']['cpus']} CPUs, load average "
            f"{results['machine']['load_average']}, {'quick' if results['quick'] else 'full'} "
            "mode",
            "",
            f"throughput: {t['sources']} sources on {t['hosts']} hosts, "
            f"{t['latency_s'] * 1000:.0f} ms each",
            f"  default policy (8, 2 per host) {t['default_s']:7.2f} s  (ideal "
            f"{t['ideal_default_s']:.2f} s)",
            f"  concurrency 1                  {t['concurrency_1_s']:7.2f} s",
            f"  ratio                          {t['ratio']:7.3f}×   target <= "
            f"{TARGETS['ratio']}×  {verdict(t['ratio'], TARGETS['ratio'])}",
            f"  the same on one host           {t['one_host_default_s']:7.2f} s  (per-host cap 2)",
            f"  all ok                         {t['ok']}",
            "",
            f"memory: one {m['page_mb']:g} MB streamed page, default 10 MB cap "
            f"(peak RSS of a child process)",
            f"  status                         {m['status']}",
            f"  RSS after imports              {m['current_before_mb']:7.1f} MB  (peak so far "
            f"{m['before_mb']:.1f} MB)",
            f"  peak RSS during the fetch      {m['fetch_peak_mb']:7.1f} MB  (VmHWM reset first)",
            f"  peak RSS of the process        {m['peak_rss_mb']:7.1f} MB   target < "
            f"{TARGETS['memory_mb']:g} MB  {verdict(m['peak_rss_mb'], TARGETS['memory_mb'])}",
            f"  time                           {m['seconds']:7.2f} s",
            f"extract: one {x['page_mb']:g} MB HTML page fetched and extracted (no target)",
            f"  status, chars                  {x['status']}, {x['chars']:,}",
            f"  peak RSS during the fetch      {x['fetch_peak_mb']:7.1f} MB  (RSS after imports "
            f"{x['current_before_mb']:.1f} MB)",
            f"  time                           {x['seconds']:7.2f} s",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small, fast run (for tests)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write results here")
    parser.add_argument("--latency", type=float, default=None, help="seconds per page")
    parser.add_argument("--hosts", type=int, default=None)
    parser.add_argument("--paths", type=int, default=4, help="pages per host")
    parser.add_argument("--big-mb", type=float, default=None, help="the refused page's size")
    parser.add_argument("--html-mb", type=float, default=None, help="the extracted page's size")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--memory-child", nargs=2, metavar=("PORT", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    latency = args.latency if args.latency is not None else (0.02 if args.quick else 0.1)
    if args.serve:
        serve(latency)
        return 0
    if args.memory_child:
        memory_child(int(args.memory_child[0]), args.memory_child[1])
        return 0
    hosts = args.hosts or (3 if args.quick else 50)
    big_mb = args.big_mb or (12.0 if args.quick else 50.0)
    html_mb = args.html_mb or (0.5 if args.quick else 9.0)
    results = {
        "quick": args.quick,
        "machine": machine(),
        "throughput": bench_throughput(latency, hosts, args.paths),
        "memory": bench_memory(big_mb, html_mb),
    }
    print(render(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

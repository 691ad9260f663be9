#!/usr/bin/env python3
"""Load test of `research serve` on loopback: 50 concurrent GET /runs/{name} and 20 SSE
clients while 4 mock jobs run (a new one starts whenever one finishes, so 4 always run).

    python bench/service_load.py [--requests 40] [--clients 50] [--sse 20] [--jobs 4]

Starts the server (uvicorn, via `python -m research serve`) in a temporary directory on a
free port, and prints p50/p90/p99/max latency of the GETs, the count of SSE events
received, and of jobs finished during the load. Needs the [server] extra.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def keep_jobs_running(client: httpx.AsyncClient, jobs: int, stop: asyncio.Event,
                            names: list[str], finished: list[int]) -> None:
    count = 0
    active: list[str] = []
    while not stop.is_set():
        runs = {r["name"]: r["state"] for r in (await client.get("/runs")).json()["runs"]}
        for name in list(active):
            if runs.get(name) not in ("running", "queued"):
                active.remove(name)
                finished[0] += 1
        while len(active) < jobs:
            count += 1
            name = f"load-{count}"
            response = await client.post("/run?async=true", json={
                "task": f"load test topic {count}", "name": name, "agent": "mock",
                "breadth": 3, "depth": 3})
            response.raise_for_status()
            active.append(name)
            names.append(name)
        await asyncio.sleep(0.05)


async def sse_client(client: httpx.AsyncClient, names: list[str], stop: asyncio.Event,
                     events: list[int]) -> None:
    while not stop.is_set():
        name = names[-1]
        async with client.stream("GET", f"/runs/{name}/events") as response:
            async for line in response.aiter_lines():
                if line.startswith("data:"):
                    events[0] += 1
                if stop.is_set():
                    break


async def getter(client: httpx.AsyncClient, names: list[str], requests: int,
                 latencies: list[float]) -> None:
    for index in range(requests):
        name = names[index % len(names)]
        start = time.perf_counter()
        response = await client.get(f"/runs/{name}")
        latencies.append(time.perf_counter() - start)
        response.raise_for_status()


async def load(url: str, args: argparse.Namespace) -> None:
    limits = httpx.Limits(max_connections=args.clients + args.sse + 5)
    async with httpx.AsyncClient(base_url=url, timeout=30, limits=limits) as client:
        stop = asyncio.Event()
        names: list[str] = []
        finished = [0]
        feeder = asyncio.create_task(keep_jobs_running(client, args.jobs, stop, names,
                                                       finished))
        while len(names) < args.jobs:
            await asyncio.sleep(0.01)
        events = [0]
        streams = [asyncio.create_task(sse_client(client, names, stop, events))
                   for _ in range(args.sse)]
        await asyncio.sleep(0.5)
        latencies: list[float] = []
        started = time.perf_counter()
        await asyncio.gather(*(getter(client, names, args.requests, latencies)
                               for _ in range(args.clients)))
        wall = time.perf_counter() - started
        stop.set()
        for task in [feeder, *streams]:
            task.cancel()
        await asyncio.gather(feeder, *streams, return_exceptions=True)
    ms = sorted(x * 1000 for x in latencies)
    q = statistics.quantiles(ms, n=100)
    print(f"GET /runs/{{name}}: {len(ms)} requests from {args.clients} concurrent clients in "
          f"{wall:.2f} s ({len(ms) / wall:.0f}/s); {args.sse} SSE clients; "
          f"{args.jobs} mock jobs running throughout")
    print(f"latency ms: p50 {q[49]:.1f}  p90 {q[89]:.1f}  p99 {q[98]:.1f}  max {ms[-1]:.1f}")
    print(f"SSE events delivered: {events[0]}; jobs finished during the load: {finished[0]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=40, help="GETs per client")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--sse", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=4)
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        server = subprocess.Popen(
            [sys.executable, "-m", "research", "serve", "--port", str(port), "--workdir", tmp,
             "--max-jobs", str(args.jobs)], env=env)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 15
            while True:
                try:
                    httpx.get(url + "/healthz", timeout=1)
                    break
                except httpx.TransportError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        print("the server did not start", file=sys.stderr)
                        return 1
                    time.sleep(0.05)
            asyncio.run(load(url, args))
        finally:
            server.terminate()
            server.wait(timeout=10)
            # Let the last jobs finish before their directory goes.
            deadline = time.monotonic() + 20
            while any(Path(tmp).glob(".research/*/research.lock.json")) \
                    and time.monotonic() < deadline:
                time.sleep(0.1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

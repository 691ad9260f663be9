#!/usr/bin/env python3
"""Load test of `research serve` on loopback: 50 concurrent GET /runs/{name} and 20 SSE
clients while 4 mock jobs run (a new one starts whenever one finishes, so 4 always run).

    python bench/service_load.py [--requests 200] [--clients 50] [--sse 20] [--jobs 4]
                                 [--call-seconds 0.5] [--json FILE]

The server is the product's (`research.service`'s create_app, served by `serve.run`, as
`research serve` serves it: uvicorn, one worker, no access log), in its own process and
session (as a service runs), on a free loopback port, in a temporary working directory.
Its jobs are real child `research` processes driving the mock agent. A real job spends
nearly all its time waiting on its agent; the product's mock answers at once, so a mock
job is over in about a second and the bench would mostly measure job start-ups. With
--call-seconds S (default 0.5) the jobs run the CLI under the tests' scripted double
(tests/scripted_cli.py, through ServiceConfig.cli), whose every agent call first sleeps
S real seconds: the same orchestrator, event log and state files, at a pace (still some
60 times faster than a real agent) that keeps 4 jobs running. --call-seconds 0 runs the
product's mock as it is: jobs finishing and restarting all the time, a stress case.
Either way a job does all a mock job does, the source check too (against the mock's
simulated web: no network).

How latency is measured: once every job has a state (past its start-up) and the SSE
clients have had --warmup seconds, each of the --clients clients sends its --requests
GETs one after another on one keep-alive HTTP/1.1 connection of a minimal client on
asyncio streams (so the client's own cost stays small: it shares the 2 cores with the
server and the jobs). The latency of a GET is from writing the request to having read the
whole body. The SSE clients de-chunk their streams and count events; the lag of an event
is from its `ts` (written by the job) to its arrival. CPU use of the server, the jobs,
this client and everything else on the machine is read from /proc over the measured
interval: the other processes' share says how much of the machine the bench really had.

Needs the [server] extra.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SCRIPTED_CLI = REPO / "tests" / "scripted_cli.py"
LENGTH = re.compile(rb"\r\ncontent-length: *(\d+)", re.IGNORECASE)
TS = re.compile(rb'"ts": "([^"]+)"')


# --- the server (run in its own process: `service_load.py --serve ...`) ------------------------


def serve(args: argparse.Namespace) -> int:
    sys.path.insert(0, str(REPO))
    from research.service.app import ServiceConfig, create_app
    from research.service.serve import run

    cli: tuple[str, ...] = (sys.executable, "-m", "research")
    if args.call_seconds > 0:
        script = Path(args.workdir) / "mock-script.json"
        script.write_text(json.dumps({"sleep_seconds": args.call_seconds}), encoding="utf-8")
        cli = (sys.executable, str(SCRIPTED_CLI), "--mock-script", str(script))
    config = ServiceConfig(
        root=Path(args.workdir), max_jobs=args.jobs, max_queue=args.jobs, cli=cli
    )
    return run(create_app(config), "127.0.0.1", args.port)


# --- a minimal HTTP/1.1 client -----------------------------------------------------------------


class Connection:
    """One keep-alive connection: a GET is a write, a header read and a body read."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def get(self, path: str) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        assert self.reader is not None
        self.writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        head = await self.reader.readuntil(b"\r\n\r\n")
        length = LENGTH.search(head)
        body = await self.reader.readexactly(int(length.group(1))) if length else b""
        return int(head[9:12]), body

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def chunks(port: int, path: str) -> AsyncIterator[bytes]:
    """The chunks of a chunked response (an SSE stream), until it ends."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode()
        )
        head = await reader.readuntil(b"\r\n\r\n")
        if head[9:12] != b"200":
            raise RuntimeError(f"GET {path}: {head[:12]!r}")
        while True:
            size = int((await reader.readuntil(b"\r\n")).strip(), 16)
            data = await reader.readexactly(size + 2)
            if size == 0:
                return
            yield data[:-2]
    finally:
        writer.close()


# --- the load ------------------------------------------------------------------------------------


@dataclass
class Load:
    port: int
    running: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    finished: int = 0
    started: int = 0
    events: int = 0
    lags: list[float] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    ready: asyncio.Event = field(default_factory=asyncio.Event)

    def pick(self, index: int) -> str:
        """A running job's name (or, for a moment between two jobs, any job's)."""
        names = self.running or self.names
        return names[index % len(names)]


async def keep_jobs_running(load: Load, jobs: int, call_seconds: float) -> None:
    import httpx

    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{load.port}", timeout=30) as http:
        while not load.stop.is_set():
            runs = {r["name"]: r for r in (await http.get("/runs")).json()["runs"]}
            for name in list(load.running):
                if runs.get(name, {}).get("state") not in ("running", "queued"):
                    load.running.remove(name)
                    load.finished += 1
            if load.running and all(runs[name].get("phase") for name in load.running):
                load.ready.set()  # every job is past its start-up: it has a state
            while len(load.running) < jobs:
                load.started += 1
                name = f"load-{load.started}"
                response = await http.post(
                    "/run?async=true",
                    json={
                        "task": f"load test topic {load.started}",
                        "name": name,
                        "agent": "mock",
                        "breadth": 3,
                        "depth": 3,
                    },
                )
                response.raise_for_status()
                load.running.append(name)
                load.names.append(name)
            await asyncio.sleep(0.25 if call_seconds > 0 else 0.05)


async def sse_client(load: Load, index: int) -> None:
    while not load.stop.is_set():
        name = load.pick(index)
        since = time.time()
        async for chunk in chunks(load.port, f"/runs/{name}/events"):
            now = time.time()
            for stamp in TS.findall(chunk):
                load.events += 1
                sent = datetime.fromisoformat(stamp.decode()).timestamp()
                if sent >= since:  # not the backlog
                    load.lags.append(now - sent)
            if load.stop.is_set():
                return


async def getter(load: Load, requests: int) -> None:
    connection = Connection(load.port)
    try:
        for index in range(requests):
            name = load.pick(index)
            start = time.perf_counter()
            status, _ = await connection.get(f"/runs/{name}")
            load.latencies.append(time.perf_counter() - start)
            if status != 200:
                load.errors += 1
    finally:
        connection.close()


async def measure(port: int, server_pid: int, args: argparse.Namespace) -> dict[str, Any]:
    load = Load(port)
    feeder = asyncio.create_task(keep_jobs_running(load, args.jobs, args.call_seconds))
    await load.ready.wait()
    streams = [asyncio.create_task(sse_client(load, i)) for i in range(args.sse)]
    await asyncio.sleep(args.warmup)
    meter = CpuMeter(server_pid)
    started = time.perf_counter()
    await asyncio.gather(*(getter(load, args.requests) for _ in range(args.clients)))
    wall = time.perf_counter() - started
    cpu = meter.read()
    load.stop.set()
    for task in [feeder, *streams]:
        task.cancel()
    await asyncio.gather(feeder, *streams, return_exceptions=True)
    ms = sorted(x * 1000 for x in load.latencies)
    q = statistics.quantiles(ms, n=100, method="inclusive")
    lags_ms = [x * 1000 for x in load.lags] or [0.0]
    # quantiles() needs two points; a short run on a loaded machine may see only one event.
    lag = (
        statistics.quantiles(lags_ms, n=100, method="inclusive")
        if len(lags_ms) >= 2
        else lags_ms * 99
    )
    return {
        "requests": len(ms),
        "errors": load.errors,
        "wall_s": round(wall, 2),
        "per_s": round(len(ms) / wall),
        "p50_ms": round(q[49], 1),
        "p90_ms": round(q[89], 1),
        "p99_ms": round(q[98], 1),
        "max_ms": round(ms[-1], 1),
        "sse_events": load.events,
        "sse_lag_p50_ms": round(lag[49]),
        "sse_lag_p99_ms": round(lag[98]),
        "jobs_finished": load.finished,
        "cpu_percent_of_one_core": cpu,
        "load_average": os.getloadavg()[0],
    }


# --- CPU accounting ---------------------------------------------------------------------------

TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int | str) -> list[str]:
    with open(f"/proc/{pid}/stat") as handle:
        return handle.read().rsplit(")", 1)[1].split()


def _machine_busy() -> float:
    with open("/proc/stat") as handle:
        fields = [int(x) for x in handle.readline().split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / TICK


class CpuMeter:
    """CPU seconds over an interval: the server, its jobs, this client, and the rest."""

    def __init__(self, server: int) -> None:
        self.server = server
        self.start = self._sample()
        self.wall = time.monotonic()

    def _sample(self) -> dict[str, float]:
        fields = _stat(self.server)
        jobs = (int(fields[13]) + int(fields[14])) / TICK  # the jobs that have ended
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    child = _stat(pid)
                except OSError:
                    continue
                if int(child[1]) == self.server:
                    jobs += (int(child[11]) + int(child[12])) / TICK
        own = os.times()
        return {
            "server": (int(fields[11]) + int(fields[12])) / TICK,
            "jobs": jobs,
            "client": own.user + own.system,
            "machine": _machine_busy(),
        }

    def read(self) -> dict[str, int]:
        end, seconds = self._sample(), time.monotonic() - self.wall
        used = {key: (end[key] - self.start[key]) / seconds * 100 for key in end}
        used["other"] = used["machine"] - used["server"] - used["jobs"] - used["client"]
        return {key: round(max(0.0, value)) for key, value in used.items()}


# --- main ---------------------------------------------------------------------------------------


def children(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if int(_stat(entry)[1]) == pid:
                    found.add(int(entry))
            except OSError:
                continue
    return found


def stop_jobs(pids: set[int]) -> None:
    """The jobs outlive the server by design: stop them (SIGTERM, as DELETE does) and wait,
    before their directory goes."""
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 20
    while pids and time.monotonic() < deadline:
        pids = {pid for pid in pids if os.path.exists(f"/proc/{pid}")}
        time.sleep(0.05)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_up(port: int, server: subprocess.Popen[bytes]) -> bool:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and server.poll() is None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            time.sleep(0.05)
    return False


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--requests", type=int, default=200, help="GETs per client")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--sse", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument(
        "--call-seconds",
        type=float,
        default=0.5,
        help="real seconds each mock agent call takes (0: the product's mock, unpaced)",
    )
    parser.add_argument(
        "--warmup",
        type=float,
        default=1.0,
        help="seconds between the jobs having started (and the SSE clients) and measuring",
    )
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--workdir", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(args)
    port = free_port()
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("RESEARCH_")},
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        }
        command = [sys.executable, __file__, "--serve", "--port", str(port), "--workdir", tmp]
        command += ["--jobs", str(args.jobs), "--call-seconds", str(args.call_seconds)]
        # Its own session, as a service runs: the kernel's per-session scheduling groups
        # (autogroup) then weigh it apart from this client, not as one program with it.
        server = subprocess.Popen(command, env=env, start_new_session=True)
        try:
            if not wait_up(port, server):
                print("the server did not start", file=sys.stderr)
                return 1
            result = asyncio.run(measure(port, server.pid, args))
        finally:
            jobs = children(server.pid)  # the feeder has stopped: no job starts from now on
            server.terminate()
            server.wait(timeout=10)
            stop_jobs(jobs)
    report(result, args)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0 if result["errors"] == 0 else 1


def report(r: dict[str, Any], args: argparse.Namespace) -> None:
    pace = f"{args.call_seconds:g} s per agent call" if args.call_seconds else "unpaced"
    print(
        f"GET /runs/{{name}}: {r['requests']} requests from {args.clients} concurrent clients in "
        f"{r['wall_s']} s ({r['per_s']}/s), {r['errors']} errors; {args.sse} SSE clients; "
        f"{args.jobs} mock jobs ({pace}) running throughout"
    )
    print(f"latency ms: p50 {r['p50_ms']}  p90 {r['p90_ms']}  p99 {r['p99_ms']}  max {r['max_ms']}")
    print(
        f"SSE: {r['sse_events']} events delivered, lag p50 {r['sse_lag_p50_ms']} ms, "
        f"p99 {r['sse_lag_p99_ms']} ms; jobs finished during the load: {r['jobs_finished']}"
    )
    cpu = r["cpu_percent_of_one_core"]
    print(
        f"CPU (% of one core, 2 = 200): server {cpu['server']}, jobs {cpu['jobs']}, "
        f"client {cpu['client']}, other processes {cpu['other']}; "
        f"load average {r['load_average']:.2f}"
    )


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The task queue (issue 20): real redis-server, real `research worker` processes as hosts.

Measures:
  scaling    12 jobs of the simulated agent (LATENCY s per call, breadth 2, depth 1) on 1
             worker, then on 3 workers, one job at a time each: wall time, and the ratio
             (target: 3 workers <= 0.4x of 1)
  failover   kill -9 of the process group of the worker running a job, to that job's next
             phase on another worker (p50, max), with the failover bound given
  handback   SIGTERM to the worker running a job (it hands the job back to the queue), to
             that job's next run_start on another worker (p50, max): at once, not after the
             failover bound
  overhead   enqueue to the job's run_start (the child process started, its lock taken)
             with idle workers waiting (p50, p99)

    python bench/cluster.py                         # 1 s per call; about 4 minutes
    python bench/cluster.py --latency 0.2 --quick   # a smoke run
    python bench/cluster.py --only failover,handback

Needs redis-server on PATH and the [cluster] extra.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from machine import machine  # noqa: E402  (bench/ is on sys.path as the script's folder)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait(condition: Any, within: float, what: str) -> None:
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"bench/cluster.py: {what}: not within {within} s")
        time.sleep(0.05)


class Bench:
    def __init__(self, base: Path, latency: float, failover: float) -> None:
        self.base = base
        self.latency = latency
        self.failover = failover
        self.port = free_port()
        self.db = 0
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.redis = subprocess.Popen(
            [shutil.which("redis-server") or "redis-server", "--port", str(self.port)]
            + ["--bind", "127.0.0.1", "--save", "", "--dir", str(base)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        time.sleep(0.5)
        self.workers: list[subprocess.Popen[bytes]] = []
        self.queue: Any = None

    def scenario(self) -> None:
        """A Redis database of its own for the next scenario: jobs a scenario's stopped
        workers left unacknowledged are delivered again, and must not reach the next one."""
        from research.cluster.broker import QueueClient

        self.db += 1
        self.url = f"redis://127.0.0.1:{self.port}/{self.db}"
        self.queue = QueueClient(self.url, failover=self.failover)

    def start_workers(self, work: Path, hosts: list[str]) -> list[subprocess.Popen[bytes]]:
        started = []
        for host in hosts:
            env = {k: v for k, v in os.environ.items() if not k.startswith("RESEARCH_")}
            env.update(RESEARCH_HOST_ID=host, RESEARCH_MOCK_LATENCY=str(self.latency))
            env["RESEARCH_VERIFY_SOURCES"] = "0"
            # the workers run this checkout, not whichever one the venv's install points at
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
            log = (self.base / f"{work.name}-{host}.log").open("ab")
            argv = [sys.executable, "-m", "research", "worker", "--queue", self.url]
            argv += ["--workdir", str(work), "--failover", str(self.failover)]
            process = subprocess.Popen(
                argv, cwd=work, env=env, stdout=log, stderr=log, start_new_session=True
            )
            log.close()
            started.append(process)
        self.workers += started
        for host in hosts:
            path = self.base / f"{work.name}-{host}.log"
            wait(lambda p=path: "taking jobs" in p.read_text(), 30, f"worker {host}")
        return started

    def stop_workers(self) -> None:
        for process in self.workers:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        self.workers = []

    def send(self, name: str, depth: int = 1) -> float:
        from research.cluster.messages import JobMessage

        job = JobMessage.model_validate(
            {"name": name, "task": f"heat pumps, {name}", "agent": "mock", "breadth": 2}
            | {"depth": depth}
        )
        self.queue.send(job)
        return job.enqueued_at

    def close(self) -> None:
        self.stop_workers()
        self.redis.terminate()
        self.redis.wait()


def events(work: Path, name: str) -> list[dict[str, Any]]:
    path = work / ".research" / name / "events.jsonl"
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def when(event: dict[str, Any]) -> float:
    return datetime.fromisoformat(event["ts"]).timestamp()


def complete(work: Path, name: str) -> bool:
    return any(
        e["type"] == "run_end" and e.get("outcome") == "complete" for e in events(work, name)
    )


def scaling(bench: Bench, workers: int, jobs: int) -> float:
    bench.scenario()
    work = bench.base / f"scale{workers}"
    work.mkdir()
    bench.start_workers(work, [f"s{workers}-h{n}" for n in range(1, workers + 1)])
    names = [f"job-{n:02d}" for n in range(jobs)]
    started = time.monotonic()
    for name in names:
        bench.send(name)
    wait(lambda: all(complete(work, n) for n in names), 60 * jobs, "all jobs complete")
    wall = time.monotonic() - started
    bench.stop_workers()
    return wall


def failover_once(bench: Bench, index: int) -> float:
    bench.scenario()
    work = bench.base / f"failover{index}"
    work.mkdir()
    hosts = [f"f{index}-h{n}" for n in range(1, 4)]
    processes = dict(zip(hosts, bench.start_workers(work, hosts), strict=True))
    bench.send("victim", depth=2)

    def running_on() -> str | None:
        log = events(work, "victim")
        ends = [e for e in log if e["type"] == "phase_end"]
        starts = [e for e in log if e["type"] == "run_start"]
        return str(starts[0]["host"]) if len(ends) >= 3 and starts else None

    wait(running_on, 120, "the job running")
    host = running_on()
    assert host is not None
    killed = time.time()
    os.killpg(processes[host].pid, signal.SIGKILL)

    def next_phase() -> float | None:
        later = [e for e in events(work, "victim") if e["type"] == "phase_start"]
        later = [e for e in later if when(e) > killed]
        return when(later[0]) if later else None

    wait(lambda: next_phase() is not None, bench.failover * 3, "the job resumed")
    took = (next_phase() or 0.0) - killed
    bench.stop_workers()
    return took


def handback_once(bench: Bench, index: int) -> float:
    bench.scenario()
    work = bench.base / f"handback{index}"
    work.mkdir()
    (first,) = bench.start_workers(work, [f"b{index}-h1"])
    bench.send("handed", depth=2)
    wait(
        lambda: any(e["type"] == "phase_end" for e in events(work, "handed")),
        120,
        "the job running",
    )
    bench.start_workers(work, [f"b{index}-h2"])
    stopped = time.time()
    first.send_signal(signal.SIGTERM)

    def second_start() -> float | None:
        starts = [e for e in events(work, "handed") if e["type"] == "run_start"]
        return when(starts[1]) if len(starts) > 1 else None

    wait(lambda: second_start() is not None, bench.failover * 3, "the job started again")
    took = (second_start() or 0.0) - stopped
    bench.stop_workers()
    return took


def overhead(bench: Bench, samples: int) -> list[float]:
    bench.scenario()
    work = bench.base / "overhead"
    work.mkdir()
    bench.start_workers(work, ["o-h1", "o-h2", "o-h3"])
    out = []
    for n in range(samples):
        name = f"o-{n:02d}"
        sent = bench.send(name)
        wait(lambda nm=name: any(e["type"] == "run_start" for e in events(work, nm)), 60, name)
        (start,) = [e for e in events(work, name) if e["type"] == "run_start"]
        out.append(when(start) - sent)
        wait(lambda nm=name: complete(work, nm), 120, f"{name} complete")
    bench.stop_workers()
    return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


SCENARIOS = ("scaling", "failover", "handback", "overhead")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per agent call")
    parser.add_argument("--failover", type=float, default=20.0, help="the failover bound (s)")
    parser.add_argument("--quick", action="store_true", help="fewer jobs and samples")
    parser.add_argument(
        "--only", default=",".join(SCENARIOS), help=f"some of {', '.join(SCENARIOS)} (all)"
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args()
    only = set(args.only.split(","))
    if not only <= set(SCENARIOS):
        parser.error(f"--only takes some of {', '.join(SCENARIOS)}")
    jobs = 6 if args.quick else 12
    kills = 1 if args.quick else 3
    figures: dict[str, Any] = {"machine": machine(), "latency_s": args.latency}
    with tempfile.TemporaryDirectory() as folder:
        bench = Bench(Path(folder), args.latency, args.failover)
        try:
            if "scaling" in only:
                one, three = scaling(bench, 1, jobs), scaling(bench, 3, jobs)
                figures.update(jobs=jobs, wall_1_worker_s=round(one, 1))
                figures.update(wall_3_workers_s=round(three, 1), ratio=round(three / one, 3))
            figures["failover_bound_s"] = args.failover
            for name, measure in (("failover", failover_once), ("handback", handback_once)):
                if name in only:
                    times = [measure(bench, n) for n in range(kills)]
                    figures[f"{name}_s"] = [round(x, 2) for x in times]
                    figures[f"{name}_p50_s"] = round(statistics.median(times), 2)
                    figures[f"{name}_max_s"] = round(max(times), 2)
            if "overhead" in only:
                bench.latency = 0.0
                starts = overhead(bench, 5 if args.quick else 20)
                figures["overhead_p50_ms"] = round(statistics.median(starts) * 1000)
                figures["overhead_p99_ms"] = round(percentile(starts, 0.99) * 1000)
        finally:
            bench.close()
    print(json.dumps(figures, indent=2))
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()

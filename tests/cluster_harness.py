"""Real parts for the cluster tests: a redis-server on a free loopback port, `research
worker` processes as separate "hosts" (RESEARCH_HOST_ID), and readings of the sessions'
event logs. No fake Redis: these drive the same processes a deployment runs.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from helpers import clean_env, read_jsonl, wait_until

REDIS_SERVER = shutil.which("redis-server")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RedisServer:
    """redis-server on loopback, persisting every write (appendfsync always), so that a
    restart keeps the queue as a production Redis with persistence would."""

    def __init__(self, folder: Path, password: str | None = None, *, persist: bool = True) -> None:
        self.folder = folder
        self.port = free_port()
        self.password = password
        self.persist = persist
        """False: nothing survives a restart (a Redis run without persistence)."""
        self.process: subprocess.Popen[bytes] | None = None
        self.started_once = False
        folder.mkdir(parents=True, exist_ok=True)

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start redis-server, and wait until it says it is ready. The port was free when
        picked; if a test on another pytest-xdist worker took it meanwhile, a first start
        picks another (a restart keeps its port: the workers know its URL)."""
        for _ in range(5):
            if self._started():
                return
            assert not self.started_once, self._log()
            self.port = free_port()
        raise AssertionError(self._log())

    def _started(self) -> bool:
        assert REDIS_SERVER is not None
        argv = [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1"]
        argv += ["--dir", str(self.folder), "--save", ""]
        argv += ["--appendonly", "yes", "--appendfsync", "always"] if self.persist else []
        argv += ["--daemonize", "no"]
        if self.password:
            argv += ["--requirepass", self.password]
        mark = self._log_path().stat().st_size if self._log_path().exists() else 0
        with self._log_path().open("ab") as log:
            process = subprocess.Popen(argv, stdout=log, stderr=log, start_new_session=True)
        self.process = process

        def settled() -> bool:  # ready (ours, not another's on this port), or exited
            return process.poll() is not None or b"Ready to accept connections" in self._new(mark)

        wait_until(settled, within=10, what="redis-server ready")
        if process.poll() is None:
            wait_until(self.answers, within=10, what="redis-server answering")
            self.started_once = True
            return True
        self.process = None
        return False

    def _log_path(self) -> Path:
        return self.folder / "redis.log"

    def _new(self, mark: int) -> bytes:
        with self._log_path().open("rb") as log:
            log.seek(mark)
            return log.read()

    def _log(self) -> str:
        return self._new(0).decode(errors="replace")

    def answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                return True
        except OSError:
            return False

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        self.process = None

    def kill(self) -> None:
        """kill -9 (works on a paused server too)."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None

    def pause(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)


@dataclass
class Worker:
    host: str
    process: subprocess.Popen[bytes]
    log: Path

    def text(self) -> str:
        return self.log.read_text(errors="replace")


@dataclass
class Cluster:
    """Workers on one machine, each its own "host", sharing `work` and one Redis."""

    work: Path
    redis: RedisServer
    failover: float
    latency: float
    workers: list[Worker] = field(default_factory=list)

    def start_worker(self, host: str, *, max_jobs: int = 1, work: Path | None = None) -> Worker:
        log = self.work.parent / f"worker-{host}.log"
        work = work or self.work
        env = clean_env(
            RESEARCH_HOST_ID=host,
            RESEARCH_MOCK_LATENCY=str(self.latency),
            RESEARCH_VERIFY_SOURCES="0",
        )
        argv = [sys.executable, "-m", "research", "worker", "--queue", self.redis.url]
        argv += ["--workdir", str(work), "--failover", str(self.failover)]
        argv += ["--max-jobs", str(max_jobs)]
        with log.open("ab") as handle:
            process = subprocess.Popen(
                argv,
                cwd=work,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=handle,
                stderr=handle,
                start_new_session=True,  # its own process group, children included
            )
        worker = Worker(host, process, log)
        self.workers.append(worker)
        wait_until(
            lambda: "taking jobs" in worker.text(), within=30, proc=process, what=f"{host} ready"
        )
        return worker

    def client(self) -> Any:
        from research.cluster.broker import QueueClient

        return QueueClient(self.redis.url, failover=self.failover)

    def enqueue(self, name: str, *, breadth: int = 2, depth: int = 1, **more: Any) -> Any:
        from research.cluster.messages import JobMessage

        job = JobMessage.model_validate(
            {
                "name": name,
                "task": f"heat pumps in cold climates, part {name}",
                "agent": "mock",
                "breadth": breadth,
                "depth": depth,
                **more,
            }
        )
        self.client().send(job)
        return job

    def kill(self, worker: Worker) -> None:
        """kill -9 of the worker's process group: the worker and its research children."""
        os.killpg(worker.process.pid, signal.SIGKILL)
        worker.process.wait(timeout=10)

    def close(self) -> None:
        for worker in self.workers:
            try:
                os.killpg(worker.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            worker.process.wait(timeout=10)


def session_dir(work: Path, name: str) -> Path:
    return work / ".research" / name


def is_complete(work: Path, name: str) -> bool:
    import json

    try:
        state = json.loads((session_dir(work, name) / "state.json").read_text())
    except (OSError, ValueError):
        return False
    return (
        bool(state["progress"]["is_complete"]) and (work / "reports" / name / "report.md").is_file()
    )


def events(work: Path, name: str, *, growing: bool = False) -> list[dict[str, Any]]:
    """The session's events; `growing`: read while a run writes them (complete lines only)."""
    path = session_dir(work, name) / "events.jsonl"
    return read_jsonl(path, growing=growing) if path.exists() else []


def when(event: dict[str, Any]) -> float:
    return datetime.fromisoformat(event["ts"]).timestamp()


def runs(log: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """The log cut at each run_start: (host of that run, its events)."""
    out: list[tuple[str, list[dict[str, Any]]]] = []
    for event in log:
        if event["type"] == "run_start":
            out.append((event["host"], []))
        if out:
            out[-1][1].append(event)
    return out


def assert_one_host_at_a_time(log: list[dict[str, Any]]) -> list[str]:
    """Each run's phases start and end in turn (one agent call at a time, parallel 1): a
    second run writing beside it would show as a phase ending that this run never started,
    or two starts in a row. Only a run killed or stopped may leave its last phase open.
    Returns the hosts of the runs in order."""
    cut = runs(log)
    assert cut, "no run_start in the log"
    for index, (host, run) in enumerate(cut):
        open_phase: tuple[str, str | None] | None = None
        for event in run:
            if event["type"] == "phase_start":
                assert open_phase is None, f"run {index} on {host}: two phases at once: {event}"
                open_phase = (event["phase"], event.get("topic"))
            elif event["type"] == "phase_end":
                assert open_phase == (event["phase"], event.get("topic")), (
                    f"run {index} on {host}: a phase it did not start ended: {event}"
                )
                open_phase = None
        if open_phase is not None:  # killed or stopped in that phase: never "complete"
            outcomes = [e.get("outcome") for e in run if e["type"] == "run_end"]
            assert "complete" not in outcomes, f"run {index} on {host} ended with a phase open"
    return [host for host, _ in cut]


def accepted_notes(work: Path, name: str) -> dict[str, bytes]:
    """The notes of every topic accepted so far (status Complete), by slug."""
    import json

    state = json.loads((session_dir(work, name) / "state.json").read_text())
    out = {}
    for topic in state["plan"]["topics"]:
        if topic["status"] == "Complete":
            notes = session_dir(work, name) / "progress" / f"{topic['slug']}.md"
            out[topic["slug"]] = notes.read_bytes()
    return out


def final_notes(work: Path, name: str, slug: str) -> bytes:
    """A topic's notes in the finished session: in progress/, or archived from there."""
    kept = session_dir(work, name) / "progress" / f"{slug}.md"
    if kept.exists():
        return kept.read_bytes()
    (found,) = sorted((session_dir(work, name) / "archive").glob(f"*.{slug}.progress.md"))
    return found.read_bytes()


def researched_after(log: list[dict[str, Any]], slug: str, moment: float) -> list[dict]:
    return [
        e
        for e in log
        if e["type"] == "phase_start"
        and e["phase"] == "research"
        and e.get("topic") == slug
        and when(e) > moment
    ]

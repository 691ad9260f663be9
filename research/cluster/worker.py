"""`research worker`: take jobs off the queue and run each as a child `research` process.

The child is the CLI itself, as in `research serve`: crash isolation, the session lock,
budgets and resume stay the CLI's. What the worker adds is the queue's side of a job:

- a job is acknowledged only when its session has ended: complete, or failed for good
  (bad input, a failed run), or stopped on request (DELETE /runs/NAME);
- a job whose session another live run holds (the child exits 3: a second delivery, or
  a worker wrongly thought dead) is backed off: a copy goes back on the queue with a delay
  and this delivery ends, so that the job is not lost should that other run die;
- on SIGTERM or SIGINT the worker stops its children (they save and exit) and hands their
  jobs back to the queue at once, for another worker to resume.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from research.cluster import broker as queue
from research.cluster.checks import claim_folder, folder_id, wrong_folder
from research.cluster.health import QueueHealth
from research.cluster.messages import JobMessage, child_args, parse_job
from research.core.errors import INTERRUPTED_CODES, ExitCode, UsageError
from research.core.hosts import FAILOVER_ENV, HOST_ID_ENV, queue_heartbeat_seconds

if TYPE_CHECKING:
    import redis
    from dramatiq import Worker
    from dramatiq.brokers.redis import RedisBroker

log = logging.getLogger("research.worker")

MAX_HANDBACKS = 3
"""A job whose child dies of a signal (not ours) is handed back at most this often."""
TICK_SECONDS = 1.0
"""How often the worker refreshes its liveness key and looks for stop requests."""
STOP_GRACE_SECONDS = 30.0
"""How long a stopping worker waits for its children to save and exit."""
STDERR_TAIL = 4096


@dataclass
class Running:
    """A child `research` process of this worker, and why it may be stopped."""

    job: JobMessage
    process: subprocess.Popen[bytes]
    stop_requested: bool = False


@dataclass
class WorkerConfig:
    url: str
    root: Path
    host: str
    max_jobs: int = 1
    failover: float = 120.0
    agent_cmd: str | None = None
    folder_id: str | None = None
    """The folder's identifier, as `checks.check_setup` found it."""
    cli: tuple[str, ...] = (sys.executable, "-m", "research")
    env: dict[str, str] = field(default_factory=lambda: dict(os.environ))


class QueueWorker:
    """One worker process: a Dramatiq worker with `max_jobs` threads, each running one job
    at a time as a child process."""

    def __init__(self, config: WorkerConfig) -> None:
        self.config = config
        self.stopping = threading.Event()
        self._mutex = threading.Lock()
        self._running: dict[str, Running] = {}
        self.broker: RedisBroker = queue.open_broker(
            config.url,
            heartbeat_timeout=queue_heartbeat_seconds(config.failover),
            handler=self.handle,
        )
        self.redis: redis.Redis = queue.client(config.url)
        self.key = f"{queue.WORKER_KEY}{config.host}:{os.getpid()}"
        self.health = QueueHealth(queue.safe_url(config.url), self.say)
        self.folder = config.folder_id or folder_id(config.root)
        self.wrong_folder = threading.Event()
        """Set when Redis names another folder as the queue's: the worker stops (exit 2)."""

    # --------------------------------------------------------------- one job

    def handle(self, body: dict[str, Any]) -> None:
        """The actor: run the job's session until it ends, backs off or is handed back."""
        from dramatiq.middleware import CurrentMessage

        message = CurrentMessage.get_current_message()
        try:
            job = parse_job(body, self.config.root)
        except UsageError as exc:
            self.say(f"dropped a job that is not valid: {exc}")
            return  # never valid, so never run: acknowledged
        other = other_question(self.config.root, job)
        if other is not None:
            self.say(f"{job.name}: refused: {other}")
            return  # never run: acknowledged, the session left as it is
        if session_complete(self.config.root, job.name):  # a late second delivery
            self.say(f"{job.name}: already complete")
            return
        if self._stop_requested(job.job_id):
            self.say(f"{job.name}: stopped before it started (DELETE)")
            return
        if self.stopping.is_set() or self.wrong_folder.is_set():
            self._hand_back(message, job)
            return
        code, last_line, stopped = self._run_child(job)
        self._after(message, job, code, last_line, stopped)

    def _after(
        self, message: Any, job: JobMessage, code: int | None, last_line: str, stopped: bool
    ) -> None:
        """Decide what the child's exit means for the job."""
        name = job.name
        if code is None or (code in INTERRUPTED_CODES and not stopped):
            # the worker is stopping, or the run was signalled from outside: not ended
            self._hand_back(message, job)
        elif code == ExitCode.OK:
            self.say(f"{name}: ended (exit 0)")
        elif code in INTERRUPTED_CODES:
            self.say(f"{name}: stopped on request; resumable")
        elif code == ExitCode.LOCKED:
            delay = min(max(self.config.failover / 4, 1.0), 30.0)
            self.say(f"{name}: another live run holds it; backing off for {delay:.0f} s")
            self._send(job, delay=delay)
        elif code < 0 or code == ExitCode.NOT_STARTED:
            if job.handbacks >= MAX_HANDBACKS:
                self.say(f"{name}: its process died {job.handbacks + 1} times; given up")
                return
            self.say(f"{name}: its process died ({last_line or code}); handed back")
            self._send(job.model_copy(update={"handbacks": job.handbacks + 1}), delay=1.0)
        else:
            self.say(f"{name}: ended with exit {code}: {last_line}")

    def _run_child(self, job: JobMessage) -> tuple[int | None, str, bool]:
        """Run the job's `research` process; (exit code, last stderr line, stop asked).
        None when the worker began stopping before the child could start."""
        args = child_args(job, self.config.root, self.config.agent_cmd)
        env = dict(self.config.env)
        env[HOST_ID_ENV] = self.config.host
        env[FAILOVER_ENV] = repr(self.config.failover)
        with tempfile.TemporaryFile() as stderr:
            with self._mutex:
                if self.stopping.is_set():
                    return None, "", False
                try:
                    process = subprocess.Popen(
                        [*self.config.cli, *args],
                        cwd=self.config.root,
                        stdin=subprocess.DEVNULL,
                        stdout=subprocess.DEVNULL,
                        stderr=stderr,
                        env=env,
                    )
                except OSError as exc:
                    why = f"cannot start the job: {exc.strerror or exc}"
                    return ExitCode.NOT_STARTED, why, False
                running = self._running[job.name] = Running(job, process)
            how = "resuming it" if args[0] == "--resume" else "a new session"
            self.say(f"{job.name}: started, {how} (pid {process.pid})")
            code = process.wait()
            with self._mutex:
                self._running.pop(job.name, None)
            return code, _last_line(stderr), running.stop_requested

    def _hand_back(self, message: Any, job: JobMessage) -> None:
        """Back on the queue at once, for any worker: the same message, moved from this
        worker's unacknowledged set back onto the queue (the acknowledgement that follows
        then finds nothing to remove)."""
        redis_id = message.options.get("redis_message_id") if message is not None else None
        try:
            with queue.reaching(self.config.url):
                if redis_id is None:
                    raise RuntimeError("no message id")
                self.broker.do_requeue(queue.QUEUE, redis_id)
        except (queue.QueueUnavailable, RuntimeError) as exc:
            self.say(f"{job.name}: could not hand it back ({exc}); sending a copy")
            self._send(job, delay=None)
            return
        self.say(f"{job.name}: handed back to the queue")

    def _send(self, job: JobMessage, *, delay: float | None) -> None:
        """Send a copy of the job, retrying while Redis is down (until the worker stops:
        then the delivery stays unacknowledged and the queue redelivers it)."""
        wait = 0.5
        while True:
            try:
                queue.send(self.broker, self.config.url, job, delay=delay)
                self.health.reached()
                return
            except queue.QueueUnavailable as exc:
                if self.stopping.is_set():
                    raise
                self.health.down(exc)
                time.sleep(wait)
                wait = min(wait * 2, 10.0)

    def _stop_requested(self, job_id: str) -> bool:
        try:
            with queue.reaching(self.config.url):
                return bool(self.redis.delete(queue.STOP_KEY + job_id))
        except queue.QueueUnavailable:
            return False

    # --------------------------------------------------------------- the process

    def say(self, text: str) -> None:
        sys.stderr.write(f"research worker [{self.config.host}]: {text}\n")
        sys.stderr.flush()

    def tick(self) -> None:
        """Refresh this worker's liveness key, and stop the children asked to stop."""
        ttl = max(3, int(TICK_SECONDS * 5))
        with self._mutex:
            jobs = [(name, running.job.job_id) for name, running in self._running.items()]
        try:
            with queue.reaching(self.config.url):
                self.redis.set(self.key, "1", ex=ttl)
                for name, job_id in jobs:
                    self.redis.set(queue.RUNNING_KEY + name, job_id, ex=queue.RUNNING_TTL_SECONDS)
                    if self.redis.delete(queue.STOP_KEY + job_id):
                        self._stop_child(name)
                theirs = claim_folder(self.redis, self.folder)
        except queue.QueueUnavailable as exc:
            self.health.down(exc)  # the consumers reconnect on their own
            return
        self.health.reached()
        if theirs != self.folder and not self.wrong_folder.is_set():
            self.say(wrong_folder(self.config.url, self.config.root, self.folder, theirs))
            self.wrong_folder.set()

    def _stop_child(self, name: str) -> None:
        with self._mutex:
            running = self._running.get(name)
            if running is None:
                return
            running.stop_requested = True
        self.say(f"{name}: stopping it (DELETE)")
        with contextlib.suppress(ProcessLookupError):
            running.process.send_signal(signal.SIGTERM)

    def stop_children(self) -> None:
        """SIGTERM to every child: each saves its session and exits (143)."""
        with self._mutex:
            self.stopping.set()
            children = [running.process for running in self._running.values()]
        for process in children:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)

    def serve(self, worker: Worker, stop: threading.Event) -> None:
        """Run until `stop` is set, then stop the children and hand their jobs back."""
        while not stop.wait(TICK_SECONDS) and not self.wrong_folder.is_set():
            self.tick()
        for consumer in worker.consumers.values():
            consumer.pause()  # take no more jobs
        self.stop_children()
        worker.stop(timeout=int(STOP_GRACE_SECONDS * 1000))
        with contextlib.suppress(*queue.connection_errors()):
            self.redis.delete(self.key)


def run_worker(config: WorkerConfig) -> int:
    """Start the Dramatiq worker and serve until SIGTERM or SIGINT (exit 143 or 130)."""
    from dramatiq import Worker

    me = QueueWorker(config)
    stop = threading.Event()
    received: list[int] = []

    def on_signal(signum: int, _frame: object) -> None:
        received.append(signum)
        me.stopping.set()  # before a child signalled with us (same group) is seen to exit
        stop.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, on_signal)
    worker = Worker(me.broker, worker_threads=config.max_jobs, worker_timeout=500)
    worker.queue_prefetch = config.max_jobs  # take no more jobs than we run
    me.tick()  # counted alive before it takes a job, not one tick later
    worker.start()
    me.say(
        f"taking jobs from {queue.safe_url(config.url)} for {config.root} "
        f"({config.max_jobs} at a time; failover bound {config.failover:.0f} s)"
    )
    me.serve(worker, stop)
    me.say("stopped")
    if me.wrong_folder.is_set():
        return ExitCode.USAGE
    return 128 + received[0] if received else 0


def session_complete(root: Path, name: str) -> bool:
    """Whether the session's saved state says it is complete (unreadable: not known so)."""
    from research.core.errors import StateError
    from research.model.state import load_state
    from research.workspace.paths import SessionPaths

    try:
        return load_state(SessionPaths(root, name).state_file).progress.is_complete
    except (StateError, OSError):
        return False


def other_question(root: Path, job: JobMessage) -> str | None:
    """Why a job that starts a session may not run: its session exists with another
    question (a name is one session, as on the command line). None when it may run: a
    resume, a new session, or this job's own session delivered again."""
    from research.core.errors import StateError
    from research.model.state import load_state
    from research.workspace.paths import SessionPaths

    if job.task is None:
        return None
    try:
        topic = load_state(SessionPaths(root, job.name).state_file).plan.topic
    except (StateError, OSError):
        return None  # no readable state: a new session (the run itself judges a bad one)
    if topic.strip() == job.task.strip():
        return None
    return (
        f"a session named {job.name!r} exists with another question; resume it, "
        "or choose another name"
    )


def _last_line(handle: IO[bytes]) -> str:
    try:
        size = handle.seek(0, os.SEEK_END)
        handle.seek(max(0, size - STDERR_TAIL))
        text = handle.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:500] if lines else ""

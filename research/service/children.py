"""Jobs: each one a child `research` process in the working directory.

The child is the CLI itself, so crash isolation, the session lock, resume and budgets stay
the CLI's. The manager only keeps what lives as long as the server does: the queue, the
child processes it started, and the last exit code and error line of each. Everything else
is read back from the session's files.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from research.core.errors import ExitCode

STDERR_TAIL = 4096
JOB_NICENESS = 10


class QueueFull(Exception):
    """--max-jobs jobs run and the queue is at its bound."""


@dataclass
class Job:
    name: str
    argv: list[str]
    state: str = "queued"
    """'queued', 'running' or 'ended'; a task-queue job: 'queued' or 'lost' (roster.py)."""
    process: asyncio.subprocess.Process | None = None
    exit_code: int | None = None
    message: str | None = None
    """The last line the process wrote to stderr, when it failed."""
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    stderr: IO[bytes] | None = None
    topic: str | None = None
    """The question asked, for a new session (shown before its state exists)."""
    warnings: list[str] = field(default_factory=list)
    """What the service changed in the request, as the CLI warns (told to the client)."""


class JobManager:
    """Starts, queues and stops the child processes of one working directory."""

    def __init__(
        self,
        root: Path,
        *,
        max_jobs: int,
        max_queue: int,
        env: dict[str, str] | None = None,
        cli: tuple[str, ...] = (sys.executable, "-m", "research"),
    ) -> None:
        self.root = root
        self.max_jobs = max_jobs
        self.max_queue = max_queue
        self.env = env
        self.cli = cli
        self.jobs: dict[str, Job] = {}
        self.queue: list[Job] = []
        self._tasks: set[asyncio.Task[None]] = set()

    def command(self, *args: str) -> list[str]:
        """The child's command line: the CLI (by default this interpreter running
        `python -m research`) with the job's arguments."""
        return [*self.cli, *args]

    def running(self) -> list[Job]:
        return [job for job in self.jobs.values() if job.state == "running"]

    def active(self, name: str) -> Job | None:
        """The queued or running job of session `name`, if this server has one."""
        job = self.jobs.get(name)
        return job if job is not None and job.state in ("queued", "running") else None

    def submit(self, name: str, args: list[str]) -> Job:
        """Start `research ARGS` now, or queue it; QueueFull when neither is possible."""
        if len(self.running()) >= self.max_jobs and len(self.queue) >= self.max_queue:
            raise QueueFull(
                f"{self.max_jobs} jobs are running and {len(self.queue)} are "
                "queued; try again later"
            )
        job = Job(name=name, argv=self.command(*args))
        self.jobs[name] = job
        self.queue.append(job)
        self._pump()
        return job

    def _pump(self) -> None:
        while self.queue and len(self.running()) < self.max_jobs:
            job = self.queue.pop(0)
            job.state = "running"
            task = asyncio.get_running_loop().create_task(self._run(job))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _run(self, job: Job) -> None:
        # stderr goes to an unnamed temporary file: nothing is stored, and a child outlives a
        # server that dies (a pipe would break under it).
        job.stderr = tempfile.TemporaryFile()
        try:
            job.process = await asyncio.create_subprocess_exec(
                *job.argv,
                cwd=self.root,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=job.stderr,
                start_new_session=True,
                preexec_fn=_lower_priority,
                env=self.env,
            )
            code = await job.process.wait()
            # Killed by a signal before its handler was in place: the shell's 128 + signal,
            # as the CLI exits when its handler runs (a SIGTERM is a stop either way).
            job.exit_code = 128 - code if code < 0 else code
        except OSError as exc:
            job.exit_code = ExitCode.NOT_STARTED
            job.message = f"cannot start the job: {exc.strerror or exc}"
        finally:
            if job.exit_code not in (None, 0) and job.message is None:
                job.message = _last_line(job.stderr)
            job.stderr.close()
            job.stderr = None
            job.state = "ended"
            job.ended.set()
            self._pump()

    def cancel_queued(self, name: str) -> bool:
        job = self.jobs.get(name)
        if job is None or job not in self.queue:
            return False
        self.queue.remove(job)
        job.state = "ended"
        job.message = "cancelled before it started"
        job.ended.set()
        return True

    def signal_job(self, name: str, signum: int = signal.SIGTERM) -> bool:
        """Send `signum` to the job's process, if this server started it and it runs."""
        job = self.jobs.get(name)
        if job is None or job.state != "running" or job.process is None:
            return False
        with contextlib.suppress(ProcessLookupError):
            job.process.send_signal(signum)
        return True

    async def shutdown(self) -> None:
        """Forget the queue; running children go on (they hold their sessions' locks)."""
        for job in list(self.queue):
            self.cancel_queued(job.name)
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError):
                await task


def _lower_priority() -> None:
    """Jobs run at nice +JOB_NICENESS: the API stays responsive while they compute.

    A job is a session leader (start_new_session), and where the kernel groups processes
    by session for scheduling (autogroup, on by default in most desktop and server kernels),
    a process's nice value only ranks it within its own group: each job's group would get
    as much CPU as the whole server. So the job's group is niced as well.
    """
    with contextlib.suppress(OSError):
        os.nice(JOB_NICENESS)
    with contextlib.suppress(OSError), open("/proc/self/autogroup", "w") as handle:
        handle.write(str(JOB_NICENESS))


_CLI_PREFIX = re.compile(r"^research(?:\.py)?: (?:error: )?")


def _last_line(handle: IO[bytes] | None) -> str | None:
    if handle is None:
        return None
    try:
        size = handle.seek(0, os.SEEK_END)
        handle.seek(max(0, size - STDERR_TAIL))
        text = handle.read().decode("utf-8", errors="replace")
    except OSError:
        return None
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    # The run's own words, without the command line's "research: error: " before them.
    return _CLI_PREFIX.sub("", lines[-1])[:500] if lines else None


def is_research_process(pid: int, root: Path) -> bool:
    """Whether `pid` is a research CLI running in `root` (a lock's pid is not trusted blindly).

    The lock file is in a directory an agent can write, so before signalling the pid it
    names, check on /proc that it is ours: not this server, a `research` command line, and
    the same working directory.
    """
    if pid <= 1 or pid == os.getpid():
        return False
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        cwd = os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return False
    if Path(cwd) != root.resolve():
        return False
    words = [word.decode("utf-8", errors="replace") for word in cmdline]
    return any(
        word == "research" or word.endswith(("/research", "research.py")) for word in words
    ) or ("-m" in words and "research" in words)

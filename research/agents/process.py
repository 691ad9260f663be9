"""The one subprocess helper: a process group per call, group kill on timeout, a typed result."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from research.agents.base import AgentCall, AgentResult, FailureKind, checked_usage
from research.core.errors import AgentUnavailable
from research.workspace.fsutil import atomic_write_text

# How long to keep reading after SIGKILL: only a process that left the group can still
# hold our pipes then, and its output is not worth waiting for.
_DRAIN_SECONDS = 0.5
# The wait for the child is sliced so that a leader that exited while a descendant still
# holds stdout/stderr open is noticed long before the call's timeout.
_POLL_SECONDS = 0.25
SUPERVISOR = Path(__file__).resolve().with_name("supervisor.py")
"""Started in front of every agent command (see its docstring)."""
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


@dataclass
class ProcessResult:
    """What one child process did."""

    exit_code: int | None  # negative: killed by that signal
    stdout: str
    stderr: str
    duration: float
    timed_out: bool


def run_process(
    argv: Sequence[str],
    *,
    input_text: str,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    timeout: float,
    grace: float = 5.0,
) -> ProcessResult:
    """Run `argv` in its own session with `input_text` on stdin; never raises for a failing child.

    `PWD` is forced to `cwd` because OpenCode takes its project directory from it. On timeout
    the whole process group gets SIGTERM, then SIGKILL after `grace` seconds. Any exception
    while waiting (KeyboardInterrupt, `Interrupted`) kills the group the same way and is
    re-raised. A missing executable raises `AgentUnavailable`.
    """
    argv = [str(arg) for arg in argv]
    child_env = dict(os.environ if env is None else env)
    child_env["PWD"] = str(cwd)
    started = time.monotonic()
    watch_end = -1
    try:
        proc, watch_end = _spawn(argv, cwd, child_env, grace)
    except (FileNotFoundError, PermissionError) as exc:
        if exc.filename is not None and str(exc.filename) == str(cwd):
            raise
        raise AgentUnavailable(
            f"Cannot run {argv[0]!r}: not found on PATH or not executable ({exc.strerror})."
        ) from exc

    try:
        stdout, stderr, timed_out = _wait(proc, input_text, timeout, grace)
    except BaseException:
        _stop(proc, grace)
        raise
    finally:
        if watch_end >= 0:
            os.close(watch_end)  # the call is over: the supervisor's watch ends too
    return ProcessResult(
        exit_code=proc.returncode,
        stdout=stdout,
        stderr=stderr,
        duration=time.monotonic() - started,
        timed_out=timed_out,
    )


def _spawn(
    argv: list[str], cwd: Path, env: dict[str, str], grace: float
) -> tuple[subprocess.Popen[str], int]:
    """Start `argv` in a session of its own through `supervisor.py`, whose watch stops the
    agent's group when this process dies (kill -9 included). Returns the process and the
    write end of the watch's pipe, held here until the call is over (-1: no supervisor).
    Raises what Popen raises for an executable that cannot be run."""
    options: dict[str, object] = {
        "stdin": subprocess.PIPE,
        "stdout": subprocess.PIPE,
        "stderr": subprocess.PIPE,
        "cwd": cwd,
        "env": env,
        "start_new_session": True,
        "encoding": "utf-8",
        "errors": "replace",
    }
    if os.name != "posix":
        return subprocess.Popen(argv, **options), -1  # type: ignore[call-overload]
    watch_read, watch_write = os.pipe()
    status_read, status_write = os.pipe()
    os.set_inheritable(watch_write, False)
    os.set_inheritable(status_read, False)
    wrapped = [
        sys.executable,
        "-I",
        "-S",
        str(SUPERVISOR),
        str(watch_read),
        str(status_write),
        f"{grace:g}",
        "--",
        *argv,
    ]
    try:
        proc: subprocess.Popen[str] = subprocess.Popen(  # type: ignore[call-overload]
            wrapped, pass_fds=(watch_read, status_write), **options
        )
    except BaseException:
        os.close(watch_write)
        raise
    finally:
        os.close(watch_read)
        os.close(status_write)
    try:
        failed = _read_all(status_read)  # empty: the exec went through
    finally:
        os.close(status_read)
    if failed:
        os.close(watch_write)
        proc.wait()
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
        code = int(failed) if failed.isdigit() else errno.ENOEXEC
        raise OSError(code, os.strerror(code), argv[0])  # FileNotFoundError for ENOENT, …
    return proc, watch_write


def _read_all(fd: int) -> str:
    chunks = []
    while chunk := os.read(fd, 256):
        chunks.append(chunk)
    return b"".join(chunks).decode("ascii", "replace").strip()


def _wait(
    proc: subprocess.Popen[str], input_text: str, timeout: float, grace: float
) -> tuple[str, str, bool]:
    """Feed stdin, read both pipes, and wait; stop the group on timeout."""
    deadline = time.monotonic() + max(timeout, 0.0)
    leader_gone_at: float | None = None
    pending_input: str | None = input_text
    while True:
        limit = deadline if leader_gone_at is None else min(deadline, leader_gone_at + grace)
        remaining = limit - time.monotonic()
        if remaining <= 0:
            timed_out = leader_gone_at is None
            stdout, stderr = _stop(proc, grace)
            return stdout, stderr, timed_out
        try:
            stdout, stderr = proc.communicate(pending_input, timeout=min(remaining, _POLL_SECONDS))
        except subprocess.TimeoutExpired:
            pending_input = None
            if leader_gone_at is None and proc.poll() is not None:
                leader_gone_at = time.monotonic()
            continue
        # Descendants that closed our pipes may still run; the call is over, so they go too.
        _signal_group(proc, signal.SIGKILL)
        return stdout or "", stderr or "", False


def _stop(proc: subprocess.Popen[str], grace: float) -> tuple[str, str]:
    """SIGTERM the group, SIGKILL it after `grace` seconds, and collect what output there is."""
    stdout = stderr = ""
    try:
        _signal_group(proc, signal.SIGTERM)
        try:
            stdout, stderr = proc.communicate(timeout=grace)
        except subprocess.TimeoutExpired:
            _signal_group(proc, signal.SIGKILL)
            try:
                stdout, stderr = proc.communicate(timeout=_DRAIN_SECONDS)
            except subprocess.TimeoutExpired as exc:
                # A process that left the group holds the pipes open: keep what was read.
                stdout, stderr = _decode(exc.output), _decode(exc.stderr)
    finally:
        _signal_group(proc, signal.SIGKILL)
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
        proc.wait()
    return stdout or "", stderr or ""


def _signal_group(proc: subprocess.Popen[str], sig: signal.Signals) -> None:
    # With start_new_session the group id is the leader's pid; the group may be gone already.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


def _decode(data: bytes | str | None) -> str:
    if data is None:
        return ""
    if isinstance(data, str):
        return data
    return data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")


def stderr_tail(stderr: str, lines: int = 5) -> str:
    """The last meaningful lines of stderr, without terminal colour codes."""
    kept = [line.strip() for line in _ANSI.sub("", stderr).splitlines() if line.strip()]
    return "\n".join(kept[-lines:])


@dataclass(frozen=True)
class CallOutcome:
    """What an agent made of its process's output."""

    output: str = ""
    error: str | None = None  # reported by the agent itself: an error event, a rejected permission
    failure: FailureKind | None = None
    """What the agent's own report says went wrong (an API error), when it says more than
    the exit code; it goes with `error`."""
    # The usage as the agent reported it: any number; `classify` keeps only sane figures.
    input_tokens: float | None = None
    output_tokens: float | None = None
    cost: float | None = None
    model: str | None = None  # the model the agent reports it used
    notes: tuple[str, ...] = ()  # extra lines for the call log


def run_agent_call(
    argv: Sequence[str],
    call: AgentCall,
    *,
    grace: float,
    interpret: Callable[[ProcessResult], CallOutcome],
) -> AgentResult:
    """Run one agent call: prompt on stdin, classify the result, write the call log."""
    started = datetime.now().astimezone()
    clock = time.monotonic()
    try:
        proc = run_process(
            argv,
            input_text=call.prompt,
            cwd=call.cwd,
            timeout=call.timeout,
            grace=grace,
            env={**os.environ, **call.env} if call.env else None,
        )
    except AgentUnavailable:
        raise
    except BaseException as exc:
        if call.log_path is not None:
            interrupted = ProcessResult(None, "", "", time.monotonic() - clock, False)
            note = f"interrupted ({type(exc).__name__}); the process group was killed"
            result = AgentResult(ok=False, exit_code=None, error=note)
            with contextlib.suppress(OSError):
                write_call_log(
                    call.log_path,
                    argv=argv,
                    call=call,
                    started=started,
                    process=interrupted,
                    result=result,
                    status="interrupted",
                )
        raise
    outcome = interpret(proc)
    result = classify(proc, outcome, timeout=call.timeout)
    if call.log_path is not None:
        write_call_log(
            call.log_path,
            argv=argv,
            call=call,
            started=started,
            process=proc,
            result=result,
            notes=outcome.notes,
        )
    return result


def classify(proc: ProcessResult, outcome: CallOutcome, *, timeout: float) -> AgentResult:
    """Turn a finished process and its interpretation into an `AgentResult`."""
    failure: FailureKind | None = None
    error: str | None = None
    if proc.timed_out:
        failure = FailureKind.TIMEOUT
        error = f"no result within {timeout:g} s; the process group was killed"
    elif outcome.failure is not None:
        failure = outcome.failure
        error = outcome.error or stderr_tail(proc.stderr) or f"exited with code {proc.exit_code}"
    elif proc.exit_code != 0:
        failure = FailureKind.EXIT_NONZERO
        error = outcome.error or stderr_tail(proc.stderr) or f"exited with code {proc.exit_code}"
    elif outcome.error:
        failure = FailureKind.AGENT_ERROR
        error = outcome.error
    elif not proc.stdout.strip():
        failure = FailureKind.NO_OUTPUT
        error = "exited 0 without any output"
        if tail := stderr_tail(proc.stderr):
            error += f"; stderr: {tail}"
    usage = checked_usage(outcome.input_tokens, outcome.output_tokens, outcome.cost)
    return AgentResult(
        ok=failure is None,
        exit_code=proc.exit_code,
        output=outcome.output,
        stderr=proc.stderr,
        duration=proc.duration,
        failure=failure,
        error=error,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cost=usage.cost,
        usage_warnings=usage.dropped,
        model=outcome.model,
    )


def write_call_log(
    path: Path,
    *,
    argv: Sequence[str],
    call: AgentCall,
    started: datetime,
    process: ProcessResult,
    result: AgentResult,
    notes: Sequence[str] = (),
    status: str | None = None,
) -> None:
    """Write the full record of one agent call: command, figures, prompt, stdout, stderr."""
    if status is None:
        status = result.failure.value if result.failure else "none"
    if result.input_tokens is None and result.output_tokens is None:
        tokens = "unknown"
    else:
        tokens = f"input {_figure(result.input_tokens)}, output {_figure(result.output_tokens)}"
    header = [
        f"command: {shlex.join(argv)}",
        f"phase: {call.phase}",
        f"cwd: {call.cwd}",
        f"model: {call.model}",
        f"timeout: {call.timeout:g} s",
        f"started: {started.isoformat(timespec='seconds')}",
        f"duration: {process.duration:.2f} s",
        f"exit code: {_figure(process.exit_code)}",
        f"timed out: {'yes' if process.timed_out else 'no'}",
        f"failure: {status}",
        f"error: {result.error or '-'}",
        f"tokens: {tokens}",
        f"cost: {'unknown' if result.cost is None else f'{result.cost:.6f}'}",
        *(f"usage dropped: {warning}" for warning in result.usage_warnings),
        *notes,
    ]
    body = [
        "--- prompt ---",
        call.prompt.rstrip("\n"),
        "--- stdout ---",
        process.stdout.rstrip("\n"),
        "--- stderr ---",
        process.stderr.rstrip("\n"),
    ]
    atomic_write_text(path, "\n".join(header + body) + "\n")


def _figure(value: int | None) -> str:
    return "unknown" if value is None else str(value)

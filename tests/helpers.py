"""Plain helpers the tests share: running research.py as a child process, waiting for what
it does, lock files, the event log, sandboxes, session states and the judge's passages.

No fixtures here (those live in conftest.py) and no pytest import, so the scripts under
tests/ (kill_harness.py, golden_prompts.py) can use them too.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from research.model.plan import Plan
from research.model.state import RWRState, SessionConfig
from research.sources.claims import check_claim, index_page
from research.sources.passages import best_passages

REPO = Path(__file__).resolve().parent.parent
SCRIPTED_CLI = Path(__file__).resolve().parent / "scripted_cli.py"
"""research.py with the scripted double behind --mock-mode (see scripted_mock.py)."""
HOST = socket.gethostname()


def read_jsonl(path: Path, *, growing: bool = False) -> list[dict]:
    """The records of a JSON Lines file. `growing`: the file is still being written (a
    running agent's calls file, polled), so a last line without its newline is a record
    half written, read next time, not a broken one."""
    text = path.read_text(encoding="utf-8")
    if growing:
        text = text[: text.rfind("\n") + 1]
    return [json.loads(line) for line in text.splitlines() if line]


def events_of(session: Path, kind: str | None = None) -> list[dict[str, Any]]:
    """The events of `session`'s events.jsonl, or only those of type `kind`; every line
    must be one JSON object."""
    lines = (session / "events.jsonl").read_text(encoding="utf-8").splitlines()
    found = [json.loads(line) for line in lines]
    assert all(isinstance(event, dict) for event in found)
    return [e for e in found if kind is None or e["type"] == kind]


def run_demo(run_cli: Callable[..., Any], *extra: str, env: dict[str, str] | None = None) -> Any:
    """Through the `run_cli` fixture: the mock session `demo` (breadth 2, depth 2), with
    `extra` options."""
    return run_cli(
        "--mock-mode",
        "--name",
        "demo",
        "--breadth",
        "2",
        "--depth",
        "2",
        "--yes",
        *extra,
        "How do heat pumps perform in cold climates?",
        env=env,
    )


# ------------------------------------------------------------------ child processes


def clean_env(*drop: str, **extra: str) -> dict[str, str]:
    """This process's environment without RESEARCH_* variables (nor any starting with one of
    the `drop` prefixes), plus `extra`.

    Note that it drops the RESEARCH_VERIFY_SOURCES=0 of the `isolated` fixture: pass it back
    in `extra` for a child whose agent may cite real addresses."""
    prefixes = ("RESEARCH_", *drop)
    env = {key: value for key, value in os.environ.items() if not key.startswith(prefixes)}
    env.update(extra)
    return env


def sandbox_env(root: Path, *drop: str, **extra: str) -> dict[str, str]:
    """clean_env() with HOME, TMPDIR and the XDG directories inside `root/home` and
    `root/tmp` (which the caller creates), so whatever a run writes there is seen."""
    return clean_env(
        *drop,
        HOME=str(root / "home"),
        TMPDIR=str(root / "tmp"),
        XDG_CONFIG_HOME=str(root / "home" / ".config"),
        XDG_CACHE_HOME=str(root / "home" / ".cache"),
        XDG_DATA_HOME=str(root / "home" / ".local"),
        XDG_STATE_HOME=str(root / "home" / ".local" / "state"),
        **extra,
    )


def victim_files(root: Path) -> Path:
    """`root/victim`: the user's own files outside the working directory, which no run may
    create, change or delete (links made by a hostile agent point at them)."""
    victim = root / "victim"
    (victim / "sub").mkdir(parents=True)
    (victim / "notes.md").write_text("the user's own notes\n")
    (victim / "sub" / "data.json").write_text('{"keep": true}\n')
    return victim


def research_argv(*args: str, scripted: bool = False) -> list[str]:
    """The command line of research.py ARGS (with `scripted`, of tests/scripted_cli.py, which
    also understands --mock-script)."""
    return [sys.executable, str(SCRIPTED_CLI if scripted else REPO / "research.py"), *args]


def run_research(
    *args: str,
    cwd: Path,
    env: dict[str, str] | None = None,
    scripted: bool = False,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """Run research.py ARGS in `cwd` to its end (env None: this process's environment)."""
    return subprocess.run(
        research_argv(*args, scripted=scripted),
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@contextmanager
def spawned(
    argv: list[str], *, cwd: Path, env: dict[str, str] | None = None, **options: Any
) -> Iterator[subprocess.Popen[str]]:
    """Start `argv` with its output piped; killed and reaped on leaving if still running."""
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **options,
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


HANG_GUARD_SECONDS = 120.0
"""The least time a test waits for an event before it calls it a hang: a loaded machine
(the whole suite on two cores) is slow, never wrong."""


def wait_until(
    condition: Callable[[], object],
    *,
    within: float = 20.0,
    proc: subprocess.Popen[str] | None = None,
    what: str = "the condition",
) -> None:
    """Poll `condition` until it holds; fail after `within` seconds (never fewer than
    HANG_GUARD_SECONDS: a hang guard, not a speed test), or as soon as `proc` (the process
    that should bring it about) has exited."""
    within = max(within, HANG_GUARD_SECONDS)
    deadline = time.monotonic() + within
    while not condition():
        if proc is not None and proc.poll() is not None:
            _, stderr = proc.communicate()
            raise AssertionError(f"the process exited ({proc.returncode}) before {what}: {stderr}")
        assert time.monotonic() < deadline, f"{what}: not within {within} s"
        time.sleep(0.02)


def wait_for_file(
    path: Path, *, within: float = 20.0, proc: subprocess.Popen[str] | None = None
) -> str:
    """Wait until `path` exists with some content (a pid file, say); returns the content."""
    wait_until(
        lambda: path.exists() and path.read_text(), within=within, proc=proc, what=f"{path.name}"
    )
    return path.read_text()


def killed_session(work: Path, script: Path, name: str, *, breadth: str = "2") -> Path:
    """Run a mock session in a child process whose `script` SIGKILLs it at an agent call
    (kill_at_call): its state saved, its lock file left behind. Returns its directory."""
    done = run_research(
        "--mock-mode",
        "--mock-script",
        str(script),
        "--name",
        name,
        "--breadth",
        breadth,
        "--depth",
        "1",
        "--quiet",
        "How do heat pumps perform in cold climates?",
        cwd=work,
        env=clean_env(),
        scripted=True,
    )
    assert done.returncode == -9, done.stderr
    session = work / ".research" / name
    assert (session / "research.lock.json").exists()
    return session


# ------------------------------------------------------------------ lock files


def lock_record(
    *,
    pid: int,
    host: str = HOST,
    created: float | None = None,
    heartbeat: float | None = None,
    **extra: object,
) -> dict[str, object]:
    """A session lock's record (times default to now); `extra` adds or overrides fields."""
    now = time.time()
    return {
        "lock_token": "feedfacefeedface",
        "pid": pid,
        "host": host,
        "created": now if created is None else created,
        "heartbeat": now if heartbeat is None else heartbeat,
        **extra,
    }


def lock_text(**fields: Any) -> str:
    """lock_record(**fields) as the JSON a lock file holds."""
    return json.dumps(lock_record(**fields))


def write_lock(path: Path, **fields: Any) -> str:
    """Write lock_record(**fields) to `path` (making its directory); returns the text."""
    text = lock_text(**fields)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return text


# ------------------------------------------------------------------ session states


def new_state(
    plan: Plan,
    *,
    name: str,
    max_iterations: int,
    timeout: float,
    review_model: str = "r",
    **fields: Any,
) -> RWRState:
    """A session's state over `plan` (its topic, breadth and depth), model "m"; `fields`
    are further RWRState fields (progress=…)."""
    return RWRState(
        name=name,
        config=SessionConfig(
            original_topic=plan.topic,
            breadth=plan.breadth,
            depth=plan.depth,
            max_iterations=max_iterations,
            model="m",
            review_model=review_model,
            timeout=timeout,
        ),
        plan=plan,
        **fields,
    )


# ------------------------------------------------------------------ source checks


def passages(claim: str, page: str) -> list[str]:
    """The passages the judge is shown for `claim`, checked by the rules against `page`."""
    return best_passages(check_claim(claim, index_page(page)), page)

"""Bad-input catalogue through the installed `research` entry point (issue 10, input half).

Every case runs as a real process in a directory of its own: `root/work` is the working
directory, and `root/victim`, `root/home` and `root/tmp` are outside it. Each case asserts
its exit code and message, no "internal error" and no traceback, and that nothing outside
`work/` was created, changed or deleted (the victim files are hashed before and after).
Most cases must not touch `work/` either: a refused run writes nothing.

The processes start all at once (a module fixture), so the catalogue costs a few seconds.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO
from helpers import clean_env, sandbox_env, victim_files

QUESTION = "How do heat pumps perform in cold climates?"
SMALL = ("--mock-mode", "--breadth", "1", "--depth", "1", "--yes", "--name", "x")
RESUME = ("--name", "s", "--resume")
Setup = Callable[[Path, Path], None]
"""setup(work, finished): prepare `work`; `finished` is a finished mock session's directory."""


def entry_point() -> list[str]:
    """The installed console script next to this Python, else the checkout's shim."""
    script = Path(sys.executable).parent / "research"
    return [str(script)] if script.exists() else [sys.executable, str(REPO / "research.py")]


@dataclass(frozen=True)
class Case:
    id: str
    args: tuple[str, ...]
    code: int
    says: str
    """A fragment of the one stderr line (error cases) or of stderr (exit 0)."""
    setup: Setup | None = None
    env: dict[str, str] = field(default_factory=dict)
    writes: bool = False
    """Whether the run may write inside `work/` (otherwise it must leave it as it was)."""
    no_agent_on_path: bool = False
    cwd_deleted: bool = False


# --- setups --------------------------------------------------------------------------


def copy_finished(
    name: str = "s",
    edit: Callable[[dict[str, Any]], None] | None = None,
    raw: str | bytes | None = None,
) -> Setup:
    """Put the finished session (named `name`) into `work`, its state edited or replaced."""

    def setup(work: Path, finished: Path) -> None:
        shutil.copytree(finished / ".research", work / ".research", symlinks=True)
        shutil.copytree(finished / "reports", work / "reports", symlinks=True)
        if name != "s":
            (work / ".research" / "s").rename(work / ".research" / name)
            (work / "reports" / "s").rename(work / "reports" / name)
        state = work / ".research" / name / "state.json"
        if raw is not None:
            state.unlink()
            state.write_bytes(raw.encode() if isinstance(raw, str) else raw)
        elif edit is not None:
            data = json.loads(state.read_text())
            edit(data)
            state.write_text(json.dumps(data))

    return setup


def edit(path: str, value: object) -> Callable[[dict[str, Any]], None]:
    """Set a dotted path of the state (`config.timeout`) to `value`."""

    def change(data: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        for part in parents:
            data = data[part]
        data[last] = value

    return change


def unfinished(data: dict[str, Any]) -> None:
    data["progress"].update(is_complete=False, current_phase="research", stop_reason=None)


def stray_topic(key: str) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        unfinished(data)
        if key == "current_topic":
            data["progress"]["current_topic"] = "no-such-topic"
        else:
            data["progress"]["in_flight"] = {"no-such-topic": {"phase": "research", "iteration": 1}}

    return change


def lock_file(
    content: str | None, pid: int | None = None, created: float | None = None, **extra: object
) -> Setup:
    """The finished session with a lock: `content` verbatim, or a lock held by `pid`."""

    def setup(work: Path, finished: Path) -> None:
        copy_finished()(work, finished)
        path = work / ".research" / "s" / "research.lock.json"
        if content == "dir":
            path.mkdir()
        elif content == "guard dir":
            guard = path.with_name(path.name + ".lock")
            guard.unlink(missing_ok=True)
            guard.mkdir()
        elif content is not None:
            path.write_text(content)
        else:
            now = time.time()
            path.write_text(
                json.dumps(
                    {
                        "lock_token": "feedfacefeedface",
                        "pid": pid or os.getpid(),
                        "host": socket.gethostname(),
                        "created": now if created is None else created,
                        "heartbeat": now,
                        **extra,
                    }
                )
            )

    return setup


def a_file_named(relative: str) -> Setup:
    def setup(work: Path, _finished: Path) -> None:
        path = work / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("not a directory\n")

    return setup


def template(name: str, text: str | bytes) -> Setup:
    def setup(work: Path, _finished: Path) -> None:
        directory = work / ".research" / "templates"
        shutil.copytree(REPO / "templates", directory, ignore=shutil.ignore_patterns("*.json"))
        path = directory / f"{name}.md"
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(path.read_text() + text)

    return setup


def state_linked_outside(work: Path, finished: Path) -> None:
    """state.json is a symbolic link to a copy in the victim directory."""
    copy_finished()(work, finished)
    state = work / ".research" / "s" / "state.json"
    outside = work.parent / "victim" / "state.json"
    outside.write_bytes(state.read_bytes())
    state.unlink()
    state.symlink_to(outside)


# --- the catalogue -----------------------------------------------------------------------

BAD_NUMBERS = {
    "breadth": ["0", "11", "abc", "nan", ""],
    "depth": ["0", "7"],
    "max-iterations": ["0", "abc", "1" + "0" * 30, "nan"],
    "time": ["0", "-1", "abc", "inf", "nan", "1e308", "1e309"],
    "timeout": ["0", "inf", "1e309", "nan", "abc", "1e12"],
    "duplicate-threshold": ["nan", "1.5", "inf"],
    "min-novelty": ["nan", "-inf"],
    "parallel": ["0", "9"],
}
BAD_ENV = {
    "RESEARCH_BREADTH": ["many"],
    "RESEARCH_DEPTH": ["-2"],
    "RESEARCH_MAX_ITERS": ["0"],
    "RESEARCH_TIME_BUDGET": ["inf", "1e308"],
    "RESEARCH_TIMEOUT": ["inf", "nan"],
    "RESEARCH_DUPLICATE_THRESHOLD": ["nan"],
    "RESEARCH_MIN_NOVELTY": ["7"],
    "RESEARCH_PARALLEL": ["0"],
    "RESEARCH_AGENT": ["gpt"],
    "RESEARCH_EARLY_TERMINATION": ["maybe"],
}

CASES = [
    *(
        Case(f"--{flag} {value!r}", (*SMALL, f"--{flag}", value, QUESTION), 2, f"--{flag}")
        for flag, values in BAD_NUMBERS.items()
        for value in values
    ),
    *(
        Case(
            f"{var}={value}",
            ("--mock-mode", "--yes", "--name", "x", QUESTION),
            2,
            f"Invalid value for {var}: ",  # what the user gave, not the flag too
            env={var: value},
        )
        for var, values in BAD_ENV.items()
        for value in values
    ),
    # the agent
    Case("--agent aider", (*SMALL, "--agent", "aider", QUESTION), 2, "--agent"),
    Case(
        "claude not on PATH",
        ("--agent", "claude", "--name", "x", "--breadth", "1", "--depth", "1", QUESTION),
        1,
        "npm install -g @anthropic-ai/claude-code",
        no_agent_on_path=True,
    ),
    Case(
        "--agent-cmd ''",
        ("--name", "x", "--breadth", "1", "--depth", "1", "--agent-cmd", "", QUESTION),
        2,
        "empty agent command",
    ),
    Case(
        "--agent-cmd blank",
        ("--name", "x", "--breadth", "1", "--depth", "1", "--agent-cmd", "   ", QUESTION),
        2,
        "empty agent command",
    ),
    Case(
        "RESEARCH_AGENT_CMD='' counts as unset",
        ("--name", "x", "--breadth", "1", "--depth", "1", QUESTION),
        1,
        "OpenCode",
        env={"RESEARCH_AGENT_CMD": ""},
        no_agent_on_path=True,
    ),
    Case(
        "--agent-cmd unclosed quote",
        (
            "--name",
            "x",
            "--breadth",
            "1",
            "--depth",
            "1",
            "--agent-cmd",
            "agent 'unclosed",
            QUESTION,
        ),
        2,
        "agent command",
    ),
    Case(
        "--agent-cmd not on PATH",
        (
            "--name",
            "x",
            "--breadth",
            "1",
            "--depth",
            "1",
            "--agent-cmd",
            "no-such-agent-xyz",
            QUESTION,
        ),
        1,
        "no-such-agent-xyz",
    ),
    Case(
        "opencode not on PATH",
        ("--name", "x", "--breadth", "1", "--depth", "1", QUESTION),
        1,
        "OpenCode",
        no_agent_on_path=True,
    ),
    Case(
        "--mock-mode with --agent claude",
        (*SMALL, "--agent", "claude", QUESTION),
        2,
        "--mock-mode and --agent claude",
    ),
    Case(
        "--mock-mode with --agent-cmd",
        (*SMALL, "--agent-cmd", "cat", QUESTION),
        2,
        "--mock-mode and --agent-cmd",
    ),
    Case(
        "--agent mock with --agent-cmd",
        ("--agent", "mock", "--agent-cmd", "cat", "--name", "x", QUESTION),
        2,
        "--agent mock and --agent-cmd",
    ),
    Case(
        "--agent opencode with --agent-cmd",
        ("--agent", "opencode", "--agent-cmd", "cat", "--name", "x", QUESTION),
        2,
        "--agent-cmd",
    ),
    Case(
        "RESEARCH_AGENT=mock with RESEARCH_AGENT_CMD",
        ("--name", "x", QUESTION),
        2,
        "--agent-cmd",
        env={"RESEARCH_AGENT": "mock", "RESEARCH_AGENT_CMD": "cat"},
    ),
    Case(
        "--mock-mode with --agent-cmd on --resume",
        ("--mock-mode", "--agent-cmd", "cat", *RESUME),
        2,
        "--agent-cmd",
        setup=copy_finished(),
    ),
    # names and topics
    *(
        Case(f"--name {name!r}", (*SMALL[:-1], name, QUESTION), 2, "invalid --name")
        for name in ("../x", "/etc/passwd", "", ".", "..", "café", "a" * 200, "x\ny")
    ),
    Case("bare research", (), 2, "--help"),
    Case("no topic, no name", ("--mock-mode",), 2, "--name"),
    Case("empty topic", (*SMALL, ""), 2, "topic"),
    Case("blank topic", (*SMALL, "  \n\t "), 2, "topic"),
    Case("topic and an extra argument", (*SMALL, QUESTION, "again"), 2, "again"),
    Case("unknown option", (*SMALL, "--frobnicate", QUESTION), 2, "--frobnicate"),
    Case(
        "many iterations, no --yes, no terminal",
        ("--agent-cmd", "true", "--name", "x", QUESTION),  # the simulated agent asks nothing
        2,
        "--yes",
    ),
    # resume
    Case("--resume without a session", ("--mock-mode", *RESUME), 2, "no saved session"),
    Case(
        "--force-resume without a session",
        ("--mock-mode", "--name", "s", "--force-resume"),
        2,
        "no saved session",
    ),
    Case(
        "start over an existing session",
        ("--mock-mode", "--name", "s", QUESTION),
        2,
        "--resume",
        setup=copy_finished(),
    ),
    Case(
        "--resume with another topic",
        (*RESUME, "Another question"),
        2,
        "topic",
        setup=copy_finished(),
    ),
    Case(
        "--resume with another --breadth",
        (*RESUME, "--breadth", "3"),
        2,
        "--breadth",
        setup=copy_finished(),
    ),
    Case(
        "--resume with another --depth",
        (*RESUME, "--depth", "2"),
        2,
        "--depth",
        setup=copy_finished(),
    ),
    Case(
        "--resume a finished mock session, no agent given or installed",
        RESUME,
        0,
        "already complete",
        setup=copy_finished(),
        writes=True,
        no_agent_on_path=True,
    ),
    Case(
        "--resume a finished --agent-cmd session whose command is gone",
        RESUME,
        0,
        "already complete",
        setup=copy_finished(
            edit=lambda d: d["config"].update(
                agent="command", agent_cmd="gone-agent-xyz", mock_mode=False
            )
        ),
        writes=True,
        no_agent_on_path=True,
    ),
    Case(
        "--resume an unfinished --agent-cmd session whose command is gone",
        RESUME,
        1,
        "gone-agent-xyz",
        setup=copy_finished(
            edit=lambda d: (
                unfinished(d),
                d["config"].update(agent="command", agent_cmd="gone-agent-xyz", mock_mode=False),
            )
        ),
    ),
    Case(
        "RESEARCH_BREADTH differs on --resume (ignored)",
        RESUME,
        0,
        "already complete",
        setup=copy_finished(),
        env={"RESEARCH_BREADTH": "4"},
        writes=True,
    ),
    Case(
        "--resume applies --time and says so",
        (*RESUME, "--time", "5"),
        0,
        "--time 5",
        setup=copy_finished(),
        writes=True,
    ),
    # state files
    Case(
        "state corrupt JSON",
        RESUME,
        2,
        "not valid JSON",
        setup=copy_finished(raw='{"kind": "research.py/state", "name": '),
    ),
    Case("state empty", RESUME, 2, "state.json", setup=copy_finished(raw="")),
    Case(
        "state a JSON list",
        RESUME,
        2,
        "not a research.py state file",
        setup=copy_finished(raw="[1, 2, 3]"),
    ),
    Case(
        "state someone else's JSON",
        RESUME,
        2,
        "not a research.py state file",
        setup=copy_finished(raw='{"hacked": 1}'),
    ),
    Case(
        "state from a newer version",
        RESUME,
        2,
        "newer research.py",
        setup=copy_finished(edit=edit("schema_version", 99)),
    ),
    Case(
        "state with an unknown field",
        RESUME,
        2,
        "state.json",
        setup=copy_finished(edit=edit("surprise", True)),
    ),
    Case(
        "state config with an unknown field",
        RESUME,
        2,
        "state.json",
        setup=copy_finished(edit=edit("config.surprise", 1)),
    ),
    Case(
        "state of the wrong shape",
        RESUME,
        2,
        "does not have the shape",
        setup=copy_finished(edit=edit("config.breadth", "wide")),
    ),
    Case(
        "state of another session",
        RESUME,
        2,
        "belongs to session 'y'",
        setup=copy_finished(edit=edit("name", "y")),
    ),
    Case("state not UTF-8", RESUME, 2, "state.json", setup=copy_finished(raw=b"\xff\xfe{\x00")),
    Case(
        "state current_topic not in the plan",
        RESUME,
        2,
        "not in its plan",
        setup=copy_finished(edit=stray_topic("current_topic")),
    ),
    Case(
        "state in_flight topic not in the plan",
        RESUME,
        2,
        "not in its plan",
        setup=copy_finished(edit=stray_topic("in_flight")),
    ),
    Case(
        "state is a directory",
        RESUME,
        2,
        "state.json",
        setup=lambda work, _: (work / ".research" / "s" / "state.json").mkdir(parents=True),
    ),
    # A link (or directory, or FIFO) in place of state.json is never followed: the session
    # resumes from the copy of its last save, and says so; with no copy it is refused.
    Case(
        "state is a link to a file outside",
        RESUME,
        0,
        "resumed from state.prev.json",
        setup=state_linked_outside,
        writes=True,
    ),
    Case(
        "state is a link to a file outside, no copy",
        RESUME,
        2,
        "symbolic link",
        setup=lambda work, finished: (
            state_linked_outside(work, finished),
            (work / ".research" / "s" / "state.prev.json").unlink(),
        ),
    ),
    # locks
    Case("session locked by a live process", RESUME, 3, "pid", setup=lock_file(None)),
    Case(
        "lock created 1e20",
        RESUME,
        0,
        "already complete",
        setup=lock_file(None, created=1e20, pid=2**22 + 7),
        writes=True,
    ),
    # Left to the lock's owner (harden): a lock file or guard that is a directory, and a
    # live holder's lock with an unknown field, still reach an internal error or a takeover.
    # the working directory
    Case("working directory deleted", (*SMALL, QUESTION), 2, "working directory", cwd_deleted=True),
    Case(
        ".research is a file", (*SMALL, QUESTION), 1, ".research", setup=a_file_named(".research")
    ),
    Case(
        ".research/templates is a file",
        (*SMALL, QUESTION),
        1,
        "templates",
        setup=a_file_named(".research/templates"),
    ),
    Case(
        "template with an unknown variable",
        (*SMALL, QUESTION),
        2,
        "$nonsense",
        setup=template("research", "\nUse $nonsense here.\n"),
    ),
    Case("template empty", (*SMALL, QUESTION), 2, "empty", setup=template("review", b"")),
]


# --- running them ------------------------------------------------------------------------


def snapshot(root: Path, skip: Path) -> dict[str, tuple[str, ...]]:
    """Every path under `root` but `skip`: files by content hash, links by target."""
    found: dict[str, tuple[str, ...]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        if here == skip:
            dirnames[:] = []
            continue
        for name in [*dirnames, *filenames]:
            path = here / name
            if path == skip:
                continue
            key = path.relative_to(root).as_posix()
            if path.is_symlink():
                found[key] = ("link", os.readlink(path))
            elif path.is_dir():
                found[key] = ("dir",)
            else:
                found[key] = ("file", hashlib.sha256(path.read_bytes()).hexdigest())
    return found


USER_STATE = "home/.local/state/research-py"
"""The user's key lives there, outside the working directory by design."""


def outside(root: Path, work: Path) -> dict[str, tuple[str, ...]]:
    """snapshot(root, work) but the user's state directory (and the parents it needed)."""
    return {
        key: value
        for key, value in snapshot(root, work).items()
        if not (USER_STATE.startswith(key + "/") or key == USER_STATE or key.startswith(USER_STATE))
    }


def full_snapshot(root: Path) -> dict[str, tuple[str, ...]]:
    return snapshot(root, root / "\0")  # a path that never exists: skip nothing


@dataclass
class Outcome:
    code: int
    stderr: str
    outside_before: dict[str, tuple[str, ...]]
    outside_after: dict[str, tuple[str, ...]]
    work_before: dict[str, tuple[str, ...]]
    work_after: dict[str, tuple[str, ...]]


def prepare(case: Case, root: Path, finished: Path) -> tuple[Path, dict[str, str]]:
    work = root / "work"
    for directory in ("work", "home", "tmp", "bin"):
        (root / directory).mkdir(parents=True)
    victim_files(root)
    if case.setup is not None:
        case.setup(work, finished)
    env = sandbox_env(root, COLUMNS="100", **case.env)
    if case.no_agent_on_path:
        env["PATH"] = str(root / "bin")
    return work, env


def run_case(case: Case, root: Path, finished: Path) -> Outcome:
    work, env = prepare(case, root, finished)
    outside_before, work_before = outside(root, work), full_snapshot(work)
    preexec = (lambda: os.rmdir(work)) if case.cwd_deleted else None  # after the chdir
    done = subprocess.run(
        [*entry_point(), *case.args],
        cwd=work,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,  # a hang guard: the cases run all at once
        preexec_fn=preexec,
    )
    return Outcome(
        done.returncode,
        done.stderr,
        outside_before,
        outside(root, work),
        work_before,
        full_snapshot(work) if work.exists() else {},
    )


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished mock session named `s`, made once through the real CLI."""
    work = tmp_path_factory.mktemp("finished")
    done = subprocess.run(
        [
            *entry_point(),
            "--mock-mode",
            "--name",
            "s",
            "--breadth",
            "1",
            "--depth",
            "1",
            "--quiet",
            QUESTION,
        ],
        cwd=work,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=300,  # a hang guard: the cases run all at once
    )
    assert done.returncode == 0, done.stderr
    return work


@pytest.fixture(scope="module")
def outcomes(
    tmp_path_factory: pytest.TempPathFactory, finished: Path
) -> Iterator[dict[str, Outcome]]:
    base = tmp_path_factory.mktemp("catalogue")
    workers = max(2, min(8, (os.cpu_count() or 2) * 2))
    with ThreadPoolExecutor(workers) as pool:
        futures = {
            case.id: pool.submit(run_case, case, base / f"case{i:03d}", finished)
            for i, case in enumerate(CASES)
        }
        yield {key: future.result() for key, future in futures.items()}


def test_case_ids_are_unique() -> None:
    assert len({case.id for case in CASES}) == len(CASES)


def test_catalogue_has_at_least_50_cases() -> None:
    assert len(CASES) >= 50


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_bad_input(case: Case, outcomes: dict[str, Outcome]) -> None:
    out = outcomes[case.id]
    stderr = out.stderr
    assert out.code == case.code, stderr
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    if case.code != 0:
        lines = [line for line in stderr.splitlines() if line.strip()]
        assert len(lines) == 1, stderr  # one clear line
        assert lines[0].startswith(("research: error: ", "usage: ")), stderr
    assert case.says in stderr, stderr
    # Nothing outside the working directory was created, changed or deleted.
    assert out.outside_after == out.outside_before
    if not case.writes and not case.cwd_deleted:
        assert out.work_after == out.work_before  # a refused run writes nothing

"""Hostile-agent catalogue through the installed `research` entry point (issue 10, agent half).

The agent reads arbitrary web pages, so it can be prompt-injected: everything it leaves in
the working directory is hostile. Each case runs a tiny real session (`--breadth 1
--depth 1`) with tests/fake_agents/hostile_agent.py as `--agent-cmd`: it does each phase's
work like a careful agent and then, at one chosen phase, something hostile — a directory
of the orchestrator's replaced by a link to the user's files, a FIFO or a directory where
a file belongs, the session directory moved away and linked back, junk in another
session, a kill right after breaking state.json, …

Each case asserts its exit code (0 when the orchestrator repaired what the agent did, 1
when it had to stop), one clear line when it stopped, no traceback or internal error, no
hang (every run has a 60 s timeout), and that nothing outside the working directory was
created, changed or deleted: `root/victim` (what the links point at), `root/home` and
`root/tmp` are hashed — names, contents and mtimes — before and after. A run that stopped
(or was killed) is followed by `--resume` with the agent behaving, which must finish with
exit 0: the session is never stuck.

The cases run two (or more, with more cores) at a time from a module fixture.
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

import pytest
from helpers import events_of, new_state, sandbox_env, victim_files
from test_bad_input_catalogue import entry_point

QUESTION = "How do heat pumps perform in cold climates?"
AGENT = Path(__file__).resolve().parent / "fake_agents" / "hostile_agent.py"
SMALL = ("--breadth", "1", "--depth", "1")
PARALLEL = ("--breadth", "2", "--depth", "1", "--parallel", "2")
TIMEOUT = 300
"""A hang guard for each run (a loaded machine runs these slowly, many at once)."""

Hook = Callable[[Path, Path], None]
"""hook(work, root)."""


@dataclass(frozen=True)
class Case:
    id: str
    act: str | None
    """HOSTILE_ACT ("fifo:state", "link_dir:progress", "dir:state+kill", …); None: none."""
    phase: str = "research"
    code: int = 0
    """The hostile run's exit code (-9: the agent killed the orchestrator)."""
    says: str = ""
    """A fragment of stderr (for exit 1 and 2: of its one error line)."""
    shape: tuple[str, ...] = SMALL
    setup: Hook | None = None
    restore: Hook | None = None
    """Run before the --resume (the user putting back what the agent moved away)."""
    resume: bool | None = None
    """Resume afterwards; by default when the run did not end with exit 0."""
    resume_code: int = 0
    resume_says: str = ""
    repaired: str | None = None
    """A `workspace_repair` event must name a path containing this."""
    check: Hook | None = None
    finishes: bool = True
    """The session ends complete (after the resume, if any)."""
    env: dict[str, str] = field(default_factory=dict)


# --- setups, restores and checks --------------------------------------------------------


def other_session(work: Path, _root: Path, *, live: bool = False) -> None:
    """Another session in the same working directory (finished, or held by a live run)."""
    other = work / ".research" / "other"
    other.mkdir(parents=True)
    (other / "state.json").write_text('{"kind": "research.py/state"}\n')
    report = work / "reports" / "other"
    report.mkdir(parents=True)
    (report / "report.md").write_text("# The other session's report\n")
    if live:
        now = time.time()
        (other / "research.lock.json").write_text(
            json.dumps(
                {
                    "lock_token": "0123456789abcdef",
                    "pid": os.getpid(),
                    "host": socket.gethostname(),
                    "created": now,
                    "heartbeat": now,
                }
            )
        )


def junk_reported(work: Path, root: Path) -> None:
    stderr = (root / "record" / "stderr.txt").read_text()
    assert "another session's (.research/other/, reports/other/)" in stderr, stderr
    assert "modified .research/other/state.json" in stderr, stderr
    # Reported, not undone: the other session's files are left as the agent made them.
    assert "junk from a hostile agent" in (work / ".research/other/state.json").read_text()
    assert (work / "reports/other/report.md").read_text() == "overwritten by the agent\n"


def junk_not_blamed_on_a_live_session(work: Path, root: Path) -> None:
    stderr = (root / "record" / "stderr.txt").read_text()
    assert ".research/other" not in stderr, stderr  # its own run writes there


def moved_back(what: str) -> Hook:
    """The user puts back what the agent moved into agent-moved/ (removing the link)."""

    def restore(work: Path, root: Path) -> None:
        place = work / what
        moved = work / "agent-moved" / Path(what).name
        assert moved.is_dir()
        if os.path.lexists(place):
            (place.unlink() if place.is_symlink() else shutil.rmtree(place))
        moved.rename(place)

    return restore


def untouched_after_the_move(work: Path, root: Path) -> None:
    """The moved session directory holds what it held right after the agent moved it:
    nothing was written through the link (the lock file, which the lock's release deletes,
    aside)."""
    record = json.loads((root / "record" / "moved.json").read_text())
    moved = Path(record["path"])
    now = {}
    for path in sorted(moved.rglob("*")):
        if path.is_file() and not path.is_symlink():
            now[path.relative_to(moved).as_posix()] = [
                hashlib.sha256(path.read_bytes()).hexdigest(),
                path.lstat().st_mtime_ns,
            ]
    before = {k: v for k, v in record["files"].items() if k != "research.lock.json"}
    now.pop("research.lock.json", None)
    assert now == before


def restore_after_checking(what: str) -> Hook:
    def restore(work: Path, root: Path) -> None:
        untouched_after_the_move(work, root)
        moved_back(what)(work, root)

    return restore


def left_empty_then_restored(what: str) -> Hook:
    """The directory the agent put in place of `what` got nothing from the run (not even
    a directory made on the way to a write); then as restore_after_checking."""

    def restore(work: Path, root: Path) -> None:
        assert sorted(p.name for p in (work / what).iterdir()) == []
        restore_after_checking(what)(work, root)

    return restore


def temp_files_removed(work: Path, root: Path) -> None:
    session, report = work / ".research/x", work / "reports/x"
    for gone in (
        session / ".state.json.abcd1234.tmp",
        report / ".report.md.zz9_zz9z.tmp",
        session / "progress" / ".topic.md.q1w2e3r4.tmp",
    ):
        assert not gone.exists(), gone
    assert (session / "notes.abcd1234.tmp").exists()  # not the atomic writer's pattern
    assert (session / ".keep.tmp").exists()


def report_file(work: Path, _root: Path) -> None:
    path = work / "reports" / "x" / "report.md"
    path.parent.mkdir(parents=True)
    path.write_text("# The user's own report\n")


def link_to_victim(relative: str) -> Hook:
    def setup(work: Path, root: Path) -> None:
        path = work / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(root / "victim", target_is_directory=True)

    return setup


def nothing_written(work: Path, root: Path) -> None:
    assert not (work / ".research" / "templates").exists()  # refused before any write


def user_report_kept(work: Path, root: Path) -> None:
    nothing_written(work, root)
    assert (work / "reports/x/report.md").read_text() == "# The user's own report\n"


def report_kept_whole(work: Path, _root: Path) -> None:
    """The report a FINAL REVIEW call took away was put back: the final one has its body."""
    assert "One finding [1]." in (work / "reports/x/report.md").read_text()


# --- the catalogue -------------------------------------------------------------------------

OWN_DIRS = {
    "progress": ("research", "review", "synthesize", "final_review"),
    "archive": ("research", "final_review"),
    "logs": ("review", "synthesize"),
    "sources": ("research",),
    "review": ("review",),
}
"""The session's own directories, and after which phases an agent links them away."""

CASES: list[Case] = [
    # A link to the user's files in place of one of the session's own directories: the link
    # is removed (never followed: the victim directory stays as it was), the directory made
    # again, and the run goes on.
    *(
        Case(
            f"{d}/ linked to the user's files after {phase}",
            f"link_dir:{d}",
            phase,
            repaired=f".research/x/{d}",
        )
        for d, crossed in OWN_DIRS.items()
        for phase in crossed
    ),
    Case(
        "review/ linked to the user's files in parallel research",
        "link_dir:review",
        "research",
        shape=PARALLEL,
        repaired=".research/x/review",
    ),
    Case(
        "progress/ linked to the user's files in parallel review",
        "link_dir:progress",
        "review",
        shape=PARALLEL,
        repaired=".research/x/progress",
        # Once the sibling topic's agent is done: while it runs, it would write its own
        # notes through the link (an agent's write, which the orchestrator cannot stop;
        # README, "What happens if…").
        env={"HOSTILE_ALONE": "1"},
    ),
    # A link to the user's files in place of the directory of the session's scratch areas
    # (or of all sessions'): the next call's area is never made through it (the victim
    # stays as it was) and the run goes on.
    Case(".calls/x linked to the user's files after research", "link_dir:calls", "research"),
    Case(".calls linked to the user's files after review", "link_dir:calls_root", "review"),
    # Files or FIFOs in place of those directories.
    Case(
        "progress/ replaced by a file", "file:progress", "review", repaired=".research/x/progress"
    ),
    Case("archive/ replaced by a file", "file:archive", "research", repaired=".research/x/archive"),
    Case("logs/ replaced by a FIFO", "fifo:logs", "review", repaired=".research/x/logs"),
    # The report directory, or reports/ itself, replaced by a link: nothing is written
    # through it; the link is removed, the directory made again, and the run stops.
    *(
        Case(
            f"reports/x linked to the user's files after {phase}",
            "link_dir:report_dir",
            phase,
            code=1,
            says="the agent replaced reports/x with a symbolic link",
        )
        for phase in ("research", "synthesize", "final_review")
    ),
    Case(
        "reports/ linked to the user's files",
        "link_reports_root",
        "review",
        code=1,
        says="the agent replaced reports with a symbolic link",
    ),
    # The session directory moved away and linked back, or replaced: the run stops at once
    # and writes nothing more into it; --resume works once the user puts it back.
    *(
        Case(
            f"session directory moved away and linked back after {phase}",
            "move_session",
            phase,
            code=1,
            says="the agent replaced .research/x with a symbolic link",
            restore=restore_after_checking(".research/x"),
        )
        for phase in ("research", "review", "final_review")
    ),
    Case(
        "session directory replaced by an empty one",
        "replace_session",
        "review",
        code=1,
        says="the agent replaced .research/x with another directory",
        restore=left_empty_then_restored(".research/x"),
    ),
    Case(
        ".research moved away and linked back",
        "move_research_root",
        "research",
        code=1,
        says="the agent replaced .research with a symbolic link",
        restore=moved_back(".research"),
    ),
    Case(
        "session directory deleted",
        "delete_session",
        "review",
        code=1,
        says="the agent deleted .research/x",
    ),
    # FIFOs where a file belongs: never opened (no hang), removed, and the file put back
    # or the phase sent to recovery.
    Case("FIFO at the review verdict", "fifo:accepted", "review", repaired="review.accepted"),
    Case(
        "FIFO at the final review verdict",
        "fifo:accepted",
        "final_review",
        repaired="review.accepted",
    ),
    Case(
        "FIFO at the topic's notes after research",
        "fifo:notes",
        "research",
        repaired="progress/costs-and-prices.md",
    ),
    Case(
        "FIFO at the topic's notes after review",
        "fifo:notes",
        "review",
        repaired="progress/costs-and-prices.md",
    ),
    Case(
        "FIFO at the report after synthesis",
        "fifo:report",
        "synthesize",
        repaired="reports/x/report.md",
    ),
    Case(
        "FIFO at the report during the final review",
        "fifo:report",
        "final_review",
        repaired="reports/x/report.md",
        check=report_kept_whole,
    ),
    Case(
        "FIFO at the plan after the initial plan",
        "fifo:plan",
        "initial_plan",
        repaired="research_plan.md",
    ),
    Case("FIFO at the plan after research", "fifo:plan", "research", repaired="research_plan.md"),
    Case("FIFO at state.json", "fifo:state", "research", repaired="state.json"),
    Case(
        "FIFO at state.json in the final review",
        "fifo:state",
        "final_review",
        repaired="state.json",
    ),
    Case("FIFO at the state's copy", "fifo:state_copy", "review", repaired="state.prev.json"),
    Case("FIFO at progress.md", "fifo:index", "research", repaired="progress.md"),
    Case("FIFO at events.jsonl", "fifo:events", "review", repaired="events.jsonl"),
    Case("FIFO at decisions.jsonl", "fifo:decisions", "review", repaired="decisions.jsonl"),
    Case("FIFO at completed.md", "fifo:completed", "review", repaired="completed.md"),
    Case("FIFO at sources.json", "fifo:sources_json", "synthesize", repaired="sources.json"),
    Case("FIFO at citations.json", "fifo:citations", "final_review", repaired="citations.json"),
    Case("FIFO in logs/", "fifo:next_log", "research", repaired="logs/next.log"),
    Case(
        "FIFO at the topic's notes in parallel research", "fifo:notes", "research", shape=PARALLEL
    ),
    # Links to the user's file where a file belongs: never followed or written through.
    Case(
        "state.json linked to the user's file", "link_file:state", "research", repaired="state.json"
    ),
    Case(
        "plan linked to the user's file", "link_file:plan", "research", repaired="research_plan.md"
    ),
    Case(
        "notes linked to the user's file",
        "link_file:notes",
        "research",
        repaired="progress/costs-and-prices.md",
    ),
    Case(
        "report linked to the user's file in the final review",
        "link_file:report",
        "final_review",
        repaired="reports/x/report.md",
        check=report_kept_whole,
    ),
    Case(
        "events.jsonl linked to the user's file",
        "link_file:events",
        "research",
        repaired="events.jsonl",
    ),
    Case(
        "decisions.jsonl linked to the user's file",
        "link_file:decisions",
        "review",
        repaired="decisions.jsonl",
    ),
    # Directories where a file belongs: moved aside whole into archive/moved-aside/ (the
    # agent's content, never deleted) and the file put back.
    Case("directory at state.json after research", "dir:state", "research", repaired="state.json"),
    Case(
        "directory at state.json after synthesis", "dir:state", "synthesize", repaired="state.json"
    ),
    Case("directory at the plan", "dir:plan", "research", repaired="research_plan.md"),
    Case("directory at progress.md", "dir:index", "review", repaired="progress.md"),
    Case(
        "directory at the report after synthesis",
        "dir:report",
        "synthesize",
        repaired="reports/x/report.md",
    ),
    Case(
        "directory at the report during the final review",
        "dir:report",
        "final_review",
        repaired="reports/x/report.md",
        check=report_kept_whole,
    ),
    Case("directory at the verdict", "dir:accepted", "review", repaired="review.accepted"),
    Case(
        "directory at the topic's notes",
        "dir:notes",
        "research",
        repaired="progress/costs-and-prices.md",
    ),
    Case("directory at events.jsonl", "dir:events", "research", repaired="events.jsonl"),
    Case("directory at decisions.jsonl", "dir:decisions", "review", repaired="decisions.jsonl"),
    Case("directory at sources.json", "dir:sources_json", "final_review", repaired="sources.json"),
    # Killed right after breaking state.json: --resume reads the copy of the last save.
    *(
        Case(
            f"{what} at state.json, then the run killed",
            f"{act}:state+kill",
            "review",
            code=-9,
            resume_says="resumed from state.prev.json",
        )
        for what, act in (
            ("directory", "dir"),
            ("FIFO", "fifo"),
            ("link", "link_file"),
            ("nothing", "rm"),
        )
    ),
    Case(
        "FIFO at state.json and no copy, then the run killed",
        "fifo:state+rm:state_copy+kill",
        "review",
        code=-9,
        resume_code=2,
        resume_says="it is a FIFO",
        finishes=False,
    ),
    # Other sessions in the same working directory.
    Case(
        "junk written into another session",
        "other_session_junk",
        "research",
        setup=other_session,
        check=junk_reported,
    ),
    Case(
        "another session held by a live run is not blamed",
        "other_session_junk",
        "review",
        setup=lambda work, root: other_session(work, root, live=True),
        check=junk_not_blamed_on_a_live_session,
    ),
    # Temporary files of killed atomic writes: removed when the next run takes the lock.
    Case(
        "temporary files of atomic writes left behind",
        "leave_temp_files",
        "research",
        resume=True,
        check=temp_files_removed,
    ),
    # Before any agent call.
    Case(
        "a report without a session",
        None,
        code=2,
        says="reports/x/report.md already exists",
        setup=report_file,
        resume=False,
        check=user_report_kept,
        finishes=False,
    ),
    Case(
        "the session directory a link at the start",
        None,
        code=1,
        says=".research/x is a symbolic link",
        setup=link_to_victim(".research/x"),
        resume=False,
        check=nothing_written,
        finishes=False,
    ),
    Case(
        "the report directory a link at the start",
        None,
        code=1,
        says="reports/x is a symbolic link",
        setup=link_to_victim("reports/x"),
        resume=False,
        check=nothing_written,
        finishes=False,
    ),
]


# --- running them --------------------------------------------------------------------------


def snapshot(root: Path, skip: tuple[Path, ...]) -> dict[str, tuple[object, ...]]:
    """Every path under `root` but `skip`: names, contents and mtimes (links by target)."""
    found: dict[str, tuple[object, ...]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        dirnames[:] = [d for d in dirnames if here / d not in skip]
        for name in [*dirnames, *filenames]:
            path = here / name
            if path in skip:
                continue
            info = path.lstat()
            key = path.relative_to(root).as_posix()
            if path.is_symlink():
                found[key] = ("link", os.readlink(path))
            elif path.is_dir():
                found[key] = ("dir", info.st_mtime_ns)
            else:
                found[key] = (
                    "file",
                    hashlib.sha256(path.read_bytes()).hexdigest(),
                    info.st_mtime_ns,
                    info.st_mode,
                )
    return found


@dataclass
class Run:
    code: int | None
    """None: it hung (killed after TIMEOUT seconds)."""
    stdout: str
    stderr: str


@dataclass
class Outcome:
    first: Run
    resumed: Run | None
    outside_before: dict[str, tuple[object, ...]]
    outside_after: dict[str, tuple[object, ...]]
    work: Path
    root: Path
    problems: list[str]
    """What a restore or check hook found wrong (asserted in the test)."""


def run(argv: list[str], work: Path, env: dict[str, str]) -> Run:
    try:
        done = subprocess.run(
            argv,
            cwd=work,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired as exc:

        def text(data: bytes | str | None) -> str:
            return data.decode(errors="replace") if isinstance(data, bytes) else data or ""

        return Run(None, text(exc.stdout), text(exc.stderr))
    return Run(done.returncode, done.stdout, done.stderr)


def run_case(case: Case, root: Path) -> Outcome:
    work = root / "work"
    for directory in ("work", "home", "tmp", "record"):
        (root / directory).mkdir(parents=True)
    victim_files(root)
    if case.setup is not None:
        case.setup(work, root)
    env = sandbox_env(
        root,
        "HOSTILE_",
        COLUMNS="100",
        RESEARCH_VERIFY_SOURCES="0",
        HOSTILE_VICTIM=str(root / "victim"),
        HOSTILE_RECORD=str(root / "record"),
        **case.env,
    )
    # The user's key is made in the user's state directory, outside the working directory
    # by design (research/workspace/userkey.py).
    state_home = root / "home" / ".local" / "state"
    state_home.mkdir(parents=True, exist_ok=True)
    skip = (work, root / "record", state_home)
    outside_before = snapshot(root, skip)
    hostile = dict(env, HOSTILE_PHASE=case.phase, **({"HOSTILE_ACT": case.act} if case.act else {}))
    # -S: the agent needs only the standard library; not running site (the venv's .pth
    # files) at each of its ~600 starts saves a tenth of the catalogue's CPU.
    agent = f"{sys.executable} -S {AGENT}"
    first = run(
        [*entry_point(), "--agent-cmd", agent, "--name", "x", *case.shape, "--yes", QUESTION],
        work,
        hostile,
    )
    (root / "record" / "stderr.txt").write_text(first.stderr)
    problems: list[str] = []
    resumed = None
    if case.resume if case.resume is not None else first.code != 0:
        try:
            if case.restore is not None:
                case.restore(work, root)
        except AssertionError as exc:
            problems.append(f"restore: {exc}")
        resumed = run([*entry_point(), "--name", "x", "--resume"], work, env)
    outside_after = snapshot(root, skip)
    if case.check is not None:
        try:
            case.check(work, root)
        except AssertionError as exc:
            problems.append(f"check: {exc}")
    return Outcome(first, resumed, outside_before, outside_after, work, root, problems)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Outcome]]:
    base = tmp_path_factory.mktemp("hostile")
    workers = max(2, min(8, (os.cpu_count() or 2) * 2))
    with ThreadPoolExecutor(workers) as pool:
        futures = {
            case.id: pool.submit(run_case, case, base / f"case{i:03d}")
            for i, case in enumerate(CASES)
        }
        yield {key: future.result() for key, future in futures.items()}


def test_case_ids_are_unique() -> None:
    assert len({case.id for case in CASES}) == len(CASES)


def test_the_catalogue_has_at_least_40_cases() -> None:
    assert len(CASES) >= 40


def clean(output: Run) -> None:
    both = output.stdout + output.stderr
    assert "Traceback" not in both and "internal error" not in both, both


def one_error_line(output: Run) -> str:
    lines = [line for line in output.stderr.splitlines() if "research: error:" in line]
    assert len(lines) == 1, output.stderr  # one clear line
    assert output.stderr.rstrip("\n").endswith(lines[0]), output.stderr  # and the last
    return lines[0]


def special_files(top: Path) -> list[str]:
    """Links, FIFOs and other non-regular files left anywhere under `top` (the agent's
    directories kept in archive/moved-aside/ aside)."""
    found = []
    for dirpath, dirnames, filenames in os.walk(top):
        here = Path(dirpath)
        if here.name == "moved-aside":
            dirnames[:] = []
            continue
        for name in [*dirnames, *filenames]:
            path = here / name
            if path.is_symlink() or not (path.is_dir() or path.is_file()):
                found.append(str(path.relative_to(top)))
    return found


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_hostile_agent(case: Case, outcomes: dict[str, Outcome]) -> None:
    out = outcomes[case.id]
    first = out.first
    assert first.code is not None, f"hung for {TIMEOUT} s: {first.stderr}"
    assert first.code == case.code, first.stderr
    clean(first)
    if case.code in (1, 2):
        assert case.says in one_error_line(first)
    else:
        assert case.says in first.stderr
    assert not out.problems, out.problems
    # Nothing outside the working directory was created, changed or deleted.
    assert out.outside_after == out.outside_before
    if out.resumed is not None:  # the session is never stuck
        resumed = out.resumed
        assert resumed.code is not None, f"--resume hung for {TIMEOUT} s: {resumed.stderr}"
        assert resumed.code == case.resume_code, resumed.stderr
        clean(resumed)
        assert case.resume_says in resumed.stderr
    session, report = out.work / ".research" / "x", out.work / "reports" / "x"
    if case.repaired is not None:
        repairs = events_of(session, "workspace_repair")
        assert any(case.repaired in e["path"] for e in repairs), repairs
    if case.finishes:
        state = json.loads((session / "state.json").read_text())
        assert state["progress"]["is_complete"]
        assert (report / "report.md").is_file() and not (report / "report.md").is_symlink()
        assert "## Methodology" in (report / "report.md").read_text()
        assert special_files(session) == [] and special_files(report) == []


# --- the pieces, in-process ---------------------------------------------------------------


def test_archive_cleanup_never_follows_a_linked_progress_dir_nor_opens_a_fifo(
    tmp_path: Path,
) -> None:
    from research.workspace.archive import archive_session
    from research.workspace.paths import SessionPaths

    victim = victim_files(tmp_path)
    before = snapshot(victim, ())
    paths = SessionPaths(tmp_path / "work", "s")
    paths.session_dir.mkdir(parents=True)
    paths.progress_dir.symlink_to(victim, target_is_directory=True)
    os.mkfifo(paths.accepted_file)
    (paths.session_dir / "completed.md").write_text("done\n")
    written = archive_session(paths, "tok", remove=True)
    assert [p.name.split(".", 2)[2] for p in written] == ["completed.md"]
    assert snapshot(victim, ()) == before  # nothing archived from it, nothing deleted
    assert paths.progress_dir.is_symlink() and paths.accepted_file.exists()  # left to the guard
    assert not (paths.session_dir / "completed.md").exists()


def test_a_file_changed_after_archiving_is_not_deleted(tmp_path: Path) -> None:
    from research.workspace.archive import remove_if_unchanged

    path = tmp_path / "notes.md"
    path.write_text("new\n")
    assert not remove_if_unchanged(path, b"old\n") and path.exists()
    link = tmp_path / "link.md"
    link.symlink_to(path)
    assert not remove_if_unchanged(link, b"new\n") and link.is_symlink()
    assert remove_if_unchanged(path, b"new\n") and not path.exists()


@pytest.mark.parametrize("kind", ["missing", "directory", "fifo", "link"])
def test_a_resume_reads_the_copy_when_state_json_is_not_a_file(tmp_path: Path, kind: str) -> None:
    from research.model.plan import Plan
    from research.model.state import STATE_COPY_NAME, load_saved_state, save_state

    state = new_state(
        Plan(topic="q", breadth=1, depth=1),
        name="s",
        max_iterations=6,
        timeout=60,
        review_model="m",
    )
    path = tmp_path / "state.json"
    save_state(state, path)
    assert (tmp_path / STATE_COPY_NAME).read_text() == path.read_text()
    path.unlink()
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "link":
        path.symlink_to(victim_files(tmp_path) / "notes.md")
    loaded, note = load_saved_state(path)
    assert loaded == state
    assert note is not None and f"resumed from {STATE_COPY_NAME}" in note


def test_a_corrupt_state_json_is_refused_even_with_a_copy(tmp_path: Path) -> None:
    from research.core.errors import StateError
    from research.model.state import STATE_COPY_NAME, load_saved_state

    (tmp_path / "state.json").write_text('{"kind": "research.py/state", "name": ')
    (tmp_path / STATE_COPY_NAME).write_text("{}")
    with pytest.raises(StateError, match="not valid JSON"):
        load_saved_state(tmp_path / "state.json")


def test_only_the_atomic_writers_temporary_files_are_removed(tmp_path: Path) -> None:
    from research.workspace.guard import remove_temp_files
    from research.workspace.paths import SessionPaths

    paths = SessionPaths(tmp_path, "s")
    (paths.session_dir / "logs").mkdir(parents=True)
    paths.report_dir.mkdir(parents=True)
    temp = [
        paths.session_dir / ".state.json.k3j2h1g0.tmp",
        paths.session_dir / "logs" / ".001-research-002.log.a_b_c_d1.tmp",
        paths.report_dir / ".report.md.zzzzzzzz.tmp",
    ]
    kept = [
        paths.session_dir / ".state.json.k3j2h1g.tmp",
        paths.session_dir / "x.tmp",
        paths.session_dir / ".state.json.K3J2H1G0.tmp",
    ]
    for path in temp + kept:
        path.write_text("x")
    os.mkfifo(paths.session_dir / ".fifo.abcdefgh.tmp")
    (paths.session_dir / ".dir.abcdefgh.tmp").mkdir()
    removed = remove_temp_files(paths)
    assert sorted(removed) == sorted(paths.relative(p) for p in temp)
    assert all(p.exists() for p in kept)
    assert os.path.lexists(paths.session_dir / ".fifo.abcdefgh.tmp")  # regular files only
    assert (paths.session_dir / ".dir.abcdefgh.tmp").is_dir()


def test_writes_in_a_guarded_tree_never_go_through_a_link(tmp_path: Path) -> None:
    from research.workspace.fsutil import (
        LineLog,
        append_line,
        atomic_write_text,
        guard_tree,
        take_unlinked,
    )

    victim = victim_files(tmp_path)
    before = snapshot(victim, ())
    session = tmp_path / "session"
    (session / "logs").mkdir(parents=True)
    guard_tree(session)
    (session / "logs").rmdir()
    (session / "logs").symlink_to(victim, target_is_directory=True)
    atomic_write_text(session / "logs" / "notes.md", "the call's log\n")
    assert (session / "logs").is_dir() and not (session / "logs").is_symlink()
    assert take_unlinked(session) == [(session / "logs", f"a symbolic link to {victim}")]
    (session / "events.jsonl").symlink_to(victim / "notes.md")
    (session / "decisions.jsonl").symlink_to(victim / "sub" / "data.json")
    log = LineLog(session / "events.jsonl")
    log.append("{}")
    log.close()
    append_line(session / "decisions.jsonl", "{}")
    assert (session / "events.jsonl").read_text() == "{}\n"
    assert snapshot(victim, ()) == before
    moved = tmp_path / "moved"
    session.rename(moved)
    session.symlink_to(moved, target_is_directory=True)  # the session dir swapped for a link
    with pytest.raises(OSError, match="nothing is written through it"):
        atomic_write_text(session / "state.json", "{}")
    assert not (moved / "state.json").exists()

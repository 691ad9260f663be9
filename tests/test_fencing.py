"""Fencing (issue 28): the lock's generation, and no write into a session by a run that no
longer owns it. In-process pieces here; the real processes (a paused run, a killed one)
in test_fencing_processes.py."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import events_of, run_research, sandbox_env, victim_files

from research.core.errors import SessionLockedError
from research.core.hosts import host_id
from research.model.state import saved_lock_generation
from research.workspace.fencing import fence_tree, unfence_tree
from research.workspace.fsutil import LineLog, append_line, atomic_write_text, unlink_entry
from research.workspace.lock import SessionLock


@pytest.fixture
def session(tmp_path: Path) -> Path:
    directory = tmp_path / ".research" / "s"
    directory.mkdir(parents=True)
    return directory


def lock_of(session: Path, floor: int = 0) -> SessionLock:
    return SessionLock(
        session / "research.lock.json",
        heartbeat_interval=60,
        check_interval=60,
        generation_floor=lambda: floor,
    )


def test_each_acquisition_takes_a_higher_generation_than_the_lock_and_the_state(
    session: Path,
) -> None:
    first = lock_of(session)
    assert first.acquire().info.generation == 1
    second = lock_of(session)
    assert second.acquire(force=True).info.generation == 2  # took the first one over
    second.release()
    third = lock_of(session, floor=7)  # the state was saved under generation 7
    assert third.acquire().info.generation == 8
    third.release()
    first.release()


def test_a_run_that_was_taken_over_writes_nothing_more_into_its_session(session: Path) -> None:
    heard: list[tuple[str, dict[str, object]]] = []
    mine = lock_of(session)
    mine.acquire()
    mine.listen(lambda kind, fields: heard.append((kind, fields)))
    fence_tree(session, mine.fenced)
    log = LineLog(session / "events.jsonl")
    try:
        atomic_write_text(session / "state.json", "mine\n")
        log.append("{}")
        theirs = lock_of(session)
        theirs.acquire(force=True)
        before = {p.name: p.read_bytes() for p in session.iterdir()}
        with pytest.raises(SessionLockedError, match="was taken over by"):
            atomic_write_text(session / "state.json", "stale\n")
        for write in (
            lambda: log.append('{"stale": true}'),
            lambda: append_line(session / "decisions.jsonl", "{}"),
            lambda: unlink_entry(session / "state.json"),
        ):
            with pytest.raises(SessionLockedError):
                write()
        assert {p.name: p.read_bytes() for p in session.iterdir()} == before
        assert [kind for kind, _ in heard] == ["lock_lost"]
        assert heard[0][1]["generation"] == 2
        theirs.release()
    finally:
        log.close()
        unfence_tree(session)
        mine.release()


def test_a_run_woken_after_the_next_run_released_the_lock_does_not_write_it_again(
    session: Path,
) -> None:
    floor = [0]
    mine = SessionLock(
        session / "research.lock.json",
        heartbeat_interval=60,
        check_interval=60,
        generation_floor=lambda: floor[0],
    )
    mine.acquire()
    theirs = lock_of(session)
    theirs.acquire(force=True)
    floor[0] = 2  # the next run saved the state under its generation, and released the lock
    theirs.release()
    assert not mine.heartbeat() and mine.lost.is_set()
    assert not (session / "research.lock.json").exists()
    assert not mine.release()


def test_a_record_an_agent_deleted_is_still_written_again(session: Path) -> None:
    mine = lock_of(session)
    mine.acquire()
    fence_tree(session, mine.fenced)
    try:
        (session / "research.lock.json").unlink()  # no newer state: not a newer run's doing
        atomic_write_text(session / "notes.md", "written\n")
        assert json.loads((session / "research.lock.json").read_text())["lock_token"] == mine.token
        assert not mine.lost.is_set()
    finally:
        unfence_tree(session)
        mine.release()


def test_each_fenced_try_decides_from_one_read_of_the_lock_file(
    session: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A record to repair, then another run's: each try of the fence reads the lock file
    once under the flock and decides from that read (two reads could disagree)."""
    heard: list[str] = []
    mine = lock_of(session)
    mine.acquire()
    mine.listen(lambda kind, fields: heard.append(kind))
    lock = session / "research.lock.json"
    reads: list[str] = []
    real_open = os.open

    def counting(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if os.fspath(path) == str(lock) and not flags & (os.O_WRONLY | os.O_RDWR):
            reads.append(lock.read_text() if lock.exists() else "")
        return real_open(path, flags, *args, **kwargs)

    fence_tree(session, mine.fenced)
    try:
        record = json.loads(lock.read_text())
        lock.write_text(json.dumps({**record, "pid": 1}))  # ours, tampered with
        monkeypatch.setattr(os, "open", counting)
        atomic_write_text(session / "notes.md", "written\n")
        assert len(reads) == 2, reads  # the tampered record, then ours as written again
        assert '"pid": 1,' in reads[0] and json.loads(reads[1])["pid"] == os.getpid()
        assert heard == ["lock_repaired"] and (session / "notes.md").exists()
        reads.clear()
        newer = {**record, "lock_token": "f" * 32, "generation": record["generation"] + 1}
        lock.write_text(json.dumps(newer))
        with pytest.raises(SessionLockedError, match="was taken over by"):
            atomic_write_text(session / "notes.md", "stale\n")
        assert len(reads) == 1 and (session / "notes.md").read_text() == "written\n"
    finally:
        monkeypatch.undo()
        unfence_tree(session)
        mine.release()


def test_saved_lock_generation_reads_only_a_regular_state_file(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    assert saved_lock_generation(state) == 0
    state.write_text(json.dumps({"progress": {"lock_generation": 5}}))
    assert saved_lock_generation(state) == 5
    state.write_text("{not json")
    assert saved_lock_generation(state) == 0
    state.unlink()
    os.mkfifo(state)
    assert saved_lock_generation(state) == 0  # never opened


def test_every_phase_event_names_its_host_pid_and_generation(
    run_cli: Callable[..., Any], unfinished: Path
) -> None:
    """`unfinished`: a first run that failed at its INITIAL PLAN; the resume is the next
    generation."""
    assert run_cli("--mock-mode", "--name", "lk", "--resume").exit_code == 0
    session = unfinished.parent
    phases = [e for e in events_of(session) if e["type"] in ("phase_start", "phase_end")]
    assert {(e["host"], e["pid"]) for e in phases} == {(host_id(), os.getpid())}
    generations = [e["generation"] for e in phases]
    assert generations[0] == 1 and generations[-1] == 2 and generations == sorted(generations)
    state = json.loads((session / "state.json").read_text())
    assert state["progress"]["lock_generation"] == 2


AUDITOR = Path(__file__).resolve().parent / "fake_agents" / "scratch_auditor.py"


def digest(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }


def test_every_agent_call_gets_a_scratch_area_of_its_own_with_nothing_an_agent_left(
    tmp_path: Path,
) -> None:
    """Each agent call gets a new scratch area (a name never used before), and the area an
    earlier call used is gone (moved aside and removed): what the agent left there (a link
    to the user's files, a FIFO, a directory with a link, a second name for a copy) reaches
    no later call and is never followed; every copy a call is given is the session's; no
    area is left after the run."""
    work, record = tmp_path / "work", tmp_path / "record"
    for directory in (work, record, tmp_path / "tmp", tmp_path / "home" / ".local" / "state"):
        directory.mkdir(parents=True, exist_ok=True)
    victim = victim_files(tmp_path)
    before = digest(victim)
    env = sandbox_env(
        tmp_path,
        "AUDIT_",
        AUDIT_RECORD=str(record),
        AUDIT_VICTIM=str(victim),
        RESEARCH_VERIFY_SOURCES="0",
    )
    agent = f"{sys.executable} {AUDITOR}"
    shape = ("--breadth", "2", "--depth", "1", "--yes")
    done = run_research(
        "--agent-cmd", agent, "--name", "x", *shape, "Heat pumps?", cwd=work, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    audits = [json.loads(path.read_text()) for path in sorted(record.glob("*.json"))]
    names = [audit["area"] for audit in audits]
    assert len(names) > 3 and len(set(names)) == len(names), names  # a new area every call
    littered = (record / "littered").read_text()
    first = names.index(littered)
    for audit in audits[first + 1 :]:
        assert not [name for name in audit["entries"] if "planted" in name], audit
        assert littered not in audit["areas"], audit  # removed, not waiting for reuse
    for audit in audits[1:]:
        assert [audit["area"]] == audit["areas"], audit  # no earlier call's area is left
    assert all(audit["stale"] == [] for audit in audits), audits
    assert all(audit["linked"] == [] for audit in audits), audits
    assert digest(victim) == before
    assert not (work / ".research" / ".calls").exists()


ESCAPER = Path(__file__).resolve().parent / "fake_agents" / "escaping_agent.py"


def stop_escaped(record: Path) -> None:
    """Stop the process the escaping agent left behind, if it is still that process."""
    try:
        pid = int((record / "child.pid").read_text())
        if b"escaping_agent" in Path(f"/proc/{pid}/cmdline").read_bytes():
            os.kill(pid, signal.SIGKILL)
    except (OSError, ValueError):
        pass  # never left, or gone


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_process_left_behind_in_a_scratch_area_writes_into_nothing_the_session_reads(
    tmp_path: Path,
) -> None:
    """An agent leaves a process behind that escaped its supervisor (setsid, double fork)
    with its working directory in its call's scratch area and the area's directory open.
    No later call gets that area (it would take what the process writes there into the
    session): it was moved aside and removed when the call ended, so the writes the
    process makes during the next phase's call, by a relative path and through the open
    directory, reach a deleted directory. Nothing looks for the process (no event)."""
    work, record = tmp_path / "work", tmp_path / "record"
    for directory in (work, record, tmp_path / "tmp", tmp_path / "home" / ".local" / "state"):
        directory.mkdir(parents=True, exist_ok=True)
    env = sandbox_env(tmp_path, "ESCAPE_", ESCAPE_RECORD=str(record), RESEARCH_VERIFY_SOURCES="0")
    shape = ("--breadth", "1", "--depth", "1", "--yes")
    try:
        done = run_research(
            "--agent-cmd", f"{sys.executable} {ESCAPER}", "--name", "x", *shape, "Heat pumps?",
            cwd=work, env=env, timeout=300,
        )  # fmt: skip
    finally:
        stop_escaped(record)
    assert done.returncode == 0, done.stderr
    outcome = json.loads((record / "child.json").read_text())
    assert outcome == {"by_cwd": "FileNotFoundError", "by_fd": "FileNotFoundError"}
    session = work / ".research" / "x"
    files = [path for path in session.rglob("*") if path.is_file() and not path.is_symlink()]
    assert not [path for path in files if "escaped" in path.name], files
    assert not [path for path in files if b"ESCAPED" in path.read_bytes()]
    pid = (record / "child.pid").read_text().strip()
    warnings = [event.get("message", "") for event in events_of(session, "warning")]
    assert not [w for w in warnings if "scratch area" in w or f"process {pid}" in w], warnings


LOCKED_AREA = """
import os, sys
from pathlib import Path
from research.engine.areas import discard_stale
from research.workspace.paths import SessionPaths
paths = SessionPaths(Path(sys.argv[1]), "x")
locked = paths.calls_dir / "1.2.3" / "review" / "shut"
locked.mkdir(parents=True)
(locked / "inside.md").write_text("shut in")
(locked / "deeper").mkdir()
(locked / "deeper" / "more.md").write_text("more")
(locked / "deeper").chmod(0)
locked.chmod(0)
discard_stale(paths)
print("left" if os.path.lexists(paths.calls_dir) else "gone")
"""


def test_a_scratch_area_with_a_directory_nobody_may_enter_is_still_removed(
    tmp_path: Path,
) -> None:
    """An agent can leave a directory of mode 000 (with files in it) in its scratch area;
    the area is still removed (it used to stay, and the next phase's area could not be
    made). Root enters any directory, so as root the check runs without the capabilities
    that let it (setpriv, util-linux), as an ordinary user's run would."""
    drop: list[str] = []
    if os.geteuid() == 0:
        caps = "-dac_override,-dac_read_search"
        drop = ["setpriv", f"--bounding-set={caps}", f"--inh-caps={caps}", "--"]
    done = subprocess.run(
        [*drop, sys.executable, "-c", LOCKED_AREA, str(tmp_path)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "gone"

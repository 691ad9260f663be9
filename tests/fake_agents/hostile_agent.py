#!/usr/bin/env python3
"""A prompt-injected agent for `--agent-cmd`: it does each phase's work like a careful agent
(fake_opencode.py's "agent" mode), then, at one chosen call, does something hostile to the
orchestrator's files.

HOSTILE_ACT names the act (see ACTS), HOSTILE_PHASE the phase (initial_plan, research,
review, synthesize, final_review) and HOSTILE_CALL which call of that phase (default 1).
Without HOSTILE_ACT it is a well-behaved agent. HOSTILE_VICTIM is a directory outside the
working directory (the user's files the links point at); HOSTILE_RECORD a directory where
the agent counts its calls and leaves what the test checks afterwards (moved.json: the
moved session directory's files right after the move).
"""

import hashlib
import json
import os
import re
import shutil
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fake_opencode  # noqa: E402

WORK = Path(os.environ.get("PWD") or os.getcwd())
NAME = os.environ.get("HOSTILE_NAME", "x")
SESSION = WORK / ".research" / NAME
REPORT = WORK / "reports" / NAME
VICTIM = Path(os.environ.get("HOSTILE_VICTIM", "/nonexistent-victim"))
RECORD = Path(os.environ.get("HOSTILE_RECORD", "/nonexistent-record"))
MOVED = WORK / "agent-moved"
"""Where the agent moves what it takes away: inside the working directory, so that only the
orchestrator could change anything outside it."""


def remove(path: Path) -> None:
    """Whatever is at `path` goes (a directory with its content)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()


def move_away(path: Path) -> Path:
    MOVED.mkdir(exist_ok=True)
    target = MOVED / path.name
    n = 1
    while os.path.lexists(target):
        n += 1
        target = MOVED / f"{path.name}-{n}"
    if os.path.lexists(path):
        os.rename(path, target)
    return target


def link_dir(path: Path, target: Path = VICTIM) -> None:
    move_away(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target, target_is_directory=True)


def link_file(path: Path) -> None:
    remove(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(VICTIM / "notes.md")


def fifo(path: Path) -> None:
    remove(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)


def directory(path: Path) -> None:
    remove(path)
    (path / "inside").mkdir(parents=True)
    (path / "inside" / "agent-notes.md").write_text("the agent's directory\n")


def regular_file(path: Path) -> None:
    move_away(path)
    path.write_text("a file where a directory belongs\n")


def files_of(root: Path) -> dict[str, list[object]]:
    found: dict[str, list[object]] = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        if path.is_file() and not path.is_symlink():
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            found[path.relative_to(root).as_posix()] = [digest, info.st_mtime_ns]
    return found


def move_session_and_link_back() -> None:
    moved = move_away(SESSION)
    SESSION.symlink_to(moved, target_is_directory=True)
    (RECORD / "moved.json").write_text(json.dumps({"path": str(moved), "files": files_of(moved)}))


def replace_session_dir() -> None:
    moved = move_away(SESSION)
    SESSION.mkdir()
    (RECORD / "moved.json").write_text(json.dumps({"path": str(moved), "files": files_of(moved)}))


def move_research_root_and_link_back() -> None:
    root = WORK / ".research"
    moved = move_away(root)
    root.symlink_to(moved, target_is_directory=True)


def kill_orchestrator() -> None:
    os.kill(os.getppid(), signal.SIGKILL)


def other_session_junk() -> None:
    other = WORK / ".research" / "other"
    with open(other / "state.json", "a", encoding="utf-8") as handle:
        handle.write("\njunk from a hostile agent\n")
    (other / "planted.md").write_text("planted\n")
    (WORK / "reports" / "other" / "report.md").write_text("overwritten by the agent\n")


def leave_temp_files() -> None:
    for path in (
        SESSION / ".state.json.abcd1234.tmp",
        REPORT / ".report.md.zz9_zz9z.tmp",
        SESSION / "progress" / ".topic.md.q1w2e3r4.tmp",
    ):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("left by a killed atomic write\n")
    (SESSION / "notes.abcd1234.tmp").write_text("not the atomic writer's pattern\n")
    (SESSION / ".keep.tmp").write_text("not the atomic writer's pattern either\n")


def progress_file(prompt: str) -> Path:
    found = fake_opencode.named_paths(prompt).get("progress")
    if found:
        return WORK / found
    return SESSION / "progress" / "costs-and-prices.md"


def acts(prompt: str) -> dict[str, object]:
    """Each act: a function of nothing, to run after the phase's work."""
    progress = progress_file(prompt)
    table: dict[str, object] = {
        "kill": kill_orchestrator,
        "move_session": move_session_and_link_back,
        "replace_session": replace_session_dir,
        "delete_session": lambda: shutil.rmtree(SESSION),
        "move_research_root": move_research_root_and_link_back,
        "link_reports_root": lambda: link_dir(WORK / "reports"),
        "other_session_junk": other_session_junk,
        "leave_temp_files": leave_temp_files,
    }
    places = {
        "session": SESSION,
        "report_dir": REPORT,
        "progress": SESSION / "progress",
        "archive": SESSION / "archive",
        "logs": SESSION / "logs",
        "sources": SESSION / "sources",
        "review": SESSION / "review",
        "state": SESSION / "state.json",
        "state_copy": SESSION / "state.prev.json",
        "plan": SESSION / "research_plan.md",
        "index": SESSION / "progress.md",
        "accepted": SESSION / "review.accepted.md",
        "completed": SESSION / "completed.md",
        "events": SESSION / "events.jsonl",
        "decisions": SESSION / "decisions.jsonl",
        "sources_json": SESSION / "sources.json",
        "citations": SESSION / "citations.json",
        "report": REPORT / "report.md",
        "notes": progress,
        "lock": SESSION / "research.lock.json",
        "next_log": SESSION / "logs" / "next.log",
        "calls": WORK / ".research" / ".calls" / NAME,
        "calls_root": WORK / ".research" / ".calls",
    }
    for key, path in places.items():
        table[f"link_dir:{key}"] = lambda path=path: link_dir(path)
        table[f"link_file:{key}"] = lambda path=path: link_file(path)
        table[f"fifo:{key}"] = lambda path=path: fifo(path)
        table[f"dir:{key}"] = lambda path=path: directory(path)
        table[f"file:{key}"] = lambda path=path: regular_file(path)
        table[f"rm:{key}"] = lambda path=path: remove(path)
    return table


def phase_work(phase: str, prompt: str) -> None:
    """The phase's files, like a careful agent; in parallel mode (where the prompt names
    only the topic's own notes, or its own verdict file) just those."""
    try:
        fake_opencode.do_phase_work(phase, prompt)
        return
    except KeyError:
        pass
    named = re.findall(r"`([^`\s]+\.md)`", prompt)
    if phase == "research":
        notes = next(path for path in named if "/progress/" in path)
        name = fake_opencode.first(r"^# Phase: RESEARCH — (.+)$", prompt, "topic")
        title, url = fake_opencode.SOURCE
        fake_opencode.write(
            notes,
            f"# Progress: {name}\n\n## Findings\n- A fact about {name} "
            f"(Source: {url})\n\n## Sources\n- {title} — {url}\n\n"
            "## Knowledge Gaps\n- Gap: none\n",
        )
    elif phase == "review":
        verdict = next(path for path in named if path.endswith(".accepted.md"))
        fake_opencode.write(verdict, fake_opencode.VERDICT)


def call_number(phase: str) -> int:
    counter = RECORD / f"calls.{phase}"
    number = int(counter.read_text()) + 1 if counter.exists() else 1
    counter.write_text(str(number))
    return number


def wait_until_alone(running: Path, timeout: float = 300.0) -> None:
    """HOSTILE_ALONE: act only once no other agent of the run is in its call. In parallel
    mode a link this agent plants would otherwise also redirect a sibling agent's own
    writes, which no orchestrator can stop; the catalogue checks the orchestrator."""
    end = time.monotonic() + timeout
    while any(
        alive(int(entry.name)) for entry in running.iterdir() if entry.name != str(os.getpid())
    ):
        if time.monotonic() > end:
            raise SystemExit("hostile agent: other agents kept running")
        time.sleep(0.01)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def main() -> None:
    running = RECORD / "running"  # one marker per agent in its call (HOSTILE_ALONE)
    if not RECORD.is_dir():
        act_on(sys.stdin.read(), running)
        return
    running.mkdir(exist_ok=True)
    marker = running / str(os.getpid())
    marker.touch()
    try:
        act_on(sys.stdin.read(), running)
    finally:
        marker.unlink(missing_ok=True)


def act_on(prompt: str, running: Path) -> None:
    phase = fake_opencode.phase_of(prompt)
    os.environ["PWD"] = str(WORK)
    phase_work(phase, prompt)
    act = os.environ.get("HOSTILE_ACT")
    print(f"Did the {phase} work.", flush=True)
    if not act or phase != os.environ.get("HOSTILE_PHASE"):
        return
    if call_number(phase) != int(os.environ.get("HOSTILE_CALL", "1")):
        return
    if os.environ.get("HOSTILE_ALONE"):
        wait_until_alone(running)
    for name in act.split("+"):  # several acts: "fifo:state+kill"
        run = acts(prompt)[name]
        assert callable(run)
        run()


if __name__ == "__main__":
    main()

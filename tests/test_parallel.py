"""--parallel N (issue 12): the same session with 1, 2 and 4 topics in flight.

Every run goes through the CLI with the simulated agent given real latency (each call
sleeps), so calls of different topics really overlap. The kill test runs the CLI as a real
process and SIGKILLs it at random instants while several calls are in flight.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from conftest import SCRIPTED_CLI, read_json, read_jsonl
from helpers import HANG_GUARD_SECONDS, clean_env, run_research, spawned, wait_until

from research.core.retries import MAX_TRANSIENT_ATTEMPTS
from research.workspace.archive import latest_archived

QUESTION = "How do heat pumps perform in cold climates?"
T1 = "Heat pumps perform: background and definitions"
LATENCY = 0.05


def write_script(path: Path, **script: object) -> Path:
    script.setdefault("sleep_seconds", LATENCY)
    path.write_text(json.dumps(script), encoding="utf-8")
    return path


def session_files(name: str) -> dict:
    directory = Path(".research") / name
    return {
        "state": read_json(directory / "state.json"),
        "decisions": read_jsonl(directory / "decisions.jsonl"),
        "events": read_jsonl(directory / "events.jsonl"),
    }


def tree(state: dict) -> list[tuple]:
    names = {t["slug"]: t["name"] for t in state["plan"]["topics"]}
    return sorted(
        (t["name"], names.get(t["parent"]), t["depth"], t["status"], t["attempts"])
        for t in state["plan"]["topics"]
    )


def run(run_cli, tmp_path: Path, name: str, parallel: int, *flags: str, **script: object):
    path = write_script(tmp_path / f"{name}.json", **script)
    result = run_cli(
        "--mock-mode",
        "--mock-script",
        str(path),
        "--name",
        name,
        "--breadth",
        "3",
        "--depth",
        "2",
        "--parallel",
        str(parallel),
        "--yes",
        *flags,
        QUESTION,
    )
    assert result.exit_code == 0, result.stderr
    return session_files(name)


def check_numbers(files: dict) -> None:
    """No lost or duplicated decision, one per finished iteration; sums that add up."""
    state, decisions = files["state"], files["decisions"]
    assert sorted(d["iteration"] for d in decisions) == list(range(1, len(decisions) + 1))
    assert len(decisions) == state["progress"]["iteration"]
    assert all(t["attempts"] <= 3 for t in state["plan"]["topics"])
    calls = [e for e in files["events"] if e["type"] == "agent_call"]
    assert state["usage"]["agent_calls"] == len(calls)
    phases = state["usage"]["phases"]
    assert sum(u["calls"] for u in phases.values()) == len(calls)
    for phase, usage in phases.items():
        assert usage["calls"] == sum(1 for c in calls if c["phase"] == phase)
    assert state["progress"]["in_flight"] == {}


def test_one_two_and_four_in_flight_give_the_same_tree_and_numbers(run_cli, tmp_path) -> None:
    runs = {n: run(run_cli, tmp_path, f"p{n}", n) for n in (1, 2, 4)}
    baseline = runs[1]["state"]
    for n, files in runs.items():
        check_numbers(files)
        state = files["state"]
        assert tree(state) == tree(baseline), n
        assert state["progress"]["stop_reason"] == "all_topics_done"
        assert state["usage"]["agent_calls"] == baseline["usage"]["agent_calls"], n
        assert state["progress"]["skipped_topics"] == baseline["progress"]["skipped_topics"]
    # With N > 1 calls of different topics really overlapped, never two of one topic.
    events = runs[4]["events"]
    widest = max(len(e["topics"]) for e in events if e["type"] == "topics_in_flight")
    assert widest >= 3
    running: set[str] = set()
    for event in events:
        if event["type"] == "phase_start" and event.get("topic"):
            assert event["topic"] not in running, event
            running.add(event["topic"])
        elif event["type"] == "phase_end" and event.get("topic"):
            running.discard(event["topic"])
    # Parallel agents wrote no plan edits and no shared verdict files.
    assert not any(e["type"] == "plan_repair" for e in events)
    assert Path("reports/p4/report.md").read_text().count("## Sources") == 1
    assert not Path(".research/p4/review").exists()  # per-topic verdicts archived at the end
    assert list(Path(".research/p4/archive").glob("*.accepted.md"))


@pytest.mark.parametrize("parallel", [1, 2, 4])
def test_a_failing_topic_is_exhausted_and_the_budget_holds_in_parallel(
    run_cli, tmp_path, parallel: int
) -> None:
    record = tmp_path / f"fail{parallel}.calls.jsonl"
    files = run(
        run_cli,
        tmp_path,
        f"fail{parallel}",
        parallel,
        faults=[{"action": "fail", "phase": "research", "topic": T1}],
        record_file=str(record),
    )
    check_numbers(files)
    topic = next(t for t in files["state"]["plan"]["topics"] if t["name"] == T1)
    assert (topic["status"], topic["attempts"]) == ("Exhausted", 3)
    assert files["state"]["progress"]["stop_reason"] == "all_topics_done"
    # Each of its three attempts: research tried MAX_TRANSIENT_ATTEMPTS times, RECOVERY, and
    # as many tries again; never a review. The same calls whatever N is. Every other topic
    # ended.
    t1_calls = Counter(
        (c["phase"], c["attempt"]) for c in read_jsonl(record) if c["topic"] == topic["slug"]
    )
    tries = 2 * MAX_TRANSIENT_ATTEMPTS
    assert t1_calls == Counter(
        {**{("research", a): tries for a in "123"}, **{("recovery", a): 1 for a in "123"}}
    )
    others = [t for t in files["state"]["plan"]["topics"] if t["name"] != T1]
    assert others and {t["status"] for t in others} <= {"Complete", "Skipped"}

    started = time.monotonic()
    files = run(
        run_cli, tmp_path, f"budget{parallel}", parallel, "--time", "0.05", sleep_seconds=0.4
    )
    wall = time.monotonic() - started
    check_numbers(files)
    state = files["state"]
    assert state["progress"]["stop_reason"] == "time_budget"
    assert state["usage"]["agent_calls"] >= parallel  # the budget was spent on calls
    assert wall <= 0.05 * 60 + 60  # a hang guard; the budget's own account is below
    assert state["progress"]["elapsed_seconds"] <= 0.05 * 60 + 0.5


def test_a_subtopic_proposed_by_two_topics_at_once_is_added_once(run_cli, tmp_path) -> None:
    same = "District heating networks"
    files = run(
        run_cli,
        tmp_path,
        "dup",
        3,
        faults=[
            {"action": "propose_subtopic", "phase": "research", "subtopic": same, "calls": [1, 2]}
        ],
    )
    names = [t["name"] for t in files["state"]["plan"]["topics"]]
    assert names.count(same) == 1
    starts = [e for e in files["events"] if e["type"] == "phase_start"]
    proposers = [e["topic"] for e in starts if e["phase"] == "research"][:2]
    assert len(set(proposers)) == 2  # two different topics proposed it, at the same time
    # The second proposal met the first in the plan and was refused there.
    refused = [
        e
        for e in files["events"]
        if e.get("topic") == same and e["type"] in ("topic_skipped", "plan_repair")
    ]
    assert len(refused) == 1, refused
    check_numbers(files)


def cli(work: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, str(SCRIPTED_CLI), *args],
        cwd=work,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env=clean_env(),
    )


def accepted_notes(work: Path, name: str) -> dict[str, bytes]:
    state = read_json(work / ".research" / name / "state.json")
    notes = {}
    for topic in state["plan"]["topics"]:
        if topic["status"] == "Complete":
            copy = latest_archived(
                work / ".research" / name / "archive", f"{topic['slug']}.progress.md"
            )
            assert copy is not None, topic["slug"]
            notes[topic["slug"]] = copy.read_bytes()
    return notes


def test_kill_9_with_calls_in_flight_then_resume_completes_with_the_same_notes(
    tmp_path: Path,
) -> None:
    script = write_script(tmp_path / "slow.json", sleep_seconds=0.06)
    args = [
        "--mock-mode",
        "--mock-script",
        str(script),
        "--name",
        "k",
        "--breadth",
        "3",
        "--depth",
        "2",
        "--parallel",
        "4",
        "--yes",
        QUESTION,
    ]
    base = tmp_path / "base"
    base.mkdir()
    assert cli(base, *args).wait(timeout=HANG_GUARD_SECONDS) == 0
    expected = accepted_notes(base, "k")
    base_state = read_json(base / ".research" / "k" / "state.json")

    rng = random.Random(12)
    widest = 0
    for trial in range(2):
        work = tmp_path / f"kill{trial}"
        work.mkdir()
        proc, kills = cli(work, *args), 0
        while True:
            try:
                # Each resume gets a little longer before the next kill, so a loaded machine
                # (slow start-ups) still makes progress and the loop always ends.
                code = proc.wait(timeout=rng.uniform(0.25, 0.6) * (1 + kills / 4))
            except subprocess.TimeoutExpired:
                state_file = work / ".research" / "k" / "state.json"
                in_flight = (
                    read_json(state_file)["progress"]["in_flight"] if state_file.exists() else {}
                )
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                kills += 1
                widest = max(widest, len(in_flight))
                proc = (
                    cli(work, *args[:-1], "--resume") if state_file.exists() else cli(work, *args)
                )
                continue
            assert code == 0
            break
        assert kills >= 1
        state = read_json(work / ".research" / "k" / "state.json")
        assert state["progress"]["is_complete"]
        assert tree(state) == tree(base_state)
        assert accepted_notes(work, "k") == expected
        decisions = read_jsonl(work / ".research" / "k" / "decisions.jsonl")
        # Each finished iteration exactly once; one in flight at a kill is made again.
        iterations = sorted(d["iteration"] for d in decisions)
        assert iterations == list(range(1, state["progress"]["iteration"] + 1))
    assert widest >= 2  # some kill hit several calls in flight


@pytest.mark.parametrize("value", ["0", "9", "many"])
def test_parallel_out_of_range_is_a_usage_error(run_cli, value: str) -> None:
    result = run_cli("--mock-mode", "--name", "bad", "--parallel", value, QUESTION)
    assert result.exit_code == 2


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_sigterm_stops_every_agent_in_flight_and_resume_reruns_exactly_those(
    tmp_path: Path,
) -> None:
    from conftest import FAKE_AGENT, alive

    calls = tmp_path / "calls.jsonl"
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"initial_plan": ["agent"]}))
    env = clean_env(
        FAKE_OPENCODE_MODE="grandchild",
        FAKE_OPENCODE_SCRIPT=str(script),
        FAKE_OPENCODE_CALLS=str(calls),
        FAKE_OPENCODE_PIDFILE=str(tmp_path / "gc.pid"),
    )
    work = tmp_path / "w"
    work.mkdir()

    def researching() -> list[int]:
        records = read_jsonl(calls, growing=True) if calls.exists() else []
        return [r["pid"] for r in records if r["phase"] == "research"]

    with spawned(
        [
            sys.executable,
            "-c",
            "from research.cli import main; main()",
            "--agent-cmd",
            f"{sys.executable} {FAKE_AGENT}",
            "--name",
            "sig",
            "--breadth",
            "3",
            "--depth",
            "1",
            "--parallel",
            "3",
            "--timeout",
            "300",
            "--quiet",
            "--yes",
            QUESTION,
        ],
        cwd=work,
        env=env,
    ) as proc:
        wait_until(lambda: len(researching()) == 3, proc=proc, what="three research calls")
        agents = researching()
        assert len(agents) == 3 and all(alive(pid) for pid in agents)
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=HANG_GUARD_SECONDS)
    assert proc.returncode == 143, stderr
    assert "Traceback" not in stderr
    wait_until(lambda: not any(alive(pid) for pid in agents), within=10, what="agents gone")
    state = read_json(work / ".research" / "sig" / "state.json")
    in_flight = state["progress"]["in_flight"]
    assert sorted(f["phase"] for f in in_flight.values()) == ["research"] * 3
    assert sorted(f["iteration"] for f in in_flight.values()) == [1, 2, 3]
    assert state["usage"]["agent_calls"] == 1  # the interrupted calls were not counted
    status = run_research("--status", "--name", "sig", cwd=work, env=env, scripted=True)
    assert status.returncode == 0, status.stderr
    assert "3 in flight:" in status.stdout, status.stdout + status.stderr

    # Resumed with the simulated agent: exactly those three iterations finish, no new ones.
    script_path = write_script(tmp_path / "fast.json", sleep_seconds=0.0)
    done = run_research(
        "--mock-mode",
        "--mock-script",
        str(script_path),
        "--name",
        "sig",
        "--resume",
        "--quiet",
        "--yes",
        cwd=work,
        env=env,
        scripted=True,
    )
    assert done.returncode == 0, done.stderr
    final = read_json(work / ".research" / "sig" / "state.json")
    first = read_jsonl(work / ".research" / "sig" / "decisions.jsonl")[:3]
    assert sorted(d["iteration"] for d in first) == [1, 2, 3]
    assert final["progress"]["is_complete"]


def test_an_agent_editing_the_progress_index_is_reported_and_undone(run_cli, tmp_path) -> None:
    # The index is the orchestrator's in parallel mode (two agents could edit it at once).
    files = run(
        run_cli,
        tmp_path,
        "idx",
        3,
        faults=[{"action": "edit_progress_index", "phase": "research", "calls": [2]}],
    )
    warnings = [e["message"] for e in files["events"] if e["type"] == "warning"]
    # Undone one of two ways, both said: taken from the call's scratch copy and put back by
    # the topic-file check, or, when another topic's end rewrote the index during the call
    # (timing), never taken from the scratch copy at all.
    undone = ("the orchestrator put them back", "which the orchestrator writes; the session keeps")
    assert any(
        ".research/idx/progress.md" in w and any(u in w for u in undone) for w in warnings
    ), warnings
    assert "an agent's own line" not in Path(".research/idx/progress.md").read_text()
    check_numbers(files)


def test_a_write_into_another_topics_notes_is_reported_and_undone(run_cli, tmp_path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's file\n")
    # The 5th research call (a subtopic, while others are in flight or done) replaces
    # every other topic's notes with a link to a file outside the working directory.
    files = run(
        run_cli,
        tmp_path,
        "hij",
        3,
        victim=str(victim),
        faults=[{"action": "hijack_other_notes", "phase": "research", "calls": [5]}],
    )
    # The orchestrator never read or wrote through the links (an agent may still follow a
    # link another agent planted while both run: only a sandbox could stop that).
    assert not any(p.is_symlink() for p in Path(".research/hij").rglob("*"))
    copies = list(Path(".research/hij/archive").rglob("*.progress.md"))
    assert copies and all("the user's file" not in c.read_text() for c in copies)
    warnings = [e["message"] for e in files["events"] if e["type"] == "warning"]
    assert any(
        "wrote files that are not its topic's" in w and "put them back" in w for w in warnings
    ), warnings
    undone = [e for e in files["events"] if e["type"] == "stray_files" and e.get("undone")]
    assert undone and all(
        path.startswith(".research/hij/progress/") for e in undone for path in e["modified"]
    )
    state = files["state"]
    assert state["progress"]["is_complete"]
    for topic in state["plan"]["topics"]:
        if topic["status"] == "Complete":
            copy = latest_archived(Path(".research/hij/archive"), f"{topic['slug']}.progress.md")
            assert copy is not None and copy.read_text().startswith("# Progress"), topic["slug"]


def test_the_users_redirected_output_in_the_working_directory_is_not_blamed_on_agents(
    isolated: Path,
) -> None:
    # `research --parallel 3 ... > out.txt 2>&1` in the project folder: the other topics'
    # lines land in out.txt during every call; that is our own output, not an agent's.
    with (isolated / "out.txt").open("w") as out:
        done = subprocess.run(
            [
                sys.executable,
                str(Path(__file__).parent.parent / "research.py"),
                "--mock-mode",
                "--mock-latency",
                "0.2",
                "--name",
                "out",
                "--breadth",
                "3",
                "--depth",
                "1",
                "--parallel",
                "3",
                "--yes",
                QUESTION,
            ],
            cwd=isolated,
            env=clean_env(RESEARCH_VERIFY_SOURCES="0"),
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=600,
        )
    text = (isolated / "out.txt").read_text()
    assert done.returncode == 0, text
    strays = [
        e for e in read_jsonl(isolated / ".research/out/events.jsonl") if e["type"] == "stray_files"
    ]
    assert strays == [], strays
    assert "out.txt" not in text.replace("> out.txt", "")


def test_the_plans_order_does_not_depend_on_how_many_topics_run_at_once(run_cli, tmp_path) -> None:
    # Subtopics used to be written into the plan in the order their parents' research
    # finished; now level by level, in their parents' order, whatever N.
    orders = {}
    for parallel in (2, 3):
        files = run(run_cli, tmp_path, f"order{parallel}", parallel, sleep_seconds=0.0)
        topics = files["state"]["plan"]["topics"]
        rank = {None: -1, **{t["slug"]: i for i, t in enumerate(topics)}}
        keys = [(t["depth"], rank[t["parent"]]) for t in topics]
        assert keys == sorted(keys), keys
        plan = Path(f".research/order{parallel}/research_plan.md").read_text()
        headings = [
            line[4:].rsplit(" (Depth", 1)[0]
            for line in plan.splitlines()
            if line.startswith("### ")
        ]
        assert headings == [t["name"] for t in topics]
        orders[parallel] = [(t["name"], t["status"]) for t in topics]
    assert orders[2] == orders[3]

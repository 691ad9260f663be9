"""Kill anywhere, resume everywhere: sessions SIGKILLed at many moments always finish on resume.

`kill_harness.py` (run here as two parallel processes) kills mock sessions of
(breadth 2, depth 2) and (breadth 3, depth 1) at every agent call — before and after the
call's file edits — and at seeded random instants, resuming after each kill. These tests
check what it left behind against SPEC §3 and §10: every kill is survived, nothing
finished is lost or redone, and the files a resume reads are never torn.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, read_jsonl
from helpers import clean_env, killed_session

from research.core.errors import PlanParseError
from research.model.plan import parse_plan, render_plan
from research.model.state import load_state
from research.workspace.events import read_events

CONFIGS = [{"name": "b2d2", "breadth": 2, "depth": 2}, {"name": "b3d1", "breadth": 3, "depth": 1}]
SHARDS = 2
SPEC = {
    "seed": 20240606,
    "random_chains": 1,
    "random_links": 12,
    "fresh_points": 2,
    "configs": CONFIGS,
    "shards": SHARDS,
}
KILLED = -9


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("kills")
    env = clean_env(PYTHONPATH=str(REPO))
    procs = []
    for shard in range(SHARDS):
        spec = root / f"spec-{shard}.json"
        spec.write_text(json.dumps({**SPEC, "root": str(root), "shard": shard}))
        procs.append(
            subprocess.Popen(
                [sys.executable, str(REPO / "tests" / "kill_harness.py"), str(spec)],
                cwd=root,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
        )
    for proc in procs:
        output, _ = proc.communicate(timeout=300)
        assert proc.returncode == 0, output
    merged: dict = {"baselines": {}, "chains": []}
    for shard in range(SHARDS):
        part = json.loads((root / f"results-{shard}.json").read_text())
        merged["baselines"].setdefault("by_shard", []).append(part["baselines"])
        merged["chains"] += part["chains"]
    merged["baselines"] = merged["baselines"]["by_shard"][0]
    return merged


def session_dir(chain: dict) -> Path:
    return Path(chain["dir"]) / "work" / ".research" / chain["config"]


def calls(path: Path) -> list[tuple]:
    if not path.exists():
        return []
    return [(c["phase"], c["topic"], c["attempt"]) for c in read_jsonl(path)]


def link_calls(chain: dict, link: dict) -> list[tuple]:
    return calls(Path(chain["dir"]) / f"link-{link['index']}.calls.jsonl")


def kills(chain: dict) -> list[dict]:
    return [link for link in chain["links"] if link["exit"] == KILLED]


def snapshots(harness: dict):
    for chain in harness["chains"]:
        for link in kills(chain):
            if "snapshot" in link:
                yield chain, link, Path(link["snapshot"])


def test_baselines_finish(harness: dict) -> None:
    for name, base in harness["baselines"].items():
        assert base["exit"] == 0, name
        assert base["calls"] >= 10, name


def test_at_least_50_kill_points_every_call_killed_before_and_after_edits(harness) -> None:
    total = sum(len(kills(chain)) for chain in harness["chains"])
    assert total >= 50
    for config in CONFIGS:
        expected = harness["baselines"][config["name"]]["calls"]
        for label in ("boundary-before", "boundary-after"):
            (chain,) = [
                c
                for c in harness["chains"]
                if c["config"] == config["name"] and c["label"] == label
            ]
            assert len(kills(chain)) == expected, (config["name"], label)
    randoms = [
        link
        for chain in harness["chains"]
        if not chain["label"].startswith("boundary")
        for link in kills(chain)
    ]
    assert len(randoms) >= 5


def test_every_killed_session_finishes_on_resume_like_an_uninterrupted_one(harness) -> None:
    for chain in harness["chains"]:
        last = chain["links"][-1]
        assert last["exit"] == 0, (chain["dir"], last)
        state = load_state(session_dir(chain) / "state.json")
        assert state.progress.is_complete
        base = harness["baselines"][chain["config"]]
        base_state = load_state(
            Path(base["dir"]) / "work" / ".research" / chain["config"] / "state.json"
        )
        assert [(t.name, t.status, t.attempts) for t in state.plan.topics] == [
            (t.name, t.status, t.attempts) for t in base_state.plan.topics
        ], chain["dir"]
        assert state.progress.iteration == base_state.progress.iteration
        report = Path(chain["dir"]) / "work" / "reports" / chain["config"] / "report.md"
        base_report = Path(base["dir"]) / "work" / "reports" / chain["config"] / "report.md"
        assert sources_of(report) == sources_of(base_report), chain["dir"]
        assert not (session_dir(chain) / "research.lock.json").exists()


def sources_of(report: Path) -> list[str]:
    text = report.read_text(encoding="utf-8")
    section = text.split("## Sources", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("[")]


def test_no_output_has_a_traceback(harness: dict) -> None:
    for chain in harness["chains"]:
        for link in chain["links"]:
            out_file = Path(chain["dir"]) / f"link-{link['index']}.out"
            out = out_file.read_text() if out_file.exists() else ""  # killed before opening it
            assert "Traceback" not in out and "internal error" not in out, (chain["dir"], out)


def test_state_and_plan_are_never_torn(harness: dict) -> None:
    seen = 0
    for _, _, snap in snapshots(harness):
        if (snap / "state.json").exists():
            state = load_state(snap / "state.json")
            assert state.name in {c["name"] for c in CONFIGS}
            seen += 1
        if (snap / "research_plan.md").exists():
            text = (snap / "research_plan.md").read_text(encoding="utf-8")
            try:
                parse_plan(text)
            except PlanParseError:
                # Before the INITIAL PLAN the file is the canonical empty plan, and only then.
                empty = load_state(snap / "state.json").plan
                assert not empty.topics and text == render_plan(empty), snap
    assert seen >= 50


def test_topics_finished_before_a_kill_keep_their_progress_file_byte_for_byte(harness) -> None:
    checked = 0
    for chain, _, snap in snapshots(harness):
        if not (snap / "state.json").exists():
            continue
        final_archive = session_dir(chain) / "archive"
        for topic in load_state(snap / "state.json").plan.topics:
            if topic.status.value != "Complete":
                continue
            before = progress_versions(snap, topic.slug)
            assert len(before) == 1, (snap, topic.slug)
            after = {p.read_bytes() for p in final_archive.glob(f"*.{topic.slug}.progress.md")}
            assert after == before, (snap, topic.slug)
            checked += 1
    assert checked >= 50


def progress_versions(snap: Path, slug: str) -> set[bytes]:
    """The contents a topic's notes had at the kill: the live file, or its archived copies."""
    live = snap / "progress" / f"{slug}.md"
    if live.exists():
        return {live.read_bytes()}
    return {p.read_bytes() for p in (snap / "archive").glob(f"*.{slug}.progress.md")}


def test_no_topic_is_researched_again_after_it_was_accepted(harness: dict) -> None:
    for chain in harness["chains"]:
        links = chain["links"]
        for position, link in enumerate(links):
            if "snapshot" not in link or not (Path(link["snapshot"]) / "state.json").exists():
                continue
            state = load_state(Path(link["snapshot"]) / "state.json")
            done = {t.slug for t in state.plan.topics if t.status.value == "Complete"}
            for later in links[position + 1 :]:
                researched = {
                    topic
                    for phase, topic, _ in link_calls(chain, later)
                    if phase in ("research", "review")
                }
                assert not researched & done, (chain["dir"], later["index"])


def test_a_kill_loses_at_most_the_phase_in_flight(harness: dict) -> None:
    """Stitched together, the calls of a killed-and-resumed session are the uninterrupted
    session's calls, with at most one call (the one in flight) repeated at each resume."""
    for chain in harness["chains"]:
        expected = calls(Path(harness["baselines"][chain["config"]]["dir"]) / "link-0.calls.jsonl")
        done: list[tuple] = []
        for link in chain["links"]:
            made = link_calls(chain, link)
            if link["fresh"]:
                done = []
            elif made and done and made[0] == done[-1]:
                made = made[1:]
            assert made == expected[len(done) : len(done) + len(made)], (chain["dir"], link)
            done += made
        assert done == expected, chain["dir"]


def test_the_dead_holders_lock_is_taken_over_without_force(harness: dict) -> None:
    """A killed run leaves its lock; the next run takes it over as stale (dead pid), with no
    --force-resume. A random kill may hit the next run before it logs the takeover, so
    only boundary chains (whose kills come at agent calls) must log every one."""
    takeovers = 0
    for chain in harness["chains"]:
        stale = sum(
            1
            for link in kills(chain)
            if "snapshot" in link and (Path(link["snapshot"]) / "research.lock.json").exists()
        )
        events = read_events(session_dir(chain) / "events.jsonl")
        taken = [e for e in events if e["type"] == "lock_taken" and e["takeover"]]
        assert all("not running" in e["reason"] for e in taken), chain["dir"]
        if chain["label"].startswith("boundary"):
            assert len(taken) == stale, chain["dir"]
        else:
            assert len(taken) <= stale, chain["dir"]
        takeovers += len(taken)
    assert takeovers >= 50


def test_a_torn_plan_left_by_a_crash_is_rebuilt_from_state_on_resume(
    tmp_path: Path, isolated: Path, run_cli
) -> None:
    """The agent's own writes are not atomic: a crash may leave half a plan. The orchestrator
    keeps the plan in state.json, so the resume rewrites the file before any agent call."""
    script = tmp_path / "kill.json"
    script.write_text(json.dumps({"kill_at_call": 4}))  # after the 2nd RESEARCH's edits
    plan_file = killed_session(isolated, script, "torn") / "research_plan.md"
    text = plan_file.read_text()
    plan_file.write_text(text[: text.index("## Topics") + 5])
    with pytest.raises(PlanParseError):
        parse_plan(plan_file.read_text())

    result = run_cli("--mock-mode", "--name", "torn", "--resume")
    assert result.exit_code == 0, result.stderr
    state = load_state(isolated / ".research" / "torn" / "state.json")
    assert [t.status.value for t in state.plan.topics] == ["Complete", "Complete"]
    assert [t.name for t in parse_plan(plan_file.read_text()).topics] == [
        t.name for t in state.plan.topics
    ]
    events = read_events(isolated / ".research" / "torn" / "events.jsonl")
    resumed = events[max(i for i, e in enumerate(events) if e["type"] == "run_start") :]
    assert not [
        e for e in resumed if e["type"] in ("phase_end", "plan_repair") and e.get("outcome") != "ok"
    ]

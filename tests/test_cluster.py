"""Research jobs on the task queue: real redis-server, real `research worker` processes as
three "hosts" on this machine (RESEARCH_HOST_ID), the simulated agent with a latency.

What must hold: every job completes, each session runs on one host at a time, a dead
worker's jobs are resumed elsewhere without redoing accepted topics, a stopped worker
hands its jobs back (no lock left to take over), a Redis restart loses no job, and a
job delivered twice runs once. How fast failover and hand-back are is bench/cluster.py's
to measure; these tests wait for the events, with the hang guard of helpers.wait_until.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cluster_harness import (
    REDIS_SERVER,
    Cluster,
    RedisServer,
    accepted_notes,
    assert_one_host_at_a_time,
    events,
    final_notes,
    is_complete,
    researched_after,
    when,
)
from helpers import HANG_GUARD_SECONDS, clean_env, research_argv, wait_until

pytest.importorskip("dramatiq")
pytestmark = pytest.mark.skipif(REDIS_SERVER is None, reason="needs redis-server")

FAILOVER = 10.0
LATENCY = 0.2


@pytest.fixture
def cluster(isolated: Path, tmp_path: Path) -> Iterator[Cluster]:
    redis = RedisServer(tmp_path / "redis")
    redis.start()
    group = Cluster(work=isolated, redis=redis, failover=FAILOVER, latency=LATENCY)
    try:
        yield group
    finally:
        group.close()
        redis.stop()


def all_complete(cluster: Cluster, names: list[str]) -> bool:
    return all(is_complete(cluster.work, name) for name in names)


def test_three_hosts_run_twelve_jobs_one_host_at_a_time_through_a_redis_restart(
    cluster: Cluster,
) -> None:
    for host in ("h1", "h2", "h3"):
        cluster.start_worker(host)
    names = [f"job-{n:02d}" for n in range(12)]
    for name in names:
        cluster.enqueue(name)
    wait_until(
        lambda: sum(is_complete(cluster.work, name) for name in names) >= 3,
        within=40,
        what="three jobs complete",
    )
    cluster.redis.stop()  # mid-run: the running jobs go on, the workers reconnect
    time.sleep(1.0)
    cluster.redis.start()
    wait_until(lambda: all_complete(cluster, names), within=90, what="all 12 jobs complete")
    used = set()
    for name in names:
        hosts = assert_one_host_at_a_time(events(cluster.work, name))
        used.update(hosts)
    assert used == {"h1", "h2", "h3"}, used
    # a delivery made twice around the restart backs off, then finds the session complete
    wait_until(lambda: cluster.client().depth() == 0, within=30, what="the queue drained")


def test_a_killed_worker_s_jobs_resume_elsewhere(cluster: Cluster) -> None:
    workers = {host: cluster.start_worker(host) for host in ("h1", "h2", "h3")}
    names = ["deep-a", "deep-b"]
    for name in names:
        cluster.enqueue(name, breadth=2, depth=2)

    def a_run_with_an_accepted_topic() -> str | None:
        for name in names:
            log = events(cluster.work, name, growing=True)
            if log and any(e["type"] == "run_start" for e in log):
                try:
                    if accepted_notes(cluster.work, name):
                        return name
                except (OSError, ValueError, KeyError):
                    continue
        return None

    wait_until(a_run_with_an_accepted_topic, within=40, what="a topic accepted")
    victim_job = a_run_with_an_accepted_topic()
    assert victim_job is not None
    notes = accepted_notes(cluster.work, victim_job)
    (victim_host,) = {
        e["host"]
        for e in events(cluster.work, victim_job, growing=True)
        if e["type"] == "run_start"
    }
    killed_at = time.time()
    cluster.kill(workers[victim_host])

    wait_until(lambda: all_complete(cluster, names), what="both jobs complete")
    log = events(cluster.work, victim_job)
    hosts = assert_one_host_at_a_time(log)
    assert hosts[0] == victim_host and victim_host not in hosts[1:], hosts
    takeover = next(e for e in log if e["type"] == "lock_taken" and e["takeover"])
    assert takeover["previous_host"] == victim_host and takeover["host"] != victim_host
    # resumed elsewhere (how soon after the kill: bench/cluster.py's failover figure)
    assert any(e["type"] == "phase_start" and when(e) > killed_at for e in log)
    for slug, text in notes.items():
        assert final_notes(cluster.work, victim_job, slug) == text, slug
        assert researched_after(log, slug, killed_at) == [], slug


def test_sigterm_hands_the_job_back_and_another_worker_ends_it_without_a_takeover(
    cluster: Cluster,
) -> None:
    first = cluster.start_worker("h1")
    cluster.enqueue("handed", breadth=2, depth=2)
    wait_until(
        lambda: any(e["type"] == "phase_end" for e in events(cluster.work, "handed", growing=True)),
        within=30,
        what="the job running on h1",
    )
    cluster.start_worker("h2")
    first.process.send_signal(signal.SIGTERM)
    assert first.process.wait(timeout=HANG_GUARD_SECONDS) == 143
    assert "handed back to the queue" in first.text()
    wait_until(lambda: is_complete(cluster.work, "handed"), what="the job complete")
    log = events(cluster.work, "handed")
    assert assert_one_host_at_a_time(log) == ["h1", "h2"]
    ends = [e for e in log if e["type"] == "run_end"]
    assert ends[0]["outcome"] == "interrupted"
    # handed back, not failed over: h1's run released its lock, so h2 took no lock over
    # (how soon: bench/cluster.py's hand-back figure)
    assert not any(e["type"] == "lock_taken" and e["takeover"] for e in log)


def test_a_job_sent_twice_runs_once_and_the_other_delivery_backs_off(cluster: Cluster) -> None:
    job = cluster.enqueue("twice", breadth=2, depth=1)
    cluster.client().send(job)  # the same job again: at-least-once delivery
    cluster.start_worker("h1")
    cluster.start_worker("h2")
    wait_until(lambda: is_complete(cluster.work, "twice"), within=40, what="the job complete")
    wait_until(lambda: cluster.client().depth() == 0, within=30, what="the queue drained")
    log = events(cluster.work, "twice")
    starts = [e for e in log if e["type"] == "run_start"]
    assert len(starts) == 1, starts
    assert [e for e in log if e["type"] == "lock_taken" and e["takeover"]] == []
    texts = "".join(worker.text() for worker in cluster.workers)
    assert "another live run holds it; backing off" in texts or "ended with exit 2" in texts


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--queue", "http://127.0.0.1:1/0"], "is not a Redis URL"),
        (["--queue", "redis://127.0.0.1:99999/0"], "not a Redis URL"),
        (["--queue", "redis://127.0.0.1:6390/0", "--max-jobs", "0"], "--max-jobs must be 1-64"),
        (["--queue", "redis://127.0.0.1:6390/0", "--failover", "nan"], "failover bound"),
        (["--queue", "redis://127.0.0.1:6390/0", "--workdir", "/nonexistent/x"], "not a directory"),
    ],
)
def test_research_worker_refuses_bad_options_with_exit_2(argv: list[str], message: str) -> None:
    proc = subprocess.run(
        research_argv("worker", *argv), capture_output=True, text=True, env=clean_env(), timeout=60
    )
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("research: error: ") and message in line, line


def test_enqueue_from_the_command_line_says_so_and_fails_cleanly_without_redis(
    isolated: Path, tmp_path: Path
) -> None:
    redis = RedisServer(tmp_path / "redis", password="pw-123")
    redis.start()
    try:
        argv = research_argv("--queue", redis.url, "--mock-mode", "--breadth", "1", "heat pumps")
        sent = subprocess.run(argv, capture_output=True, text=True, env=clean_env(), timeout=60)
        assert sent.returncode == 0, sent.stderr
        assert sent.stdout.splitlines()[0] == "heat-pumps"
        assert "research --status --name heat-pumps" in sent.stdout
        group = Cluster(work=isolated, redis=redis, failover=FAILOVER, latency=0.0)
        assert group.client().depth() == 1
        bad = research_argv("--queue", redis.url.replace("pw-123", "wrong"), "--mock-mode", "x")
        refused = subprocess.run(bad, capture_output=True, text=True, env=clean_env(), timeout=60)
    finally:
        redis.stop()
    assert refused.returncode == 1 and "nothing was queued" in refused.stderr
    assert "wrong" not in refused.stderr and not (isolated / ".research").exists()
    down = subprocess.run(argv, capture_output=True, text=True, env=clean_env(), timeout=60)
    assert down.returncode == 1, down.stderr
    (line,) = down.stderr.strip().splitlines()
    assert "cannot reach the queue" in line and "nothing was queued" in line


def test_research_queue_sends_every_option_the_user_set(cluster: Cluster) -> None:
    """`research --queue` once dropped --token-budget, --max-cost, --timeout and
    --no-verify-sources (and sent every default as if the user had set it). A
    --max-iterations below the floor is said at once and raised by the run (seed 002's
    max_iters=1 runs and ends)."""
    argv = research_argv(
        "--queue", cluster.redis.url, "--mock-mode", "--name", "sent", "--tier", "simple",
        "--token-budget", "500000", "--max-cost", "40", "--timeout", "60",
        "--verify-sources", "--max-queries", "4", "--max-iterations", "1", "heat pumps",
    )  # fmt: skip
    sent = subprocess.run(argv, capture_output=True, text=True, env=clean_env(), timeout=60)
    assert sent.returncode == 0, sent.stderr
    assert "warning: --max-iterations 1 is below the iteration floor" in sent.stderr
    cluster.start_worker("h1")
    wait_until(lambda: is_complete(cluster.work, "sent"), within=60, what="the job complete")
    config = json.loads((cluster.work / ".research" / "sent" / "state.json").read_text())["config"]
    assert (config["token_budget"], config["max_cost"], config["timeout"]) == (500000, 40.0, 60.0)
    assert config["verify_sources"] is True  # the worker's RESEARCH_VERIFY_SOURCES=0 gives way
    assert config["searches"] == 4
    assert (config["tier"], config["breadth"], config["depth"]) == ("simple", 2, 1)
    assert (config["requested_max_iterations"], config["max_iterations"]) == (1, 2**2 + 5)

"""`research worker` and `research serve --queue` check their setup at start, and say a
Redis outage once: a real redis-server, real worker and service processes.

What must hold: a queue that cannot be used (closed port, a port that accepts and never
answers, a wrong or missing password) or a folder that is not the queue's gives one line
and exit 2 within seconds, never a retry loop; a Redis outage while a worker runs is one
warning line when it starts and one when it ends, never a traceback.
"""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cluster_harness import REDIS_SERVER, Cluster, RedisServer, events, free_port, is_complete
from helpers import clean_env, research_argv, wait_until

pytest.importorskip("dramatiq")
pytestmark = pytest.mark.skipif(REDIS_SERVER is None, reason="needs redis-server")

FAILOVER = 10.0


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections (the kernel completes them) and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        yield int(sock.getsockname()[1])


def refused(*argv: str, cwd: Path) -> str:
    """Run `research ARGV`, which must exit 2 with one line; that line."""
    proc = subprocess.run(
        research_argv(*argv),
        cwd=cwd,
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=60,
        stdin=subprocess.DEVNULL,  # `research mcp` serves stdio once its checks pass
    )
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr[-2000:]
    assert lines[0].startswith("research: error: "), lines[0]
    return lines[0]


def test_a_worker_or_service_that_cannot_use_the_queue_says_why_and_exits_2(
    isolated: Path, tmp_path: Path, silent_port: int
) -> None:
    redis = RedisServer(tmp_path / "redis", password="right-pw")
    redis.start()
    try:
        wrong = redis.url.replace("right-pw", "wrong-pw")
        bare = redis.url.replace(":right-pw@", "")
        cases = {
            wrong: "refused the password",
            bare: "refused",
            f"redis://127.0.0.1:{free_port()}/0": "cannot reach the queue",
            f"redis://127.0.0.1:{silent_port}/0": "does not answer",
        }
        for url, says in cases.items():
            line = refused("worker", "--queue", url, "--workdir", str(isolated), cwd=isolated)
            assert says in line and "wrong-pw" not in line, line
        for server in (("serve", "--port", "0"), ("mcp",), ("mcp", "--http", "0")):
            line = refused(*server, "--queue", wrong, cwd=isolated)
            assert "refused the password" in line and "wrong-pw" not in line, line
        line = refused("mcp", "--queue", f"redis://127.0.0.1:{silent_port}/0", cwd=isolated)
        assert "does not answer" in line, line
    finally:
        redis.stop()


def test_a_worker_or_service_in_another_folder_refuses_the_queue(
    isolated: Path, tmp_path: Path
) -> None:
    redis = RedisServer(tmp_path / "redis")
    redis.start()
    cluster = Cluster(work=isolated, redis=redis, failover=FAILOVER, latency=0.0)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    try:
        cluster.start_worker("h1")  # the queue's folder is now `isolated`
        for argv in (
            ("worker", "--queue", redis.url, "--workdir", str(elsewhere)),
            ("serve", "--queue", redis.url, "--port", "0", "--workdir", str(elsewhere)),
            ("mcp", "--queue", redis.url, "--workdir", str(elsewhere)),
        ):
            line = refused(*argv, cwd=elsewhere)
            assert "is not the folder" in line and str(elsewhere) in line, line
        sent = subprocess.run(
            research_argv("--queue", redis.url, "--mock-mode", "heat pumps"),
            cwd=elsewhere,
            capture_output=True,
            text=True,
            env=clean_env(),
            timeout=60,
        )
        assert sent.returncode == 2 and "is not the folder" in sent.stderr, sent.stderr
        assert not (elsewhere / ".research" / "job").exists()
        cluster.enqueue("job", breadth=1, depth=1)
        wait_until(lambda: is_complete(isolated, "job"), within=60, what="the job complete")
        import redis as redis_client

        redis_client.Redis.from_url(redis.url).set("research:folder", "0" * 32)  # another's now
        (worker,) = cluster.workers
        assert worker.process.wait(timeout=60) == 2
        assert "is not the folder" in worker.text()
    finally:
        cluster.close()
        redis.stop()


def test_a_redis_outage_is_one_warning_when_it_begins_and_one_when_it_ends(
    isolated: Path, tmp_path: Path
) -> None:
    redis = RedisServer(tmp_path / "redis")
    redis.start()
    cluster = Cluster(work=isolated, redis=redis, failover=FAILOVER, latency=0.2)
    try:
        worker = cluster.start_worker("h1")
        cluster.enqueue("through", breadth=2, depth=2)
        wait_until(
            lambda: any(
                e["type"] == "phase_end" for e in events(isolated, "through", growing=True)
            ),
            within=60,
            what="the job running",
        )
        redis.pause()  # stops answering: timeouts
        wait_until(lambda: "cannot be reached" in worker.text(), within=30, what="the warning")
        redis.kill()  # then gone: refused connections
        time.sleep(1.5)  # a second or two of refused connections, which Dramatiq logs each
        redis.start()
        wait_until(lambda: "reachable again" in worker.text(), within=30, what="back")
        wait_until(lambda: is_complete(isolated, "through"), within=90, what="the job complete")
    finally:
        cluster.close()
        redis.stop()
    text = worker.text()
    assert text.count("cannot be reached") == 1, text
    assert text.count("reachable again") == 1, text
    assert "Traceback" not in text and "Consumer encountered" not in text, text

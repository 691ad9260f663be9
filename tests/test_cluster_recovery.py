"""`research serve --queue`: no job is lost in silence, a dead host's lock does not block
resume for ever, DELETE stops the job it stopped, and a name is one session. A real
redis-server, real `research worker` processes as other hosts, the service in process.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from cluster_harness import REDIS_SERVER, Cluster, RedisServer, events, is_complete, session_dir
from helpers import HANG_GUARD_SECONDS, clean_env, research_argv, wait_until

pytest.importorskip("dramatiq")
pytest.importorskip("fastapi")
pytestmark = pytest.mark.skipif(REDIS_SERVER is None, reason="needs redis-server")

import anyio  # noqa: E402
import httpx  # noqa: E402

from research.service.app import ServiceConfig, create_app  # noqa: E402

FAILOVER = 6.0
TOPIC = "heat pumps in cold climates"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Api:
    def __init__(self, cluster: Cluster, *, resume_running: bool = False) -> None:
        self.cluster = cluster
        config = ServiceConfig(
            root=cluster.work,
            poll_seconds=0.02,
            queue_url=cluster.redis.url,
            failover=FAILOVER,
            resume_running=resume_running,
        )
        self.client = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=create_app(config)), base_url="http://test"
        )

    async def state(self, name: str) -> str:
        return str((await self.client.get(f"/runs/{name}")).json().get("state"))

    async def until(self, name: str, state: str, within: float = 60.0) -> None:
        """Wait for `name`'s state; `within` is a hang guard (never under HANG_GUARD_SECONDS),
        not a speed test."""
        deadline = time.monotonic() + max(within, HANG_GUARD_SECONDS)
        while (seen := await self.state(name)) != state:
            assert time.monotonic() < deadline, f"{name}: {seen}, not {state}"
            await anyio.sleep(0.1)

    async def start(self, name: str, **more: Any) -> None:
        body = {"task": f"{TOPIC}, {name}", "name": name, "agent": "mock", **more}
        response = await self.client.post("/run?async=true", json=body)
        assert response.status_code == 202, response.text


async def api_for(
    isolated: Path, tmp_path: Path, *, persist: bool, resume_running: bool = False
) -> AsyncIterator[Api]:
    redis = RedisServer(tmp_path / "redis", persist=persist)
    redis.start()
    cluster = Cluster(work=isolated, redis=redis, failover=FAILOVER, latency=0.3)
    api = Api(cluster, resume_running=resume_running)
    try:
        async with api.client:
            yield api
    finally:
        cluster.close()
        redis.stop()


@pytest.fixture
async def api(isolated: Path, tmp_path: Path) -> AsyncIterator[Api]:
    async for made in api_for(isolated, tmp_path, persist=True):
        yield made


@pytest.fixture
async def forgetful(isolated: Path, tmp_path: Path) -> AsyncIterator[Api]:
    """The service over a Redis without persistence."""
    async for made in api_for(isolated, tmp_path, persist=False):
        yield made


@pytest.fixture
async def unattended(isolated: Path, tmp_path: Path) -> AsyncIterator[Api]:
    """The service with --resume-running over a Redis without persistence."""
    async for made in api_for(isolated, tmp_path, persist=False, resume_running=True):
        yield made


@pytest.mark.anyio
async def test_with_resume_running_lost_jobs_are_sent_again_on_their_own(
    unattended: Api, capfd: pytest.CaptureFixture[str]
) -> None:
    api, cluster = unattended, unattended.cluster
    for name in ("alpha", "beta"):
        await api.start(name, breadth=1, depth=1)
    cluster.redis.kill()
    cluster.redis.start()
    cluster.start_worker("h1")
    for name in ("alpha", "beta"):
        await api.until(name, "done", within=90)
    err = capfd.readouterr().err
    for name in ("alpha", "beta"):
        assert f"{name}: the queue lost its job; sent it again" in err, err


@pytest.mark.anyio
async def test_jobs_redis_lost_are_shown_lost_and_sent_again_to_completion(
    forgetful: Api,
) -> None:
    api, cluster = forgetful, forgetful.cluster
    await api.start("first", breadth=2, depth=2)
    for name in ("second", "third"):
        await api.start(name, breadth=1, depth=1)
    h1 = cluster.start_worker("h1")
    await api.until("first", "running")
    cluster.redis.kill()  # without persistence: the queue is gone, `first` runs on
    cluster.redis.start()
    for name in ("second", "third"):
        await api.until(name, "lost")
    cluster.kill(h1)  # and the host running `first` dies: its lock's heartbeat stands still
    cluster.start_worker("h2")
    for name in ("second", "third"):
        resent = await api.client.post(f"/runs/{name}/resume")  # no state: the request again
        assert resent.status_code == 202 and resent.json()["status"] == "queued", resent.text
    await api.until("first", "lost", within=FAILOVER * 4)
    resumed = await api.client.post("/runs/first/resume")
    assert resumed.status_code == 202, resumed.text
    assert await api.state("first") in ("queued", "running")  # never 'lost' once sent again
    for name in ("first", "second", "third"):
        await api.until(name, "done", within=90)
        assert is_complete(cluster.work, name)
    takeover = [e for e in events(cluster.work, "first") if e["type"] == "lock_taken"]
    assert [e["takeover"] for e in takeover] == [False, True], takeover
    assert takeover[1]["previous_host"] == "h1" and takeover[1]["host"] == "h2"


def start_local_run(work: Path, name: str, host: str) -> subprocess.Popen[bytes]:
    """`research` on the command line of host `host`, in the shared folder (no worker)."""
    argv = research_argv("--name", name, "--mock-mode", "--yes", "--quiet")
    argv += ["--breadth", "2", "--depth", "2", "--", TOPIC]
    env = clean_env(RESEARCH_HOST_ID=host, RESEARCH_MOCK_LATENCY="0.3", RESEARCH_VERIFY_SOURCES="0")
    return subprocess.Popen(argv, cwd=work, env=env, stderr=subprocess.DEVNULL)


@pytest.mark.anyio
async def test_delete_of_a_run_no_worker_runs_is_refused_and_leaves_no_stop_behind(
    api: Api,
) -> None:
    cluster = api.cluster
    local = start_local_run(cluster.work, "far", "h3")
    wait_until(
        lambda: any(e["type"] == "phase_end" for e in events(cluster.work, "far", growing=True)),
        within=60,
        proc=local,  # type: ignore[arg-type]
        what="the local run under way",
    )
    refused = await api.client.delete("/runs/far")
    assert refused.status_code == 409, refused.text
    local.send_signal(signal.SIGTERM)
    assert local.wait(timeout=60) == 143
    cluster.start_worker("h2")
    resumed = await api.client.post("/runs/far/resume")
    assert resumed.status_code == 202, resumed.text
    await api.until("far", "done", within=90)
    assert "stopped before it started" not in cluster.workers[0].text()


def digest(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.mark.anyio
async def test_a_name_is_one_session_on_the_queue(api: Api) -> None:
    cluster = api.cluster
    url = cluster.redis.url
    env = clean_env()

    def queue(*args: str) -> subprocess.CompletedProcess[str]:
        argv = research_argv("--queue", url, "--mock-mode", "--breadth", "1", "--depth", "1", *args)
        return subprocess.run(argv, cwd=cluster.work, capture_output=True, text=True, env=env)

    first = queue("--name", "one", "--", TOPIC)
    assert first.returncode == 0, first.stderr
    again = queue("--name", "one", "--", "another question entirely")
    assert again.returncode == 2 and "already on the queue" in again.stderr, again.stderr
    taken = await api.client.post("/run?async=true", json={"task": "other", "name": "one"})
    assert taken.status_code == 409, taken.text
    cluster.start_worker("h1")
    await api.until("one", "done")
    later = queue("--name", "one", "--", "another question entirely")
    assert later.returncode == 2 and "already exists" in later.stderr, later.stderr

    before = digest(session_dir(cluster.work, "one"))
    cluster.enqueue("one")  # past every check: the worker refuses it
    wait_until(
        lambda: (
            "one: refused: a session named 'one' exists with another question"
            in cluster.workers[0].text()
        ),
        within=30,
        what="the worker refusing",
    )
    assert digest(session_dir(cluster.work, "one")) == before


def test_a_late_second_run_that_finds_the_session_complete_writes_nothing(
    isolated: Path,
) -> None:
    """Host h2 waits on h1's lock (watching its heartbeat); h1's run ends, complete, while
    it waits: h2's run takes the lock and leaves without a line in the session."""
    env = clean_env(RESEARCH_VERIFY_SOURCES="0")
    done = subprocess.run(
        research_argv("--name", "x", "--mock-mode", "--yes", "--quiet", "--breadth", "1", TOPIC),
        cwd=isolated,
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    folder = session_dir(isolated, "x")
    complete = (folder / "state.json").read_bytes()
    state = (
        (folder / "state.json").read_text().replace('"is_complete": true', '"is_complete": false')
    )
    assert state.encode() != complete
    (folder / "state.json").write_text(state)
    lock = folder / "research.lock.json"
    lock.write_text(
        f'{{"lock_token": "feedfacefeedface", "pid": 4242, "host": "h1", '
        f'"created": {time.time()}, "heartbeat": {time.time()}}}'
    )
    argv = research_argv("-v", "--resume", "--name", "x", "--mock-mode", "--yes")
    with subprocess.Popen(
        argv,
        cwd=isolated,
        env={**env, "RESEARCH_HOST_ID": "h2", "RESEARCH_FAILOVER_SECONDS": "3600"},
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    ) as late:
        assert late.stderr is not None
        for line in late.stderr:
            if "watching its heartbeat" in line:
                break
        (folder / "state.json").write_bytes(complete)  # h1's run ends, complete
        os.unlink(lock)
        before = digest(folder)
        rest = late.stderr.read()
        assert late.wait(timeout=60) == 0, rest
    assert "completed by another run while this one waited" in rest, rest
    assert digest(folder) == before

"""`research serve --queue URL`: jobs go on the task queue and `research worker`s run them.
A real redis-server (with a password) and a real worker process as another host."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from cluster_harness import REDIS_SERVER, Cluster, RedisServer, events, is_complete
from helpers import HANG_GUARD_SECONDS, wait_until

pytest.importorskip("dramatiq")
pytest.importorskip("fastapi")
pytestmark = pytest.mark.skipif(REDIS_SERVER is None, reason="needs redis-server")

import anyio  # noqa: E402
import httpx  # noqa: E402

from research.service.app import ServiceConfig, create_app  # noqa: E402

FAILOVER = 10.0


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class QueuedApi:
    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        config = ServiceConfig(
            root=cluster.work, poll_seconds=0.02, queue_url=cluster.redis.url, failover=FAILOVER
        )
        self.app = create_app(config)
        self.client = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=self.app), base_url="http://test"
        )

    async def until(self, name: str, check: Any, within: float = 30.0) -> dict[str, Any]:
        """Wait until `check(body)` holds for `name`; `within` is a hang guard (never under
        HANG_GUARD_SECONDS), not a speed test."""
        deadline = time.monotonic() + max(within, HANG_GUARD_SECONDS)
        while True:
            body = (await self.client.get(f"/runs/{name}")).json()
            if check(body):
                return body
            assert time.monotonic() < deadline, body
            await anyio.sleep(0.1)


@pytest.fixture
async def api(isolated: Path, tmp_path: Path) -> AsyncIterator[QueuedApi]:
    redis = RedisServer(tmp_path / "redis", password="s3cret-pw")
    redis.start()
    cluster = Cluster(work=isolated, redis=redis, failover=FAILOVER, latency=0.3)
    queued = QueuedApi(cluster)
    try:
        async with queued.client:
            yield queued
    finally:
        cluster.close()
        redis.stop()


@pytest.mark.anyio
async def test_delete_stops_the_job_on_another_worker_and_resume_finishes_it(
    api: QueuedApi,
) -> None:
    body = {"task": "heat pumps in cold climates", "name": "far", "agent": "mock"}
    response = await api.client.post("/run?async=true", json={**body, "breadth": 2, "depth": 2})
    assert response.status_code == 202, response.text
    assert response.json()["status"] == "queued"
    assert (await api.client.get("/runs/far")).json()["state"] == "queued"
    api.cluster.start_worker("h2")  # password in the URL
    running = await api.until("far", lambda b: b["state"] == "running" and b["phase"] == "research")
    assert running["host"] == "h2"
    metrics = (await api.client.get("/metrics")).text
    assert 'research_workers_alive{host="h2"} 1.0' in metrics
    assert 'research_jobs_by_host{host="h2"} 1.0' in metrics
    assert "research_queue_depth 0.0" in metrics and "research_failovers_total 0.0" in metrics

    stop = await api.client.delete("/runs/far")
    assert stop.status_code == 202 and stop.json()["status"] == "stopping"
    stopped = await api.until("far", lambda b: b["state"] == "stopped")
    assert stopped["host"] is None
    assert events(api.cluster.work, "far")[-2]["outcome"] == "interrupted"  # then lock_released
    wait_until(lambda: "far: stopped on request" in api.cluster.workers[0].text(), within=10)

    resumed = await api.client.post("/runs/far/resume")
    assert resumed.status_code == 202 and resumed.json()["status"] == "queued"
    await api.until("far", lambda b: b["state"] == "done", within=60)
    assert is_complete(api.cluster.work, "far")
    starts = [e for e in events(api.cluster.work, "far") if e["type"] == "run_start"]
    assert [e["host"] for e in starts] == ["h2", "h2"] and starts[1]["resume"]


@pytest.mark.anyio
async def test_redis_down_new_jobs_get_a_retryable_503_and_sessions_stay_readable(
    api: QueuedApi,
) -> None:
    api.cluster.start_worker("h2")
    body = {"task": "heat pumps", "name": "before", "agent": "mock", "breadth": 1, "depth": 1}
    assert (await api.client.post("/run?async=true", json=body)).status_code == 202
    await api.until("before", lambda b: b["state"] == "done")
    api.cluster.redis.stop()
    response = await api.client.post("/run?async=true", json={**body, "name": "after"})
    assert response.status_code == 503, response.text
    error = response.json()["error"]
    assert error["type"] == "queue_unavailable" and error["retryable"] is True
    assert "s3cret-pw" not in error["message"]
    assert (await api.client.get("/runs/before")).json()["state"] == "done"
    assert (await api.client.get("/runs")).status_code == 200
    metrics = (await api.client.get("/metrics")).text
    assert "research_queue_up 0.0" in metrics


@pytest.mark.anyio
async def test_a_queued_run_takes_every_option_of_its_request(api: QueuedApi) -> None:
    """With --queue the request's tier, budgets and per-request limits reach the worker's
    run (the job once listed its fields by hand, and a token_budget answered 500)."""
    body = {
        "task": "heat pumps in cold climates",
        "name": "knobs",
        "agent": "mock",
        "complexity_tier": "simple",
        "token_budget": 500000,
        "max_cost": 40.0,
        "max_queries": 4,
        "max_sources": 6,
        "max_execution_time_s": 600,
        "timeout": 60.0,
    }
    response = await api.client.post("/run?async=true", json=body)
    assert response.status_code == 202, response.text
    api.cluster.start_worker("h1")
    await api.until("knobs", lambda b: b["state"] == "done", within=60)
    state = json.loads((api.cluster.work / ".research" / "knobs" / "state.json").read_text())
    config = state["config"]
    assert (config["tier"], config["tier_source"]) == ("simple", "user")
    assert (config["token_budget"], config["max_cost"]) == (500000, 40.0)
    assert (config["searches"], config["max_sources"]) == (4, 6)
    assert (config["time_budget_minutes"], config["timeout"]) == (10.0, 60.0)

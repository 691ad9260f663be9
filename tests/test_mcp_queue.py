"""`research mcp --queue URL`: sessions started through MCP go on the task queue, a
`research worker` runs them, and an approved plan continues there too. A real
redis-server (with a password) and a real worker, driven by the MCP SDK's own client."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from cluster_harness import REDIS_SERVER, Cluster, RedisServer
from conftest import REPO

pytest.importorskip("mcp")
pytest.importorskip("dramatiq")
pytestmark = pytest.mark.skipif(REDIS_SERVER is None, reason="needs redis-server")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402
from test_mcp_server import ANSWER, SMALL, WAIT, call, drive  # noqa: E402


def test_a_plan_approved_through_mcp_runs_on_a_worker(isolated: Path, tmp_path: Path) -> None:
    redis = RedisServer(tmp_path / "redis", password="s3cret-pw")
    redis.start()
    cluster = Cluster(work=isolated, redis=redis, failover=10.0, latency=0.0)
    try:
        cluster.start_worker("h2")
        client = Client(
            StdioServerParameters(
                command=sys.executable,
                args=["-m", "research", "mcp", "--queue", redis.url],
                env={"PYTHONPATH": str(REPO)},
                cwd=str(isolated),
            ),
            read_timeout_seconds=900,
        )

        async def steps(client: Client) -> None:
            started = await call(
                client, "start_research", question="heat pumps", name="far",
                approve_plan=True, **SMALL,
            )  # fmt: skip
            assert started["state"] == "queued"
            waiting = await call(client, "research_status", name="far", **WAIT)
            assert waiting["state"] == "awaiting_approval", waiting
            assert waiting["host"] is None and "Which period" in waiting["open_questions"]
            await call(client, "approve_plan", name="far", answers=ANSWER)
            done = await call(client, "research_status", name="far", **WAIT)
            assert done["state"] == "done", done
            assert "## Methodology" in await call(client, "get_report", name="far")

        drive(client, steps)
        events = (isolated / ".research" / "far" / "events.jsonl").read_text()
        assert '"host": "h2"' in events  # the worker ran both parts
        logs = sorted((isolated / ".research" / "far" / "logs").glob("*research*.log"))
        assert logs and all(ANSWER in log.read_text() for log in logs)
    finally:
        cluster.close()
        redis.stop()

"""Seed 002's knobs in the service: POST /search, the tier and budgets on POST /run,
?stream=true, and /metrics' search_failures_total."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("prometheus_client")

from test_service_api import TASK, Api, error_of, sse, stop_all  # noqa: E402

from research.service.search import SEARCH_TIME_MINUTES  # noqa: E402


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def api(isolated: Path, tmp_path: Path) -> AsyncIterator[Api]:
    client = Api(isolated, tmp_path / "gate")
    async with client.client:
        yield client
        await stop_all(client)


def state_of(api: Api, name: str) -> dict[str, Any]:
    path = api.config.root / ".research" / name / "state.json"
    return dict(json.loads(path.read_text(encoding="utf-8")))


@pytest.mark.anyio
async def test_search_answers_a_synthesis_response_within_its_time_budget(api: Api) -> None:
    started = time.monotonic()
    response = await api.client.post("/search", json={"task": TASK, "agent": "mock"})
    elapsed = time.monotonic() - started
    assert response.status_code == 200, response.text
    assert elapsed < SEARCH_TIME_MINUTES * 60
    result = response.json()
    assert set(result) == {"answer", "citations", "metadata"}
    assert result["citations"] and result["metadata"]["stop_reason"] == "all_topics_done"
    (name,) = [run["name"] for run in (await api.client.get("/runs")).json()["runs"]]
    assert name.startswith("search-heat-pumps-in-cold-climates-")
    state = state_of(api, name)
    config = state["config"]
    assert (config["tier"], config["tier_source"], config["depth"]) == ("simple", "user", 1)
    assert config["time_budget_minutes"] == SEARCH_TIME_MINUTES
    assert all(topic["depth"] == 0 for topic in state["plan"]["topics"])  # no subtopics
    report = (api.config.root / "reports" / name / "report.md").read_text(encoding="utf-8")
    assert result["answer"] == report


@pytest.mark.anyio
async def test_search_takes_the_requests_time_budget_and_name(api: Api) -> None:
    response = await api.client.post(
        "/search", json={"task": TASK, "agent": "mock", "time": 0.5, "name": "quick"}
    )
    assert response.status_code == 200, response.text
    assert state_of(api, "quick")["config"]["time_budget_minutes"] == 0.5
    again = await api.client.post("/search", json={"task": TASK, "agent": "mock", "name": "quick"})
    error_of(again, 409, "name_taken")


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"task": TASK, "depth": 2}, "depth"),
        ({"task": TASK, "time": "soon"}, "time"),
        ({"task": TASK, "max_cost": 0}, "max_cost"),
        ({"task": ""}, "task"),
    ],
)
async def test_a_bad_search_request_is_refused(api: Api, body: dict[str, Any], field: str) -> None:
    response = await api.client.post("/search", json={"agent": "mock", **body})
    error = error_of(response, 422, "validation_error")
    assert field in error["message"]


@pytest.mark.anyio
async def test_run_takes_the_tier_and_the_budgets(api: Api) -> None:
    response = await api.client.post(
        "/run",
        json={
            "task": TASK,
            "agent": "mock",
            "name": "t",
            "complexity_tier": "simple",
            "token_budget": 12000,
            "max_cost": 5.0,
        },
    )
    assert response.status_code == 200, response.text
    config = state_of(api, "t")["config"]
    assert (config["tier"], config["breadth"], config["depth"]) == ("simple", 2, 1)
    assert (config["token_budget"], config["max_cost"]) == (12000, 5.0)
    assert response.json()["metadata"]["stop_reason"] == "token_budget"
    assert "TOKEN BUDGET REACHED" in response.json()["answer"]


@pytest.mark.anyio
@pytest.mark.parametrize(
    "extra",
    [{"complexity_tier": "medium"}, {"token_budget": 0}, {"max_cost": -1}],
)
async def test_run_refuses_a_bad_tier_or_budget(api: Api, extra: dict[str, Any]) -> None:
    response = await api.client.post("/run", json={"task": TASK, "agent": "mock", **extra})
    error = error_of(response, 422, "validation_error")
    assert next(iter(extra)) in error["message"]


@pytest.mark.anyio
async def test_run_stream_sends_the_events_and_ends_with_the_synthesis_response(api: Api) -> None:
    response = await api.client.post(
        "/run?stream=true",
        json={"task": TASK, "agent": "mock", "name": "s", "complexity_tier": "simple"},
    )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    events = sse(response.text)
    assert events[-1]["event"] == "result"
    assert all(e.get("event") != "end" for e in events)
    logged = [
        json.loads(line)
        for line in (api.config.root / ".research" / "s" / "events.jsonl").read_text().splitlines()
    ]
    assert [e["data"] for e in events[:-1]] == logged
    result = await api.client.get("/runs/s/report", headers={"Accept": "application/json"})
    assert events[-1]["data"] == result.json()
    assert events[-1]["data"]["metadata"]["stop_reason"] == "all_topics_done"


@pytest.mark.anyio
async def test_run_stream_of_a_failed_run_ends_with_its_error(
    isolated: Path, tmp_path: Path
) -> None:
    """The job's agent moves the session directory away and links it back, so the run stops
    with exit 1: the stream ends with the ErrorResponse a waiting POST /run would get."""
    record = tmp_path / "record"
    record.mkdir()
    hostile = Path(__file__).parent / "fake_agents" / "hostile_agent.py"
    api = Api(isolated, tmp_path / "gate", agent_cmd=f"{sys.executable} {hostile}")
    assert api.config.env is not None
    api.config.env.update(
        HOSTILE_ACT="move_session",
        HOSTILE_PHASE="research",
        HOSTILE_NAME="failing",
        HOSTILE_RECORD=str(record),
    )
    async with api.client as client:
        response = await client.post(
            "/run?stream=true", json={"task": TASK, "name": "failing", "breadth": 1, "depth": 1}
        )
    assert response.status_code == 200
    events = sse(response.text)
    assert any(e.get("data", {}).get("type") == "run_start" for e in events)
    assert events[-1]["event"] == "error"
    error = events[-1]["data"]["error"]
    assert (error["type"], error["retryable"]) == ("run_failed", True)
    assert "POST /runs/failing/resume" in error["message"]


@pytest.mark.anyio
async def test_metrics_count_failed_research_calls_as_search_failures(
    api: Api, run_cli: Callable[..., Any], mock_script: Callable[..., Path]
) -> None:
    metrics = (await api.client.get("/metrics")).text
    assert "search_failures_total 0.0" in metrics
    assert "agent_call_failures_total 0.0" in metrics
    script = mock_script(faults=[{"action": "fail", "phase": "research", "calls": [1]}])
    result = run_cli(
        "--mock-mode", "--mock-script", str(script), "--name", "m", "--tier", "simple", TASK
    )
    assert result.exit_code == 0, result.output
    usage = state_of(api, "m")["usage"]
    failed = usage["phases"]["research"]["failures"]
    assert failed >= 1
    metrics = (await api.client.get("/metrics")).text
    assert f"search_failures_total {float(failed)}" in metrics
    assert f"agent_call_failures_total {float(usage['agent_failures'])}" in metrics


@pytest.mark.anyio
async def test_run_takes_the_seeds_per_request_limits(api: Api) -> None:
    """Seed 002 asks for max_queries, max_sources and max_execution_time_s per request: the
    CLI's --max-queries, --max-sources and its time budget in seconds."""
    response = await api.client.post(
        "/run",
        json={
            "task": TASK,
            "agent": "mock",
            "name": "limits",
            "breadth": 1,
            "depth": 1,
            "max_queries": 4,
            "max_sources": 5,
            "max_execution_time_s": 600,
        },
    )
    assert response.status_code == 200, response.text
    config = state_of(api, "limits")["config"]
    assert (config["searches"], config["max_sources"]) == (4, 5)
    assert config["time_budget_minutes"] == 10.0
    both = await api.client.post(
        "/run", json={"task": TASK, "agent": "mock", "time": 5, "max_execution_time_s": 600}
    )
    error = error_of(both, 422, "validation_error")
    assert "time and max_execution_time_s" in error["message"]


@pytest.mark.anyio
async def test_a_max_iterations_below_the_floor_is_raised_and_said(api: Api) -> None:
    """As the CLI does (seed 002: max_iters=1 runs and ends): the run raises it to the floor
    breadth^(depth+1)+5 and the response says so, at once (async) and with the result."""
    body = {"task": TASK, "agent": "mock", "breadth": 1, "depth": 1, "max_iterations": 1}
    response = await api.client.post("/run", json={**body, "name": "one"})
    assert response.status_code == 200, response.text
    metadata = response.json()["metadata"]
    assert metadata["max_iterations"] == 6 and metadata["stop_reason"]
    (warning,) = metadata["warnings"]
    assert "max_iterations 1" in warning and "6" in warning
    config = state_of(api, "one")["config"]
    assert (config["max_iterations"], config["requested_max_iterations"]) == (6, 1)
    queued = await api.client.post("/run?async=true", json={**body, "name": "two"})
    assert queued.status_code == 202, queued.text
    (said,) = queued.json()["warnings"]
    assert "raises it to 6" in said
    report = await api.client.get("/runs/one/report", headers={"Accept": "application/json"})
    assert report.json()["metadata"]["warnings"] == metadata["warnings"]

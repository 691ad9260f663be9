"""What a new user found in `research serve`: a chunked body over the limit, the 409
message, the metadata of a mock run, a queued job's topic, a stopped session's report,
`--port 0`, /docs offline, and the help and install hints."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("prometheus_client")

import httpx  # noqa: E402
from helpers import REPO, clean_env  # noqa: E402
from test_service_api import TASK, Api, error_of  # noqa: E402


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def api(isolated: Path, tmp_path: Path) -> AsyncIterator[Api]:
    client = Api(isolated, tmp_path / "gate", max_jobs=1)
    async with client.client:
        yield client
        await client.service.jobs.shutdown()


@pytest.mark.anyio
async def test_a_chunked_body_over_the_limit_gets_413(api: Api) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(100):
            yield b"x" * 1000

    response = await api.client.post(
        "/run", content=chunks(), headers={"Content-Type": "application/json"}
    )
    assert "content-length" not in {k.lower() for k in response.request.headers}
    error_of(response, 413, "payload_too_large")

    async def small_body() -> AsyncIterator[bytes]:
        yield b'{"task": ""}'

    small = await api.client.post("/run", content=small_body())
    error_of(small, 422, "validation_error")  # a small chunked body still reaches the app


@pytest.mark.anyio
async def test_a_mock_run_names_its_model_and_its_simulated_tokens_and_409_names_the_session(
    api: Api,
) -> None:
    body = {"task": TASK, "name": "m", "agent": "mock", "breadth": 1, "depth": 1}
    done = await api.client.post("/run", json=body)
    assert done.status_code == 200, done.text
    meta = done.json()["metadata"]
    assert meta["model"] == "mock (simulated)" and meta["review_model"] == "mock (simulated)"
    # The simulated agent reports simulated usage (issue 22), labelled by its model's name:
    # the count is the state's sum of it, not a number made up by the service.
    state = json.loads((api.config.root / ".research" / "m" / "state.json").read_text())
    usage = state["usage"]["phases"].values()
    assert meta["token_count"] == sum(u["input_tokens"] + u["output_tokens"] for u in usage) > 0
    assert (await api.client.get("/runs/m")).json()["model"] == "mock (simulated)"
    error = error_of(await api.client.post("/run", json=body), 409, "name_taken")
    assert "{name}" not in error["message"] and "/runs/m/resume" in error["message"]


@pytest.mark.anyio
async def test_a_queued_job_shows_its_topic_and_a_stopped_sessions_report_is_not_retryable(
    api: Api,
) -> None:
    await api.start_held("first")
    queued = await api.client.post(
        "/run?async=true", json={"task": "second question", "name": "second"}
    )
    assert queued.status_code == 202, queued.text
    detail = (await api.client.get("/runs/second")).json()
    assert detail["state"] == "queued" and detail["topic"] == "second question"

    running = error_of(await api.client.get("/runs/first/report"), 404, "report_not_ready")
    assert running["retryable"] is True
    await api.client.delete("/runs/second")
    await api.client.delete("/runs/first")
    await api.wait_state("first", "stopped")
    stopped = error_of(await api.client.get("/runs/first/report"), 404, "report_not_ready")
    assert stopped["retryable"] is False and "/runs/first/resume" in stopped["message"]


@pytest.mark.anyio
async def test_docs_do_not_load_from_the_network_and_openapi_stays(api: Api) -> None:
    assert (await api.client.get("/openapi.json")).status_code == 200
    for url in ("/docs", "/redoc"):
        error_of(await api.client.get(url), 404, "not_found")
    page = (await api.client.get("/")).text
    assert not re.search(r"""(src|href)=["']https?://""", page)


def test_serve_on_port_0_prints_the_port_it_listens_on(isolated: Path) -> None:
    with subprocess.Popen(
        [sys.executable, str(REPO / "research.py"), "serve", "--port", "0"],
        cwd=isolated,
        env=clean_env(PYTHONPATH=str(REPO)),
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        serve_and_stop(proc)
    assert proc.returncode == 0


def serve_and_stop(proc: subprocess.Popen[str]) -> None:
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert found and found.group(1) != "0", line
        health = httpx.get(f"http://127.0.0.1:{found.group(1)}/healthz", timeout=120)
        assert health.json()["status"] == "ok"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=120)


def test_help_mentions_serve_and_the_missing_extra_gives_both_install_forms(
    tmp_path: Path, isolated: Path
) -> None:
    helped = subprocess.run(
        [sys.executable, str(REPO / "research.py"), "--help"],
        capture_output=True,
        text=True,
        env=clean_env(PYTHONPATH=str(REPO)),
        timeout=60,
    )
    assert helped.returncode == 0 and "research serve" in helped.stdout
    hidden = tmp_path / "no-server"
    hidden.mkdir()
    (hidden / "uvicorn.py").write_text("raise ImportError('no uvicorn', name='uvicorn')\n")
    done = subprocess.run(
        [sys.executable, str(REPO / "research.py"), "serve"],
        capture_output=True,
        text=True,
        cwd=isolated,
        env=clean_env(PYTHONPATH=os.pathsep.join([str(hidden), str(REPO)])),
        timeout=60,
    )
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert 'pip install "research-py[server]"' in line and 'pip install -e ".[server]"' in line

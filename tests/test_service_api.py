"""`research serve`'s API, through httpx against the ASGI app: every endpoint, every error.

Jobs are real child `research` processes: mock jobs (fast), and jobs of a gated fake agent
(tests/fake_agents/gated_agent.py) that wait while a gate file exists, to be caught mid-run.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("prometheus_client")

import anyio  # noqa: E402
import httpx  # noqa: E402

from research.service.app import ServiceConfig, create_app  # noqa: E402

GATED = Path(__file__).parent / "fake_agents" / "gated_agent.py"
TASK = "heat pumps in cold climates"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Api:
    def __init__(self, root: Path, gate: Path, **options: Any) -> None:
        env = {**os.environ, "GATED_AGENT_FILE": str(gate)}
        options.setdefault("agent_cmd", f"{sys.executable} {GATED}")
        self.config = ServiceConfig(root=root, env=env, poll_seconds=0.02, **options)
        self.app = create_app(self.config)
        self.service = self.app.state.service
        self.gate = gate
        self.client = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=self.app), base_url="http://test"
        )

    async def wait_state(self, name: str, *states: str, within: float = 120.0) -> dict[str, Any]:
        deadline = time.monotonic() + within
        while True:
            body = (await self.client.get(f"/runs/{name}")).json()
            if body.get("state") in states:
                return body
            assert time.monotonic() < deadline, f"{name} stayed {body.get('state')}"
            await anyio.sleep(0.05)

    async def wait_call_in_flight(self, within: float = 120.0) -> None:
        waiting = Path(f"{self.gate}.waiting")
        deadline = time.monotonic() + within
        while not waiting.exists():
            assert time.monotonic() < deadline, "no agent call reached the gate"
            await anyio.sleep(0.02)

    async def start_held(self, name: str, **request: Any) -> None:
        """POST an asynchronous run `name` (breadth 1, depth 1; `request` adds to its body)
        and wait until its first agent call is held at the gate."""
        self.gate.touch()
        response = await self.client.post(
            "/run?async=true",
            json={"task": TASK, "name": name, "breadth": 1, "depth": 1, **request},
        )
        assert response.status_code == 202, response.text
        await self.wait_call_in_flight()


@pytest.fixture
async def api(isolated: Path, tmp_path: Path) -> AsyncIterator[Api]:
    client = Api(isolated, tmp_path / "gate")
    async with client.client:
        yield client
        await stop_all(client)


async def stop_all(api: Api) -> None:
    api.gate.unlink(missing_ok=True)
    for job in list(api.service.jobs.jobs.values()):
        if job.process is not None and job.process.returncode is None:
            job.process.kill()
            await job.process.wait()


def error_of(response: httpx.Response, status: int, kind: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"type", "message", "retryable"}
    assert body["error"]["type"] == kind, body
    return dict(body["error"])


def sse(text: str) -> list[dict[str, Any]]:
    """The events of an SSE body: [{id, event, data}]."""
    out = []
    for block in text.split("\n\n"):
        fields: dict[str, Any] = {}
        for line in block.splitlines():
            if line.startswith(":") or ":" not in line:
                continue
            key, value = line.split(":", 1)
            fields[key] = value.strip()
        if "data" in fields:
            fields["data"] = json.loads(fields["data"])
            out.append(fields)
    return out


# --- a whole mock job -------------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_mock_job_over_every_read_endpoint(api: Api) -> None:
    client = api.client
    assert (await client.get("/healthz")).json()["status"] == "ok"
    response = await client.post(
        "/run", json={"task": TASK, "agent": "mock", "breadth": 2, "depth": 1, "name": "heat"}
    )
    assert response.status_code == 200, response.text
    result = response.json()
    # Seed 002 §5.3: answer, citations with id/title/type/location, metadata.
    report = (api.config.root / "reports" / "heat" / "report.md").read_text(encoding="utf-8")
    assert result["answer"] == report
    assert result["citations"], "the mock report cites sources"
    first = result["citations"][0]
    assert first["id"] == "[1]" and first["type"] == "web"
    assert first["location"].startswith("https://") and first["title"]
    assert f"[{first['id'][1:-1]}]" in report
    state = json.loads((api.config.root / ".research" / "heat" / "state.json").read_text())
    meta = result["metadata"]
    assert meta["model"] == "mock (simulated)"  # the simulated agent uses no model
    assert meta["iterations"] == state["progress"]["iteration"] > 0
    assert meta["stop_reason"] == state["progress"]["stop_reason"]
    # The simulated agent reports simulated usage; the metadata sums it.
    tokens = sum(u["input_tokens"] + u["output_tokens"] for u in state["usage"]["phases"].values())
    assert meta["timestamp"].startswith("20") and meta["token_count"] == tokens > 0

    runs = (await client.get("/runs")).json()["runs"]
    assert [(r["name"], r["state"], r["report"]) for r in runs] == [("heat", "done", True)]
    detail = (await client.get("/runs/heat")).json()
    assert detail["phase"] == "done" and detail["topic"] == TASK
    assert detail["iteration"] == state["progress"]["iteration"]
    assert detail["max_iterations"] == state["config"]["max_iterations"]
    assert len(detail["topics"]) == len(state["plan"]["topics"])
    assert {t["status"] for t in detail["topics"]} <= {"Complete", "Skipped", "Exhausted"}
    assert detail["last_decision"]["topic"]
    assert detail["agent_calls"] == state["usage"]["agent_calls"] > 0
    assert detail["lock"]["state"] == "none" and detail["seconds_left"] is None

    markdown = await client.get("/runs/heat/report")
    assert markdown.headers["content-type"].startswith("text/markdown")
    assert markdown.text == report
    as_json = await client.get("/runs/heat/report", headers={"Accept": "application/json"})
    assert as_json.json() == result
    # The same as downloads (a link cannot set Accept), and the report.html of the session.
    assert (await client.get("/runs/heat/report?format=json")).json() == result
    as_md = await client.get("/runs/heat/report?format=md", headers={"Accept": "application/json"})
    assert as_md.text == report
    html = await client.get("/runs/heat/report?format=html")
    assert html.headers["content-type"].startswith("text/html")
    assert html.text == (api.config.root / "reports" / "heat" / "report.html").read_text()
    assert "default-src 'none'" in html.headers["content-security-policy"]
    assert (await client.get("/runs/heat/report?format=xls")).status_code == 422
    not_asked = await client.get("/runs/heat/report?format=pdf")  # written with export only
    assert "report.pdf" in error_of(not_asked, 404, "report_not_ready")["message"]
    assert (await client.get("/healthz")).json()["local_sources"] is True

    events_file = api.config.root / ".research" / "heat" / "events.jsonl"
    stream = await client.get("/runs/heat/events")
    assert stream.headers["content-type"].startswith("text/event-stream")
    events = sse(stream.text)
    logged = [json.loads(line) for line in events_file.read_text().splitlines()]
    assert [e["data"] for e in events[:-1]] == logged
    assert events[-1]["event"] == "end" and events[-1]["data"] == {"state": "done"}
    # Each id is a byte offset: reconnecting with Last-Event-ID gives exactly the rest.
    middle = events[len(events) // 2]
    rest = sse(
        (await client.get("/runs/heat/events", headers={"Last-Event-ID": middle["id"]})).text
    )
    assert [e["data"] for e in rest[:-1]] == logged[len(events) // 2 + 1 :]
    by_offset = sse((await client.get(f"/runs/heat/events?offset={middle['id']}")).text)
    assert by_offset == rest

    metrics = (await client.get("/metrics")).text
    assert 'research_jobs{state="done"} 1.0' in metrics
    assert "research_loop_duration_seconds_count 1.0" in metrics
    assert f"iterations_per_request_sum {float(meta['iterations'])}" in metrics
    assert "agent_call_failures_total 0.0" in metrics
    assert 'research_tokens_total{kind="input"}' in metrics
    assert "research_cost_dollars_total" in metrics

    page = await client.get("/")
    assert page.status_code == 200 and "<form" in page.text and "EventSource" in page.text
    docs = await client.get("/openapi.json")
    paths = docs.json()["paths"]
    assert {
        "/run",
        "/runs",
        "/runs/{name}",
        "/runs/{name}/report",
        "/runs/{name}/events",
        "/runs/{name}/resume",
        "/metrics",
        "/healthz",
    } <= set(paths)
    assert (await client.get("/docs")).status_code == 404  # Swagger UI needs a CDN: not served
    # /events (the session list stream) never ends: tests/test_service_e2e.py reads it.


@pytest.mark.anyio
async def test_async_run_answers_202_then_finishes(api: Api) -> None:
    response = await api.client.post(
        "/run?async=true", json={"task": TASK, "agent": "mock", "breadth": 1, "depth": 1}
    )
    assert response.status_code == 202, response.text
    body = response.json()
    name = "heat-pumps-in-cold-climates"
    assert body == {
        "job_id": name,
        "name": name,
        "status": "running",
        "status_url": f"/runs/{name}",
        "warnings": [],
    }
    done = await api.wait_state(name, "done")
    assert done["report"] is True


@pytest.mark.anyio
async def test_citations_carry_the_source_checks_outcome(isolated: Path, tmp_path: Path) -> None:
    """With the source check on (the mock serves a simulated web, offline), each citation
    of the SynthesisResponse has its verification outcome from verification.json."""
    api = Api(isolated, tmp_path / "gate")
    assert api.config.env is not None
    api.config.env["RESEARCH_VERIFY_SOURCES"] = "1"
    async with api.client as client:
        response = await client.post(
            "/run", json={"task": TASK, "agent": "mock", "breadth": 2, "depth": 1, "name": "v"}
        )
        assert response.status_code == 200, response.text
    checked = json.loads((isolated / ".research" / "v" / "verification.json").read_text())
    outcomes = {f"[{entry['id']}]": entry["outcome"] for entry in checked["citations"]}
    citations = response.json()["citations"]
    assert citations and {c["id"]: c["verification"] for c in citations} == outcomes


@pytest.mark.anyio
async def test_a_run_that_fails_answers_502_and_stays_resumable(
    isolated: Path, tmp_path: Path
) -> None:
    """The job's research process ends with exit 1 (here: its agent moved the session
    directory away and linked it back, so the run stops at once). A waiting POST /run gets
    502 run_failed, retryable, with the run's own line and how to resume it."""
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
            "/run", json={"task": TASK, "name": "failing", "breadth": 1, "depth": 1}
        )
        error = error_of(response, 502, "run_failed")
        assert error["retryable"] is True
        assert "symbolic link" in error["message"], error
        assert not error["message"].startswith("research"), error  # not the CLI's prefix
        assert "POST /runs/failing/resume" in error["message"], error
        body = (await client.get("/runs/failing")).json()
        assert body["exit_code"] == 1, body


# --- stop, resume, the queue ----------------------------------------------------------------


@pytest.mark.anyio
async def test_delete_mid_run_then_resume(api: Api) -> None:
    client = api.client
    await api.start_held("slow")
    running = await api.wait_state("slow", "running")
    assert running["lock"]["state"] == "live"
    # The job runs niced, and so does its scheduling group (it is a session leader).
    pid = running["lock"]["pid"]
    assert os.getpriority(os.PRIO_PROCESS, pid) == min(19, os.getpriority(os.PRIO_PROCESS, 0) + 10)
    autogroup = Path(f"/proc/{pid}/autogroup")
    if autogroup.exists():
        assert autogroup.read_text().split()[-1] == "10"
    error_of(await client.post("/runs/slow/resume"), 409, "locked")
    error_of(await client.post("/run", json={"task": TASK, "name": "slow"}), 409, "name_taken")
    stopped = await client.delete("/runs/slow")
    assert stopped.status_code == 202 and stopped.json()["status"] == "stopping"
    body = await api.wait_state("slow", "stopped")
    assert body["exit_code"] == 143 and body["lock"]["state"] == "none"
    error_of(await client.delete("/runs/slow"), 409, "not_running")
    api.gate.unlink()
    resumed = await client.post("/runs/slow/resume")
    assert resumed.status_code == 202, resumed.text
    done = await api.wait_state("slow", "done")
    assert done["report"] and done["exit_code"] == 0
    ends = [
        json.loads(line)
        for line in (api.config.root / ".research/slow/events.jsonl").read_text().splitlines()
        if '"run_end"' in line
    ]
    assert [e["outcome"] for e in ends] == ["interrupted", "complete"]
    error_of(await client.post("/runs/slow/resume"), 409, "already_complete")


@pytest.mark.anyio
async def test_max_jobs_queues_to_a_bound_then_answers_429(isolated: Path, tmp_path: Path) -> None:
    root = isolated
    api = Api(root, tmp_path / "gate", max_jobs=1, max_queue=1)
    api.gate.touch()
    async with api.client as client:
        try:
            first = await client.post(
                "/run?async=true", json={"task": "one", "depth": 1, "breadth": 1}
            )
            assert first.json()["status"] == "running"
            second = await client.post("/run?async=true", json={"task": "two", "agent": "mock"})
            assert second.status_code == 202 and second.json()["status"] == "queued"
            assert (await client.get("/runs/two")).json()["state"] == "queued"
            third = await client.post("/run?async=true", json={"task": "three"})
            assert error_of(third, 429, "too_many_jobs")["retryable"] is True
            assert not (root / ".research" / "three").exists()
            # A queued job can be cancelled; it never ran.
            assert (await client.delete("/runs/two")).json()["status"] == "cancelled"
            assert not (root / ".research" / "two").exists()
        finally:
            await stop_all(api)


# --- errors -------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_every_error_is_an_error_response_with_its_status(api: Api, tmp_path: Path) -> None:
    client = api.client
    error_of(
        await client.post(
            "/run", content=b"{not json", headers={"Content-Type": "application/json"}
        ),
        400,
        "bad_request",
    )
    error_of(
        await client.post("/run", json={"task": TASK, "name": "Bad Name"}), 400, "invalid_name"
    )
    error_of(await client.get("/runs/..."), 400, "invalid_name")
    error_of(await client.get("/runs/a%2F..%2Fb"), 404, "not_found")
    for body, where in [
        ({"task": TASK, "breadth": 0}, "breadth"),
        ({"task": TASK, "depth": 99}, "depth"),
        ({"task": TASK, "parallel": 9}, "parallel"),
        ({"task": ""}, "task"),
        ({"task": TASK, "time": "soon"}, "time"),
        ({"task": TASK, "time": "-5"}, "time"),
        ({"task": TASK, "agent": "bash"}, "agent"),
        ({"task": TASK, "colour": "blue"}, "colour"),
        ({"task": TASK, "sources": ["/etc"]}, "sources"),
        ({"task": TASK, "sources": ["../.."]}, "sources"),
        ({"task": TASK, "sources": ["no-such-folder"]}, "sources"),
        ({}, "task"),
    ]:
        error = error_of(await client.post("/run", json=body), 422, "validation_error")
        assert error["message"].startswith(where), error
    for method, url in [
        ("GET", "/runs/nope"),
        ("GET", "/runs/nope/report"),
        ("GET", "/runs/nope/events"),
        ("POST", "/runs/nope/resume"),
        ("DELETE", "/runs/nope"),
        ("GET", "/no/such/endpoint"),
    ]:
        error_of(await client.request(method, url), 404, "not_found")
    error_of(
        await client.post(
            "/run", content=b"x" * 100_000, headers={"Content-Type": "application/json"}
        ),
        413,
        "payload_too_large",
    )
    assert not (api.config.root / ".research").exists()

    # 503: the agent's executable is missing (nothing is started).
    missing = Api(api.config.root, api.gate, agent_cmd="no-such-agent-binary-here --x")
    async with missing.client:
        error = error_of(
            await missing.client.post("/run", json={"task": TASK}), 503, "agent_unavailable"
        )
        assert "no-such-agent-binary-here" in error["message"] and error["retryable"]
    assert not (api.config.root / ".research").exists()

    # 404 report not ready, 409 locked: a session whose lock a live process holds.
    await api.start_held("held")
    error_of(await client.get("/runs/held/report"), 404, "report_not_ready")
    # A job of an earlier server: not ours, but locked by a live research process.
    other = Api(api.config.root, api.gate)
    async with other.client:
        assert (await other.client.get("/runs/held")).json()["state"] == "running"
        error_of(await other.client.post("/runs/held/resume"), 409, "locked")
        error_of(
            await other.client.post("/run", json={"task": TASK, "name": "held"}), 409, "name_taken"
        )
        # ... which it may stop: the lock's pid is checked to be a research process here.
        assert (await other.client.delete("/runs/held")).json()["status"] == "stopping"
    body = await api.wait_state("held", "stopped")
    assert body["exit_code"] == 143


@pytest.mark.anyio
async def test_the_token_guards_every_endpoint_but_healthz(tmp_path: Path) -> None:
    api = Api(tmp_path, tmp_path / "gate", token="s3cret")
    async with api.client as client:
        assert (await client.get("/healthz")).status_code == 200
        for url in ["/", "/runs", "/runs/x", "/metrics", "/docs", "/openapi.json", "/events"]:
            error_of(await client.get(url), 401, "unauthorized")
            error_of(
                await client.get(url, headers={"Authorization": "Bearer wrong"}),
                401,
                "unauthorized",
            )
        error_of(await client.post("/run", json={"task": TASK}), 401, "unauthorized")
        good = {"Authorization": "Bearer s3cret"}
        assert (await client.get("/runs", headers=good)).json() == {"runs": []}
        assert (await client.get("/runs?token=s3cret")).status_code == 200  # EventSource
        assert (await client.get("/metrics", headers=good)).status_code == 200


# --- serving many readers -----------------------------------------------------------------------


@pytest.mark.anyio
async def test_sse_clients_of_one_session_share_one_feed(api: Api) -> None:
    """Every client following a session is fed by one reader of its log; a client that
    reconnects with Last-Event-ID gets exactly the rest; all end with `event: end`."""
    import asyncio

    client = api.client
    await api.start_held("fan")
    log = api.config.root / ".research" / "fan" / "events.jsonl"
    first = len(log.read_bytes().split(b"\n", 1)[0]) + 1
    followers = [
        asyncio.create_task(client.get("/runs/fan/events")),
        asyncio.create_task(client.get("/runs/fan/events")),
        asyncio.create_task(client.get("/runs/fan/events", headers={"Last-Event-ID": str(first)})),
    ]
    feeds = api.service.feeds.feeds
    deadline = time.monotonic() + 120  # a hang guard, not a speed test
    while "fan" not in feeds or len(feeds["fan"].queues) < 3:
        assert time.monotonic() < deadline, "the followers did not subscribe"
        await anyio.sleep(0.02)
    assert list(feeds) == ["fan"]
    api.gate.unlink()
    streams = [sse(r.text) for r in await asyncio.gather(*followers)]
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["data"] for e in streams[0][:-1]] == logged
    assert streams[1] == streams[0]
    assert [e["data"] for e in streams[2][:-1]] == logged[1:]
    for events in streams:
        assert events[-1]["event"] == "end" and events[-1]["data"] == {"state": "done"}
        ids = [int(e["id"]) for e in events]
        assert ids == sorted(ids) and ids[-1] == log.stat().st_size
    assert feeds["fan"].closed and not feeds["fan"].queues


@pytest.mark.anyio
async def test_views_follow_the_files_at_once(api: Api) -> None:
    """GET /runs/{name} answers from a cache, keyed by the files it reads: a new state.json
    or lock file shows in the very next answer."""
    client = api.client
    response = await client.post(
        "/run", json={"task": TASK, "agent": "mock", "breadth": 1, "depth": 1, "name": "fresh"}
    )
    assert response.status_code == 200, response.text
    before = await client.get("/runs/fresh")
    assert before.json()["state"] == "done"
    assert (await client.get("/runs/fresh")).content == before.content
    session = api.config.root / ".research" / "fresh"
    state = json.loads((session / "state.json").read_text())
    state["progress"]["iteration"] += 1
    replacement = session / "state.json.new"  # as the CLI writes it: a new file, renamed
    replacement.write_text(json.dumps(state))
    os.replace(replacement, session / "state.json")
    after = (await client.get("/runs/fresh")).json()
    assert after["iteration"] == before.json()["iteration"] + 1
    assert after["updated"] >= before.json()["updated"]
    lock = {
        "lock_token": "t",
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "created": time.time(),
        "heartbeat": time.time(),
    }
    (session / "research.lock.json").write_text(json.dumps(lock))
    held = (await client.get("/runs/fresh")).json()
    assert held["state"] == "running" and held["lock"]["state"] == "live"
    assert held["lock"]["pid"] == os.getpid()
    assert (await client.get("/runs")).json()["runs"][0]["state"] == "running"
    (session / "research.lock.json").unlink()
    assert (await client.get("/runs/fresh")).json()["lock"]["state"] == "none"
    assert (await client.get("/runs")).json()["runs"][0]["state"] == "done"


def test_events_are_whole_object_lines_and_nothing_stalls_a_follower(tmp_path: Path) -> None:
    from research.service.event_files import events_from

    log = tmp_path / "events.jsonl"
    lines = [b'{"a": 1}', b'{"b": "x\ry"}', b"not json", b'{"c": 3}']
    log.write_bytes(b"\n".join(lines) + b"\n" + b'{"partial"')
    events, offset = events_from(log, 0)
    assert [text for _, text in events] == ['{"a": 1}', '{"c": 3}']
    assert offset == log.stat().st_size - len(b'{"partial"')  # left for the next read
    assert events[-1][0] == offset
    assert events_from(log, offset) == ([], offset)
    # A line longer than a read is skipped, not waited for forever.
    log.write_bytes(b'{"long": "' + b"x" * 100 + b'"}\n{"d": 4}\n')
    events, offset = events_from(log, 0, limit=50)
    assert events == [] and offset == 50
    events, offset = events_from(log, offset, limit=50)
    assert events == [] and offset == 100
    events, offset = events_from(log, offset)
    assert [text for _, text in events] == ['{"d": 4}'] and offset == log.stat().st_size
    assert events_from(log, offset + 5)[1] == offset  # the log was replaced: from the start


@pytest.mark.anyio
async def test_a_client_that_does_not_keep_up_is_let_go(tmp_path: Path) -> None:
    """Its stream ends (its EventSource reconnects with Last-Event-ID), rather than the
    server queueing for it without bound."""
    from research.service.feeds import MAX_PENDING, Feed

    log = tmp_path / "events.jsonl"
    log.write_bytes(b"")
    feed = Feed(log, lambda: True, lambda: "running", poll_seconds=60, heartbeat_seconds=60)
    slow, _ = feed.subscribe()
    with log.open("ab") as handle:
        for index in range(MAX_PENDING + 1):
            handle.write(b'{"n": %d}\n' % index)
            handle.flush()
            feed.read()
    assert slow not in feed.queues
    assert slow.qsize() == MAX_PENDING + 1
    drained = [slow.get_nowait() for _ in range(MAX_PENDING + 1)]
    assert drained[-1] is None


# --- the server's start -----------------------------------------------------------------------


@pytest.mark.anyio
async def test_resume_running_resumes_what_was_running(api: Api) -> None:
    client = api.client
    await api.start_held("again")
    assert (await client.delete("/runs/again")).status_code == 202
    await api.wait_state("again", "stopped")
    api.gate.unlink()
    # A new server over the same directory: with --resume-running, it resumes the session.
    fresh = Api(api.config.root, api.gate, resume_running=True)
    try:
        async with fresh.client, fresh.app.router.lifespan_context(fresh.app):
            job = fresh.service.jobs.jobs["again"]
            assert "--resume" in job.argv
            done = await fresh.wait_state("again", "done")
            assert done["report"] and done["exit_code"] == 0
    finally:
        await stop_all(fresh)


def test_serve_refuses_a_non_loopback_bind_without_a_token(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from research.service.serve import is_loopback, main

    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("example.org")
    assert main(["--host", "0.0.0.0"]) == 2
    assert "RESEARCH_API_TOKEN" in capsys.readouterr().err
    assert main(["--port", "70000"]) == 2
    assert main(["--max-jobs", "0"]) == 2
    assert main(["--workdir", str(tmp_path / "missing")]) == 2
    assert "is not a directory" in capsys.readouterr().err


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["", "?async=true"])
@pytest.mark.parametrize(
    ("body", "where", "says"),
    [
        ({"max_iterations": 10**12}, "max_iterations", "1000000"),
        ({"max_iterations": 0}, "max_iterations", "1"),
        ({"breadth": "2"}, "breadth", "integer"),
        ({"breadth": True}, "breadth", "integer"),
        ({"depth": 1.5}, "depth", "integer"),
        ({"parallel": "2"}, "parallel", "integer"),
        ({"max_iterations": "40"}, "max_iterations", "integer"),
        ({"time": True}, "time", ""),
    ],
)
async def test_bad_numbers_are_refused_before_anything_starts(
    api: Api, mode: str, body: dict[str, Any], where: str, says: str
) -> None:
    """The CLI's bounds and strict numbers: a 422 of its own, also for an asynchronous run,
    and no job (not even a failed one) left behind in /runs. (A max_iterations below the
    floor is raised to it, as the CLI does: test_option_paths.py.)"""
    response = await api.client.post(
        f"/run{mode}", json={"task": TASK, "agent": "mock", "name": "bad", **body}
    )
    error = error_of(response, 422, "validation_error")
    assert error["message"].startswith(where), error
    assert says in error["message"], error
    assert "--" not in error["message"], error  # the request's field, not the CLI's flag
    assert (await api.client.get("/runs")).json() == {"runs": []}
    assert not api.service.jobs.jobs
    assert not (api.config.root / ".research").exists()


@pytest.mark.anyio
async def test_the_request_options_reach_the_child_as_the_cli_flags(api: Api) -> None:
    """Each option of the request becomes the CLI's flag, with the value the CLI reads back."""
    await api.start_held(
        "flags",
        max_iterations=40,
        time="90",
        model="m/one",
        review_model="m/two",
        parallel=2,
    )
    argv = api.service.jobs.jobs["flags"].argv
    pairs = {argv[at]: argv[at + 1] for at in range(len(argv) - 1) if argv[at].startswith("--")}
    assert pairs["--breadth"] == "1" and pairs["--depth"] == "1"
    assert pairs["--max-iterations"] == "40" and pairs["--time"] == "90"
    assert pairs["--model"] == "m/one" and pairs["--review-model"] == "m/two"
    assert pairs["--parallel"] == "2"


@pytest.mark.anyio
async def test_sources_are_folders_inside_the_working_directory(api: Api) -> None:
    from research.core.settings import Settings

    if "source_dirs" not in Settings.model_fields:
        pytest.skip("this version of the CLI has no --sources")
    docs = api.config.root / "docs"
    docs.mkdir()
    (docs / "notes.md").write_text("# Notes\n\nHeat pumps work at -20 C.\n")
    await api.start_held("local", sources=["docs"])
    argv = api.service.jobs.jobs["local"].argv
    assert argv[argv.index("--sources") + 1] == str(docs.resolve())

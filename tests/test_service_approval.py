"""Plan approval through the service: POST /run with approve_plan ends the job awaiting
approval, GET /runs/{name} shows the plan and its open questions, POST /runs/{name}/approve
continues it (a plan that cannot be used: 422 and nothing changed); and the page's editor
and Approve button in headless Chromium."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("prometheus_client")

from conftest import REPO  # noqa: E402
from test_service_api import TASK, Api, error_of  # noqa: E402
from test_service_e2e import CHROMIUM, Server  # noqa: E402

SMALL = {"agent": "mock", "breadth": 1, "depth": 1}
ANSWER = "only the winters since 2015"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def api(
    isolated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Api]:
    monkeypatch.setenv("PYTHONPATH", str(REPO))  # the jobs run this checkout's code
    client = Api(isolated, tmp_path / "gate")
    async with client.client:
        yield client
        await client.service.jobs.shutdown()


@pytest.mark.anyio
async def test_a_plan_is_shown_refused_when_broken_and_approved_with_edits(api: Api) -> None:
    stopped = await api.client.post(
        "/run", json={"task": TASK, "name": "hp", "approve_plan": True, **SMALL}
    )
    assert stopped.status_code == 202, stopped.text
    assert stopped.json()["status"] == "awaiting_approval"
    shown = (await api.client.get("/runs/hp")).json()
    assert shown["state"] == "awaiting_approval"
    assert "Which period" in shown["open_questions"] and "## Topics" in shown["plan"]
    plan_file = api.config.root / ".research" / "hp" / "research_plan.md"
    before = plan_file.read_bytes()
    broken = await api.client.post("/runs/hp/approve", json={"plan": "# Research Plan\n"})
    message = error_of(broken, 422, "invalid_plan")["message"]
    assert "cannot be used" in message and "still awaits approval" in message
    assert plan_file.read_bytes() == before
    assert (await api.client.get("/runs/hp")).json()["state"] == "awaiting_approval"
    old = shown["topics"][0]["name"]
    edited = shown["plan"].replace(f"### {old} ", "### Defrost cycles in subzero air ")
    approved = await api.client.post("/runs/hp/approve", json={"plan": edited, "answers": ANSWER})
    assert approved.status_code == 202, approved.text
    done = await api.wait_state("hp", "done", within=120)
    assert [topic["name"] for topic in done["topics"]] == ["Defrost cycles in subzero air"]
    assert done["plan"] is None and ANSWER in done["open_questions"]
    report = (await api.client.get("/runs/hp/report")).text
    assert "Defrost cycles in subzero air" in report
    again = await api.client.post("/runs/hp/approve", json={})
    assert "is not awaiting approval" in error_of(again, 409, "not_awaiting_approval")["message"]
    unknown = await api.client.post("/runs/hp/approve", json={"plan": "x", "colour": "blue"})
    assert unknown.status_code == 422


@pytest.fixture
def server(isolated: Path, tmp_path: Path) -> Iterator[Server]:
    srv = Server(isolated, tmp_path / "gate")
    srv.start()
    yield srv
    srv.stop()
    for lock in isolated.glob(".research/*/research.lock.json"):  # jobs outlive the server
        try:
            os.kill(json.loads(lock.read_text())["pid"], signal.SIGKILL)
        except (OSError, ValueError, KeyError):
            pass


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium installed")
def test_the_page_shows_the_plan_its_questions_an_editor_and_approves(
    server: Server, tmp_path: Path
) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    assert CHROMIUM is not None
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"],
        )  # fmt: skip
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1100})
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.goto(server.url + "/")
            page.wait_for_selector("#conn-dot.live", timeout=120_000)
            page.fill("#f-task", "heat pumps in cold climates")
            page.fill("#f-breadth", "1")
            page.fill("#f-depth", "1")
            page.select_option("#f-agent", "mock")
            page.check("#f-approve")
            page.click("#f-submit")
            page.wait_for_selector("#d-approval:not(.hidden)", timeout=120_000)
            assert "Which period" in page.inner_text("#d-questions")
            plan = page.input_value("#d-plan")
            assert "## Topics" in plan
            first = plan.split("### ", 1)[1].split(" (Depth", 1)[0]
            page.fill(
                "#d-plan", plan.replace(f"### {first} ", "### Defrost cycles in subzero air ")
            )
            page.fill("#d-answers", ANSWER)
            page.screenshot(path=str(tmp_path / "approval.png"), full_page=True)
            page.fill("#d-plan", "# Research Plan\n")  # broken: refused, still awaiting
            page.click("#d-approve")
            page.wait_for_selector("#d-approve-msg.error", timeout=120_000)
            assert "cannot be used" in page.inner_text("#d-approve-msg")
            page.fill(
                "#d-plan", plan.replace(f"### {first} ", "### Defrost cycles in subzero air ")
            )
            page.click("#d-approve")
            page.wait_for_selector("#d-report:not(.hidden)", timeout=120_000)
            assert page.locator("#d-approval").is_hidden()
            assert "Defrost cycles in subzero air" in page.inner_text("#d-tree")
            expected = "the server responded with a status of 422"  # the broken plan's answer
            assert [e for e in errors if expected not in e] == [], errors
        finally:
            browser.close()


@pytest.mark.anyio
async def test_a_streamed_run_ends_with_the_awaiting_approval_event(api: Api) -> None:
    body = {"task": TASK, "name": "st", "approve_plan": True, **SMALL}
    async with api.client.stream("POST", "/run?stream=true", json=body) as response:
        assert response.status_code == 200
        text = "".join([chunk async for chunk in response.aiter_text()])
    last = text.strip().split("\n\n")[-1]
    assert last.startswith("event: awaiting_approval") and '"name": "st"' in last, last

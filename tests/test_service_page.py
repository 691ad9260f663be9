"""The service's page as a person uses it, in headless Chromium: the form (its agent and tier
choices from the enum and the option table, nothing clipped), the topic tree drawn from the
topics' parents, readable events with true durations, simulated usage labelled, the card in
step with the detail, and a citation's popover that opens in view at 1280 and 390 px.
Also, through the API: a job stopped before its first save, and the missing agent's message."""

from __future__ import annotations

import re
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("prometheus_client")

from test_service_api import Api, error_of  # noqa: E402
from test_service_e2e import CHROMIUM, Server  # noqa: E402

from research.core.options import OPTION  # noqa: E402
from research.service.routes import page_html  # noqa: E402
from research.workspace.events import EVENT_TYPES  # noqa: E402

BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip
SHOTS = Path(__file__).resolve().parent.parent / ".page-shots"
"""Where the screenshots go when PAGE_SHOTS=1 (to look at them); otherwise the test's tmp."""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_every_event_type_has_words_on_the_page() -> None:
    page = page_html()
    table = page.split("const EVENT_TEXT = {", 1)[1].split("\n};", 1)[0]
    worded = set(re.findall(r"(\w+): \(", table))
    assert EVENT_TYPES - worded == set()


def test_the_forms_choices_come_from_the_enum_and_the_option_table() -> None:
    page = page_html()
    tier = OPTION["tier"]
    select = re.search(r'<select id="f-tier" name="([^"]+)">(.*?)</select>', page)
    assert select is not None and select.group(1) == tier.request_field
    assert re.findall(r'<option value="(\w+)">', select.group(2)) == list(tier.values or ())
    agents = re.search(r'<select id="f-agent" name="agent">(.*?)</select>', page)
    assert agents is not None
    from research.core.agentkind import AgentKind

    assert re.findall(r'<option value="(\w+)">', agents.group(1)) == [k.value for k in AgentKind]


@pytest.fixture
async def slow_start(isolated: Path, tmp_path: Path) -> AsyncIterator[Api]:
    """The API whose jobs wait at a gate before `research` starts: a job can be stopped
    before it saved anything."""
    starter = tmp_path / "start_gate.py"
    starter.write_text(
        "import os, runpy, sys, time\n"
        "gate = sys.argv.pop(1)\n"
        "open(gate + '.waiting', 'w').close()\n"
        "while os.path.exists(gate):\n"
        "    time.sleep(0.02)\n"
        "runpy.run_module('research', run_name='__main__', alter_sys=True)\n"
    )
    gate = tmp_path / "start"
    client = Api(isolated, gate, cli=(sys.executable, str(starter), str(gate)))
    async with client.client:
        yield client
        gate.unlink(missing_ok=True)
        for job in list(client.service.jobs.jobs.values()):
            if job.process is not None and job.process.returncode is None:
                job.process.kill()
                await job.process.wait()


@pytest.mark.anyio
async def test_a_job_stopped_before_its_first_save_is_stopped_and_resumes(
    slow_start: Api,
) -> None:
    api = slow_start
    api.gate.touch()
    body = {"task": "tidal power", "name": "tidal", "agent": "mock", "breadth": 1, "depth": 1}
    assert (await api.client.post("/run?async=true", json=body)).status_code == 202
    await api.wait_call_in_flight()
    assert (await api.client.delete("/runs/tidal")).status_code == 202
    stopped = await api.wait_state("tidal", "stopped", "failed")
    assert stopped["state"] == "stopped" and stopped["exit_code"] == 143
    report = error_of(await api.client.get("/runs/tidal/report"), 404, "report_not_ready")
    assert "is stopped; resume it with POST /runs/tidal/resume" in report["message"]
    api.gate.unlink()
    resumed = await api.client.post("/runs/tidal/resume")
    assert resumed.status_code == 202, resumed.text
    assert any("starts again from the beginning" in w for w in resumed.json()["warnings"])
    done = await api.wait_state("tidal", "done", "failed", "stopped", within=120)
    assert done["state"] == "done" and done["topic"] == "tidal power"


@pytest.mark.anyio
async def test_a_missing_agent_is_explained_in_the_requests_words(
    isolated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    api = Api(isolated, tmp_path / "gate", agent_cmd=None)
    async with api.client:
        response = await api.client.post("/run", json={"task": "tidal power", "agent": "opencode"})
        health = (await api.client.get("/healthz")).json()
    error = error_of(response, 503, "agent_unavailable")
    assert "--mock-mode" not in error["message"] and '"agent": "mock"' in error["message"]
    assert not (isolated / ".research").exists()
    assert "opencode" not in health["agents"] and "mock" in health["agents"]


@pytest.fixture
def slow_mock_server(
    isolated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Server]:
    monkeypatch.setenv("RESEARCH_MOCK_LATENCY", "0.3")  # each simulated call takes 0.3 s
    srv = Server(isolated, tmp_path / "gate")
    srv.start()
    yield srv
    srv.stop()


def _shots(tmp_path: Path) -> Path:
    import os

    folder = SHOTS if os.environ.get("PAGE_SHOTS") else tmp_path
    folder.mkdir(exist_ok=True)
    return folder


def _in_view(box: dict[str, float] | None, size: dict[str, int]) -> bool:
    return (
        box is not None
        and box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= size["width"]
        and box["y"] + box["height"] <= size["height"]
    )


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium installed")
def test_the_page_as_a_person_uses_it(slow_mock_server: Server, tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    server, shots = slow_mock_server, _shots(tmp_path)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(server.url + "/")
            page.wait_for_selector("#conn-dot.live", timeout=120_000)
            form = _fails(_the_form_shows_every_choice_whole, page)
            form = form or _fails(_the_form_says_which_agents_run, page, server)
            page.screenshot(path=str(shots / "form-1280.png"))
            page.fill("#f-task", "tidal energy")
            page.fill("#f-breadth", "2")
            page.fill("#f-depth", "2")
            page.select_option("#f-agent", "mock")
            page.check('[data-export="pdf"]')  # the server has the [export] extra
            page.click("#f-submit")
            page.wait_for_selector("#d-report:not(.hidden)", timeout=180_000)
            run = server.get("/runs/tidal-energy").json()
            page.screenshot(path=str(shots / "done-1280.png"), full_page=True)
            # Each check on its own, so that a failure names every part that is wrong.
            failed = [f"_the_form_shows_every_choice_whole: {form}"] if form else []
            failed += [
                f"{check.__name__}: {problem}"
                for check, args in (
                    (_the_tree_follows_the_parents, (page, run)),
                    (_the_events_read_as_sentences, (page,)),
                    (_the_numbers_agree_and_say_simulated, (page, run)),
                    (_the_pdf_is_offered, (page,)),
                    (_a_citation_opens_in_view, (page, 1280, shots)),
                    (_a_citation_opens_in_view, (page, 390, shots)),
                )
                if (problem := _fails(check, *args))
            ]
            assert failed == [], "\n".join(failed)
            assert errors == [], errors
        finally:
            browser.close()


def _fails(check: Any, *args: Any) -> str:
    try:
        check(*args)
    except Exception as exc:  # an assertion, or the page lacking what is looked for
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return ""


def _the_pdf_is_offered(page: Any) -> None:
    assert page.locator("#dl-docx").is_hidden()  # not asked for
    with page.expect_download() as info:
        page.click("#dl-pdf")
    assert Path(info.value.path()).read_bytes()[:5] == b"%PDF-"


def _the_form_shows_every_choice_whole(page: Any) -> None:
    """Each choice of the Agent and Tier selects fits its box (no "opencoc")."""
    clipped = page.evaluate(
        """() => [...document.querySelectorAll('#f-agent, #f-tier')].flatMap((select) => {
            const style = getComputedStyle(select);
            const pen = document.createElement('canvas').getContext('2d');
            pen.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
            const room = select.clientWidth - parseFloat(style.paddingLeft)
                - parseFloat(style.paddingRight) - 20;  // the arrow
            return [...select.options].filter((o) => pen.measureText(o.text).width > room)
                .map((o) => `${select.id}: ${o.text}`);
        })"""
    )
    assert clipped == []


def _the_form_says_which_agents_run(page: Any, server: Server) -> None:
    """Before Start, an agent the server cannot run is said in the form's words."""
    runnable = server.get("/healthz").json()["agents"]
    page.wait_for_function("agentsAvailable !== null")  # /healthz answered
    for name in page.eval_on_selector_all("#f-agent option", "os => os.map(o => o.value)"):
        page.select_option("#f-agent", name)
        note = page.locator("#f-agent-note")
        assert note.is_visible() == (name not in runnable), (name, runnable)
        if name not in runnable:
            assert "choose mock" in note.inner_text() and "--mock-mode" not in note.inner_text()
    assert "mock" in runnable


def _the_tree_follows_the_parents(page: Any, run: dict[str, Any]) -> None:
    children = [t for t in run["topics"] if t["parent"]]
    assert children, "the test needs subtopics"
    wrong = page.evaluate(
        """(topics) => topics.filter((t) => {
            const li = document.querySelector(`#d-tree li[data-slug="${t.slug}"]`);
            const up = li && li.parentElement.closest('li[data-slug]');
            return !up || up.dataset.slug !== t.parent;
        }).map((t) => t.slug)""",
        children,
    )
    assert wrong == []
    top = [t["slug"] for t in run["topics"] if not t["parent"]]
    shown = page.evaluate("[...document.querySelectorAll('#d-tree > li')].map(l => l.dataset.slug)")
    assert shown == top


def _the_events_read_as_sentences(page: Any) -> None:
    lines = [
        line.split(" ", 1)[1]
        for line in page.locator("#events li").all_inner_texts()
        if " " in line
    ]
    bare = [line for line in lines if not line[:1].isupper()]
    assert bare == [], bare
    assert any(re.match(r"Tier \w+ \(the plan's class\): breadth 2", line) for line in lines), lines
    calls = [line for line in lines if line.startswith("Agent call finished in")]
    assert calls and not [line for line in calls if " in 0.0 s" in line or " in 0.1 s" in line]


def _the_numbers_agree_and_say_simulated(page: Any, run: dict[str, Any]) -> None:
    tiles = dict(
        zip(
            page.locator("#d-stats .stat .k").all_inner_texts(),
            page.locator("#d-stats .stat .v").all_inner_texts(),
            strict=True,
        )
    )
    tiles = {key.lower(): value for key, value in tiles.items()}
    assert tiles["tokens"].endswith("[simulated]") and tiles["cost"].endswith("[simulated]")
    card = page.inner_text('#runs li[data-name="tidal-energy"] .run-meta')
    assert f"iteration {run['iteration']}/{run['max_iterations']}" in card
    assert tiles["iteration"] == f"{run['iteration']} / {run['max_iterations']}"


def _a_citation_opens_in_view(page: Any, width: int, shots: Path) -> None:
    page.set_viewport_size({"width": width, "height": 800})
    frame = page.frame_locator("#d-report-frame")
    buttons = frame.locator("button.cite")
    for button in (buttons.first, buttons.last):
        button.click()
        popover = frame.locator(f"#{button.get_attribute('popovertarget')}")
        popover.wait_for(state="visible")
        box = popover.bounding_box()
        assert _in_view(box, page.viewport_size), (width, box)
        page.screenshot(path=str(shots / f"popover-{width}.png"))
        page.keyboard.press("Escape")
        popover.wait_for(state="hidden")


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium installed")
def test_the_form_preselects_an_agent_the_server_can_run(
    isolated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a server with Claude Code and not OpenCode, the form starts on claude (the
    first agent it can run), not on an agent it would refuse; a person's choice stays."""
    sync_api = pytest.importorskip("playwright.sync_api")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    claude = bin_dir / "claude"
    claude.write_text("#!/bin/sh\nexit 0\n")
    claude.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    server = Server(isolated, tmp_path / "gate", agent_cmd=False)
    server.start()
    try:
        runnable = server.get("/healthz").json()["agents"]
        assert "claude" in runnable and "opencode" not in runnable, runnable
        with sync_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
            try:
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.goto(server.url + "/")
                page.wait_for_function("agentsAvailable !== null")
                assert page.input_value("#f-agent") == "claude"
                assert page.locator("#f-agent-note").is_hidden()
                page.select_option("#f-agent", "opencode")
                assert page.locator("#f-agent-note").is_visible()
                # A choice made before /healthz answers is the person's: it is not moved.
                held: list[Any] = []
                page.route("**/healthz", lambda route: held.append(route))
                page.reload()
                page.wait_for_selector("#conn-dot.live", timeout=120_000)
                page.select_option("#f-agent", "opencode")  # not installed, but chosen
                for _ in range(2400):  # a hang guard of 120 s, not a speed test
                    if held:
                        break
                    page.wait_for_timeout(50)
                assert held, "the page never asked /healthz"
                held[0].continue_()
                page.wait_for_function("() => agentsAvailable !== null")
                assert page.input_value("#f-agent") == "opencode"
            finally:
                browser.close()
    finally:
        server.stop()

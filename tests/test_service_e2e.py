"""`research serve` for real: uvicorn on a free loopback port, jobs as child processes, and the
page in headless Chromium (skipped where no browser is installed)."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

import httpx  # noqa: E402

GATED = Path(__file__).parent / "fake_agents" / "gated_agent.py"
REPO = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


SERVING = re.compile(r"http://127\.0\.0\.1:(\d+)/")


class Server:
    """`research serve --port 0` in a child process. The server binds a free port itself and
    prints it (a port picked here and passed in could be taken meanwhile by a test on
    another pytest-xdist worker, whose server would then answer this test's requests)."""

    def __init__(self, root: Path, gate: Path, *, agent_cmd: bool = True) -> None:
        self.root, self.gate = root, gate
        self.agent_cmd = agent_cmd
        """Whether --agent-cmd stands in for the default agent (the gated fake agent)."""
        self.url = ""
        self.proc: subprocess.Popen[bytes] | None = None
        self.output: list[str] = []  # its stderr so far, line by line (a thread reads it)
        self.reader: threading.Thread | None = None
        self.stderr = ""

    def start(self) -> None:
        env = {**os.environ, "GATED_AGENT_FILE": str(self.gate), "PYTHONPATH": str(REPO)}
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "research",
                "serve",
                "--port",
                "0",
                "--workdir",
                str(self.root),
                *(("--agent-cmd", f"{sys.executable} {GATED}") if self.agent_cmd else ()),
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self.output = []
        self.reader = threading.Thread(
            target=self._read, args=(self.proc, self.output), daemon=True
        )
        self.reader.start()
        deadline = time.monotonic() + 120  # a hang guard: a loaded machine starts slowly
        while True:
            if found := SERVING.search("".join(self.output)):
                self.url = f"http://127.0.0.1:{found.group(1)}"
                try:
                    if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                        return
                except httpx.TransportError:
                    pass
            assert self.proc.poll() is None, "".join(self.output)
            assert time.monotonic() < deadline, "the server did not come up"
            time.sleep(0.05)

    @staticmethod
    def _read(proc: subprocess.Popen[bytes], output: list[str]) -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            output.append(line.decode(errors="replace"))

    def stop(self) -> None:
        """SIGTERM, as a service manager stops it: a graceful shutdown, exit status 0."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.reader is not None:
            self.reader.join(timeout=120)
            self.reader = None
        self.stderr = "".join(self.output)
        if self.proc is not None and self.proc.stderr is not None:
            self.proc.stderr.close()

    def get(self, path: str, **kw: Any) -> httpx.Response:
        return httpx.get(self.url + path, timeout=120, **kw)

    def wait_state(self, name: str, *states: str, within: float = 120.0) -> dict[str, Any]:
        deadline = time.monotonic() + within
        while True:
            body: dict[str, Any] = self.get(f"/runs/{name}").json()
            if body.get("state") in states:
                return body
            assert time.monotonic() < deadline, f"{name} stayed {body.get('state')}"
            time.sleep(0.05)

    def wait_gate(self, within: float = 120.0) -> None:
        waiting = Path(f"{self.gate}.waiting")
        deadline = time.monotonic() + within
        while not waiting.exists():
            assert time.monotonic() < deadline, "no agent call reached the gate"
            time.sleep(0.02)


@pytest.fixture
def server(isolated: Path, tmp_path: Path) -> Iterator[Server]:
    srv = Server(isolated, tmp_path / "gate")
    srv.start()
    yield srv
    srv.gate.unlink(missing_ok=True)
    srv.stop()
    # Jobs outlive the server by design; end any this test left behind.
    for lock in isolated.glob(".research/*/research.lock.json"):
        try:
            os.kill(json.loads(lock.read_text())["pid"], signal.SIGKILL)
        except (OSError, ValueError, KeyError):
            pass


def sse_until_end(url: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    with httpx.stream("GET", url, timeout=120) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if not line:
                if "data" in current:
                    events.append(current)
                    if current.get("event") == "end":
                        return events
                current = {}
                continue
            if line.startswith(":"):
                continue
            key, _, value = line.partition(":")
            current[key] = json.loads(value) if key == "data" else value.strip()
    return events


def test_a_mock_job_runs_over_async_post_sse_and_report(server: Server) -> None:
    response = httpx.post(
        server.url + "/run?async=true",
        timeout=120,
        json={"task": "solar panels", "agent": "mock", "breadth": 2, "depth": 1},
    )
    assert response.status_code == 202, response.text
    name = response.json()["name"]
    events = sse_until_end(server.url + response.json()["status_url"] + "/events")
    types = [e["data"].get("type") for e in events[:-1]]
    assert types[0] == "lock_taken" and "run_end" in types and "phase_start" in types
    assert events[-1]["data"] == {"state": "done"}
    report = server.get(f"/runs/{name}/report")
    assert report.status_code == 200 and report.text.startswith("# ")
    assert report.text == (server.root / "reports" / name / "report.md").read_text()
    with httpx.stream("GET", server.url + "/events", timeout=120) as listing:
        for line in listing.iter_lines():
            if line.startswith("data:"):
                assert json.loads(line[5:])["runs"][0]["state"] == "done"
                break
    assert "research_loop_duration_seconds_count 1.0" in server.get("/metrics").text


def test_delete_mid_run_resume_and_a_server_restart_mid_job(server: Server) -> None:
    server.gate.touch()
    response = httpx.post(
        server.url + "/run?async=true",
        timeout=120,
        json={"task": "wind power", "name": "wind", "breadth": 1, "depth": 1},
    )
    assert response.status_code == 202, response.text
    server.wait_gate()
    assert server.wait_state("wind", "running")["lock"]["state"] == "live"
    assert httpx.delete(server.url + "/runs/wind", timeout=120).status_code == 202
    stopped = server.wait_state("wind", "stopped")
    assert stopped["exit_code"] == 143 and stopped["lock"]["state"] == "none"

    Path(f"{server.gate}.waiting").unlink()
    assert httpx.post(server.url + "/runs/wind/resume", timeout=120).status_code == 202
    server.wait_gate()
    # The server goes away mid-job; the job (its own process, holding the lock) goes on.
    server.stop()
    assert server.proc is not None and server.proc.returncode == 0, server.stderr
    assert "Traceback" not in server.stderr
    holder = json.loads((server.root / ".research/wind/research.lock.json").read_text())["pid"]
    os.kill(holder, 0)
    server.start()
    again = server.wait_state("wind", "running")
    assert again["lock"]["pid"] == holder and again["exit_code"] is None
    server.gate.unlink()
    done = server.wait_state("wind", "done")
    assert done["report"] and server.get("/runs/wind/report").status_code == 200


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium installed")
def test_the_page_in_headless_chromium(server: Server, tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    assert CHROMIUM is not None
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.goto(server.url + "/")
            assert page.title() == "research.py"
            page.wait_for_selector("#conn-dot.live", timeout=120_000)
            assert page.locator("#runs li").count() == 0
            assert page.locator("#f-sources").is_visible()  # the server allows local documents
            page.fill("#f-task", "tidal energy")
            page.fill("#f-breadth", "2")
            page.fill("#f-depth", "1")
            page.select_option("#f-agent", "mock")
            page.click("#f-submit")
            page.wait_for_selector('#runs li[data-name="tidal-energy"]', timeout=120_000)
            assert page.locator("#f-agent").input_value() == "mock"  # kept after the start
            page.wait_for_selector("#d-report:not(.hidden)", timeout=120_000)
            # The list follows the SSE stream to the job's end.
            page.wait_for_selector(
                '#runs li[data-name="tidal-energy"] .badge.s-done', timeout=10_000
            )
            assert page.locator("#d-tree li").count() >= 2
            events = page.locator("#events li")
            assert events.count() > 5
            lines = "\n".join(events.all_inner_texts())
            assert "Researching \u201c" in lines and "phase_start" not in lines  # readable
            # The report is the same report.html, topic tree (an SVG) included.
            frame = page.frame_locator("#d-report-frame")
            frame.locator("svg.tree").wait_for(timeout=120_000)
            assert "```mermaid" not in frame.locator("body").inner_text()
            assert frame.locator("button.cite").count() > 0
            button = frame.locator("button.cite").first
            button.click()
            target = button.get_attribute("popovertarget")
            assert frame.locator(f"#{target}").is_visible()
            # Downloads: Markdown, HTML and the JSON SynthesisResponse.
            name = "tidal-energy"
            for link, start in (
                ("#dl-md", "# "),
                ("#dl-html", "<!DOCTYPE html>"),
                ("#dl-json", "{"),
            ):
                with page.expect_download() as info:
                    page.click(link)
                body = Path(info.value.path()).read_text(encoding="utf-8")
                assert body.startswith(start), (link, body[:80])
            assert json.loads(body)["answer"] == server.get(f"/runs/{name}/report").text
            page.screenshot(path=str(tmp_path / "page.png"), full_page=True)
            # From 360 px up the page has no horizontal scroll.
            for width in (360, 390):
                page.set_viewport_size({"width": width, "height": 800})
                page.wait_for_timeout(100)
                scroll = page.evaluate("document.documentElement.scrollWidth")
                wide = page.evaluate(
                    "[...document.querySelectorAll('body *')].filter(e => "
                    "e.getBoundingClientRect().right > innerWidth + 1).slice(0, 8)"
                    ".map(e => e.tagName + '#' + e.id + '.' + e.className + ' ' + "
                    "Math.round(e.getBoundingClientRect().right))"
                )
                assert scroll <= width, (width, scroll, wide)
                page.screenshot(path=str(tmp_path / f"page-{width}.png"), full_page=True)
            assert errors == [], errors
        finally:
            browser.close()


def test_the_load_benchmark_runs_in_a_small_configuration(tmp_path: Path) -> None:
    """bench/service_load.py end to end, scaled down (no timing assertion)."""
    out = tmp_path / "load.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("RESEARCH_")}
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "service_load.py"),
            *("--requests", "5", "--clients", "3", "--sse", "2", "--jobs", "2"),
            *("--call-seconds", "0.05", "--warmup", "0.2", "--json", str(out)),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(out.read_text())
    assert result["requests"] == 15 and result["errors"] == 0
    assert result["p50_ms"] <= result["p99_ms"] <= result["max_ms"]
    assert set(result["cpu_percent_of_one_core"]) >= {"server", "jobs", "client", "other"}
    assert "latency ms: p50" in done.stdout

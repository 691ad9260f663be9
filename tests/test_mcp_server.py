"""`research mcp`, driven by the MCP SDK's own client over stdio and over streamable HTTP:
the tools and their schema (from the option table), a whole mock session followed to its
report, a plan approved (and a broken one refused), and bad input as tool errors."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO

pytest.importorskip("mcp")
import anyio  # noqa: E402
import httpx  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

from research.core.options import BY_REQUEST, OPTION, OPTIONS  # noqa: E402

TOOLS = {
    "start_research",
    "research_status",
    "get_report",
    "approve_plan",
    "list_sessions",
    "quick_search",
}
SMALL = {"agent": "mock", "breadth": 1, "depth": 1}
SERVING = re.compile(r"http://127\.0\.0\.1:(\d+)/")
WAIT = {"wait_seconds": 600}  # returns as soon as the session ends
ANSWER = "only the winters since 2015"


def over_stdio(root: Path) -> Client:
    return Client(
        StdioServerParameters(
            command=sys.executable,
            args=["-m", "research", "mcp"],
            env={"PYTHONPATH": str(REPO)},
            cwd=str(root),
        ),
        read_timeout_seconds=900,
    )


def drive(client: Client, steps: Callable[[Client], Awaitable[None]]) -> None:
    async def main() -> None:
        async with client:
            await steps(client)

    anyio.run(main)


async def call(client: Client, tool: str, **arguments: Any) -> Any:
    """The tool's structured result (or its text); fails the test on a tool error."""
    result = await client.call_tool(tool, arguments)
    text = result.content[0].text if result.content else ""  # type: ignore[union-attr]
    assert not result.is_error, text
    return result.structured_content if result.structured_content is not None else text


async def error(client: Client, tool: str, **arguments: Any) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error, result
    return result.content[0].text  # type: ignore[union-attr]


class HttpServer:
    """`research mcp --http 0` in a child process; it prints the port it bound."""

    def __init__(self, root: Path, env: dict[str, str] | None = None) -> None:
        self.output: list[str] = []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "research", "mcp", "--http", "0", "--workdir", str(root)],
            env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        deadline = time.monotonic() + 120  # a hang guard: a loaded machine starts slowly
        while not (found := SERVING.search("".join(self.output))):
            assert self.proc.poll() is None, "".join(self.output)
            assert time.monotonic() < deadline, "the MCP server did not come up"
            time.sleep(0.05)
        self.url = f"http://127.0.0.1:{found.group(1)}/mcp"  # listening once printed

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.output.append(line.decode(errors="replace"))

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.reader.join(timeout=120)
        assert self.proc.stderr is not None
        self.proc.stderr.close()


@pytest.fixture
def http_server(isolated: Path) -> Iterator[HttpServer]:
    server = HttpServer(isolated)
    yield server
    server.stop()


def test_the_tools_and_start_researchs_schema_come_from_the_option_table(isolated) -> None:
    async def steps(client: Client) -> None:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(tools) == TOOLS
        schema = tools["start_research"].input_schema
        seconds = {option.request_seconds for option in OPTIONS if option.request_seconds}
        assert set(schema["properties"]) == {"question", *BY_REQUEST, *seconds}
        assert schema["required"] == ["question"]
        breadth = schema["properties"]["breadth"]["anyOf"][0]
        assert (breadth["minimum"], breadth["maximum"]) == (
            OPTION["breadth"].minimum,
            OPTION["breadth"].maximum,
        )
        assert schema["properties"]["approve_plan"]["description"] == OPTION["approve_plan"].help

    drive(over_stdio(isolated), steps)


def test_a_mock_session_over_stdio_is_followed_to_its_report(isolated) -> None:
    progress: list[str] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append(message or "")

    async def steps(client: Client) -> None:
        started = await call(client, "start_research", question="How do heat pumps work?", **SMALL)
        name = started["name"]
        result = await client.call_tool(
            "research_status", {"name": name, **WAIT}, progress_callback=on_progress
        )
        assert result.structured_content is not None, result
        assert result.structured_content["state"] == "done"
        report = await call(client, "get_report", name=name)
        assert report == (isolated / "reports" / name / "report.md").read_text()
        assert "## Methodology" in report
        listed = await call(client, "list_sessions")
        assert [row["name"] for row in listed["sessions"]] == [name]
        answer = await call(client, "quick_search", question="What is a heat pump?", agent="mock")
        assert answer.startswith("# What is a heat pump?")

    drive(over_stdio(isolated), steps)
    assert progress and progress[-1].startswith("how-do-heat-pumps-work: done")
    status = subprocess.run(  # an ordinary session: the command line sees it
        [sys.executable, "-m", "research", "--status", "--name", "how-do-heat-pumps-work"],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        cwd=isolated,
    )
    assert status.returncode == 0 and "finished" in status.stdout


def test_bad_input_is_a_tool_error_with_the_one_line_message(isolated) -> None:
    async def steps(client: Client) -> None:
        # each error is our one line as it is, never behind the SDK's "Error executing tool"
        unknown = await error(client, "start_research", question="q", colour="blue")
        assert unknown.startswith("unknown option 'colour'; the options are: "), unknown
        breadth = await error(client, "start_research", question="q", breadth=99)
        assert breadth.startswith("breadth: "), breadth
        blank = await error(client, "start_research", question=" ")
        assert blank.startswith("question: ") and "give the research question" in blank, blank
        await call(client, "start_research", question="q", name="taken", **SMALL)
        taken = await error(client, "start_research", question="q", name="taken", **SMALL)
        assert taken.startswith("a session named 'taken' already exists"), taken
        assert "POST" not in taken
        nope = await error(client, "get_report", name="nope")
        assert nope.startswith("no research session named 'nope'"), nope
        await call(client, "research_status", name="taken", **WAIT)
        refused = await error(client, "approve_plan", name="taken")
        assert refused.startswith("session 'taken' is not awaiting approval"), refused
        soon = await error(client, "research_status", name="taken", wait_seconds="soon")
        assert soon.startswith("wait_seconds: Input should be a valid number"), soon
        assert await error(client, "get_report") == "name: Field required"
        lines = (unknown, breadth, blank, taken, nope, refused, soon)
        assert not any("\n" in line or "Error executing" in line for line in lines)

    drive(over_stdio(isolated), steps)


def test_a_plan_is_approved_over_http_and_a_broken_edit_changes_nothing(
    http_server: HttpServer, isolated: Path
) -> None:
    plan_file = isolated / ".research" / "hp" / "research_plan.md"

    async def steps(client: Client) -> None:
        await call(
            client, "start_research", question="How do heat pumps work?", name="hp",
            approve_plan=True, **SMALL,
        )  # fmt: skip
        waiting = await call(client, "research_status", name="hp", **WAIT)
        assert waiting["state"] == "awaiting_approval"
        not_yet = await error(client, "get_report", name="hp")
        assert "awaits approval of its plan (the approve_plan tool)" in not_yet
        assert "Which period" in waiting["open_questions"] and "## Topics" in waiting["plan"]
        before = plan_file.read_bytes()
        broken = await error(client, "approve_plan", name="hp", plan="# Research Plan\n")
        assert "cannot be used" in broken and "still awaits approval" in broken
        assert plan_file.read_bytes() == before
        still = await call(client, "research_status", name="hp")
        assert still["state"] == "awaiting_approval"
        old = still["topics"][0]["name"]
        edited = waiting["plan"].replace(f"### {old} ", "### Defrost cycles in subzero air ")
        await call(client, "approve_plan", name="hp", plan=edited, answers=ANSWER)
        done = await call(client, "research_status", name="hp", **WAIT)
        assert done["state"] == "done"
        assert [topic["name"] for topic in done["topics"]] == ["Defrost cycles in subzero air"]
        assert "Defrost cycles in subzero air" in await call(client, "get_report", name="hp")

    drive(Client(http_server.url, read_timeout_seconds=900), steps)
    logs = sorted((isolated / ".research" / "hp" / "logs").glob("*.log"))
    assert any(ANSWER in log.read_text() for log in logs if "research" in log.name)


def test_http_off_loopback_needs_a_token_and_a_set_token_is_required(isolated) -> None:
    refused = subprocess.run(
        [sys.executable, "-m", "research", "mcp", "--http", "0", "--host", "0.0.0.0"],
        env={**{k: v for k, v in os.environ.items() if k != "RESEARCH_API_TOKEN"},
             "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        cwd=isolated,
    )  # fmt: skip
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1 and "RESEARCH_API_TOKEN" in refused.stderr
    server = HttpServer(isolated, env={"RESEARCH_API_TOKEN": "s3cret"})
    try:
        assert httpx.post(server.url, json={}, timeout=120).status_code == 401

        async def steps() -> None:
            import httpx2  # the SDK's HTTP client
            from mcp.client.streamable_http import streamable_http_client

            headers = {"Authorization": "Bearer s3cret"}
            http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300))
            async with http, Client(streamable_http_client(server.url, http_client=http)) as c:
                assert {tool.name for tool in (await c.list_tools()).tools} == TOOLS

        anyio.run(steps)
    finally:
        server.stop()


@pytest.mark.parametrize(
    ("args", "env", "says"),
    [
        (["--http", "70000"], {}, "--http must be a port"),
        (["--workdir", "missing"], {}, "is not a directory"),
        (["--queue", "lots"], {}, "--queue must be a number of jobs or a redis:// URL"),
        (["--max-jobs", "0"], {}, "--max-jobs must be at least 1"),
        ([], {"RESEARCH_HOST_ID": "a\tb"}, "RESEARCH_HOST_ID must be a printable name"),
        (["--http", "0"], {"RESEARCH_HOST_ID": "x" * 201}, "RESEARCH_HOST_ID must be"),
    ],
)
def test_bad_server_options_are_one_line_and_exit_2(isolated, args, env, says) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "research", "mcp", *args],
        env={**os.environ, "PYTHONPATH": str(REPO), **env},
        capture_output=True,
        text=True,
        cwd=isolated,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and says in result.stderr, result.stderr

"""The MCP server: the six tools registered on an `MCPServer`, served over stdio or over
streamable HTTP (behind the service's bearer-token gate)."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp_types import CallToolResult, InputRequiredResult, TextContent
from pydantic import ValidationError

from research import __version__
from research.mcp_server.schema import first_problem, option_parameters, with_signature
from research.mcp_server.tools import ResearchTools
from research.service.models import RunRequest
from research.service.search import SearchRequest
from research.service.service import Service, ServiceConfig

if TYPE_CHECKING:
    from starlette.types import ASGIApp

INSTRUCTIONS = (
    "research.py runs long, unattended desk research with an AI agent and writes a cited "
    "report. start_research returns a session name at once; follow it with research_status "
    "(wait_seconds waits, with progress notifications), read it with get_report. With "
    "approve_plan true the session stops after its plan: read the plan and its open "
    "questions with research_status, then call approve_plan (optionally with an edited plan "
    "and answers). quick_search answers a short question synchronously."
)


MARKDOWN = ("get_report", "quick_search")
"""The tools whose answer is a report: Markdown text, not a structured result."""


class ResearchServer(MCPServer[Any]):
    """The SDK's server, but a tool that fails answers with our one line as its error
    result: the SDK would put "Error executing tool NAME: " before a tool's message, and
    give arguments that fail the input schema as pydantic's many lines."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise  # a crash: the SDK logs it and tells the client only that it failed
        except ToolError as exc:
            message = own_line(exc)
            if message is None:
                raise
            return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


def own_line(exc: ToolError) -> str | None:
    """What a failed call says: the tool's own message (the SDK's ToolError is caused by the
    one the tool raised), or the first bad argument as one line; None for the SDK's own
    errors (an unknown tool)."""
    cause = exc.__cause__
    if isinstance(cause, ToolError):
        return str(cause)
    if isinstance(cause, ValidationError):
        return first_problem(cause)
    return None


def build_server(config: ServiceConfig) -> MCPServer:
    """The MCP server of one working directory (and its queue, if any)."""
    tools = ResearchTools(Service(config))
    server: MCPServer = ResearchServer(
        "research.py", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )

    async def start_research(ctx: Context, question: str, **options: Any) -> dict[str, Any]:
        return await tools.start_research(ctx, question, **options)

    async def quick_search(ctx: Context, question: str, **options: Any) -> str:
        return await tools.quick_search(ctx, question, **options)

    with_signature(start_research, option_parameters(RunRequest, skip=("task",)))
    with_signature(quick_search, option_parameters(SearchRequest, skip=("task", "name")))
    for function, described in (
        (start_research, tools.start_research),
        (tools.research_status, tools.research_status),
        (tools.get_report, tools.get_report),
        (tools.approve_plan, tools.approve_plan),
        (tools.list_sessions, tools.list_sessions),
        (quick_search, tools.quick_search),
    ):
        server.add_tool(
            function,
            name=described.__name__,
            description=inspect.getdoc(described) or "",
            structured_output=None if described.__name__ not in MARKDOWN else False,
        )
    return server


def http_app(server: MCPServer, token: str | None, host: str) -> ASGIApp:
    """The streamable HTTP app at /mcp, behind the service's gate: the bearer token when one
    is set, and its cap on request bodies."""
    from mcp.server.transport_security import TransportSecuritySettings

    from research.service.middleware import RequestGate

    security = None
    if host not in ("127.0.0.1", "localhost", "::1"):  # the SDK guards loopback by default
        security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    app = server.streamable_http_app(host=host, transport_security=security)
    return RequestGate(app, token, body_limit=256 * 1024)

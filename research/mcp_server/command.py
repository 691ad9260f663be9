"""`research mcp`: parse the server's options, check them, and serve MCP over stdio or
streamable HTTP. The `mcp` SDK is the optional `[mcp]` extra, imported only here."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from research.core.subcommand import fail, parse

TOKEN_ENV = "RESEARCH_API_TOKEN"
DEFAULT_HOST = "127.0.0.1"
MISSING_EXTRA = (
    "research mcp needs the [mcp] extra ({name} is missing): "
    'pip install "research-py[mcp]" (from a checkout: pip install -e ".[mcp]")'
)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="research mcp",
        description="Serve research.py as a Model Context Protocol server: over stdio (for "
        "Claude Code, Codex, OpenCode, ...), or streamable HTTP at /mcp with --http PORT. "
        "Its sessions are ordinary sessions in --workdir.",
        epilog=f"Binding anything but loopback needs {TOKEN_ENV}; when it is set, every HTTP "
        "request needs 'Authorization: Bearer <token>'.",
    )
    p.add_argument(
        "--http",
        type=int,
        default=None,
        metavar="PORT",
        help="serve streamable HTTP on this port instead of stdio (0 picks a free one)",
    )
    p.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=f"with --http: address to bind (default {DEFAULT_HOST})",
    )
    p.add_argument(
        "--workdir",
        type=Path,
        default=None,
        help="working directory of the sessions (default: the current directory)",
    )
    p.add_argument("--max-jobs", type=int, default=2, help="sessions running at once (default 2)")
    p.add_argument(
        "--queue",
        default="8",
        help="sessions waiting beyond --max-jobs (default 8); or redis://[:PASSWORD@]HOST:PORT/DB: "
        "put every session on that task queue for `research worker`s (as research serve --queue)",
    )
    p.add_argument("--agent-cmd", default=None, help="generic agent command for non-mock sessions")
    p.set_defaults(failover=None, resume_running=False)  # serve's options that mcp has not
    return p


def main(argv: list[str]) -> int:
    args = parse(parser(), argv)
    if isinstance(args, int):
        return args
    from research.service.serve import bind_problem, started

    token = os.environ.get(TOKEN_ENV) or None
    if args.http is not None:
        bad_port = f"--http must be a port 0-65535, not {args.http}"
        problem = bind_problem(args.host, token, args.http, bad_port)
        if problem is not None:
            return fail(problem)
    try:
        from research.mcp_server.server import build_server, http_app
    except ImportError as exc:
        return fail(MISSING_EXTRA.format(name=exc.name))
    try:
        server, root = started(build_server, args, token)
    except ValueError as exc:  # HostConfigError is one too
        return fail(str(exc))
    if args.http is None:
        server.run("stdio")
        return 0
    from research.service.serve import run

    app = http_app(server, token, args.host)
    return run(app, args.host, args.http, root, "MCP over streamable HTTP at /mcp")  # type: ignore[arg-type]

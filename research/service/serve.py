"""`research serve`: parse the server's options, check them, and run uvicorn.

Kept apart from the main CLI: FastAPI and uvicorn are the optional `[server]` extra, and
are imported only here, so `research TOPIC` starts no slower for their existence.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastapi import FastAPI

TOKEN_ENV = "RESEARCH_API_TOKEN"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="research serve",
        description="Serve research as jobs over HTTP (POST /run, GET /runs, …), with "
        "metrics and a live page at /. Each job is a child `research` process in --workdir.",
        epilog=f"Binding anything but loopback needs {TOKEN_ENV}; when it is set, every "
        "endpoint but /healthz requires 'Authorization: Bearer <token>'.",
    )
    p.add_argument("--host", default=DEFAULT_HOST, help=f"address to bind (default {DEFAULT_HOST})")
    p.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"port (default {DEFAULT_PORT}; 0 picks a free one)",
    )
    p.add_argument(
        "--workdir",
        type=Path,
        default=None,
        help="working directory of the jobs: .research/ and reports/ live here "
        "(default: the current directory)",
    )
    p.add_argument("--max-jobs", type=int, default=2, help="jobs running at once (default 2)")
    p.add_argument(
        "--queue",
        type=int,
        default=8,
        help="jobs waiting beyond --max-jobs before POST /run answers 429 (default 8)",
    )
    p.add_argument(
        "--agent-cmd",
        default=None,
        help="generic agent command for non-mock jobs (as research --agent-cmd)",
    )
    p.add_argument(
        "--resume-running",
        action="store_true",
        help="resume the sessions that were running (not complete, not locked)",
    )
    return p


def fail(message: str) -> int:
    sys.stderr.write(f"research.py: error: {message}\n")
    return 2


def main(argv: list[str]) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:  # --help, or argparse's own usage error
        return int(exc.code or 0)
    token = os.environ.get(TOKEN_ENV) or None
    if not is_loopback(args.host) and token is None:
        return fail(f"binding {args.host} (not loopback) needs a bearer token: set {TOKEN_ENV}")
    if not 0 <= args.port <= 65535:
        return fail(f"--port must be 0-65535, not {args.port}")
    if args.max_jobs < 1 or args.queue < 0:
        return fail("--max-jobs must be at least 1 and --queue at least 0")
    root = (args.workdir or Path.cwd()).resolve()
    if not root.is_dir():
        return fail(f"--workdir {root} is not a directory")
    try:
        import uvicorn  # noqa: F401  (the [server] extra is installed)

        from research.service.app import ServiceConfig, create_app
    except ImportError as exc:
        return fail(
            f"the service needs the [server] extra ({exc.name} is missing): "
            """pip install "research-py[server]" (from a checkout: pip install -e ".[server]")"""
        )
    config = ServiceConfig(
        root=root,
        max_jobs=args.max_jobs,
        max_queue=args.queue,
        token=token,
        agent_cmd=args.agent_cmd,
        resume_running=args.resume_running,
    )
    return run(create_app(config), args.host, args.port, root)


def run(app: FastAPI, host: str, port: int, root: Path | None = None) -> int:
    """Serve `app` with uvicorn until SIGINT or SIGTERM; 0 once it has shut down.

    The socket is bound first, so that the address printed is the real one (with
    `--port 0`, the port the system chose)."""
    import uvicorn

    from research.core.errors import Interrupted

    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=2,
    )
    try:
        sock = config.bind_socket()
    except (OSError, SystemExit) as exc:  # uvicorn exits when the address is taken
        return fail(f"cannot listen on {host}:{port}: {getattr(exc, 'strerror', None) or exc}")
    bound = sock.getsockname()[1]
    where = f"[{host}]" if ":" in host else host
    sys.stderr.write(
        f"research.py: serving {root or 'the app'} on http://{where}:{bound}/ "
        "(API description at /openapi.json)\n"
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except Interrupted:  # uvicorn re-raises the signal it stopped for, once it has stopped
        pass
    finally:
        sock.close()
    return 0

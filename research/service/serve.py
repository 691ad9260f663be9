"""`research serve`: parse the server's options, check them, and run uvicorn.

Kept apart from the main CLI: FastAPI and uvicorn are the optional `[server]` extra, and
are imported only here, so `research TOPIC` starts no slower for their existence.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from research.core.hosts import HostConfigError, host_id
from research.core.subcommand import fail, parse

if TYPE_CHECKING:
    from fastapi import FastAPI

    from research.service.service import ServiceConfig

Server = TypeVar("Server")

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
        default="8",
        help="jobs waiting beyond --max-jobs before POST /run answers 429 (default 8); or "
        "redis://[:PASSWORD@]HOST:PORT/DB: put every job on that task queue for "
        "`research worker`s to run (see README, Many machines)",
    )
    p.add_argument(
        "--failover",
        default=None,
        help="with a queue URL: the failover bound in seconds, as the workers' (default "
        "RESEARCH_FAILOVER_SECONDS or 120)",
    )
    p.add_argument(
        "--agent-cmd",
        default=None,
        help="generic agent command for non-mock jobs (as research --agent-cmd)",
    )
    p.add_argument(
        "--resume-running",
        action="store_true",
        help="resume the sessions that were running (not complete, not locked); with a queue "
        "URL, also send again each job the queue lost, as it is found (at most 3 times each)",
    )
    return p


def queue_options(queue: str, failover: str | None) -> tuple[int, str | None, float]:
    """--queue N (the local queue's bound) or --queue URL (the task queue), and the
    failover bound; ValueError saying what is wrong."""
    from research.core.hosts import failover_seconds, parse_failover

    try:
        bound = parse_failover(failover) if failover is not None else failover_seconds()
    except HostConfigError as exc:
        raise ValueError(f"--failover: {exc}") from None
    if "://" not in queue:
        try:
            return int(queue), None, bound
        except ValueError:
            raise ValueError(
                f"--queue must be a number of jobs or a redis:// URL, not {queue!r}"
            ) from None
    from research.cluster.broker import check_url

    try:
        return 0, check_url(queue), bound
    except ValueError as exc:
        raise ValueError(f"--queue: {exc}") from None


def jobs_and_folder(
    queue: str, failover: str | None, max_jobs: int, workdir: Path | None
) -> tuple[int, str | None, float, Path]:
    """--queue, --failover, --max-jobs and --workdir as both servers (`research serve` and
    `research mcp`) check them: the local queue's bound, the task queue's URL (or None), the
    failover bound and the working folder; ValueError saying what is wrong."""
    max_queue, queue_url, bound = queue_options(queue, failover)
    if max_jobs < 1 or max_queue < 0:
        raise ValueError("--max-jobs must be at least 1 and --queue at least 0")
    root = (workdir or Path.cwd()).resolve()
    if not root.is_dir():
        raise ValueError(f"--workdir {root} is not a directory")
    return max_queue, queue_url, bound, root


def bind_problem(host: str, token: str | None, port: int, bad_port: str) -> str | None:
    """What keeps the server from listening on `host`:`port` (`bad_port`: the message for a
    port out of range), or None: beyond loopback only with a bearer token."""
    if not is_loopback(host) and token is None:
        return f"binding {host} (not loopback) needs a bearer token: set {TOKEN_ENV}"
    if not 0 <= port <= 65535:
        return bad_port
    return None


def queue_problem(url: str, root: Path) -> str | None:
    """What keeps the service from using the task queue at `url` with folder `root`: Redis
    unreachable or silent, the password refused, another folder the queue's (None: usable)."""
    from research.cluster.broker import NO_CLUSTER

    try:
        from research.cluster.checks import SetupError, check_setup
    except ImportError as exc:
        return NO_CLUSTER.format(exc=exc)
    try:
        check_setup(url, root)
    except SetupError as exc:
        return str(exc)
    return None


def started(
    build: Callable[[ServiceConfig], Server],
    args: argparse.Namespace,
    token: str | None,
) -> tuple[Server, Path]:
    """The checks both servers (`research serve` and `research mcp`) make before they serve,
    then `build` (create_app, build_server) on their config made from their options (`args`:
    --queue, --max-jobs, --workdir, --agent-cmd, and serve's --failover and --resume-running),
    RESEARCH_HOST_ID, and with a queue URL that Redis answers, takes the password
    and holds this folder's id. The server and its folder; ValueError saying what is wrong."""
    from research.cluster.broker import NO_CLUSTER, QueueMissing
    from research.service.service import ServiceConfig

    max_queue, queue_url, bound, root = jobs_and_folder(
        args.queue, args.failover, args.max_jobs, args.workdir
    )
    host_id()  # RESEARCH_HOST_ID, checked before the store reads any lock with it
    if queue_url is not None:
        problem = queue_problem(queue_url, root)
        if problem is not None:
            raise ValueError(problem)
    config = ServiceConfig(
        root=root,
        max_jobs=args.max_jobs,
        max_queue=max_queue,
        queue_url=queue_url,
        failover=bound,
        token=token,
        agent_cmd=args.agent_cmd,
        resume_running=args.resume_running,
    )
    try:
        return build(config), root
    except QueueMissing as exc:
        raise ValueError(NO_CLUSTER.format(exc=exc)) from None


def main(argv: list[str]) -> int:
    args = parse(parser(), argv)
    if isinstance(args, int):
        return args
    token = os.environ.get(TOKEN_ENV) or None
    problem = bind_problem(args.host, token, args.port, f"--port must be 0-65535, not {args.port}")
    if problem is not None:
        return fail(problem)
    try:
        import uvicorn  # noqa: F401  (the [server] extra is installed)

        from research.service.app import create_app
    except ImportError as exc:
        return fail(
            f"the service needs the [server] extra ({exc.name} is missing): "
            """pip install "research-py[server]" (from a checkout: pip install -e ".[server]")"""
        )
    try:
        app, root = started(create_app, args, token)
    except ValueError as exc:  # HostConfigError is one too
        return fail(str(exc))
    return run(app, args.host, args.port, root)


def run(
    app: FastAPI,
    host: str,
    port: int,
    root: Path | None = None,
    described: str = "API description at /openapi.json",
) -> int:
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
    sock.listen(2048)  # from now on a client is queued, not refused, until uvicorn serves
    bound = sock.getsockname()[1]
    where = f"[{host}]" if ":" in host else host
    sys.stderr.write(
        f"research: serving {root or 'the app'} on http://{where}:{bound}/ ({described})\n"
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except Interrupted:  # uvicorn re-raises the signal it stopped for, once it has stopped
        pass
    finally:
        sock.close()
    return 0

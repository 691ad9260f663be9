"""`research worker --queue URL --workdir DIR [--max-jobs N]`: its options, checked.

Kept apart from the main CLI, like `research serve`: Dramatiq and redis are the optional
`[cluster]` extra, imported only here and by `--queue`.
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from research.core.hosts import (
    FAILOVER_ENV,
    HostConfigError,
    failover_seconds,
    host_id,
    parse_failover,
)
from research.core.subcommand import fail, parse


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="research worker",
        description="Run research jobs from a Redis queue, each as a child `research` process "
        "in --workdir (a folder every worker and the service share).",
        epilog="The host's name in locks and events is its host name, or RESEARCH_HOST_ID.",
    )
    p.add_argument("--queue", required=True, help="the queue: redis://[:PASSWORD@]HOST:PORT/DB")
    p.add_argument(
        "--workdir",
        type=Path,
        default=None,
        help="the shared working directory (default: the current directory)",
    )
    p.add_argument("--max-jobs", type=int, default=1, help="jobs run at once (default 1)")
    p.add_argument(
        "--failover",
        default=None,
        help="seconds within which a dead worker's jobs are resumed elsewhere "
        f"(default {FAILOVER_ENV} or 120); every worker should use the same",
    )
    p.add_argument(
        "--agent-cmd",
        default=None,
        help="generic agent command for non-mock jobs (as research --agent-cmd)",
    )
    return p


def main(argv: list[str]) -> int:
    args = parse(parser(), argv)
    if isinstance(args, int):
        return args
    from research.cluster import broker

    try:
        url = broker.check_url(args.queue)
        failover = parse_failover(args.failover) if args.failover else failover_seconds()
        host = host_id()
    except (ValueError, HostConfigError) as exc:
        return fail(f"--queue: {exc}" if "URL" in str(exc) else str(exc))
    if not 1 <= args.max_jobs <= 64:
        return fail(f"--max-jobs must be 1-64, not {args.max_jobs}")
    root = (args.workdir or Path.cwd()).resolve()
    if not root.is_dir():
        return fail(f"--workdir {root} is not a directory")
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(message)s")
    try:
        from research.cluster.checks import SetupError, check_setup
        from research.cluster.health import quiet_dramatiq_outages
        from research.cluster.worker import WorkerConfig, run_worker

        try:
            folder = check_setup(url, root)
        except SetupError as exc:
            return fail(str(exc))
        quiet_dramatiq_outages()
        config = WorkerConfig(
            url=url,
            root=root,
            host=host,
            max_jobs=args.max_jobs,
            failover=failover,
            agent_cmd=args.agent_cmd,
            folder_id=folder,
        )
        return run_worker(config)
    except (broker.QueueMissing, ImportError) as exc:
        return fail(
            f"the worker needs the [cluster] extra ({exc}): pip install 'research-py[cluster]'"
        )

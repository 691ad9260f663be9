"""`research --queue URL … TOPIC`: put the session on the task queue instead of running it."""

from __future__ import annotations

from research.cluster.broker import QueueClient, QueueMissing, QueueUnavailable, check_url
from research.cluster.messages import JobMessage, check_job
from research.core.agentkind import AgentKind
from research.core.errors import RunFailed, UsageError
from research.core.hosts import failover_seconds
from research.core.settings import Settings


def job_of(settings: Settings) -> JobMessage:
    """The job that runs `settings` on a worker. A worker chooses its own agent command:
    a job names only `opencode` or `mock`."""
    if settings.agent_cmd is not None:
        raise UsageError(
            "--agent-cmd cannot be sent through --queue: each worker runs its own "
            "(research worker --agent-cmd)"
        )
    root = settings.root.resolve()
    sources = []
    for folder in settings.source_dirs:
        if not folder.resolve().is_relative_to(root):
            raise UsageError(
                f"--sources {folder} is outside the working directory, which the workers share"
            )
        sources.append(str(folder.resolve().relative_to(root)))
    budget = settings.time_budget_minutes
    job = JobMessage.model_validate(
        {
            "name": settings.name,
            "task": None if settings.resume else settings.topic,
            "agent": AgentKind.MOCK if settings.mock_mode else settings.agent,
            "breadth": settings.breadth,
            "depth": settings.depth,
            "max_iterations": settings.max_iterations,
            "time": None if budget is None else repr(budget),
            "model": settings.model,
            "review_model": settings.review_model,
            "parallel": settings.parallel,
            "sources": sources,
            "mock_latency": settings.mock_latency or None,
        }
    )
    check_job(job, root)
    return job


def submit(settings: Settings, url: str) -> str:
    """Send the job; the lines to print (the session's name and how to follow it)."""
    if not settings.resume and (not settings.topic or not settings.topic.strip()):
        raise UsageError("give the research topic or question as an argument")
    try:
        check_url(url)
    except ValueError as exc:
        raise UsageError(f"invalid --queue: {exc}") from None
    job = job_of(settings)
    bound = settings.failover_seconds or failover_seconds()
    try:
        QueueClient(url, failover=bound).send(job)
    except QueueMissing as exc:
        raise UsageError(
            f"--queue needs the [cluster] extra ({exc}): pip install '.[cluster]'"
        ) from None
    except QueueUnavailable as exc:
        raise RunFailed(f"{exc}; nothing was queued") from None
    return (
        f"{job.name}\n"
        f"queued session {job.name!r}; follow it with: research --status --name {job.name}"
        f" (or GET /runs/{job.name} on a `research serve --queue`)"
    )

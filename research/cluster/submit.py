"""`research --queue URL … TOPIC`: put the session on the task queue instead of running it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from research.cluster.broker import (
    NO_CLUSTER,
    QueueClient,
    QueueMissing,
    QueueUnavailable,
    check_url,
)
from research.cluster.messages import JobMessage, check_job, has_saved_state
from research.core.agentkind import AgentKind
from research.core.errors import RunFailed, UsageError
from research.core.hosts import failover_seconds
from research.core.option_fields import given_values
from research.core.options import iteration_floor_note
from research.core.settings import Settings


def job_of(settings: Settings) -> JobMessage:
    """The job that runs `settings` on a worker: the options the user set, as the row's
    fields of a job (the others keep their defaults, or the plan's tier, there too). A
    worker chooses its own agent command: a job names only a built-in agent."""
    if settings.agent_cmd is not None:
        raise UsageError(
            "--agent-cmd cannot be sent through --queue: each worker runs its own "
            "(research worker --agent-cmd)"
        )
    root = settings.root.resolve()
    values = given_values(settings)
    if "source_dirs" in values:
        values["source_dirs"] = shared_folders(settings.source_dirs, root)
    job = JobMessage.model_validate(
        {
            "name": settings.name,
            "task": None if settings.resume else settings.topic,
            "agent": AgentKind.MOCK if settings.mock_mode else settings.agent,
            **values,
        }
    )
    check_job(job, root)
    return job


def shared_folders(folders: tuple[Path, ...], root: Path) -> list[str]:
    """The --sources folders relative to the working directory, which the workers share."""
    shared = []
    for folder in folders:
        if not folder.resolve().is_relative_to(root):
            raise UsageError(
                f"--sources {folder} is outside the working directory, which the workers share"
            )
        shared.append(str(folder.resolve().relative_to(root)))
    return shared


def same_folder(settings: Settings, client: QueueClient) -> None:
    """UsageError when the queue records a folder and this one is not it: the session's
    name and its sources are judged in the folder the workers share."""
    from research.cluster.broker import FOLDER_KEY, reaching
    from research.cluster.checks import SetupError, read_folder_id, wrong_folder

    with reaching(client.url):
        theirs = client.redis.get(FOLDER_KEY)
    if theirs is None:
        return  # no worker nor service yet: nothing to compare with
    recorded = theirs.decode("ascii", "replace") if isinstance(theirs, bytes) else str(theirs)
    root = settings.root.resolve()
    try:
        mine = read_folder_id(root)
    except SetupError as exc:
        raise UsageError(str(exc)) from None
    if mine != recorded:
        raise UsageError(wrong_folder(client.url, root, mine or "(none)", recorded))


def name_free(settings: Settings, client: QueueClient) -> None:
    """A new session's name is one session, as on the command line: UsageError when the
    shared folder has a session of that name, or the queue a job of it."""
    if has_saved_state(settings.root, settings.name):
        raise UsageError(
            f"a session named {settings.name!r} already exists; continue it with "
            "--resume, or choose another --name"
        )
    if any(job["name"] == settings.name for job in client.jobs()):
        raise UsageError(
            f"a job named {settings.name!r} is already on the queue; follow it with "
            f"research --status --name {settings.name}, or choose another --name"
        )


def submit(settings: Settings, url: str, warn: Callable[[str], None] = lambda _: None) -> str:
    """Send the job; the lines to print (the session's name and how to follow it). What the
    run will change in what was asked goes to `warn` first, as a run says it."""
    if not settings.resume and (not settings.topic or not settings.topic.strip()):
        raise UsageError("give the research topic or question as an argument")
    try:
        check_url(url)
    except ValueError as exc:
        raise UsageError(f"invalid --queue: {exc}") from None
    job = job_of(settings)
    shape = ("max_iterations", "breadth", "depth", "tier")
    note = iteration_floor_note(
        {name: getattr(settings, name) for name in shape if name in settings.given}
    )
    if note is not None:
        warn(note.replace("max_iterations", "--max-iterations", 1))
    bound = settings.failover_seconds or failover_seconds()
    try:
        client = QueueClient(url, failover=bound)
        same_folder(settings, client)
        if job.task is not None:
            name_free(settings, client)
        client.send(job)
    except QueueMissing as exc:
        raise UsageError(NO_CLUSTER.format(exc=exc)) from None
    except QueueUnavailable as exc:
        raise RunFailed(f"{exc}; nothing was queued") from None
    return (
        f"{job.name}\n"
        f"queued session {job.name!r}; follow it with: research --status --name {job.name}"
        f" (or GET /runs/{job.name} on a `research serve --queue`)"
    )

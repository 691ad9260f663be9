"""A job on the queue: the validated settings of one session, never a command line.

The enqueuer (the service, or `research --queue`) validates a job before it is sent, and
the worker validates it again before it runs anything: a message is read from Redis,
which anyone holding its password can write to.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from time import time as epoch_now

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from research.core.agentkind import DEFAULT_AGENT, AgentKind, agent_args
from research.core.budget import parse_time_budget
from research.core.defaults import BREADTH_RANGE, DEPTH_RANGE, MAX_MOCK_LATENCY_SECONDS
from research.core.errors import UsageError
from research.model.state import STATE_COPY_NAME, state_entry
from research.workspace.paths import SessionPaths, validate_name


class JobMessage(BaseModel):
    """One research job as it travels through the queue."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    name: str = Field(min_length=1, max_length=64)
    """The session name (validated as --name)."""
    task: str | None = Field(None, min_length=1, max_length=4000)
    """The question; None for a job that resumes a saved session."""
    breadth: int | None = Field(None, ge=BREADTH_RANGE[0], le=BREADTH_RANGE[1])
    depth: int | None = Field(None, ge=DEPTH_RANGE[0], le=DEPTH_RANGE[1])
    max_iterations: int | None = Field(None, ge=1, le=1_000_000)
    time: str | None = Field(None, max_length=40)
    """The --time budget as given ('unlimited' or minutes)."""
    model: str | None = Field(None, min_length=1, max_length=200)
    review_model: str | None = Field(None, min_length=1, max_length=200)
    agent: AgentKind = DEFAULT_AGENT
    """The built-in agent (the default one: the worker's --agent-cmd, if it has one)."""
    parallel: int | None = Field(None, ge=1, le=8)
    sources: list[str] = Field(default_factory=list, max_length=64)
    """Folders of the user's documents, relative to the shared working directory."""
    mock_latency: float | None = Field(
        None, ge=0.0, le=MAX_MOCK_LATENCY_SECONDS, allow_inf_nan=False
    )
    """Seconds per simulated agent call (--mock-latency)."""
    job_id: str = Field(default_factory=lambda: uuid.uuid4().hex, pattern=r"^[0-9a-f]{32}$")
    enqueued_at: float = Field(default_factory=epoch_now, allow_inf_nan=False)
    """When the job was first sent (epoch seconds on the sender's clock; shown, not judged)."""
    handbacks: int = Field(0, ge=0)
    """How often a worker gave the job back to the queue."""


def parse_job(data: object, root: Path) -> JobMessage:
    """A message's body as a checked job; UsageError saying what is wrong otherwise."""
    try:
        job = JobMessage.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise UsageError(f"invalid job: {where}: {first['msg']}") from None
    check_job(job, root)
    return job


def check_job(job: JobMessage, root: Path) -> None:
    """What the model cannot check alone: the name, the time budget, and that each source
    folder lies inside the working directory."""
    validate_name(job.name)
    if job.time is not None:
        try:
            parse_time_budget(job.time)
        except ValueError as exc:
            raise UsageError(f"invalid job: time: {exc}") from None
    if job.task is not None and not job.task.strip():
        raise UsageError("invalid job: task: give the research question")
    job_folders(job, root)


def job_folders(job: JobMessage, root: Path) -> list[Path]:
    """The job's source folders, resolved inside `root` (`..` and links may not lead out)."""
    base = root.resolve()
    folders = []
    for given in job.sources:
        if not given.strip() or "\x00" in given:
            raise UsageError("invalid job: sources: give a folder's path")
        folder = (base / given).resolve()
        if not folder.is_relative_to(base):
            raise UsageError(f"invalid job: sources: {given!r} is outside the working directory")
        folders.append(folder)
    return folders


def child_args(job: JobMessage, root: Path, agent_cmd: str | None) -> list[str]:
    """The arguments of the `research` process that runs the job.

    A session with saved state is resumed, whatever the job says: a job delivered again
    after its worker died continues the session the first delivery started."""
    common = ["--name", job.name, "--yes", "--quiet", *agent_args(job.agent, agent_cmd)]
    if has_saved_state(root, job.name) or job.task is None:
        return ["--resume", *common]
    options: list[str] = []
    for flag, value in (
        ("--breadth", job.breadth),
        ("--depth", job.depth),
        ("--max-iterations", job.max_iterations),
        ("--time", job.time),
        ("--model", job.model),
        ("--review-model", job.review_model),
        ("--parallel", job.parallel),
    ):
        if value is not None:
            options += [flag, str(value)]
    for folder in job_folders(job, root):
        options += ["--sources", str(folder)]
    return [*common, *options, "--", job.task]


def has_saved_state(root: Path, name: str) -> bool:
    """Whether the session has a state file (or its copy), as `research` judges it."""
    paths = SessionPaths(root, name)
    return (
        state_entry(paths.state_file) != "missing"
        or state_entry(paths.session_dir / STATE_COPY_NAME) != "missing"
    )

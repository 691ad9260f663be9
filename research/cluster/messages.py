"""A job: the validated options of one session, never a command line.

The service's children and the queue's workers run the same jobs: the service builds one
from a request and runs it as a child (or, with --queue, puts it on the queue), and
`research --queue` builds one from its settings. Its option fields are generated from the
option table (`core/option_fields.py`); `child_args` turns a job into the child's command
line. The enqueuer validates a job before it is sent, and the worker validates it again
before it runs anything: a message is read from Redis, which anyone holding its password
can write to.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from time import time as epoch_now
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from research.core.agentkind import DEFAULT_AGENT, AgentKind, agent_args
from research.core.errors import UsageError
from research.core.option_fields import job_fields
from research.core.options import OPTION, OPTIONS, OnResume, command_line
from research.model.state import STATE_COPY_NAME, state_entry
from research.workspace.paths import SessionPaths, validate_name

MAX_TASK_LENGTH = 4000


class JobBase(BaseModel):
    """A job's own fields; `JobMessage` adds a field for each option a job carries."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    name: str = Field(min_length=1, max_length=64)
    """The session name (validated as --name)."""
    task: str | None = Field(None, min_length=1, max_length=MAX_TASK_LENGTH)
    """The question; None for a job that resumes a saved session."""
    agent: AgentKind = DEFAULT_AGENT
    """The built-in agent (the default one: the runner's --agent-cmd, if it has one)."""
    job_id: str = Field(default_factory=lambda: uuid.uuid4().hex, pattern=r"^[0-9a-f]{32}$")
    enqueued_at: float = Field(default_factory=epoch_now, allow_inf_nan=False)
    """When the job was first sent (epoch seconds on the sender's clock; shown, not judged)."""
    handbacks: int = Field(0, ge=0)
    """How often a worker gave the job back to the queue."""

    def options(self) -> dict[str, object]:
        """The options the job gives (by option name, as wire values), without the unset."""
        values = {option.name: getattr(self, option.name, None) for option in OPTIONS}
        return {
            name: value for name, value in values.items() if value is not None and OPTION[name].job
        }


if TYPE_CHECKING:
    JobMessage = JobBase
else:
    JobMessage = create_model(
        "JobMessage",
        __base__=JobBase,
        __doc__="One research job: its own fields and the options it gives (by option name).",
        **job_fields(),
    )


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
    """What the model cannot check alone: the name, the question, and that each source
    folder lies inside the working directory."""
    validate_name(job.name)
    if job.task is not None and not job.task.strip():
        raise UsageError("invalid job: task: give the research question")
    job_folders(job, root)


def job_folders(job: JobMessage, root: Path) -> list[Path]:
    """The job's source folders, resolved inside `root` (`..` and links may not lead out)."""
    base = root.resolve()
    folders = []
    given_folders = job.options().get("source_dirs") or []
    for given in given_folders:  # type: ignore[attr-defined]
        if not given.strip() or "\x00" in given:
            raise UsageError("invalid job: sources: give a folder's path")
        folder = (base / given).resolve()
        if not folder.is_relative_to(base):
            raise UsageError(f"invalid job: sources: {given!r} is outside the working directory")
        folders.append(folder)
    return folders


def child_args(job: JobMessage, root: Path, agent_cmd: str | None) -> list[str]:
    """The arguments of the `research` process that runs the job: its options as the
    command line gives them (`command_line`), the runner's agent command where the job
    names the default agent.

    A session with saved state is resumed, whatever the job says: a job delivered again
    after its worker died continues the session the first delivery started, with only
    the options each run takes anew (a job that asks to resume gives all of its own)."""
    common = ["--name", job.name, "--yes", "--quiet", *agent_args(job.agent, agent_cmd)]
    values = job.options()
    if "source_dirs" in values:
        values["source_dirs"] = [str(folder) for folder in job_folders(job, root)]
    if job.task is None:
        return ["--resume", *common, *command_line(values)]
    if has_saved_state(root, job.name):
        per_run = {
            name: value
            for name, value in values.items()
            if OPTION[name].on_resume is OnResume.PER_RUN
        }
        return ["--resume", *common, *command_line(per_run)]
    return [*common, *command_line(values), "--", job.task]


def has_saved_state(root: Path, name: str) -> bool:
    """Whether the session has a state file (or its copy), as `research` judges it."""
    paths = SessionPaths(root, name)
    return (
        state_entry(paths.state_file) != "missing"
        or state_entry(paths.session_dir / STATE_COPY_NAME) != "missing"
    )

"""The service's request and response bodies: runs, searches, errors and the run views."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from research.core.option_fields import request_fields
from research.core.options import OPTION

JobState = Literal["queued", "running", "stopped", "failed", "done", "awaiting_approval", "lost"]
JOB_STATES: tuple[JobState, ...] = (
    "queued",
    "running",
    "stopped",
    "failed",
    "done",
    "awaiting_approval",
    "lost",
)


MAX_TASK_LENGTH = 4000


class RunRequestBase(BaseModel):
    """A request's own fields; the generated `RunRequest` adds a field for each option the
    service's requests may set."""

    model_config = ConfigDict(extra="forbid", strict=True)

    task: str = Field(
        min_length=1, max_length=MAX_TASK_LENGTH, description="The research question."
    )
    name: str | None = Field(None, description=OPTION["name"].help)


if TYPE_CHECKING:
    RunRequest = RunRequestBase
else:
    RunRequest = create_model(
        "RunRequest",
        __base__=RunRequestBase,
        __doc__="POST /run: a research job, with the CLI's options (each field but `task` "
        'is a row of the option table, by its request name). Numbers are strict: "2" and '
        "true are not numbers.",
        **request_fields(without={"name"}),
    )


class ErrorBody(BaseModel):
    type: str
    message: str
    retryable: bool


class ErrorResponse(BaseModel):
    """Every error answer: a machine-readable code, a message, and whether to retry."""

    error: ErrorBody


class JobAccepted(BaseModel):
    job_id: str
    name: str
    status: JobState
    status_url: str
    warnings: list[str] = []
    """What the service changed in the request, as the CLI warns (a max_iterations below
    the iteration floor is raised to it)."""


class Citation(BaseModel):
    id: str
    """"[1]", as the report cites it."""
    title: str
    type: str
    """"web" for a URL, "file" for a local document."""
    location: str
    verification: str | None = None
    """The source check's outcome for this source, where there is one."""


class SynthesisMetadata(BaseModel):
    timestamp: str
    model: str
    token_count: int | None
    """Input and output tokens together; null when the agent reported none."""
    iterations: int
    stop_reason: str | None
    review_model: str | None = None
    cost: float | None = None
    elapsed_seconds: float | None = None
    max_iterations: int | None = None
    """The session's iteration limit (never below its tree's floor)."""
    warnings: list[str] = []
    """What the run changed in what was asked, as the CLI warns (a max_iterations below the
    iteration floor is raised to it)."""


class SynthesisResponse(BaseModel):
    """A finished session's answer: the report, its sources and how it was made (iterations,
    stop reason, model, usage)."""

    answer: str
    citations: list[Citation]
    metadata: SynthesisMetadata


class TopicView(BaseModel):
    slug: str
    name: str
    status: str
    depth: int
    parent: str | None
    in_flight: str | None = None
    """The phase of a call in flight for this topic, if any."""


class LockState(BaseModel):
    state: str
    """'none', 'live', 'stale' or 'unreadable'."""
    detail: str
    pid: int | None = None


class RunSummary(BaseModel):
    name: str
    job_id: str
    topic: str | None
    state: JobState
    phase: str | None
    iteration: int
    max_iterations: int
    topics_done: int
    topics_total: int
    updated: float
    report: bool
    status_url: str


class RunDetail(RunSummary):
    current_topic: str | None
    topics: list[TopicView]
    last_decision: dict[str, object] | None
    stop_reason: str | None
    stop_detail: str
    last_error: str | None
    seconds_used: float
    seconds_left: float | None
    time_budget_minutes: float | None
    agent_calls: int
    agent_failures: int
    input_tokens: int | None
    output_tokens: int | None
    cost: float | None
    model: str | None
    agent: str | None
    models_used: list[str] = Field(default_factory=list)
    """The models the agent said its calls ran on (an alias resolved); empty when it says
    none (Codex, a command)."""
    cost_basis: str | None = None
    """How the token and cost figures are known: "reported" (by the agent), "computed" (from
    a price table) or "simulated" (made up by the simulated agent)."""
    lock: LockState
    exports: list[str] = Field(default_factory=list)
    """The report's exports written (export: "pdf", "docx"), for GET .../report?format=."""
    host: str | None = None
    """The host named by the session's lock: the one that runs it (None when unlocked)."""
    exit_code: int | None = None
    """The exit code of the job's last process this server saw end."""
    message: str | None = None
    """Its last error line, when it failed."""
    plan: str | None = None
    """The plan awaiting approval (research_plan.md as the orchestrator keeps it), or None."""
    open_questions: str = ""
    """The plan's Open questions section (with the user's answers once approved)."""


class ApproveRequest(BaseModel):
    """POST /runs/{name}/approve: the plan as approved, and answers to its open questions."""

    model_config = ConfigDict(extra="forbid", strict=True)

    plan: str | None = Field(
        None,
        min_length=1,
        max_length=60_000,
        description="The edited research_plan.md (default: the plan as it is).",
    )
    answers: str | None = Field(
        None,
        min_length=1,
        max_length=4000,
        description="Answers to the plan's open questions, added to its Open questions section.",
    )


class RunList(BaseModel):
    runs: list[RunSummary]

"""RWRState: the persisted state of a session (seed 003 fields plus what the loop needs)."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, field_validator

from research.core.agentkind import DEFAULT_AGENT, agent_name, agent_names, default_models
from research.core.budget import LimitAgreement
from research.core.errors import StateError
from research.core.options import OPTIONS, OnResume, Option
from research.core.settings import SavedOptions
from research.core.tiers import TierSource
from research.model.plan import Plan
from research.workspace.fsutil import NOT_REGULAR, atomic_write_text, read_regular, what_is

if TYPE_CHECKING:
    from research.core.settings import Settings

SCHEMA_VERSION = 2
STATE_KIND: Literal["research.py/state"] = "research.py/state"
STATE_COPY_NAME = "state.prev.json"
"""A second copy of the last saved state, next to state.json (written without fsync): what
a resume reads when an agent left a directory, link or FIFO in place of state.json."""


class Phase(StrEnum):
    INITIAL_PLAN = "initial_plan"
    RESEARCH = "research"
    REVIEW = "review"
    SYNTHESIZE = "synthesize"
    FINAL_REVIEW = "final_review"
    REVISE = "revise"
    VERIFY = "verify"
    RECOVERY = "recovery"
    DONE = "done"


class StopReason(StrEnum):
    """Why the RESEARCH-REVIEW loop ended."""

    ALL_DONE = "all_topics_done"
    ALL_EXHAUSTED = "all_open_topics_exhausted"
    ITERATION_LIMIT = "iteration_limit"
    TIME_BUDGET = "time_budget"
    LOW_NOVELTY = "low_novelty"
    CIRCUIT_BREAKER = "circuit_breaker"
    TOKEN_BUDGET = "token_budget"
    COST_BUDGET = "cost_budget"


class Verdict(BaseModel):
    """The fenced JSON block of a review verdict file."""

    model_config = ConfigDict(extra="ignore")

    verdict: Literal["accepted", "rejected"]
    summary: str
    gaps: list[str]
    nextSearchTopic: str | None = None  # noqa: N815 - the seed's key names
    urlToSearch: str | None = None  # noqa: N815
    confidence: float | None = None
    """How sure the reviewer is of the verdict, 0 to 1 (seed 002 §5.2); None when it gave
    none or not a number in that range (never a reason to fail the review)."""
    new_queries: list[str] = Field(default_factory=list)
    """Searches the reviewer suggests next (seed 002 §5.2): text only, at most ten."""

    @field_validator("confidence", mode="before")
    @classmethod
    def _confidence(cls, value: object) -> float | None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        return float(value) if 0.0 <= value <= 1.0 else None  # NaN is neither

    @field_validator("new_queries", mode="before")
    @classmethod
    def _queries(cls, value: object) -> list[str]:
        if not isinstance(value, list):
            return []
        return [q.strip()[:300] for q in value if isinstance(q, str) and q.strip()][:10]


class LoopDecision(BaseModel):
    """One record of decisions.jsonl: the keys are exactly these."""

    model_config = ConfigDict(extra="forbid")

    iteration: int
    topic: str
    summary: str
    gaps: list[str]
    shouldContinue: bool  # noqa: N815
    reason: str
    nextSearchTopic: str | None  # noqa: N815
    urlToSearch: str | None  # noqa: N815
    timeRemainingMinutes: float | None  # noqa: N815
    novelty: float | None
    confidence: float | None = None
    """The review's confidence in its verdict (0-1), when it gave one."""
    new_queries: list[str] = Field(default_factory=list)
    """The searches the review suggests next."""


class PhaseUsage(BaseModel):
    """Agent calls of one phase kind, summed over the run."""

    model_config = ConfigDict(extra="forbid")

    calls: int = 0
    failures: int = 0
    seconds: float = 0.0
    input_tokens: int | None = None
    """None while no call of this phase reported tokens."""
    output_tokens: int | None = None
    cost: float | None = None


_REQUIRED = frozenset({"breadth", "depth", "timeout"})
"""Saved options every state.json has had: a config without them was not written by us.
Any other saved option a state does not have (it predates the option) takes its default."""


def _saved_fields() -> dict[str, Any]:
    """`SavedOptions`' fields as the saved config has them: the same types and defaults,
    without the command line's bounds (a state saved under other bounds still loads)."""
    return {
        name: (field.annotation, ... if name in _REQUIRED else field.default)
        for name, field in SavedOptions.model_fields.items()
    }


if TYPE_CHECKING:
    _SavedConfig = SavedOptions
else:
    _SavedConfig = create_model(
        "SavedConfig", __config__=ConfigDict(extra="forbid"), **_saved_fields()
    )


class SessionConfig(_SavedConfig):
    """What the session was started with: the question, and the saved options of the option
    table (those not `PER_RUN`), under the same names. Those kept as the run gives them are
    `SavedOptions`' fields (core/settings.py), generated here: a new saved option is its row
    and its typed field there, nothing here."""

    model_config = ConfigDict(extra="forbid")

    original_topic: str
    """The user's research question."""
    max_iterations: int
    """The RESEARCH-REVIEW iteration limit (the effective one, never below the floor)."""
    model: str
    """Model for plan, research and synthesis."""
    review_model: str
    """Model for reviews."""
    agent: str = DEFAULT_AGENT.value
    """The agent's name: opencode, mock, or a command."""
    agent_cmd: str | None = None
    """The --agent-cmd command line, which `--resume` uses again unless told otherwise."""
    mock_mode: bool = False
    """True when the mock simulator played the agent in any part of the session."""
    source_dirs: list[str] = Field(default_factory=list)
    """The user's own document folders (--sources), read into the snapshot store."""
    tier_source: TierSource | None = None
    """Who chose the tier: the user, the plan, or nobody (the default)."""
    tier_reason: str = ""
    """The plan's one-line reason for its class."""
    explicit: list[str] = Field(default_factory=list)
    """The tier-set settings the user gave explicitly, which a tier never changes."""
    requested_max_iterations: int | None = None
    """--max-iterations as the user gave it (the limit follows the tree's floor)."""
    limit_agreement: LimitAgreement = LimitAgreement.UNASKED
    """How the user agreed to the iteration limit: what may raise it (`limit_raise`)."""
    limit_changes: list[str] = Field(default_factory=list)
    """What raised the iteration limit after the start, or kept it (the Methodology)."""

    @classmethod
    def from_settings(cls, settings: Settings, *, agent: str, max_iterations: int) -> SessionConfig:
        """A new session's saved options: `agent` is the agent's name, `max_iterations` the
        effective limit."""
        assert settings.topic is not None
        saved = {option.name: _saved(settings, option) for option in OPTIONS if option.saved}
        model, review_model = default_models(agent)
        if agent not in agent_names():  # a command: its reviews use --model unless told
            review_model = settings.model or review_model
        return cls.model_validate(
            {
                **saved,
                "model": settings.model or model,
                "review_model": settings.review_model or review_model,
                "original_topic": settings.topic,
                "max_iterations": max_iterations,
                "agent": agent,
                "agent_cmd": settings.agent_cmd,
                "mock_mode": settings.mock_mode,
            }
        )

    def fixed_changes(self, settings: Settings) -> list[str]:
        """The options fixed at session start that `settings` sets to another value."""
        return [
            f"{option.flag} (it has {getattr(self, option.name)})"
            for option in OPTIONS
            if option.on_resume is OnResume.FIXED
            and option.name in settings.given
            and _saved(settings, option) != getattr(self, option.name)
        ]

    def apply(self, settings: Settings) -> list[str]:
        """Take the options the user set on a resume; say what changed ("--time 5.0 (was
        unlimited)"). The agent is the settings' (see `apply_agent`)."""
        changes = self.apply_agent(settings)
        for option in OPTIONS:
            if option.name not in settings.given or option.on_resume not in _CHANGEABLE:
                continue
            before, value = getattr(self, option.name), _saved(settings, option)
            if option.on_resume is OnResume.RAISES:
                if value is None:
                    continue
                value = max(value, before)
            if value != before:
                setattr(self, option.name, value)
                changes.append(f"{option.flag} {_shown(value)} (was {_shown(before)})")
        return changes

    def apply_agent(self, settings: Settings) -> list[str]:
        """Any agent may continue a session, but once part of it was simulated the report
        says so. Another agent does not inherit the models named in the last one's
        naming: those not given become the new agent's defaults."""
        agent = agent_name(
            mock=settings.mock_mode, agent_cmd=settings.agent_cmd, kind=settings.agent
        )
        changes = []
        if agent != self.agent or settings.agent_cmd != self.agent_cmd:
            shown = (
                f"--agent-cmd {settings.agent_cmd!r}" if settings.agent_cmd else f"--agent {agent}"
            )
            changes.append(f"{shown} (was {self.agent_cmd or self.agent})")
            if agent != self.agent and agent in agent_names():  # a command keeps them
                changes += self._default_models(agent, settings)
            self.agent, self.agent_cmd = agent, settings.agent_cmd
        self.mock_mode = self.mock_mode or settings.mock_mode
        return changes

    def _default_models(self, agent: str, settings: Settings) -> list[str]:
        """Switch the models the user did not give to `agent`'s defaults."""
        changes = []
        for name, default in zip(("model", "review_model"), default_models(agent), strict=True):
            before = getattr(self, name)
            if name not in settings.given and before != default:
                setattr(self, name, default)
                changes.append(f"--{name.replace('_', '-')} {default} (was {before})")
        return changes


_CHANGEABLE = (OnResume.CHANGES, OnResume.RAISES)


def _saved(settings: Settings, option: Option) -> object:
    """Option `option`'s value in `settings`, as the saved config keeps it (paths as text)."""
    value = getattr(settings, option.name)
    if isinstance(value, tuple):
        return [str(item) for item in value]
    return value


def _shown(value: object) -> str:
    return "unlimited" if value is None else str(value)


class InFlight(BaseModel):
    """A topic's call in flight in parallel mode."""

    model_config = ConfigDict(extra="forbid")

    phase: Phase
    """RESEARCH or REVIEW."""
    iteration: int
    """The iteration this topic's RESEARCH → REVIEW counts as."""


class SessionProgress(BaseModel):
    """Where the session is: phase, iteration, topics in flight, stop reason."""

    model_config = ConfigDict(extra="forbid")

    iteration: int = 0
    """Finished RESEARCH-REVIEW iterations (counted when a RESEARCH call starts)."""
    current_phase: Phase = Phase.INITIAL_PLAN
    """The phase in flight, or the next one to run."""
    failed_phase: Phase | None = None
    """The phase a recovery round is repairing."""
    retry_count: int = 0
    """Recovery rounds used by the phase in flight."""
    current_topic: str | None = None
    """Slug of the topic whose RESEARCH or REVIEW is in flight."""
    in_flight: dict[str, InFlight] = Field(default_factory=dict)
    """Parallel mode: each topic with a call in flight, and that call's phase (RESEARCH or
    REVIEW). A resumed run re-runs exactly these calls."""

    @field_validator("in_flight", mode="before")
    @classmethod
    def _in_flight_list(cls, value: object) -> object:
        # A few early schema-2 files stored a list of slugs.
        if isinstance(value, list):
            return {slug: {"phase": Phase.RESEARCH, "iteration": 0} for slug in value}
        return value

    phase_history: list[str] = Field(default_factory=list)
    """Every phase started, in order."""
    last_error: str | None = None
    """The last agent or validation error, for the recovery prompt."""
    is_complete: bool = False
    """True once the report is final."""
    phase_recovered: bool = False
    """True when the phase in flight was repaired by a recovery round."""
    review_feedback: dict[str, Verdict] = Field(default_factory=dict)
    """The last rejection of each topic, handed to its next RESEARCH prompt."""
    stop_reason: StopReason | None = None
    """Why research ended, once it has."""
    stop_detail: str = ""
    """One line that explains the stop reason."""
    skipped_topics: list[str] = Field(default_factory=list)
    """Names of proposed topics skipped as near-duplicates or for low novelty."""
    exhausted_topics: list[str] = Field(default_factory=list)
    """Names of topics given up after MAX_TOPIC_ATTEMPTS attempts (#RETRY_EXHAUSTED)."""
    novelty: dict[str, float] = Field(default_factory=dict)
    """Novelty of each finished topic's notes against what was known before."""
    consecutive_low_novelty: int = 0
    """Finished topics in a row whose novelty was below min_novelty."""
    last_decision: LoopDecision | None = None
    """The last record written to decisions.jsonl."""
    consecutive_failed_phases: int = 0
    """Different topics whose phases failed in a row (the circuit breaker's count)."""
    failing_topics: list[str] = Field(default_factory=list)
    """Those topics' slugs; any phase that succeeds clears the list."""
    start_time: float = 0.0
    """When the session was first started (epoch seconds)."""
    elapsed_seconds: float = 0.0
    """Wall-clock time used by all processes of this session, up to the last save."""
    lock_token: str | None = None
    """The token of the lock held by the run that last saved this state."""
    lock_generation: int = 0
    """The generation (fencing token) of that lock: a run of a lower one that wakes up
    after this one released the lock knows it was taken over (workspace/keepalive.py)."""
    awaiting_approval: bool = False
    """The plan is written and the run stopped for the user to approve it (--approve-plan)."""
    plan_approved: bool = False
    """The user approved the plan (and its answers reach every later prompt)."""


class SessionUsage(BaseModel):
    """Agent calls, failures and tokens, summed over the session."""

    model_config = ConfigDict(extra="forbid")

    agent_calls: int = 0
    """Agent calls started."""
    agent_failures: int = 0
    """Agent calls that failed (error, timeout, invalid output)."""
    failed_phases: int = 0
    """Phases that failed even after their retries and recovery."""
    phases_run: int = 0
    """Phases finished, failed or not (the circuit breaker's ratio rule)."""
    breaker_failures: int = 0
    """Failed phases as the circuit breaker counts them: each topic's at most once."""
    failed_topics: list[str] = Field(default_factory=list)
    """Slugs of every topic with a failed phase (so its further failures are not counted)."""
    recoveries: int = 0
    """Recovery rounds run."""
    phases: dict[str, PhaseUsage] = Field(default_factory=dict)
    """Per phase kind: calls, failures, seconds, tokens and cost."""
    models_used: list[str] = Field(default_factory=list)
    """The models the agent said its calls ran on (an alias resolved), in first-use order;
    empty when it says none."""

    def total_tokens(self) -> int:
        """Input and output tokens the calls reported, over all phases."""
        return sum((u.input_tokens or 0) + (u.output_tokens or 0) for u in self.phases.values())

    def total_cost(self) -> float:
        """The cost the calls reported, in USD, over all phases."""
        return sum(u.cost or 0.0 for u in self.phases.values())


class UnverifiedCitation(BaseModel):
    """A report citation the source check could not confirm (the report's appendix)."""

    model_config = ConfigDict(extra="forbid")

    id: int
    """The citation number."""
    location: str
    """The URL or file:<path> it points to."""
    outcome: str
    """unsupported, weak or unverifiable."""
    reason: str
    """Why, in one line."""


class FlaggedSentence(BaseModel):
    """A report sentence (or table row) its cited pages do not support (the appendix)."""

    model_config = ConfigDict(extra="forbid")

    ids: list[int]
    """The citation numbers it carries."""
    sentence: str
    """The sentence as checked (without its citations)."""
    outcome: str
    """unsupported, weak or unverifiable."""
    reason: str
    """Why, in one line (a missing figure is named here)."""
    passage: str = ""
    """The best passage of the page, including the page's own figure where it differs."""
    decided_by: str = "rules"
    """"rules", or "judge" when the agent's judgement (with its quote as the passage)
    decided."""


class VerificationSummary(BaseModel):
    """The source check's figures as the Methodology states them."""

    model_config = ConfigDict(extra="forbid")

    sources_cited: int = 0
    """Distinct sources the research notes cite."""
    snapshotted: int = 0
    """Sources fetched (or read, for local documents) with a text snapshot kept."""
    dead: int = 0
    """Sources that could not be reached: not found, unreachable or timed out."""
    not_checked: int = 0
    """Sources fetched with no usable text, blocked, or refused (skipped)."""
    local_documents: int = 0
    """Local documents (--sources) in the store."""
    claims_checked: int = 0
    """Report sentences with a citation that were checked against their pages."""
    supported: int = 0
    weak: int = 0
    unsupported: int = 0
    unverifiable: int = 0
    """Claims whose cited source has no snapshot."""
    unverified: list[UnverifiedCitation] = Field(default_factory=list)
    """Each report citation that could not be verified (at most the first 100)."""
    flagged: list[FlaggedSentence] = Field(default_factory=list)
    """Each cited sentence that is not supported (at most the first 100)."""
    not_reached: int = 0
    """Sources not checked because this machine could not reach the web."""
    judge: str = "off"
    """--judge as the session ran: all, flagged or off."""
    decided_by_rules: int = 0
    """Checked sentences whose verdict is the rules' (no judgement, or a void one)."""
    decided_by_judge: int = 0
    """Checked sentences whose verdict is the judge's (with a quote found on the page)."""
    judge_voided: int = 0
    """Judgements voided: their quote was not on the page (the rules decided)."""
    judge_calls: int = 0
    """VERIFY calls made for the report."""
    judge_failed: int = 0
    """VERIFY calls that failed or left no valid answers (their sentences: the rules')."""
    judge_skipped: str = ""
    """Why sentences were not sent to the judge, when budgets stopped it."""


class FinalCycle(BaseModel):
    """What happened in SYNTHESIZE, FINAL REVIEW and REVISE."""

    model_config = ConfigDict(extra="forbid")

    final_review_rejected: bool = False
    """True when the final review asked for a revision."""
    final_review_accepted: bool = False
    """True when the final review accepted the report."""
    citation_ids_removed: list[int] = Field(default_factory=list)
    """Citation ids the orchestrator removed from the report (no such source)."""
    report_fallback: bool = False
    """True when the orchestrator compiled the report itself because SYNTHESIZE failed."""
    revision_failed: bool = False
    """True when REVISE failed and the synthesized report was kept."""
    sources_found: int = 0
    """Sources in the registry (sources.json) when the report was finalised."""
    sources_cited: int = 0
    """Registry ids the final report cites."""
    sources_section_rebuilt: bool = False
    """True when the orchestrator rewrote the report's Sources section from the registry."""
    time_ran_out: bool = False
    budget_ran_out: str | None = None
    """"token_budget" or "cost_budget" when that budget was used up in the final cycle, so
    a final-cycle call was not made."""
    """True when the time budget ran out during the final cycle (the report says so)."""
    verification: VerificationSummary | None = None
    """What the source check found, for the Methodology; None when it was off."""


class SourceLedger(BaseModel):
    """What the snapshot store holds, as this orchestrator stored it. The store's own index
    lies in the session directory, where the agent can write; on resume a record of it is
    used only when its digest is here (research/sources/store.py)."""

    model_config = ConfigDict(extra="forbid")

    digests: dict[str, str] = Field(default_factory=dict)
    """URL (or file:<path>) → its stored SourceRecord's JSON signed (HMAC-SHA256) with the
    user's key, which lives outside the working directory."""
    key_id: str | None = None
    """Which key signed the digests; None in a ledger of an older version (plain sha256
    digests) or of a session migrated from before the ledger."""
    skipped_documents: dict[str, str] = Field(default_factory=dict)
    """--sources documents not read at the last start: location → why."""
    documents_over_cap: int = 0
    """--sources documents beyond the cap at the last start, not read."""


class RWRState(BaseModel):
    """Everything needed to resume a session exactly where its last saved phase left off."""

    model_config = ConfigDict(extra="forbid", validate_assignment=False)

    kind: Literal["research.py/state"] = STATE_KIND
    """Marks the file as ours, so a foreign JSON file is refused with a clear message."""
    schema_version: int = SCHEMA_VERSION
    """The shape of this file; older shapes are migrated on load."""
    name: str
    """The session's name (the directory under .research/)."""
    config: SessionConfig
    """What the session was started with."""
    plan: Plan
    """The topic tree."""
    progress: SessionProgress = Field(default_factory=SessionProgress)
    """Where the session is."""
    usage: SessionUsage = Field(default_factory=SessionUsage)
    """Agent calls and tokens."""
    final: FinalCycle = Field(default_factory=FinalCycle)
    """The final cycle's outcome."""
    sources: SourceLedger = Field(default_factory=SourceLedger)
    """The snapshot store's records, as stored (a session from before this field has an
    empty ledger: its stored sources are fetched again)."""


# Schema 1 kept every field at the top level; this says where each one lives now.
_V1_SECTIONS: dict[str, tuple[str, ...]] = {
    "config": tuple(SessionConfig.model_fields),
    "progress": tuple(SessionProgress.model_fields),
    "usage": tuple(SessionUsage.model_fields),
    "final": tuple(FinalCycle.model_fields),
}


def migrate_v1(raw: dict[str, object]) -> dict[str, object]:
    """Turn a schema-1 (flat) state dict into the schema-2 (nested) shape.

    Unknown keys stay at the top level, so validation still refuses them by name.
    """
    flat = dict(raw)
    nested: dict[str, object] = {}
    for section, names in _V1_SECTIONS.items():
        nested[section] = {name: flat.pop(name) for name in names if name in flat}
    usage = nested["usage"]
    assert isinstance(usage, dict)
    if "usage" in flat:
        usage["phases"] = flat.pop("usage")
    return {**flat, **nested, "schema_version": SCHEMA_VERSION}


def saved_lock_generation(path: Path) -> int:
    """The lock generation `path` (a state.json) was last saved under; 0 when it cannot be
    read. Never follows a link or opens a FIFO."""
    data = read_regular(path)
    if data is None or data == NOT_REGULAR:
        return 0
    try:
        value = json.loads(data)["progress"]["lock_generation"]
    except (ValueError, KeyError, TypeError):
        return 0
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def save_state(state: RWRState, path: Path) -> None:
    """Save the state, and its copy (STATE_COPY_NAME) next to it."""
    text = state.model_dump_json(indent=2) + "\n"
    atomic_write_text(path, text)
    atomic_write_text(path.with_name(STATE_COPY_NAME), text, durable=False)


def state_entry(path: Path) -> str | None:
    """None when `path` is a regular file; else what is there instead, in words
    ("missing", "a directory", "a symbolic link", "a FIFO", … see fsutil.what_is)."""
    what = what_is(path, link_target=False)
    return {"nothing": "missing", "a file": None}.get(what, what)


def load_saved_state(path: Path) -> tuple[RWRState, str | None]:
    """The session's state, and a note when it came from the copy.

    state.json itself unless it is missing or not a regular file (a directory, link or FIFO
    an agent left) while the copy (STATE_COPY_NAME) is there: then the copy, with one line
    saying so. A state.json that is a regular file is never replaced by the copy: a corrupt
    one (a user's edit) is refused with the usual clear error.
    """
    problem = state_entry(path)
    copy = path.with_name(STATE_COPY_NAME)
    if problem is None or state_entry(copy) is not None:
        return load_state(path), None
    state = load_state(copy)
    return state, (
        f"{path} is {problem}; the session was resumed from {copy.name}, the "
        "copy of its last saved state"
    )


def load_state(path: Path) -> RWRState:
    """Read a state file, turning every way it can be wrong into one clear StateError.
    A link or FIFO in its place is never followed or opened."""
    data = read_regular(path)
    if data is None:
        raise StateError(f"no saved session at {path}: start it without --resume, or check --name")
    if data == NOT_REGULAR:
        what = state_entry(path) or "unreadable"
        raise StateError(
            f"cannot read {path}: it is {what}, not the session's state file; it was left untouched"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StateError(
            f"{path} is corrupt (not UTF-8 text: {exc.reason}); it was left untouched"
        ) from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise StateError(
            f"{path} is corrupt (not valid JSON: {exc}); it was left untouched"
        ) from None
    if not isinstance(raw, dict) or raw.get("kind") != STATE_KIND:
        raise StateError(f"{path} is not a research.py state file; it was left untouched")
    version = raw.get("schema_version")
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        raise StateError(
            f"{path} was written by a newer research.py (schema {version!r}, this version reads "
            f"{SCHEMA_VERSION}); upgrade research.py to resume it"
        )
    if version == 1:
        raw = migrate_v1(raw)
    try:
        return RWRState.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise StateError(
            f"{path} does not have the shape of a research.py state file "
            f"({where}: {first['msg']}); it was left untouched"
        ) from None

"""Every option of a run, declared once.

Each `Option` gives a setting's flag, RESEARCH_* variable, default, bounds, help text, what a
resumed session does with it, and whether (and as what) the service's requests and the
queue's jobs carry it. The command line declares its flags from this table, `Settings` takes
its defaults and bounds from it, the saved `SessionConfig` copies and updates the options
marked as saved, and `option_fields` generates the service's requests and the queue's jobs
from it; a job becomes the child's command line through `command_line`. To add an option:
add its row here and its typed field to `Settings` (to `SavedOptions`, which `Settings`
and the saved `SessionConfig` are built on, when it is saved), and use it: the CLI, the
variables, the service, /search, the queue, the worker and --resume take it from the row.

Plain Python with no third-party imports, so `--help` needs no pydantic. The defaults
themselves live in `defaults`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import Enum, StrEnum
from pathlib import Path

from research.core import defaults as d
from research.core.agentkind import AGENT_MODELS, DEFAULT_AGENT, AgentKind, agent_names
from research.core.budget import iteration_floor, parse_time_budget, time_budget_from_env
from research.core.prices import load_prices
from research.core.tiers import TIERS, Tier


class OnResume(StrEnum):
    """What `--resume` does with an option."""

    FIXED = "fixed"
    """Fixed at session start: a different value on the command line is refused, and the
    environment's value is a default for new sessions only."""
    CHANGES = "changes"
    """Saved; a value the user gives replaces the saved one."""
    RAISES = "raises"
    """Saved; a value the user gives replaces the saved one only when it is higher."""
    PER_RUN = "per_run"
    """Not saved: each run's own (--quiet, --yes, ...)."""


def check_timeout(value: float) -> float:
    if not 1 <= value <= d.MAX_TIMEOUT_SECONDS:  # also refuses NaN
        raise ValueError(
            f"{value} is not a number of seconds from 1 to {d.MAX_TIMEOUT_SECONDS:.0f} (a week)"
        )
    return value


def check_fraction(value: float) -> float:
    if not 0.0 <= value <= 1.0:  # a plain range check lets NaN through
        raise ValueError(f"{value} is not a number from 0 to 1")
    return value


def check_latency(value: float) -> float:
    if not 0.0 <= value <= d.MAX_MOCK_LATENCY_SECONDS:  # also refuses NaN
        raise ValueError(
            f"{value} is not a number of seconds from 0 to {d.MAX_MOCK_LATENCY_SECONDS:.0f}"
        )
    return value


def check_failover(value: float) -> float:
    low, high = d.FAILOVER_RANGE
    if not low <= value <= high:  # also refuses NaN
        raise ValueError(f"{value} is not a number of seconds from {low:.0f} to {high:.0f}")
    return value


def time_budget_minutes(value: str) -> float | None:
    """A --time value in minutes (None: unlimited), or ValueError saying what is wrong."""
    minutes = parse_time_budget(value)
    if minutes is not None and minutes > d.MAX_TIME_BUDGET_MINUTES:
        raise ValueError(
            f"the time budget must be at most {d.MAX_TIME_BUDGET_MINUTES:.0f} minutes (a year), "
            f"not {value!r}; use 'unlimited' for no limit"
        )
    return minutes


def existing_folders(value: Iterable[Path]) -> tuple[Path, ...]:
    """Each --sources DIR must be a folder; kept as given, resolved."""
    for folder in value:
        if not folder.is_dir():
            raise ValueError(f"{str(folder)!r} is not a folder")
    return tuple(folder.resolve() for folder in value)


@dataclass(frozen=True)
class Option:
    """One option of a run. `name` is its field in `Settings` (and in `SessionConfig`)."""

    name: str
    flags: tuple[str, ...]
    """The command-line flag first, then its short form (`-y`)."""
    help: str
    kind: type = str
    """int, float, str, bool or Path: the type of the value on the command line."""
    default: object = None
    env: str | None = None
    """The RESEARCH_* variable that gives a default to the flag."""
    env_seconds: str | None = None
    """A second variable that gives the same value in seconds (`seconds_from_environment`)."""
    minimum: float | None = None
    maximum: float | None = None
    on_resume: OnResume = OnResume.PER_RUN
    off_flag: str | None = None
    """A boolean's negative flag (`--no-verify-sources`), when it has one."""
    check: Callable[[object], object] | None = None
    """Checks (and converts) the command-line value; raises ValueError with the message."""
    shown_default: str | bool = True
    """What `--help` shows as the default (False: nothing; True: the default itself)."""
    metavar: str | None = None
    repeatable: bool = False
    api: bool = True
    """Whether the service's requests (POST /run, POST /search) may set it."""
    request: str | None = None
    """Its field in the service's requests, where that is not its name."""
    request_seconds: str | None = None
    """A second request field that gives the same value in seconds."""
    job: bool = True
    """Whether a job (the service's child, the queue's message) carries it to the child
    `research`; False for what whoever runs a job decides (--yes, --quiet, its agent
    command, the failover bound) and for the job's own fields (its name, its agent)."""
    choices: tuple[str, ...] | None = None
    """The values it takes, where it takes a few names (an enum `kind` gives its own)."""
    max_length: int | None = None
    """The longest text a request or a job may give (a model's name)."""
    unlimited: bool = False
    """'unlimited' is one of its values: None in `Settings`, given all the same."""
    setting: bool = True
    """Whether `Settings` has a field of this name."""

    @property
    def flag(self) -> str:
        return self.flags[0]

    @property
    def request_field(self) -> str | None:
        """Its field in the service's requests, or None when they cannot set it."""
        return (self.request or self.name) if self.api else None

    @property
    def values(self) -> tuple[str, ...] | None:
        """The names it takes (`choices`, or its enum's values), or None for any value."""
        if isinstance(self.kind, type) and issubclass(self.kind, Enum):
            return tuple(str(member.value) for member in self.kind)
        return self.choices

    @property
    def saved(self) -> bool:
        """Whether the session's `SessionConfig` keeps it."""
        return self.on_resume is not OnResume.PER_RUN


def _checked(check: Callable[[float], float]) -> Callable[[object], object]:
    def run(value: object) -> object:
        return None if value is None else check(float(value))  # type: ignore[arg-type]

    return run


def check_export(value: str) -> str:
    """--export's formats, in the one order and lower case ("pdf,docx"); "" for none; or
    ValueError naming what is not a format."""
    formats = {part.strip().lower() for part in value.split(",") if part.strip()}
    unknown = sorted(formats - set(d.EXPORT_FORMATS))
    if unknown:
        raise ValueError(
            f"{unknown[0]!r} is not an export format: give "
            f"{' or '.join(d.EXPORT_FORMATS)}, or both ({','.join(d.EXPORT_FORMATS)})"
        )
    return ",".join(f for f in d.EXPORT_FORMATS if f in formats)


def _export(value: object) -> object:
    return None if value is None else check_export(str(value))


def _time(value: object) -> object:
    return None if value is None else time_budget_minutes(str(value))


def check_cost(value: float) -> float:
    if not 0 < value < math.inf:  # also refuses NaN
        raise ValueError(f"{value} is not a positive number of US dollars")
    return value


def check_tier(value: str) -> str:
    """A tier's name ("simple", "standard" or "deep"), or ValueError."""
    name = value.strip().lower()
    if name not in {tier.value for tier in Tier}:
        raise ValueError(f"{value!r} is not a tier: give simple, standard or deep")
    return name


def _tier(value: object) -> object:
    return None if value is None else check_tier(str(value))


def _price_file(value: object) -> object:
    """A --codex-prices file that can be read as one (ValueError otherwise)."""
    if value is None:
        return None
    load_prices(Path(str(value)))
    return Path(str(value)).resolve()


def _folders(value: object) -> object:
    return None if not value else existing_folders(value)  # type: ignore[arg-type]


def _defaults(field: str) -> str:
    """Each built-in agent's default model, for --help."""
    return ", ".join(
        f"{kind.value} {getattr(models, field)}"
        for kind, models in AGENT_MODELS.items()
        if kind is not AgentKind.MOCK
    )


MAX_NAME_LENGTH = 200
"""The longest model name a request or a job may give."""
MAX_COMMAND_LENGTH = 4000


def _by_tier(field: str) -> str:
    """A tier-set option's default as --help shows it: "by tier: simple 2, standard 3,
    deep 4; the plan picks the tier unless --tier does"."""

    def shown(value: object) -> str:
        return (
            "unlimited"
            if value is None
            else f"{value:g}"
            if isinstance(value, float)
            else str(value)
        )

    values = ", ".join(
        f"{tier.value} {shown(getattr(spec, field))}" for tier, spec in TIERS.items()
    )
    return f"by tier: {values}; the plan picks the tier unless --tier does"


OPTIONS: tuple[Option, ...] = (
    Option(
        "name",
        ("--name",),
        "Session name: .research/NAME/ and reports/NAME/ (default: slug of the topic).",
        shown_default=False,
        job=False,  # the job's own field
    ),
    Option(
        "breadth",
        ("--breadth",),
        "Max subtopics per topic, and depth-0 topics.",
        kind=int,
        default=d.DEFAULT_BREADTH,
        shown_default=_by_tier("breadth"),
        env="RESEARCH_BREADTH",
        minimum=d.BREADTH_RANGE[0],
        maximum=d.BREADTH_RANGE[1],
        on_resume=OnResume.FIXED,
    ),
    Option(
        "depth",
        ("--depth",),
        "Number of topic levels.",
        kind=int,
        default=d.DEFAULT_DEPTH,
        shown_default=_by_tier("depth"),
        env="RESEARCH_DEPTH",
        minimum=d.DEPTH_RANGE[0],
        maximum=d.DEPTH_RANGE[1],
        on_resume=OnResume.FIXED,
    ),
    Option(
        "max_iterations",
        ("--max-iterations",),
        "RESEARCH-REVIEW cycles (default and minimum: breadth^(depth+1)+5).",
        kind=int,
        env="RESEARCH_MAX_ITERS",
        minimum=1,
        maximum=d.MAX_ITERATIONS,
        on_resume=OnResume.RAISES,
        shown_default=False,
    ),
    Option(
        "time_budget_minutes",
        ("--time",),
        "Wall-clock budget for the whole run, in minutes.",
        env="RESEARCH_TIME_BUDGET",
        env_seconds="RESEARCH_MAX_EXECUTION_TIME_S",
        on_resume=OnResume.CHANGES,
        check=_time,
        shown_default=_by_tier("time_budget_minutes"),
        metavar="MINUTES|unlimited",
        request="time",
        request_seconds="max_execution_time_s",
        unlimited=True,
    ),
    Option(
        "model",
        ("--model",),
        "Model for plan/research/synthesis, in the agent's own naming.",
        env="RESEARCH_MODEL",
        shown_default="the agent's: " + _defaults("model"),
        on_resume=OnResume.CHANGES,
        max_length=MAX_NAME_LENGTH,
    ),
    Option(
        "review_model",
        ("--review-model",),
        "Model for reviews, in the agent's own naming.",
        env="RESEARCH_REVIEW_MODEL",
        shown_default="the agent's: " + _defaults("review_model"),
        on_resume=OnResume.CHANGES,
        max_length=MAX_NAME_LENGTH,
    ),
    Option(
        "timeout",
        ("--timeout",),
        "Seconds per agent call.",
        kind=float,
        default=d.DEFAULT_TIMEOUT_SECONDS,
        env="RESEARCH_TIMEOUT",
        on_resume=OnResume.CHANGES,
        check=_checked(check_timeout),
        shown_default=f"{d.DEFAULT_TIMEOUT_SECONDS:g}",
    ),
    Option(
        "parallel",
        ("--parallel",),
        "Research up to N independent topics at once, each in its own agent process (1-8).",
        kind=int,
        default=d.DEFAULT_PARALLEL,
        env="RESEARCH_PARALLEL",
        minimum=d.PARALLEL_RANGE[0],
        maximum=d.PARALLEL_RANGE[1],
        on_resume=OnResume.CHANGES,
    ),
    Option(
        "agent",
        ("--agent",),
        f"The agent to drive: {', '.join(agent_names())} (mock: the same as --mock-mode).  "
        "A resumed session keeps its own unless one is given.",
        kind=AgentKind,
        default=DEFAULT_AGENT,
        env="RESEARCH_AGENT",
        job=False,  # the job's own field
    ),
    Option(
        "agent_cmd",
        ("--agent-cmd",),
        "Use a generic agent command that reads the prompt on stdin; {model} is replaced by "
        "--model, which it then needs "
        '(e.g. --agent-cmd "claude -p --permission-mode acceptEdits --model {model}" '
        "--model sonnet --review-model sonnet).",
        env="RESEARCH_AGENT_CMD",
        shown_default=False,
        max_length=MAX_COMMAND_LENGTH,
        api=False,  # a server's or a worker's own
        job=False,
    ),
    Option(
        "codex_prices",
        ("--codex-prices",),
        "A JSON file of model prices for Codex, which reports no cost: "
        '{"model": {"input": USD, "cached_input": USD, "output": USD}} per million tokens, '
        "on top of research.py's dated table.",
        kind=Path,
        env="RESEARCH_CODEX_PRICES",
        check=_price_file,
        shown_default=False,
        metavar="FILE",
        api=False,  # a file on the runner's machine: never a client's to name
        job=False,  # the runner's, like its agent: a server's or worker's environment
    ),
    Option(
        "duplicate_threshold",
        ("--duplicate-threshold",),
        "Similarity at which a proposed topic counts as a duplicate.",
        kind=float,
        default=d.DEFAULT_DUPLICATE_THRESHOLD,
        env="RESEARCH_DUPLICATE_THRESHOLD",
        minimum=0.0,
        maximum=1.0,
        on_resume=OnResume.CHANGES,
        check=_checked(check_fraction),
    ),
    Option(
        "min_novelty",
        ("--min-novelty",),
        "Novelty below which a topic's subtopics are skipped.",
        kind=float,
        default=d.DEFAULT_MIN_NOVELTY,
        env="RESEARCH_MIN_NOVELTY",
        minimum=0.0,
        maximum=1.0,
        on_resume=OnResume.CHANGES,
        check=_checked(check_fraction),
    ),
    Option(
        "early_termination",
        ("--early-termination",),
        "Stop research early when new findings stop adding anything new.",
        kind=bool,
        default=d.DEFAULT_EARLY_TERMINATION,
        env="RESEARCH_EARLY_TERMINATION",
        on_resume=OnResume.CHANGES,
        off_flag="--no-early-termination",
    ),
    Option(
        "verify_sources",
        ("--verify-sources",),
        "Fetch every cited page, keep a text snapshot, and check the notes' and the report's "
        "claims against it.",
        kind=bool,
        default=d.DEFAULT_VERIFY_SOURCES,
        env="RESEARCH_VERIFY_SOURCES",
        on_resume=OnResume.CHANGES,
        off_flag="--no-verify-sources",
    ),
    Option(
        "judge",
        ("--judge",),
        "After the rules, the review model judges the report's cited sentences against their "
        "pages, quoting the page: all of them, only those the rules flagged, or none.",
        kind=d.JudgeMode,
        default=d.DEFAULT_JUDGE,
        env="RESEARCH_JUDGE",
        on_resume=OnResume.CHANGES,
        metavar="all|flagged|off",
    ),
    Option(
        "allow_private_sources",
        ("--allow-private-sources",),
        "Also fetch URLs on loopback, private or link-local addresses (refused by default: "
        "the agent chooses the URLs).",
        kind=bool,
        default=d.DEFAULT_ALLOW_PRIVATE_SOURCES,
        env="RESEARCH_ALLOW_PRIVATE_SOURCES",
        on_resume=OnResume.CHANGES,
        api=False,  # the server's network is not a client's to reach
    ),
    Option(
        "source_dirs",
        ("--sources",),
        "A folder of your own documents (.md, .txt, .html, .pdf) to research and cite as "
        "file:<path>; repeatable.",
        kind=Path,
        on_resume=OnResume.CHANGES,
        check=_folders,
        shown_default=False,
        metavar="DIR",
        repeatable=True,
        request="sources",
    ),
    Option(
        "mock_latency",
        ("--mock-latency",),
        "Seconds each simulated agent call takes, so that a run can be watched.",
        kind=float,
        default=0.0,
        env="RESEARCH_MOCK_LATENCY",
        minimum=0.0,
        maximum=d.MAX_MOCK_LATENCY_SECONDS,
        check=_checked(check_latency),
        shown_default="0",
        api=False,  # the server's environment decides
    ),
    Option(
        "failover_seconds",
        ("--failover",),
        "Seconds within which a dead host's session is resumed elsewhere; another host's "
        "lock is taken over when its heartbeat stays unchanged for 2/5 of it.",
        kind=float,
        env="RESEARCH_FAILOVER_SECONDS",
        minimum=d.FAILOVER_RANGE[0],
        maximum=d.FAILOVER_RANGE[1],
        check=_checked(check_failover),
        shown_default=f"{d.DEFAULT_FAILOVER_SECONDS:g}",
        metavar="SECONDS",
        api=False,  # each host's own
        job=False,
    ),
    Option(
        "tier",
        ("--tier",),
        "Complexity tier: sets breadth, depth, searches, the source cap and the time budget "
        "(the flags of those win).",
        env="RESEARCH_TIER",
        on_resume=OnResume.FIXED,
        check=_tier,
        shown_default="the plan's class",
        metavar="simple|standard|deep",
        choices=tuple(tier.value for tier in Tier),
        request="complexity_tier",
    ),
    Option(
        "searches",
        ("--max-queries",),
        "Web searches per research phase.",
        kind=int,
        env="RESEARCH_MAX_QUERIES",
        minimum=1,
        maximum=d.MAX_SEARCHES,
        on_resume=OnResume.FIXED,
        shown_default="--breadth's when given without --tier; else " + _by_tier("searches"),
        request="max_queries",
    ),
    Option(
        "max_sources",
        ("--max-sources",),
        "The most sources one topic's notes may list.",
        kind=int,
        env="RESEARCH_MAX_SOURCES",
        minimum=1,
        maximum=d.MAX_SOURCES,
        on_resume=OnResume.FIXED,
        shown_default=_by_tier("max_sources"),
    ),
    Option(
        "token_budget",
        ("--token-budget",),
        "Tokens the agent's calls may use; research stops with a quarter left for the final cycle.",
        kind=int,
        env="RESEARCH_TOKEN_BUDGET",
        minimum=1,
        on_resume=OnResume.CHANGES,
        shown_default="unlimited",
    ),
    Option(
        "max_cost",
        ("--max-cost",),
        "Cost the agent's calls may reach, in US dollars; research stops with a quarter left "
        "for the final cycle.",
        kind=float,
        env="RESEARCH_MAX_COST",
        on_resume=OnResume.CHANGES,
        check=_checked(check_cost),
        shown_default="unlimited",
        metavar="USD",
    ),
    Option(
        "export",
        ("--export",),
        "Also write the report as PDF and/or Word beside report.html (reports/<name>/report.pdf, "
        "report.docx), from the same rendered report; needs the [export] extra.",
        env="RESEARCH_EXPORT",
        on_resume=OnResume.CHANGES,
        check=_export,
        shown_default="none",
        metavar="pdf,docx",
    ),
    Option(
        "approve_plan",
        ("--approve-plan",),
        "Stop after the initial plan, awaiting your approval: edit the plan, answer its open "
        "questions, then continue with --resume.",
        kind=bool,
        default=False,
        env="RESEARCH_APPROVE_PLAN",
        on_resume=OnResume.CHANGES,
    ),
    Option(
        "resume",
        ("--resume",),
        "Continue a saved session.",
        kind=bool,
        default=False,
        api=False,
        job=False,
    ),
    Option(
        "force_resume",
        ("--force-resume",),
        "Resume and take over the session lock even if it is live.",
        kind=bool,
        default=False,
        api=False,
        job=False,
    ),
    Option(
        "mock_mode",
        ("--mock-mode",),
        "Use the built-in simulated agent: no network, no keys.",
        kind=bool,
        default=False,
        api=False,
        job=False,
    ),
    Option(
        "assume_yes",
        ("--yes", "-y"),
        "Answer yes to the many-iterations confirmation.",
        kind=bool,
        default=False,
        api=False,
        job=False,
    ),
    Option(
        "quiet",
        ("--quiet", "-q"),
        "Print only errors and the final summary.",
        kind=bool,
        default=False,
        api=False,
        job=False,
    ),
    Option(
        "verbose",
        ("--verbose", "-v"),
        "Log DEBUG messages.",
        kind=bool,
        default=False,
        api=False,
        job=False,
    ),
)

OPTION: Mapping[str, Option] = {option.name: option for option in OPTIONS}
BY_REQUEST: Mapping[str, Option] = {
    option.request_field: option for option in OPTIONS if option.request_field is not None
}
ENV: Mapping[str, str] = {option.name: option.env for option in OPTIONS if option.env}


def given_names(
    sources: Mapping[str, str | None], resuming: bool, values: Mapping[str, object]
) -> frozenset[str]:
    """The options the user set: on the command line, or in the environment (an option
    fixed at session start takes the environment's value on a new session only).

    `sources` maps each option to where its value came from: "COMMANDLINE", "ENVIRONMENT",
    "DEFAULT", or None.
    """
    given = set()
    for name, source in sources.items():
        if values.get(name) is None and not _none_is_a_value(name, source):
            continue
        if source == "COMMANDLINE" or (
            source == "ENVIRONMENT" and not (resuming and OPTION[name].on_resume is OnResume.FIXED)
        ):
            given.add(name)
    return frozenset(given)


def _none_is_a_value(name: str, source: str | None) -> bool:
    """'unlimited' is a time budget too (None), which a resumed session must take."""
    return OPTION[name].unlimited and source in ("COMMANDLINE", "ENVIRONMENT")


def seconds_from_environment(option: Option, environ: Mapping[str, str]) -> float | None:
    """The option's value in minutes from its seconds variable, None when that is unset.

    Its minutes variable may be set too, to the same budget; to a different one it is a
    ValueError, as neither can win.
    """
    if option.env_seconds is None or not environ.get(option.env_seconds, "").strip():
        return None
    minutes_text = environ.get(option.env) if option.env else None
    text = time_budget_from_env(minutes_text, environ[option.env_seconds])
    assert text is not None
    return time_budget_minutes(text)


def command_line(values: Mapping[str, object]) -> list[str]:
    """The flags that give these option values (by option name) to a child `research`."""
    args: list[str] = []
    for name, value in values.items():
        option = OPTION[name]
        if option.kind is bool:
            if value or option.off_flag is not None:
                args.append(option.flag if value else str(option.off_flag))
        elif option.repeatable:
            for item in value:  # type: ignore[attr-defined]
                args += [option.flag, str(item)]
        else:
            args += [option.flag, _shown(value)]
    return args


def _shown(value: object) -> str:
    if value is None:
        return "unlimited"
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        return str(int(value))
    return str(value)


def iteration_floor_note(values: Mapping[str, object]) -> str | None:
    """What happens to a requested --max-iterations below the floor of its breadth and depth
    (the tier's where not given): the run raises it to the floor, as the CLI says. None when
    it is not below."""
    requested = values.get("max_iterations")
    if not isinstance(requested, int):
        return None
    tier = values.get("tier")
    spec = TIERS[Tier(str(tier))] if tier is not None else None
    breadth = int(values.get("breadth", spec.breadth if spec else d.DEFAULT_BREADTH))  # type: ignore[call-overload]
    depth = int(values.get("depth", spec.depth if spec else d.DEFAULT_DEPTH))  # type: ignore[call-overload]
    floor = iteration_floor(breadth, depth)
    if requested >= floor:
        return None
    shape = (
        ""
        if tier is not None or {"breadth", "depth"} <= set(values)
        else ("; the plan's tier may change breadth and depth, and the floor with them")
    )
    return (
        f"max_iterations {requested} is below the iteration floor breadth^(depth+1)+5 = "
        f"{floor} (breadth {breadth}, depth {depth}): the run raises it to {floor}{shape}"
    )

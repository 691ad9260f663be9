"""The command line: options → a typed Settings → the session; errors → exit codes.

This module only declares the options, builds `Settings` from them by name, and turns the
domain's errors into exit codes. To add an option: declare it on `main_command`, then pass
it to `Settings` in `build_settings` (through `given` when a resumed session keeps its own
value unless the user sets one).
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from research import __version__
from research.core import defaults
from research.core.errors import Interrupted, ResearchError, UsageError

if TYPE_CHECKING:
    from research.core.settings import Settings

app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help and usage errors: rich's help formatter costs ~150 ms
    context_settings={"help_option_names": ["-h", "--help"]},
    help="Breadth-first desk research driven by an AI coding agent (OpenCode).",
)

ENV = defaults.ENV
MAX_TIMEOUT_SECONDS = 7 * 24 * 3600.0
"""A week per agent call: more is a typo (or inf), and would overflow the clock."""
MAX_TIME_BUDGET_MINUTES = 366 * 24 * 60.0
"""A year for the whole run; use 'unlimited' for no limit."""
MAX_ITERATIONS = 1_000_000


def _version(value: bool) -> None:
    if value:
        typer.echo(f"research.py {__version__}")
        raise typer.Exit()


def _time_budget(value: str | None) -> float | None:
    if value is None:
        return None
    from research.core.budget import parse_time_budget

    try:
        minutes = parse_time_budget(value)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    if minutes is not None and minutes > MAX_TIME_BUDGET_MINUTES:
        raise typer.BadParameter(
            f"the time budget must be at most {MAX_TIME_BUDGET_MINUTES:.0f} minutes (a year), "
            f"not {value!r}; use 'unlimited' for no limit"
        )
    return minutes


def _check_time_budget(value: str | None) -> str | None:
    """Refuse a bad --time or RESEARCH_TIME_BUDGET while parsing, naming both sources."""
    _time_budget(value)
    return value


def _check_timeout(value: float | None) -> float | None:
    if value is not None and not (1 <= value <= MAX_TIMEOUT_SECONDS):  # also refuses NaN
        raise typer.BadParameter(
            f"{value} is not a number of seconds from 1 to {MAX_TIMEOUT_SECONDS:.0f} (a week)"
        )
    return value


def _check_fraction(value: float) -> float:
    if not 0.0 <= value <= 1.0:  # click's range lets NaN through
        raise typer.BadParameter(f"{value} is not a number from 0 to 1")
    return value


def _check_source_dirs(value: list[Path] | None) -> list[Path] | None:
    """Each --sources DIR must be a readable folder; kept as given, resolved."""
    for folder in value or []:
        if not folder.is_dir():
            raise typer.BadParameter(f"{str(folder)!r} is not a folder")
    return [folder.resolve() for folder in value] if value else value


@app.command(
    epilog="Also: research serve [--host H] [--port P] runs the HTTP service "
    "(see research serve --help; it needs the [server] extra)."
)
def main_command(
    ctx: typer.Context,
    topic: Annotated[
        str | None,
        typer.Argument(
            help="The research topic or question (not needed with --resume, --status, --list).",
            show_default=False,
        ),
    ] = None,
    name: Annotated[
        str | None,
        typer.Option(
            "--name",
            help="Session name: .research/NAME/ and reports/NAME/ (default: slug of the topic).",
            show_default=False,
        ),
    ] = None,
    breadth: Annotated[
        int,
        typer.Option(
            min=defaults.BREADTH_RANGE[0],
            max=defaults.BREADTH_RANGE[1],
            envvar=ENV["breadth"],
            help="Max subtopics per topic, and depth-0 topics.",
        ),
    ] = defaults.DEFAULT_BREADTH,
    depth: Annotated[
        int,
        typer.Option(
            min=defaults.DEPTH_RANGE[0],
            max=defaults.DEPTH_RANGE[1],
            envvar=ENV["depth"],
            help="Number of topic levels.",
        ),
    ] = defaults.DEFAULT_DEPTH,
    max_iterations: Annotated[
        int | None,
        typer.Option(
            "--max-iterations",
            min=1,
            max=MAX_ITERATIONS,
            envvar=ENV["max_iterations"],
            help="RESEARCH-REVIEW cycles (default and minimum: breadth^(depth+1)+5).",
            show_default=False,
        ),
    ] = None,
    time_budget: Annotated[
        str | None,
        typer.Option(
            "--time",
            envvar=ENV["time_budget"],
            metavar="MINUTES|unlimited",
            callback=_check_time_budget,
            help="Wall-clock budget for the whole run, in minutes.  [default: unlimited]",
            show_default=False,
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            envvar=ENV["model"],
            help=f"Model for plan/research/synthesis.  [default: {defaults.DEFAULT_MODEL}]",
            show_default=False,
        ),
    ] = None,
    review_model: Annotated[
        str | None,
        typer.Option(
            "--review-model",
            envvar=ENV["review_model"],
            help=f"Model for reviews.  [default: {defaults.DEFAULT_REVIEW_MODEL}]",
            show_default=False,
        ),
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option(
            envvar=ENV["timeout"],
            callback=_check_timeout,
            help="Seconds per agent call.  [default: 1200]",
            show_default=False,
        ),
    ] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue a saved session.")] = False,
    force_resume: Annotated[
        bool,
        typer.Option(
            "--force-resume", help="Resume and take over the session lock even if it is live."
        ),
    ] = False,
    mock_mode: Annotated[
        bool,
        typer.Option("--mock-mode", help="Use the built-in simulated agent: no network, no keys."),
    ] = False,
    agent: Annotated[
        defaults.AgentKind,
        typer.Option(
            "--agent",
            envvar=ENV["agent"],
            help="The agent to drive: opencode, or mock (the same as --mock-mode).  A resumed "
            "session keeps its own unless one is given.",
        ),
    ] = defaults.AgentKind.OPENCODE,
    parallel: Annotated[
        int | None,
        typer.Option(
            "--parallel",
            min=1,
            max=8,
            envvar="RESEARCH_PARALLEL",
            help="Research up to N independent topics at once, each in its own agent process "
            "(1-8).  [default: 1]",
            show_default=False,
        ),
    ] = None,
    agent_cmd: Annotated[
        str | None,
        typer.Option(
            "--agent-cmd",
            envvar=ENV["agent_cmd"],
            help="Use a generic agent command that reads the prompt on stdin; {model} is "
            'replaced by the model (e.g. "claude -p --model {model}").',
            show_default=False,
        ),
    ] = None,
    duplicate_threshold: Annotated[
        float,
        typer.Option(
            "--duplicate-threshold",
            min=0.0,
            max=1.0,
            envvar=ENV["duplicate_threshold"],
            callback=_check_fraction,
            help="Similarity at which a proposed topic counts as a duplicate.",
        ),
    ] = defaults.DEFAULT_DUPLICATE_THRESHOLD,
    min_novelty: Annotated[
        float,
        typer.Option(
            "--min-novelty",
            min=0.0,
            max=1.0,
            envvar=ENV["min_novelty"],
            callback=_check_fraction,
            help="Novelty below which a topic's subtopics are skipped.",
        ),
    ] = defaults.DEFAULT_MIN_NOVELTY,
    early_termination: Annotated[
        bool,
        typer.Option(
            "--early-termination/--no-early-termination",
            envvar=ENV["early_termination"],
            help="Stop research early when new findings stop adding anything new.",
        ),
    ] = defaults.DEFAULT_EARLY_TERMINATION,
    verify_sources: Annotated[
        bool,
        typer.Option(
            "--verify-sources/--no-verify-sources",
            envvar=ENV["verify_sources"],
            help="Fetch every cited page, keep a text snapshot, and check the notes' and the "
            "report's claims against it.",
        ),
    ] = True,
    allow_private_sources: Annotated[
        bool,
        typer.Option(
            "--allow-private-sources",
            envvar=ENV["allow_private_sources"],
            help="Also fetch URLs on loopback, private or link-local addresses (refused by "
            "default: the agent chooses the URLs).",
        ),
    ] = False,
    sources: Annotated[
        list[Path] | None,
        typer.Option(
            "--sources",
            metavar="DIR",
            callback=_check_source_dirs,
            help="A folder of your own documents (.md, .txt, .html, .pdf) to research and cite "
            "as file:<path>; repeatable.",
            show_default=False,
        ),
    ] = None,
    reorganize_archive: Annotated[
        bool,
        typer.Option(
            "--reorganize-archive", help="Group the session's archive by token, then exit."
        ),
    ] = False,
    status: Annotated[
        bool,
        typer.Option(
            "--status", help="Show the session's state, topics and lock holder, then exit."
        ),
    ] = False,
    list_sessions: Annotated[
        bool, typer.Option("--list", help="List the sessions in the working directory, then exit.")
    ] = False,
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="Answer yes to the many-iterations confirmation.")
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Print only errors and the final summary.")
    ] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log DEBUG messages.")] = False,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
) -> None:
    """Plan topics, research each breadth-first, review each, then write a cited report."""
    _setup_logging(verbose, quiet)
    try:
        root = _working_directory()
        if list_sessions:
            from research.views.status import list_sessions as show_sessions

            show_sessions(root)
            return
        session_name = _session_name(name, topic)
        if status:
            from research.views.status import show_status

            show_status(root, session_name)
            return
        if reorganize_archive:
            _reorganize_archive(root, session_name)
            return
        # --mock-mode / --agent and --agent-cmd each choose the agent: both on the command
        # line (or both in the environment) is a usage error; otherwise the flag wins.
        picked_from = "COMMANDLINE" if mock_mode else _source(ctx, "agent")
        picked_agent = picked_from not in (None, "DEFAULT")
        if agent_cmd is not None and picked_agent:
            if _source(ctx, "agent_cmd") == picked_from:
                chosen = "--mock-mode" if mock_mode else f"--agent {agent.value}"
                raise UsageError(
                    f"{chosen} and --agent-cmd each choose the agent; give one of them"
                )
            if picked_from == "COMMANDLINE":
                agent_cmd = None  # RESEARCH_AGENT_CMD gives way to --mock-mode / --agent
            else:
                picked_agent = False  # RESEARCH_AGENT gives way to --agent-cmd
        resuming = resume or force_resume
        settings = build_settings(
            root=root,
            name=session_name,
            topic=topic,
            resume=resuming,
            force_resume=force_resume,
            assume_yes=yes,
            quiet=quiet,
            verbose=verbose,
            # A resumed session keeps what it was started with unless the user says otherwise.
            given=_only_given(
                ctx,
                resuming,
                breadth=breadth,
                depth=depth,
                max_iterations=max_iterations,
                model=model,
                review_model=review_model,
                timeout=timeout,
                parallel=parallel,
                agent_cmd=agent_cmd,
                duplicate_threshold=duplicate_threshold,
                min_novelty=min_novelty,
                early_termination=early_termination,
                verify_sources=verify_sources,
                allow_private_sources=allow_private_sources,
                source_dirs=tuple(sources) if sources else None,
            )
            | ({"mock_mode": mock_mode or agent is defaults.AgentKind.MOCK} if picked_agent else {})
            # "unlimited" is a value too (None), which a resumed session must take.
            | (
                {"time_budget_minutes": _time_budget(time_budget)}
                if time_budget is not None
                else {}
            ),
        )
        _run(settings)
    except ResearchError as exc:
        typer.echo(f"research.py: error: {exc}", err=True)
        raise typer.Exit(exc.exit_code) from None
    except Interrupted as exc:
        typer.echo(
            f"research.py: interrupted by {_signal_name(exc.signum)}; state saved, "
            "continue with --resume",
            err=True,
        )
        raise typer.Exit(exc.exit_code) from None


# Options whose value from the environment is a default for new sessions only: a resumed
# session's shape is its own, and only the command line may (and then must not) differ.
_SHAPE = ("breadth", "depth")


def _only_given(ctx: typer.Context, resuming: bool, **values: object) -> dict[str, object]:
    """The values the user set (flag or environment); the rest stay Settings' defaults."""
    given: dict[str, object] = {}
    for key, value in values.items():
        if value is None:
            continue
        source = _source(ctx, key)
        if source in (None, "COMMANDLINE") or (  # None: derived (time_budget_minutes, ...)
            source == "ENVIRONMENT" and not (resuming and key in _SHAPE)
        ):
            given[key] = value
    return given


def _source(ctx: typer.Context, key: str) -> str | None:
    """Where a parameter's value came from: COMMANDLINE, ENVIRONMENT, DEFAULT, ..."""
    source = ctx.get_parameter_source(key)
    return None if source is None else str(source.name)


def _given(ctx: typer.Context, key: str) -> bool:
    return _source(ctx, key) not in (None, "DEFAULT")


def build_settings(
    *,
    root: Path,
    name: str,
    topic: str | None,
    resume: bool,
    force_resume: bool,
    assume_yes: bool,
    quiet: bool,
    verbose: bool,
    given: dict[str, object],
) -> Settings:
    """The typed Settings of one run; `given` holds only what the user set."""
    from pydantic import ValidationError

    from research.core.settings import Settings

    try:
        return Settings.model_validate(
            {
                "root": root,
                "name": name,
                "topic": topic,
                "resume": resume,
                "force_resume": force_resume,
                "assume_yes": assume_yes,
                "quiet": quiet,
                "verbose": verbose,
                **given,
            }
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        where = "--" + ".".join(str(part) for part in first["loc"]).replace("_", "-")
        raise UsageError(f"invalid {where}: {first['msg']}") from None


def _run(settings: Settings) -> None:
    from research.session.run import run_session
    from research.views.display import print_summary, session_display

    with session_display(quiet=settings.quiet, verbose=settings.verbose) as display:
        outcome = run_session(
            settings,
            confirm=_confirm,
            warn=lambda message: typer.echo(f"research.py: warning: {message}", err=True),
            on_events=display.attach,
            inform=lambda message: typer.echo(f"research.py: {message}", err=True),
        )
    print_summary(outcome.state, outcome.paths)


def _working_directory() -> Path:
    try:
        return Path.cwd()
    except FileNotFoundError:
        raise UsageError(
            "the working directory no longer exists (was it deleted?); cd to "
            "an existing directory and run again"
        ) from None
    except OSError as exc:
        raise UsageError(f"cannot use the working directory: {exc.strerror}") from None


def _session_name(name: str | None, topic: str | None) -> str:
    from research.workspace.paths import default_name, validate_name

    if name is None:
        if not topic or not topic.strip():
            raise UsageError("give --name (or a topic to derive the name from)")
        name = default_name(topic)
    return validate_name(name)


def _reorganize_archive(root: Path, name: str) -> None:
    from research.workspace.archive import reorganize_archive
    from research.workspace.paths import SessionPaths

    archive_dir = SessionPaths(root, name).archive_dir
    moved = reorganize_archive(archive_dir) if archive_dir.is_dir() else 0
    typer.echo(f"moved {moved} archived files into token folders under {archive_dir}")


def _confirm(question: str) -> bool:
    if not sys.stdin.isatty():
        raise UsageError(
            f"{question.rstrip('?')} needs confirmation, and there is no terminal "
            "to ask: pass --yes to confirm"
        )
    return typer.confirm(question, default=False)


def _signal_name(signum: int) -> str:
    import signal

    return signal.Signals(signum).name


def _setup_logging(verbose: bool, quiet: bool) -> None:
    """Our messages to stderr: every event and INFO/DEBUG with --verbose (libraries stay at
    WARNING, so their DEBUG lines do not drown them), only errors with --quiet."""
    logging.basicConfig(
        level=logging.WARNING, format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr
    )
    if verbose:
        logging.getLogger("research").setLevel(logging.DEBUG)
    elif quiet:
        logging.getLogger("research").setLevel(logging.ERROR)


USAGE_LINE = (
    "usage: research.py [OPTIONS] TOPIC  (or --resume --name NAME, --status, "
    "--list); see research.py --help"
)


def _raise_interrupted(signum: int, _frame: object) -> None:
    raise Interrupted(signum)


def main() -> None:
    """Console-script entry point: every error the user can cause is one line on stderr."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():  # imports done: finally blocks
        for sig in (signal.SIGINT, signal.SIGTERM):  # may run from here on
            signal.signal(sig, _raise_interrupted)
    if len(sys.argv) <= 1:  # bare `research`: a usage line, not a traceback or a run
        sys.stderr.write(USAGE_LINE + "\n")
        sys.exit(2)
    if sys.argv[1:2] == ["serve"]:  # `research serve …`; a topic named serve: `research -- serve`
        from research.service.serve import main as serve

        sys.exit(serve(sys.argv[2:]))
    try:
        code = app(standalone_mode=False)
    except typer.Abort:  # Ctrl-C or end of input at the confirmation prompt
        sys.stderr.write("research.py: interrupted\n")
        sys.exit(130)
    except Exception as exc:
        if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):  # click's usage errors
            sys.stderr.write(
                f"research.py: error: {exc.format_message()} (see research.py --help)\n"
            )
            sys.exit(exc.exit_code)
        if "--verbose" in sys.argv or "-v" in sys.argv:  # a bug: the traceback on request
            raise
        sys.stderr.write(
            f"research.py: internal error: {exc!r} (rerun with --verbose for details)\n"
        )
        sys.exit(1)
    except Interrupted as exc:  # a signal outside a session's own handling
        sys.stderr.write(f"research.py: interrupted by {_signal_name(exc.signum)}\n")
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        sys.stderr.write("research.py: interrupted\n")
        sys.exit(130)
    if type(code) is int:
        sys.exit(code)

"""The command line: options → Settings → session; domain errors → exit codes."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Annotated

import typer

from research import __version__, defaults
from research.errors import Interrupted, ResearchError, UsageError

app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help and usage errors: rich's help formatter costs ~150 ms
    context_settings={"help_option_names": ["-h", "--help"]},
    help="Breadth-first desk research driven by an AI coding agent (OpenCode).",
)

ENV = defaults.ENV


def _version(value: bool) -> None:
    if value:
        typer.echo(f"research.py {__version__}")
        raise typer.Exit()


def _time_budget(value: str | None) -> float | None:
    if value is None:
        return None
    from research.budget import parse_time_budget

    try:
        return parse_time_budget(value)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None


def _check_time_budget(value: str | None) -> str | None:
    """Refuse a bad --time or RESEARCH_TIME_BUDGET while parsing, naming both sources."""
    _time_budget(value)
    return value


@app.command()
def main_command(
    ctx: typer.Context,
    topic: Annotated[str | None, typer.Argument(
        help="The research topic or question (not needed with --resume, --status, --list).",
        show_default=False)] = None,
    name: Annotated[str | None, typer.Option(
        "--name", help="Session name: .research/NAME/ and reports/NAME/ (default: slug of "
        "the topic).", show_default=False)] = None,
    breadth: Annotated[int, typer.Option(
        min=defaults.BREADTH_RANGE[0], max=defaults.BREADTH_RANGE[1], envvar=ENV["breadth"],
        help="Max subtopics per topic, and depth-0 topics.")] = defaults.DEFAULT_BREADTH,
    depth: Annotated[int, typer.Option(
        min=defaults.DEPTH_RANGE[0], max=defaults.DEPTH_RANGE[1], envvar=ENV["depth"],
        help="Number of topic levels.")] = defaults.DEFAULT_DEPTH,
    max_iterations: Annotated[int | None, typer.Option(
        "--max-iterations", min=1, envvar=ENV["max_iterations"],
        help="RESEARCH-REVIEW cycles (default and minimum: breadth^(depth+1)+5).",
        show_default=False)] = None,
    time_budget: Annotated[str | None, typer.Option(
        "--time", envvar=ENV["time_budget"], metavar="MINUTES|unlimited",
        callback=_check_time_budget,
        help="Wall-clock budget for the whole run, in minutes.  [default: unlimited]",
        show_default=False)] = None,
    model: Annotated[str | None, typer.Option(
        envvar=ENV["model"], help=f"Model for plan/research/synthesis.  [default: "
        f"{defaults.DEFAULT_MODEL}]", show_default=False)] = None,
    review_model: Annotated[str | None, typer.Option(
        "--review-model", envvar=ENV["review_model"], help=f"Model for reviews.  [default: "
        f"{defaults.DEFAULT_REVIEW_MODEL}]", show_default=False)] = None,
    timeout: Annotated[float | None, typer.Option(
        min=1, envvar=ENV["timeout"], help="Seconds per agent call.  [default: 1200]",
        show_default=False)] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue a saved session.")] = False,
    force_resume: Annotated[bool, typer.Option(
        "--force-resume", help="Resume and take over the session lock even if it is live.")
    ] = False,
    mock_mode: Annotated[bool, typer.Option(
        "--mock-mode", help="Use the built-in simulated agent: no network, no keys.")] = False,
    agent: Annotated[defaults.AgentKind, typer.Option(
        "--agent", envvar=ENV["agent"],
        help="The agent to drive: opencode, or mock (the same as --mock-mode).")
    ] = defaults.AgentKind.OPENCODE,
    parallel: Annotated[int | None, typer.Option(
        "--parallel", min=1, max=8, envvar="RESEARCH_PARALLEL",
        help="Research up to N independent topics at once, each in its own agent process "
        "(1-8).  [default: 1]", show_default=False)] = None,
    agent_cmd: Annotated[str | None, typer.Option(
        "--agent-cmd", envvar=ENV["agent_cmd"],
        help="Use a generic agent command that reads the prompt on stdin; {model} is "
        "replaced by the model (e.g. \"claude -p --model {model}\").", show_default=False)
    ] = None,
    duplicate_threshold: Annotated[float, typer.Option(
        "--duplicate-threshold", min=0.0, max=1.0, envvar=ENV["duplicate_threshold"],
        help="Similarity at which a proposed topic counts as a duplicate.")
    ] = defaults.DEFAULT_DUPLICATE_THRESHOLD,
    min_novelty: Annotated[float, typer.Option(
        "--min-novelty", min=0.0, max=1.0, envvar=ENV["min_novelty"],
        help="Novelty below which a topic's subtopics are skipped.")
    ] = defaults.DEFAULT_MIN_NOVELTY,
    early_termination: Annotated[bool, typer.Option(
        "--early-termination/--no-early-termination", envvar=ENV["early_termination"],
        help="Stop research early when new findings stop adding anything new.")
    ] = defaults.DEFAULT_EARLY_TERMINATION,
    reorganize_archive: Annotated[bool, typer.Option(
        "--reorganize-archive", help="Group the session's archive by token, then exit.")
    ] = False,
    status: Annotated[bool, typer.Option(
        "--status", help="Show the session's state, topics and lock holder, then exit.")
    ] = False,
    list_sessions: Annotated[bool, typer.Option(
        "--list", help="List the sessions in the working directory, then exit.")] = False,
    yes: Annotated[bool, typer.Option(
        "--yes", "-y", help="Answer yes to the many-iterations confirmation.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only errors and the "
                                        "final summary.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log DEBUG messages.")
    ] = False,
    version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
) -> None:
    """Plan topics, research each breadth-first, review each, then write a cited report."""
    try:
        _run(**locals())
    except ResearchError as exc:
        typer.echo(f"research.py: error: {exc}", err=True)
        raise typer.Exit(exc.exit_code) from None
    except Interrupted as exc:
        typer.echo(f"research.py: interrupted by {_signal_name(exc.signum)}; state saved, "
                   "continue with --resume", err=True)
        raise typer.Exit(exc.exit_code) from None


def _run(**options: object) -> None:
    from research.paths import validate_name
    from research.plan import slugify
    from research.settings import Settings

    _setup_logging(bool(options["verbose"]), bool(options["quiet"]))
    topic = options["topic"]
    name = options["name"]
    if options["list_sessions"]:
        from research.status import list_sessions

        list_sessions(Path.cwd())
        return
    if name is None:
        if not topic:
            raise UsageError("give --name (or a topic to derive the name from)")
        name = slugify(str(topic), max_length=64)
    validate_name(str(name))
    root = Path.cwd()
    if options["status"]:
        from research.status import show_status

        show_status(root, str(name))
        return
    if options["reorganize_archive"]:
        from research.archive import reorganize_archive
        from research.paths import SessionPaths

        archive_dir = SessionPaths(root, str(name)).archive_dir
        moved = reorganize_archive(archive_dir) if archive_dir.is_dir() else 0
        typer.echo(f"moved {moved} archived files into token folders under {archive_dir}")
        return
    given = {
        "topic": topic,
        "max_iterations": options["max_iterations"],
        "model": options["model"],
        "review_model": options["review_model"],
        "timeout": options["timeout"],
        "agent_cmd": options["agent_cmd"],
        "parallel": options["parallel"],
    }
    explicit = {key: value for key, value in given.items() if value is not None}
    ctx = options["ctx"]
    for key in ("duplicate_threshold", "min_novelty", "early_termination"):
        # Only thresholds the user set (flag or environment) override a resumed session's.
        source = ctx.get_parameter_source(key)  # type: ignore[attr-defined]
        if source is not None and source.name != "DEFAULT":
            explicit[key] = options[key]
    if options["time_budget"] is not None:  # "unlimited" is given too, as None
        explicit["time_budget_minutes"] = _time_budget(str(options["time_budget"]))
    settings = Settings(
        root=root,
        name=str(name),
        breadth=options["breadth"],
        depth=options["depth"],
        resume=bool(options["resume"] or options["force_resume"]),
        force_resume=bool(options["force_resume"]),
        mock_mode=bool(options["mock_mode"]) or options["agent"] is defaults.AgentKind.MOCK,
        assume_yes=bool(options["yes"]),
        quiet=bool(options["quiet"]),
        verbose=bool(options["verbose"]),
        **explicit,
    )
    from research.display import print_summary, session_display
    from research.session import run_session

    with session_display(quiet=settings.quiet, verbose=settings.verbose) as display:
        outcome = run_session(
            settings,
            confirm=_confirm,
            warn=lambda message: typer.echo(f"research.py: warning: {message}", err=True),
            on_events=display.attach,
        )
    print_summary(outcome.state, outcome.paths)


def _confirm(question: str) -> bool:
    if not sys.stdin.isatty():
        raise UsageError(f"{question.rstrip('?')} needs confirmation, and there is no terminal "
                         "to ask: pass --yes to confirm")
    return typer.confirm(question, default=False)


def _signal_name(signum: int) -> str:
    import signal

    return signal.Signals(signum).name


def _setup_logging(verbose: bool, quiet: bool) -> None:
    """Our messages to stderr: every event and INFO/DEBUG with --verbose (libraries stay at
    WARNING, so filelock's DEBUG lines do not drown them), only errors with --quiet."""
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(message)s",
                        stream=sys.stderr)
    if verbose:
        logging.getLogger("research").setLevel(logging.DEBUG)
    elif quiet:
        logging.getLogger("research").setLevel(logging.ERROR)


def main() -> None:
    """Console-script entry point: every error the user can cause is one line on stderr."""
    try:
        code = app(standalone_mode=False)
    except Exception as exc:
        if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):  # click's usage errors
            sys.stderr.write(f"research.py: error: {exc.format_message()} "
                             "(see research.py --help)\n")
            sys.exit(exc.exit_code)
        if "--verbose" in sys.argv or "-v" in sys.argv:  # a bug: the traceback on request
            raise
        sys.stderr.write(f"research.py: internal error: {exc!r} (rerun with --verbose for "
                         "details)\n")
        sys.exit(1)
    except KeyboardInterrupt:  # Ctrl-C before the session's own handlers are installed
        sys.stderr.write("research.py: interrupted\n")
        sys.exit(130)
    if type(code) is int:
        sys.exit(code)

"""The command line: options → a typed Settings → the session; errors → exit codes.

The run's options are declared once, in `research.core.options`; this module turns each row
into a flag of the `research` command, builds `Settings` from the values the user gave, and
turns the domain's errors into exit codes.
"""

from __future__ import annotations

import inspect
import logging
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from typer.core import TyperCommand

from research import __version__
from research.core.agentkind import AgentKind
from research.core.errors import ExitCode, Interrupted, ResearchError, UsageError, interrupted_code
from research.core.interrupts import SIGNALS, raise_interrupted
from research.core.options import OPTION, OPTIONS, Option, given_names

if TYPE_CHECKING:
    from research.core.settings import Settings
    from research.views.display import SessionDisplay

app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help and usage errors: rich's help formatter costs ~150 ms
    context_settings={"help_option_names": ["-h", "--help"]},
    help="Breadth-first desk research driven by an AI coding agent "
    "(OpenCode, Claude Code or Codex).",
)

PER_RUN = ("resume", "force_resume", "assume_yes", "quiet", "verbose")
"""Options every run passes to Settings as they are (the others only when the user set them)."""


def _version(value: bool) -> None:
    if value:
        typer.echo(f"research.py {__version__}")
        raise typer.Exit()


def _callback(check: Callable[[object], object]) -> Callable[[Any], object]:
    """A table row's check as a click callback: its ValueError is a usage error naming the
    flag (or the variable) the value came from."""

    def callback(value: Any) -> object:
        try:
            return check(value)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from None

    return callback


def _parameter(option: Option) -> inspect.Parameter:
    """The command's parameter of one row of the option table."""
    decls = option.flags if option.off_flag is None else (f"{option.flag}/{option.off_flag}",)
    kind: Any = list[option.kind] if option.repeatable else option.kind  # type: ignore[name-defined]
    if option.default is None or option.repeatable:
        kind = kind | None
    ranged = option.kind in (int, float)
    info = typer.Option(
        option.default,
        *decls,
        envvar=option.env,
        min=option.minimum if ranged else None,
        max=option.maximum if ranged else None,
        help=_help(option),
        show_default=option.shown_default is True,
        callback=_callback(option.check) if option.check else None,
        metavar=option.metavar,
    )
    return inspect.Parameter(
        option.name, inspect.Parameter.KEYWORD_ONLY, default=info, annotation=kind
    )


def _help(option: Option) -> str:
    """The help text, with a default that is not the value itself ("unlimited", "1200")."""
    if isinstance(option.shown_default, str):
        return f"{option.help}  [default: {option.shown_default}]"
    return option.help


# The command's own parameters, besides the option table: the question and what to do
# instead of a run.
_COMMAND: tuple[tuple[str, Any, Any], ...] = (
    (
        "topic",
        str | None,
        typer.Argument(
            None,
            help="The research topic or question (not needed with --resume, --status, --list).",
            show_default=False,
        ),
    ),
    (
        "reorganize_archive",
        bool,
        typer.Option(
            False, "--reorganize-archive", help="Group the session's archive by token, then exit."
        ),
    ),
    (
        "queue",
        str | None,
        typer.Option(
            None,
            "--queue",
            metavar="URL",
            help="Put the session on this task queue (redis://[:PASSWORD@]HOST:PORT/DB) for "
            "`research worker`s to run, print its name, and exit.",
            show_default=False,
        ),
    ),
    (
        "status",
        bool,
        typer.Option(
            False, "--status", help="Show the session's state, topics and lock holder, then exit."
        ),
    ),
    (
        "list_sessions",
        bool,
        typer.Option(
            False, "--list", help="List the sessions in the working directory, then exit."
        ),
    ),
    (
        "version",
        bool,
        typer.Option(
            False, "--version", callback=_version, is_eager=True, help="Show the version and exit."
        ),
    ),
)


def _signature() -> inspect.Signature:
    context = inspect.Parameter(
        "ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context
    )
    own = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=info, annotation=kind)
        for name, kind, info in _COMMAND
    ]
    return inspect.Signature([context, own[0], *map(_parameter, OPTIONS), *own[1:]])


def main_command(ctx: typer.Context, **values: Any) -> None:
    """Plan topics, research each breadth-first, review each, then write a cited report."""
    _setup_logging(values["verbose"], values["quiet"])
    try:
        root = _working_directory()
        if not _other_action(root, values):
            settings = build_settings(root, values, _sources(ctx.get_parameter_source, values))
            if values["queue"] is not None:
                from research.cluster.submit import submit

                typer.echo(submit(settings, values["queue"], warn=_warn))
            else:
                _run(settings)
    except ResearchError as exc:
        typer.echo(f"research: error: {exc}", err=True)
        raise typer.Exit(exc.exit_code) from None
    except Interrupted as exc:
        typer.echo(
            f"research: interrupted by {_signal_name(exc.signum)}; state saved, "
            "continue with --resume",
            err=True,
        )
        raise typer.Exit(exc.exit_code) from None


main_command.__signature__ = _signature()  # type: ignore[attr-defined]
main_command.__annotations__ = {
    name: parameter.annotation for name, parameter in _signature().parameters.items()
}


class _Command(TyperCommand):
    """The command, whose usage errors name what the user gave: the flag, or the variable
    the value came from, never both ("Invalid value for RESEARCH_BREADTH: ...")."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # typer's own click Context
        try:
            return super().parse_args(ctx, args)
        except typer.BadParameter as exc:
            param = exc.param
            if param is not None and param.name is not None and exc.param_hint is None:
                source = ctx.get_parameter_source(param.name)
                envvar = getattr(param, "envvar", None)
                if getattr(source, "name", "") == "ENVIRONMENT" and isinstance(envvar, str):
                    exc.param_hint = envvar
                elif param.opts:
                    exc.param_hint = " / ".join(f"'{opt}'" for opt in param.opts)
            raise


app.command(
    cls=_Command,
    epilog="Also: research serve [--host H] [--port P] runs the HTTP service "
    "(see research serve --help; it needs the [server] extra); research mcp [--http PORT] "
    "serves MCP to coding agents (see research mcp --help; it needs the [mcp] extra).",
)(main_command)


def _other_action(root: Path, values: Mapping[str, Any]) -> bool:
    """--list, --status or --reorganize-archive: done (and True), or False for a run."""
    if values["list_sessions"]:
        from research.views.status import list_sessions

        list_sessions(root)
        return True
    name = _session_name(values["name"], values["topic"])
    if values["status"]:
        from research.views.status import show_status

        show_status(root, name)
        return True
    if values["reorganize_archive"]:
        _reorganize_archive(root, name)
        return True
    return False


def _sources(source_of: Callable[[str], Any], values: Mapping[str, Any]) -> dict[str, str | None]:
    """Where each option's value came from (`source_of`: the context's
    get_parameter_source): COMMANDLINE, ENVIRONMENT, DEFAULT, or None."""
    sources: dict[str, str | None] = {}
    for name in values:
        source = source_of(name)
        sources[name] = None if source is None else str(source.name)
    return sources


def _pick_agent(values: Mapping[str, Any], sources: dict[str, str | None]) -> dict[str, Any]:
    """--mock-mode / --agent and --agent-cmd each choose the agent: both on the command
    line (or both in the environment) is a usage error; otherwise the flag wins. Returns
    the agent's values, and marks in `sources` the agent as chosen (or not)."""
    agent_cmd = values["agent_cmd"]
    named = values["agent"]
    if values["mock_mode"] and sources["agent"] == "COMMANDLINE" and named is not AgentKind.MOCK:
        raise UsageError(f"--mock-mode and --agent {named.value} each choose the agent; give one")
    picked_from = "COMMANDLINE" if values["mock_mode"] else sources["agent"]
    picked = picked_from not in (None, "DEFAULT")
    if agent_cmd is not None and picked:
        if sources["agent_cmd"] == picked_from:
            chosen = "--mock-mode" if values["mock_mode"] else f"--agent {values['agent'].value}"
            raise UsageError(f"{chosen} and --agent-cmd each choose the agent; give one of them")
        if picked_from == "COMMANDLINE":
            agent_cmd = None  # RESEARCH_AGENT_CMD gives way to --mock-mode / --agent
        else:
            picked = False  # RESEARCH_AGENT gives way to --agent-cmd
    sources["mock_mode"] = sources["agent"] = picked_from if picked else None
    mock = values["mock_mode"] or values["agent"] is AgentKind.MOCK
    kind = AgentKind.MOCK if mock else values["agent"]
    return {
        "agent_cmd": agent_cmd,
        "mock_mode": mock if picked else None,
        "agent": kind if picked else None,
    }


def _in_seconds(sources: dict[str, str | None]) -> dict[str, Any]:
    """The values that a seconds variable (RESEARCH_MAX_EXECUTION_TIME_S) gives, where the
    command line gives none; marks them in `sources` as the environment's."""
    import os

    from research.core.options import seconds_from_environment

    found: dict[str, Any] = {}
    for option in OPTIONS:
        if option.env_seconds is None or sources.get(option.name) == "COMMANDLINE":
            continue
        try:
            minutes = seconds_from_environment(option, os.environ)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if minutes is not None:
            found[option.name] = minutes
            sources[option.name] = "ENVIRONMENT"
    return found


def build_settings(
    root: Path, values: Mapping[str, Any], sources: dict[str, str | None]
) -> Settings:
    """The typed Settings of one run from the command's values and where each came from:
    the options the user did not set keep their defaults (or, on --resume, the session's)."""
    from pydantic import ValidationError

    from research.core.settings import Settings

    values = {**values, **_pick_agent(values, sources), **_in_seconds(sources)}
    resuming = bool(values["resume"] or values["force_resume"])
    given = given_names(
        {name: sources.get(name) for name in OPTION if OPTION[name].setting}, resuming, values
    )
    try:
        return Settings.model_validate(
            {
                **{name: values[name] for name in PER_RUN},
                **{name: values[name] for name in given},
                "root": root,
                "name": _session_name(values["name"], values["topic"]),
                "topic": values["topic"],
                "resume": resuming,
                "given": given,
            }
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        key = str(first["loc"][0]) if first["loc"] else ""
        option = OPTION.get(key)
        if option is not None and option.env and sources.get(key) == "ENVIRONMENT":
            where = option.env  # what the user gave, not the flag
        else:
            where = option.flag if option is not None else "--" + key.replace("_", "-")
        raise UsageError(f"invalid {where}: {first['msg']}") from None


def _run(settings: Settings) -> None:
    from research.session.run import run_session
    from research.views.display import print_summary, session_display

    with session_display(quiet=settings.quiet, verbose=settings.verbose) as display:
        outcome = run_session(
            settings,
            confirm=_confirm,
            warn=_warn,
            on_events=display.attach,
            inform=lambda message: typer.echo(f"research: {message}", err=True),
            ask=lambda question: _ask_again(question, display),
        )
    if outcome.state.progress.awaiting_approval:
        from research.views.approval import approval_lines

        typer.echo("\n".join(approval_lines(outcome.state, outcome.paths)))
        return
    print_summary(outcome.state, outcome.paths)


def _warn(message: str) -> None:
    typer.echo(f"research: warning: {message}", err=True)


def settings_of(args: Sequence[str]) -> Settings:
    """The Settings `research ARGS` would run with (the RESEARCH_* variables included),
    checked as a run checks them: what a child's command line gives, for example."""
    command = typer.main.get_command(app)
    with command.make_context("research", list(args)) as ctx:
        return build_settings(
            _working_directory(), ctx.params, _sources(ctx.get_parameter_source, ctx.params)
        )


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


def _ask_again(question: str, display: SessionDisplay) -> bool:
    """A question during the run: no when there is no terminal to ask."""
    if not sys.stdin.isatty():
        return False
    with display.paused():
        return typer.confirm(question, default=False)


def _signal_name(signum: int) -> str:
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
    "usage: research [OPTIONS] TOPIC  (or --resume --name NAME, --status, "
    "--list); see research --help"
)


def main() -> None:
    """Console-script entry point: every error the user can cause is one line on stderr."""
    import threading

    if threading.current_thread() is threading.main_thread():  # imports done: finally blocks
        for sig in SIGNALS:  # may run from here on (the session's handler is this one)
            signal.signal(sig, raise_interrupted)
    if len(sys.argv) <= 1:  # bare `research`: a usage line, not a traceback or a run
        sys.stderr.write(USAGE_LINE + "\n")
        sys.exit(ExitCode.USAGE)
    if sys.argv[1:2] == ["serve"]:  # `research serve …`; a topic named serve: `research -- serve`
        from research.service.serve import main as serve

        sys.exit(serve(sys.argv[2:]))
    if sys.argv[1:2] == ["mcp"]:  # `research mcp …`; a topic named mcp: `research -- mcp`
        from research.mcp_server.command import main as mcp

        sys.exit(mcp(sys.argv[2:]))
    if sys.argv[1:2] == ["worker"]:  # `research worker …`; a topic named worker: `-- worker`
        from research.cluster.worker_cli import main as worker

        sys.exit(worker(sys.argv[2:]))
    code = _run_app()
    if code is not None:
        sys.exit(code)


def _run_app() -> int | None:
    """Run the command; its exit code (None: it ended normally)."""
    try:
        code = app(standalone_mode=False, prog_name="research")
    except typer.Abort:  # Ctrl-C or end of input at the confirmation prompt
        sys.stderr.write("research: interrupted\n")
        return interrupted_code(signal.SIGINT)
    except Exception as exc:
        if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):  # click's usage errors
            sys.stderr.write(f"research: error: {exc.format_message()} (see research --help)\n")
            return int(exc.exit_code)
        if "--verbose" in sys.argv or "-v" in sys.argv:  # a bug: the traceback on request
            raise
        sys.stderr.write(f"research: internal error: {exc!r} (rerun with --verbose for details)\n")
        return ExitCode.FAILED
    except Interrupted as exc:  # a signal outside a session's own handling
        sys.stderr.write(f"research: interrupted by {_signal_name(exc.signum)}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("research: interrupted\n")
        return interrupted_code(signal.SIGINT)
    return int(code) if isinstance(code, int) and not isinstance(code, bool) else None

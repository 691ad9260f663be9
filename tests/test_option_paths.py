"""Every path an option travels, generated from the option table (research/core/options.py):
the command line, the RESESARCH_* variables, the service's requests (POST /run, /search), the
job (the service's child, the queue's message, `research --queue`), the child's command line
and the Settings it runs with. One test adds a row to a copy of the code and sees it arrive
everywhere; the others round-trip every option of the table through every path."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from research.cli import settings_of
from research.cluster.messages import child_args
from research.cluster.submit import job_of
from research.core.agentkind import DEFAULT_AGENT, AgentKind
from research.core.option_fields import settings_value
from research.core.options import OPTIONS, Option

REPO = Path(__file__).resolve().parent.parent
TOPIC = "heat pumps in cold climates"
WIRE = {"time_budget_minutes": "90.5", "export": "docx"}
"""Sample values the generic rules of `sample` cannot make (text its check reads)."""


def sample(option: Option, folder: str) -> Any:
    """A valid value of `option` other than its default, as a request or a job gives it."""
    if option.name in WIRE:
        return WIRE[option.name]
    if option.values is not None:
        return next(value for value in reversed(option.values) if value != option.default)
    if option.repeatable:
        return [folder]
    if option.kind is bool:
        return not option.default
    if option.kind is int:
        return int(option.minimum or 0) + 1
    if option.kind is float:
        if option.minimum is not None and option.maximum is not None:
            return (option.minimum + option.maximum) / 2
        return 2.5
    return f"{option.name}/x"


def flags(option: Option, value: Any) -> list[str]:
    """The command line that gives `value` (a wire value) to `option`."""
    if option.kind is bool:
        return [option.flag if value else str(option.off_flag)]
    if option.repeatable:
        return [part for item in value for part in (option.flag, str(item))]
    return [option.flag, str(value)]


TRAVELLING = [option for option in OPTIONS if option.job]
REQUESTED = [option for option in OPTIONS if option.request_field and option.job]


def test_the_table_says_where_each_option_goes() -> None:
    """Every option either travels in a job or is decided by whoever runs it: a request
    field that no job carried would be dropped on the way to the child."""
    for option in OPTIONS:
        if option.request_field and not option.job:
            assert option.name in ("name", "agent"), option.name  # the job's own fields
    assert {o.name for o in TRAVELLING} >= {"token_budget", "max_cost", "timeout", "searches"}


def test_every_option_goes_from_the_command_line_through_a_queued_job_to_the_child(
    isolated: Path,
) -> None:
    """research --queue … → the job → the worker's child command line → the same Settings."""
    (isolated / "docs").mkdir()
    args = [part for o in TRAVELLING for part in flags(o, sample(o, "docs"))]
    sent = settings_of([*args, "--mock-mode", TOPIC])
    job = job_of(sent)
    assert set(job.options()) == {o.name for o in TRAVELLING}
    child = child_args(job, isolated, None)
    assert child[-2:] == ["--", TOPIC]
    ran = settings_of(child)
    for option in TRAVELLING:
        expected = getattr(sent, option.name)
        assert expected != option.default, option.name  # the sample is not the default
        assert getattr(ran, option.name) == expected, option.name
        assert option.name in ran.given, option.name
    assert ran.mock_mode and ran.assume_yes and ran.quiet


def test_each_option_alone_goes_from_the_command_line_to_the_child(isolated: Path) -> None:
    """One option at a time (with the test's RESEARCH_VERIFY_SOURCES=0): nothing else the
    job carries makes it arrive, and the job carries only what the user set."""
    (isolated / "docs").mkdir()
    for option in TRAVELLING:
        sent = settings_of([*flags(option, sample(option, "docs")), TOPIC])
        job = job_of(sent)
        assert option.name in job.options(), option.name
        assert set(job.options()) == {o.name for o in TRAVELLING if o.name in sent.given}
        ran = settings_of(child_args(job, isolated, None))
        assert getattr(ran, option.name) == getattr(sent, option.name), option.name
        travelled = {o.name for o in TRAVELLING}
        assert ran.given & travelled == sent.given & travelled, option.name


@pytest.mark.parametrize("endpoint", ["run", "search"])
def test_every_request_field_goes_through_the_job_to_the_child(
    isolated: Path, endpoint: str
) -> None:
    """POST /run's (and /search's) fields → the job → the child's command line → Settings,
    each value as the CLI reads the same flag."""
    pytest.importorskip("fastapi")
    from research.service.models import RunRequest
    from research.service.request_checks import request_job
    from research.service.search import FIXED, SearchRequest, as_run

    docs = isolated / "docs"
    docs.mkdir()
    model = RunRequest if endpoint == "run" else SearchRequest
    options = [o for o in REQUESTED if o.request_field in model.model_fields]
    body = {str(o.request_field): sample(o, "docs") for o in options}
    if endpoint == "run":
        request = RunRequest.model_validate({"task": TOPIC, **body})
    else:
        assert {o.request_field for o in REQUESTED} - set(model.model_fields) == set(FIXED)
        request = as_run(SearchRequest.model_validate({"task": TOPIC, **body}))
    job, warnings = request_job(request, "probe", isolated)
    assert warnings  # the sample max_iterations is below the floor: said, not refused
    ran = settings_of(child_args(job, isolated, None))
    for option in options:
        expected = settings_value(option, body[str(option.request_field)])
        if option.repeatable:
            expected = (docs.resolve(),)
        assert getattr(ran, option.name) == expected, option.name
        assert option.name in ran.given, option.name
    assert ran.topic == TOPIC and ran.name == "probe"


def test_the_seconds_field_is_the_time_budget(isolated: Path) -> None:
    pytest.importorskip("fastapi")
    from research.service.models import RunRequest
    from research.service.request_checks import request_job

    request = RunRequest.model_validate({"task": TOPIC, "max_execution_time_s": 90})
    job, _ = request_job(request, "probe", isolated)
    assert settings_of(child_args(job, isolated, None)).time_budget_minutes == 1.5


NEW_ROW = """
    Option(
        "probe_level",
        ("--probe-level",),
        "A level no real option has.",
        kind=int,
        env="RESEARCH_PROBE_LEVEL",
        minimum=1,
        maximum=9,
    ),
"""
NEW_FIELD = '    probe_level: int | None = _settings_field("probe_level")\n'
CHECK = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path
    import typer
    from research.cli import app, settings_of
    from research.cluster.messages import JobMessage, child_args
    from research.cluster.submit import job_of
    from research.service.models import RunRequest
    from research.service.request_checks import request_job
    from research.service.search import SearchRequest, as_run

    root = Path.cwd()
    help_text = typer.main.get_command(app).get_help(
        typer.main.get_command(app).make_context("research", ["x"])
    )
    assert "--probe-level" in help_text, "CLI flag"
    assert settings_of(["--probe-level", "4", "q"]).probe_level == 4, "flag -> Settings"
    os.environ["RESEARCH_PROBE_LEVEL"] = "5"
    by_variable = settings_of(["q"])
    assert by_variable.probe_level == 5 and "probe_level" in by_variable.given, "variable"
    del os.environ["RESEARCH_PROBE_LEVEL"]
    assert "probe_level" in RunRequest.model_fields, "POST /run field"
    assert "probe_level" in SearchRequest.model_fields, "POST /search field"
    assert "probe_level" in JobMessage.model_fields, "job field"
    for request in (
        RunRequest.model_validate({"task": "q", "probe_level": 3}),
        as_run(SearchRequest.model_validate({"task": "q", "probe_level": 3})),
    ):
        job, _ = request_job(request, "probe", root)
        assert job.options()["probe_level"] == 3, "request -> job"
        argv = child_args(job, root, None)
        assert argv[argv.index("--probe-level") + 1] == "3", "job -> child argv"
        assert settings_of(argv).probe_level == 3, "child argv -> Settings"
    try:
        RunRequest.model_validate({"task": "q", "probe_level": 10})
    except Exception as exc:
        assert "probe_level" in str(exc), "bounds"
    else:
        raise AssertionError("the request's bounds are the row's")
    queued = job_of(settings_of(["--probe-level", "7", "q"]))
    argv = child_args(queued, root, None)
    assert settings_of(argv).probe_level == 7, "research --queue -> worker's child"
    print("arrived everywhere")
    """
)


def patched_copy(tmp_path: Path, row: str, field: str, field_before: str) -> dict[str, str]:
    """A copy of the code (the package and its templates) with just the two edits adding an
    option: `row` first in the table, `field` in Settings before the line `field_before`.
    The environment that imports the copy."""
    copy = tmp_path / "copy"
    shutil.copytree(REPO / "research", copy / "research", ignore=shutil.ignore_patterns("*.pyc"))
    shutil.copytree(REPO / "templates", copy / "templates")  # the prompts, beside the package
    table = "OPTIONS: tuple[Option, ...] = (\n"
    for path, anchor, patched in (
        ("options.py", table, table + row),
        ("settings.py", field_before, field + field_before),
    ):
        source = copy / "research" / "core" / path
        text = source.read_text(encoding="utf-8")
        assert text.count(anchor) == 1, (path, anchor)
        source.write_text(text.replace(anchor, patched), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RESEARCH_")}
    env["PYTHONPATH"] = str(copy)
    return env


def run_check(script: str, cwd: Path, env: dict[str, str], *args: str) -> str:
    """What `script` prints, run by Python in `cwd` with `env` (the patched copy's)."""
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_row_added_to_the_table_arrives_everywhere(isolated: Path, tmp_path: Path) -> None:
    """Adding an option is one row in the table and one typed field in Settings: a copy of
    the code with just those two edits takes it on the command line, from its variable, in
    POST /run and /search, in the job, on the child's command line and in Settings."""
    pytest.importorskip("fastapi")
    env = patched_copy(tmp_path, NEW_ROW, NEW_FIELD, "    given: frozenset[str] = frozenset()\n")
    assert run_check(CHECK, isolated, env) == "arrived everywhere"


SAVED_ROW = """
    Option(
        "probe_depth",
        ("--probe-depth",),
        "A saved level no real option has.",
        kind=int,
        minimum=1,
        maximum=9,
        on_resume=OnResume.CHANGES,
    ),
"""
SAVED_FIELD = '    probe_depth: int | None = _settings_field("probe_depth")\n'
SAVED_CHECK = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from research.model.state import load_state

    path = Path(sys.argv[1])
    state = json.loads(path.read_text())
    del state["config"]["probe_depth"]  # a state saved before the option existed
    path.write_text(json.dumps(state))
    assert load_state(path).config.probe_depth is None, "an old state takes the default"
    print("old state loads")
    """
)


def test_a_saved_row_added_to_the_table_survives_resume(isolated: Path, tmp_path: Path) -> None:
    """A saved option (kept by --resume) is also one row and one typed field: the field in
    `SavedOptions` (core/settings.py), which Settings and the session's saved config
    (model/state.py) both take. A copy of the code with those two edits saves the value, keeps
    it on a --resume that does not give it, takes a new one on a --resume that does (and says
    so), and still loads a state saved before the option existed."""
    field_before = '    approve_plan: bool = _settings_field("approve_plan")\n'
    env = patched_copy(tmp_path, SAVED_ROW, SAVED_FIELD, field_before)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "research", "--name", "p", *args],
            cwd=isolated,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )

    state_file = isolated / ".research" / "p" / "state.json"
    started = run(
        "--mock-mode", "--breadth", "1", "--depth", "1", "--yes", "--probe-depth", "4", TOPIC
    )
    assert started.returncode == 0, started.stderr
    assert json.loads(state_file.read_text())["config"]["probe_depth"] == 4
    kept = run("--resume", "--timeout", "30")
    assert kept.returncode == 0, kept.stderr
    assert json.loads(state_file.read_text())["config"]["probe_depth"] == 4
    changed = run("--resume", "--probe-depth", "6")
    assert changed.returncode == 0, changed.stderr
    assert "--probe-depth 6 (was 4)" in changed.stderr
    assert json.loads(state_file.read_text())["config"]["probe_depth"] == 6
    assert run_check(SAVED_CHECK, isolated, env, str(state_file)) == "old state loads"


@pytest.mark.parametrize("kind", list(AgentKind))
def test_every_agent_goes_from_the_cli_and_a_request_to_the_child(
    isolated: Path, kind: AgentKind
) -> None:
    """The agent is the job's own field: each of AgentKind's members arrives as itself (a
    runner's --agent-cmd stands in for the default agent only)."""
    pytest.importorskip("fastapi")
    from research.service.models import RunRequest
    from research.service.request_checks import request_job

    sent = settings_of(["--agent", kind.value, TOPIC])
    request = RunRequest.model_validate({"task": TOPIC, "agent": kind.value})
    for job in (job_of(sent), request_job(request, "probe", isolated)[0]):
        assert job.agent is kind
        ran = settings_of(child_args(job, isolated, None))
        assert ran.agent is kind and ran.mock_mode is (kind is AgentKind.MOCK)
        with_command = child_args(job, isolated, "my-agent --model {model}")
        assert ("--agent-cmd" in with_command) is (kind is DEFAULT_AGENT)

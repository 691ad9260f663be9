"""Bad input catalogue: every bad flag, name, state file, template or working directory gets
one clear error line, a defined exit code, no traceback, and nothing written outside
`.research/` and `reports/` (for most of them, nothing written at all)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from helpers import clean_env, new_state, research_argv, run_research

from research.prompts.templates import ensure_templates

QUESTION = "How do heat pumps perform in cold climates?"
SMALL = ("--mock-mode", "--breadth", "1", "--depth", "1", "--yes")
USAGE_HINT = ("Usage: ", "Try '")  # click's two hint lines around its one "Error:" line


def state_file(work: Path, content: str | bytes, name: str = "x") -> None:
    path = work / ".research" / name / "state.json"
    path.parent.mkdir(parents=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)


def valid_state(**changes: object) -> str:
    from research.model.plan import Plan

    state = new_state(
        Plan(topic=QUESTION, breadth=1, depth=1), name="x", max_iterations=6, timeout=60
    )
    return json.dumps({**json.loads(state.model_dump_json()), **changes})


def edited_template(name: str, text: str | bytes | None) -> Callable[[Path], None]:
    def setup(work: Path) -> None:
        directory = work / ".research" / "templates"
        ensure_templates(directory)
        path = directory / f"{name}.md"
        if text is None:  # a directory where the file should be
            path.unlink()
            path.mkdir()
        elif isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(path.read_text() + text)

    return setup


def a_file_named(name: str) -> Callable[[Path], None]:
    return lambda work: (work / name).write_text("not a directory\n")


@dataclass
class Case:
    id: str
    args: tuple[str, ...]
    code: int
    message: str
    setup: Callable[[Path], None] | None = None
    env: dict[str, str] = field(default_factory=dict)
    writes_nothing: bool = True


def run(name: str, *args: str) -> tuple[str, ...]:
    return (*SMALL, "--name", name, *args)


CASES = [
    # flags
    Case("breadth 0", ("--breadth", "0", QUESTION), 2, "Invalid value for '--breadth': "),
    Case("breadth -1", ("--breadth", "-1", QUESTION), 2, "--breadth"),
    Case("breadth 99", ("--breadth", "99", QUESTION), 2, "--breadth"),
    Case("breadth abc", ("--breadth", "abc", QUESTION), 2, "--breadth"),
    Case("depth -1", ("--depth", "-1", QUESTION), 2, "--depth"),
    Case("depth 0", ("--depth", "0", QUESTION), 2, "--depth"),
    Case("depth 7", ("--depth", "7", QUESTION), 2, "--depth"),
    Case("time -5", (*run("x"), "--time", "-5", QUESTION), 2, "--time"),
    Case("time abc", (*run("x"), "--time", "abc", QUESTION), 2, "--time"),
    Case("time 0", (*run("x"), "--time", "0", QUESTION), 2, "--time"),
    Case("timeout 0", (*run("x"), "--timeout", "0", QUESTION), 2, "--timeout"),
    Case("timeout -3", (*run("x"), "--timeout", "-3", QUESTION), 2, "--timeout"),
    Case("timeout abc", (*run("x"), "--timeout", "abc", QUESTION), 2, "--timeout"),
    Case("max-iterations 0", (*run("x"), "--max-iterations", "0", QUESTION), 2, "--max-iterations"),
    Case(
        "max-iterations abc",
        (*run("x"), "--max-iterations", "abc", QUESTION),
        2,
        "--max-iterations",
    ),
    Case(
        "duplicate threshold 1.5",
        (*run("x"), "--duplicate-threshold", "1.5", QUESTION),
        2,
        "--duplicate-threshold",
    ),
    Case("min novelty -0.1", (*run("x"), "--min-novelty", "-0.1", QUESTION), 2, "--min-novelty"),
    Case("unknown option", (*run("x"), "--frobnicate", QUESTION), 2, "--frobnicate"),
    Case("extra argument", (*run("x"), QUESTION, "again"), 2, "again"),
    Case(
        "breadth from the environment",
        (*run("x")[:1], "--name", "x", QUESTION),
        2,
        "Invalid value for RESEARCH_BREADTH: ",  # what the user gave, not the flag too
        env={"RESEARCH_BREADTH": "many"},
    ),
    Case(
        "time budget in seconds beyond a year",
        run("x", QUESTION),
        2,
        "RESEARCH_MAX_EXECUTION_TIME_S=1e308: the time budget must be at most 31622400 seconds",
        env={"RESEARCH_MAX_EXECUTION_TIME_S": "1e308"},
    ),
    Case(
        "time budget in seconds too small to be minutes",
        run("x", QUESTION),
        2,
        "RESEARCH_MAX_EXECUTION_TIME_S=5e-324: the time budget must be a positive number",
        env={"RESEARCH_MAX_EXECUTION_TIME_S": "5e-324"},
    ),
    Case("no topic, no name", ("--mock-mode",), 2, "--name"),
    Case("empty topic", run("x", ""), 2, "topic"),
    Case("blank topic", run("x", "   "), 2, "topic"),
    Case(
        "resume without a state",
        ("--mock-mode", "--name", "x", "--resume"),
        2,
        "no saved session named 'x'",
    ),
    Case(
        "force-resume without a state",
        ("--mock-mode", "--name", "x", "--force-resume"),
        2,
        "no saved session named 'x'",
    ),
    Case(
        "start over an existing session",
        run("x", QUESTION),
        2,
        "--resume",
        setup=lambda work: state_file(work, valid_state()),
    ),
    Case(
        "agent command unparseable",
        (
            "--agent-cmd",
            "agent 'unclosed",
            "--name",
            "x",
            "--breadth",
            "1",
            "--depth",
            "1",
            QUESTION,
        ),
        2,
        "agent command",
    ),
    Case(
        "agent command not found",
        (
            "--agent-cmd",
            "no-such-agent-xyz",
            "--name",
            "x",
            "--breadth",
            "1",
            "--depth",
            "1",
            QUESTION,
        ),
        1,
        "no-such-agent-xyz",
    ),
    # names
    Case("name ../x", run("../x", QUESTION), 2, "invalid --name"),
    Case("name /etc", run("/etc", QUESTION), 2, "invalid --name"),
    Case("name a/b", run("a/b", QUESTION), 2, "invalid --name"),
    Case("name empty", run("", QUESTION), 2, "invalid --name: it is empty; use 1-64"),
    Case("name .", run(".", QUESTION), 2, "invalid --name"),
    Case("name ..", run("..", QUESTION), 2, "invalid --name"),
    Case("name unicode", run("café", QUESTION), 2, "invalid --name"),
    Case("name 200 characters", run("a" * 200, QUESTION), 2, "invalid --name"),
    Case("name with capitals", run("Report", QUESTION), 2, "invalid --name"),
    Case("name with a space", run("my report", QUESTION), 2, "invalid --name"),
    # state files
    Case(
        "state corrupt JSON",
        ("--mock-mode", "--name", "x", "--resume"),
        2,
        "not valid JSON",
        setup=lambda work: state_file(work, '{"kind": "research.py/state", "name": '),
    ),
    Case(
        "state a JSON list",
        ("--mock-mode", "--name", "x", "--resume"),
        2,
        "not a research.py state file",
        setup=lambda work: state_file(work, "[1, 2, 3]"),
    ),
    Case(
        "state someone else's JSON",
        ("--mock-mode", "--name", "x", "--resume"),
        2,
        "not a research.py state file",
        setup=lambda work: state_file(work, '{"hacked": 1}'),
    ),
    Case(
        "state of the wrong shape",
        ("--mock-mode", "--name", "x", "--resume"),
        2,
        "does not have the shape",
        setup=lambda work: state_file(work, valid_state(config={"breadth": "wide"})),
    ),
    Case(
        "state from a newer version",
        ("--mock-mode", "--name", "x", "--resume"),
        2,
        "newer research.py",
        setup=lambda work: state_file(work, valid_state(schema_version=99)),
    ),
    Case(
        "state of another session",
        ("--mock-mode", "--name", "x", "--resume"),
        2,
        "belongs to session 'y'",
        setup=lambda work: state_file(work, valid_state(name="y")),
    ),
    Case(
        "state not UTF-8",
        ("--mock-mode", "--name", "x", "--resume"),
        2,
        "state.json",
        setup=lambda work: state_file(work, b"\xff\xfe{\x00"),
    ),
    Case(
        "state is a directory",
        ("--mock-mode", "--name", "x", "--resume"),
        2,
        "state.json",
        setup=lambda work: (work / ".research" / "x" / "state.json").mkdir(parents=True),
    ),
    # templates
    Case(
        "template unknown variable",
        run("x", QUESTION),
        2,
        "$nonsense",
        setup=edited_template("research", "\nUse $nonsense here.\n"),
    ),
    Case(
        "template $ syntax error",
        run("x", QUESTION),
        2,
        "review.md",
        setup=edited_template("review", "\nIt costs $5.\n"),
    ),
    Case(
        "template not UTF-8",
        run("x", QUESTION),
        2,
        "synthesize.md",
        setup=edited_template("synthesize", b"\xff\xfe bad bytes"),
    ),
    Case(
        "template is a directory",
        run("x", QUESTION),
        2,
        "revise.md",
        setup=edited_template("revise", None),
    ),
    # file system
    Case(
        ".research is a file", run("x", QUESTION), 1, ".research", setup=a_file_named(".research")
    ),
    Case(
        "reports is a file",
        run("x", QUESTION),
        1,
        "cannot create",  # before any research
        setup=a_file_named("reports"),
        writes_nothing=False,
    ),
]


def snapshot(root: Path) -> dict[str, tuple]:
    """Every path under `root`: files with their size and modification time, directories
    by name (a directory's own time changes whenever an entry is added)."""
    found: dict[str, tuple] = {}
    for path in root.rglob("*"):
        stat = path.lstat()
        found[path.relative_to(root).as_posix()] = (
            ("dir",)
            if path.is_dir() and not path.is_symlink()
            else ("file", stat.st_size, stat.st_mtime_ns)
        )
    return found


def changed(before: dict, after: dict) -> set[str]:
    return {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}


def inside_session_dirs(path: str) -> bool:
    return any(
        path == top or path.startswith(top + "/") for top in ("work/.research", "work/reports")
    )


def assert_one_clear_line(stderr: str, message: str) -> None:
    assert "Traceback" not in stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith(("Error: ", "research: error: "))]
    assert len(errors) == 1, stderr
    assert message in errors[0], stderr
    assert "(env var: " not in errors[0], stderr  # the flag or the variable, not both
    assert all(line in errors or line.startswith(USAGE_HINT) for line in lines), stderr


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_bad_input_one_clear_line_and_nothing_written_outside(
    case: Case, run_cli, isolated: Path, tmp_path: Path
) -> None:
    if case.setup is not None:
        case.setup(isolated)
    before = snapshot(tmp_path)
    result = run_cli(*case.args, env=case.env or None)
    assert result.exit_code == case.code, result.stderr
    assert_one_clear_line(result.stderr, case.message)
    written = changed(before, snapshot(tmp_path))
    if case.writes_nothing:
        assert written == set()
    assert all(inside_session_dirs(path) for path in written), written
    assert not (tmp_path / "x").exists() and not (tmp_path / "a").exists()


def test_catalogue_has_at_least_40_cases() -> None:
    assert len(CASES) >= 40


@pytest.fixture
def unwritable(isolated: Path):
    """Make the working directory unwritable: chmod for users; root ignores modes, so use the
    immutable attribute there when the file system allows it."""
    if os.geteuid() != 0:
        isolated.chmod(0o555)
        yield isolated
        isolated.chmod(0o755)
        return
    chattr = shutil.which("chattr")
    if (
        chattr is None
        or subprocess.run([chattr, "+i", str(isolated)], capture_output=True).returncode != 0
    ):
        pytest.skip(
            "running as root, and the immutable attribute (chattr +i) is not "
            "available here: no way to make a directory unwritable for root"
        )
    try:
        yield isolated
    finally:
        subprocess.run([chattr, "-i", str(isolated)], check=True)


def test_read_only_working_directory(unwritable: Path, run_cli, tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    result = run_cli(*run("x", QUESTION))
    assert result.exit_code == 1
    assert_one_clear_line(result.stderr, "cannot create")
    assert changed(before, snapshot(tmp_path)) == set()


# A few of the cases again through a real `research.py` process: nothing escapes as a
# traceback outside the in-process runner either.
SUBPROCESS_CASES = [
    "breadth 0",
    "name ../x",
    "state corrupt JSON",
    "template unknown variable",
    ".research is a file",
    "agent command not found",
]


def test_bad_input_through_real_processes(tmp_path: Path) -> None:
    env = clean_env()
    running = []
    for case in (c for c in CASES if c.id in SUBPROCESS_CASES):
        work = tmp_path / case.id.replace(" ", "-").replace("/", "-")
        work.mkdir()
        if case.setup is not None:
            case.setup(work)
        proc = subprocess.Popen(
            research_argv(*case.args),
            cwd=work,
            env={**env, **case.env},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        running.append((case, proc))
    assert len(running) == len(SUBPROCESS_CASES)
    for case, proc in running:
        _, stderr = proc.communicate(timeout=60)
        assert proc.returncode == case.code, (case.id, stderr)
        assert_one_clear_line(stderr, case.message)
        # The real entry point also drops click's "Usage:"/"Try" hint lines.
        assert len([line for line in stderr.splitlines() if line.strip()]) == 1, stderr


def test_the_product_has_no_test_only_mock_script_option(tmp_path: Path) -> None:
    """Faults are the tests' business (tests/scripted_mock.py), not a hidden option."""
    (tmp_path / "script.json").write_text('{"faults": []}')
    done = run_research(
        "--mock-mode", "--mock-script", "script.json", QUESTION, cwd=tmp_path, env=clean_env()
    )
    assert done.returncode == 2
    assert "No such option: --mock-script" in done.stderr
    assert not (tmp_path / ".research").exists()

"""The subprocess helper and the OpenCode and command agents, against a fake `opencode` on PATH."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import assert_gone, install_fake_agent

from research.agents.base import AgentCall, FailureKind
from research.agents.generic import CommandAgent
from research.agents.opencode import INSTALL_HINT, OpenCodeAgent, find_opencode
from research.agents.process import run_process
from research.core.errors import AgentUnavailable, Interrupted, UsageError

FAKE = Path(__file__).parent / "fake_agents" / "fake_opencode.py"
PROMPT = 'Research "quantum dots" — it\'s 100% about $HOME & `ls`\n\nline two: naïve café ✓\n'


@pytest.fixture
def fake_bin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`opencode` and `fake-agent` (both the fake) first on PATH."""
    bin_dir = install_fake_agent(tmp_path / "bin", monkeypatch)
    monkeypatch.setenv("FAKE_OPENCODE_RECORD", str(tmp_path / "record.json"))
    monkeypatch.setenv("FAKE_OPENCODE_PIDFILE", str(tmp_path / "grandchild.pid"))
    return bin_dir


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    path = tmp_path.resolve() / "work dir"
    path.mkdir()
    return path


@pytest.fixture
def mode(monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    return lambda name: monkeypatch.setenv("FAKE_OPENCODE_MODE", name)


def make_call(cwd: Path, *, timeout: float = 10.0, log: Path | None = None) -> AgentCall:
    return AgentCall(
        phase="research",
        prompt=PROMPT,
        model="prov/model-x",
        timeout=timeout,
        cwd=cwd,
        log_path=log,
    )


def record(tmp_path: Path) -> dict[str, Any]:
    return json.loads((tmp_path / "record.json").read_text(encoding="utf-8"))


def grandchild_pid(tmp_path: Path) -> int:
    return int((tmp_path / "grandchild.pid").read_text())


@pytest.fixture
def signal_when(tmp_path: Path) -> Iterator[Callable[[int, Path], None]]:
    """Send ourselves `signum` from another thread once `path` exists (the fake got going)."""
    stop = threading.Event()
    threads: list[threading.Thread] = []

    def send(signum: int, path: Path) -> None:
        deadline = time.monotonic() + 120  # a hang guard: the fake starts late under load
        while not path.exists() and time.monotonic() < deadline:
            if stop.wait(0.02):
                return
        if not stop.wait(0.2):
            os.kill(os.getpid(), signum)

    def schedule(signum: int, path: Path) -> None:
        thread = threading.Thread(target=send, args=(signum, path))
        threads.append(thread)
        thread.start()

    yield schedule
    stop.set()
    for thread in threads:
        thread.join()


# --- how the agent is invoked ---------------------------------------------------------------


def test_prompt_arrives_on_stdin_exactly_and_argv_has_no_positional_prompt(
    fake_bin: Path, workdir: Path, tmp_path: Path, mode: Callable[[str], None]
) -> None:
    mode("events")
    result = OpenCodeAgent(extra_args=["--agent", "build"]).run(make_call(workdir))
    seen = record(tmp_path)
    assert result.ok, result.error
    assert seen["stdin"] == PROMPT
    assert seen["argv"][1:] == [
        "run",
        "--model",
        "prov/model-x",
        "--format",
        "json",
        "--agent",
        "build",
    ]


def test_pwd_and_cwd_are_the_call_directory_even_when_ours_is_elsewhere(
    fake_bin: Path,
    workdir: Path,
    tmp_path: Path,
    mode: Callable[[str], None],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.setenv("PWD", str(elsewhere))
    monkeypatch.setenv("FAKE_OPENCODE_FILE", "research_plan.md")
    mode("write")
    result = OpenCodeAgent().run(make_call(workdir))
    seen = record(tmp_path)
    assert result.ok, result.error
    assert seen["pwd"] == str(workdir)
    assert Path(seen["cwd"]).resolve() == workdir.resolve()
    assert (workdir / "research_plan.md").is_file()
    assert list(elsewhere.iterdir()) == []
    assert result.output == "Wrote the file."


# --- events: tokens, cost, text --------------------------------------------------------------


def test_tokens_and_cost_are_summed_over_step_finish_events(
    fake_bin: Path, workdir: Path, mode: Callable[[str], None]
) -> None:
    mode("events")
    result = OpenCodeAgent().run(make_call(workdir))
    assert result.ok and result.failure is None and result.exit_code == 0
    # input = fresh + cache read + cache write; output = output + reasoning
    assert result.input_tokens == 100 + 1000 + 50 + 200 + 1
    assert result.output_tokens == 20 + 5 + 30 + 2
    assert result.cost == pytest.approx(0.875)
    assert result.output == "First finding.\n\nSecond finding."


def test_tokens_and_cost_are_none_when_no_event_reports_them(
    fake_bin: Path, workdir: Path, mode: Callable[[str], None]
) -> None:
    mode("no_usage")
    result = OpenCodeAgent().run(make_call(workdir))
    assert result.ok
    assert (result.input_tokens, result.output_tokens, result.cost) == (None, None, None)
    assert result.output == "Answer without usage figures."


# --- classification --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fake_mode", "ok", "failure", "exit_code", "error_part"),
    [
        ("write", True, None, 0, None),
        ("events", True, None, 0, None),
        ("silent", False, FailureKind.NO_OUTPUT, 0, "without any output"),
        ("error_event", False, FailureKind.AGENT_ERROR, 0, "Rate limit exceeded"),
        ("permission", False, FailureKind.AGENT_ERROR, 0, "external_directory (/etc/*)"),
        ("exit1", False, FailureKind.EXIT_NONZERO, 1, "Error: Model not found: nope/nothing"),
        ("exit1_event", False, FailureKind.EXIT_NONZERO, 1, "No API key for provider nope"),
    ],
)
def test_classification(
    fake_bin: Path,
    workdir: Path,
    mode: Callable[[str], None],
    monkeypatch: pytest.MonkeyPatch,
    fake_mode: str,
    ok: bool,
    failure: FailureKind | None,
    exit_code: int,
    error_part: str | None,
) -> None:
    monkeypatch.setenv("FAKE_OPENCODE_FILE", "progress.md")
    mode(fake_mode)
    result = OpenCodeAgent().run(make_call(workdir))
    assert (result.ok, result.failure, result.exit_code) == (ok, failure, exit_code)
    if error_part is None:
        assert result.error is None
    else:
        assert result.error is not None and error_part in result.error
        assert "\x1b" not in result.error


def test_permission_rejection_is_reported_from_the_event_and_stderr(
    fake_bin: Path, workdir: Path, mode: Callable[[str], None]
) -> None:
    mode("permission")
    result = OpenCodeAgent().run(make_call(workdir))
    assert result.error is not None
    assert "write: The user rejected permission" in result.error
    assert "permission rejected: external_directory (/etc/*)" in result.error


def test_leader_exit_with_a_descendant_holding_stdout_is_not_a_timeout(
    fake_bin: Path, workdir: Path, tmp_path: Path, mode: Callable[[str], None]
) -> None:
    mode("leave_grandchild")
    started = time.monotonic()
    result = OpenCodeAgent(grace=0.3).run(make_call(workdir, timeout=300))
    # Not held until the grandchild (120 s) or the timeout ends: bounds, not a speed test.
    assert time.monotonic() - started < 60
    assert result.ok, result.error
    assert result.output == "Done, but a helper still holds stdout."
    assert_gone(grandchild_pid(tmp_path))


# --- timeouts and interrupts -----------------------------------------------------------------


def test_timeout_kills_the_whole_group_fast(
    fake_bin: Path, workdir: Path, tmp_path: Path, mode: Callable[[str], None]
) -> None:
    mode("grandchild")
    started = time.monotonic()
    result = OpenCodeAgent(grace=0.5).run(make_call(workdir, timeout=1.0))
    elapsed = time.monotonic() - started
    assert result.failure is FailureKind.TIMEOUT and not result.ok
    assert result.exit_code == -signal.SIGTERM
    assert result.output == "Working…"  # what was printed before the kill is kept
    assert 1.0 <= elapsed < 60  # killed, not waited for (the grandchild lives 120 s)
    assert_gone(grandchild_pid(tmp_path))


def test_timeout_escalates_to_sigkill_after_the_grace_period(
    fake_bin: Path, workdir: Path, tmp_path: Path, mode: Callable[[str], None]
) -> None:
    mode("ignore_term")
    started = time.monotonic()
    result = OpenCodeAgent(grace=0.5).run(make_call(workdir, timeout=1.0))
    elapsed = time.monotonic() - started
    assert result.failure is FailureKind.TIMEOUT
    assert result.exit_code == -signal.SIGKILL
    assert 1.5 <= elapsed < 60  # killed after the grace, not waited for
    assert_gone(grandchild_pid(tmp_path))


def test_run_process_reports_a_timeout_without_raising(tmp_path: Path) -> None:
    result = run_process(
        [sys.executable, "-c", "import time; time.sleep(30)"],
        input_text="",
        cwd=tmp_path,
        timeout=0.3,
        grace=0.3,
    )
    assert result.timed_out and result.exit_code == -signal.SIGTERM
    assert result.duration < 20  # the child would sleep 30 s


def _raise_interrupted(signum: int, frame: object) -> None:
    raise Interrupted(signum)


@pytest.mark.parametrize(
    ("signum", "handler", "expected"),
    [
        (signal.SIGINT, signal.default_int_handler, KeyboardInterrupt),
        (signal.SIGTERM, _raise_interrupted, Interrupted),
    ],
)
def test_interrupt_during_a_call_kills_the_group_and_propagates(
    fake_bin: Path,
    workdir: Path,
    tmp_path: Path,
    mode: Callable[[str], None],
    signal_when: Callable[[int, Path], None],
    signum: int,
    handler: Callable[..., Any],
    expected: type[BaseException],
) -> None:
    mode("grandchild")
    log = tmp_path / "logs" / "001-research-1.log"
    previous = signal.signal(signum, handler)
    try:
        signal_when(signum, tmp_path / "grandchild.pid")
        started = time.monotonic()
        with pytest.raises(expected):
            OpenCodeAgent(grace=0.5).run(make_call(workdir, timeout=300, log=log))
        assert time.monotonic() - started < 60  # the signal, not the timeout, ended it
    finally:
        signal.signal(signum, previous)
    assert_gone(grandchild_pid(tmp_path))
    text = log.read_text(encoding="utf-8")
    assert "failure: interrupted" in text and PROMPT.rstrip("\n") in text


# --- the call log ----------------------------------------------------------------------------


def test_call_log_records_command_figures_prompt_and_output(
    fake_bin: Path, workdir: Path, tmp_path: Path, mode: Callable[[str], None]
) -> None:
    mode("events")
    log = tmp_path / "session" / "logs" / "001-research-1.log"
    OpenCodeAgent().run(make_call(workdir, log=log))
    text = log.read_text(encoding="utf-8")
    head, _, rest = text.partition("--- prompt ---\n")
    assert "command: opencode run --model prov/model-x --format json\n" in head
    assert f"cwd: {workdir}\n" in head
    assert "model: prov/model-x\n" in head
    assert "timeout: 10 s\n" in head
    assert "started: " in head and "duration: " in head
    assert "exit code: 0\ntimed out: no\nfailure: none\n" in head
    assert "tokens: input 1351, output 57\n" in head
    assert "cost: 0.875000\n" in head
    assert (
        "token breakdown: input 301, output 52, reasoning 5, cache read 1000, cache write 50\n"
    ) in head
    prompt, _, rest = rest.partition("\n--- stdout ---\n")
    assert prompt == PROMPT.rstrip("\n")
    stdout, _, stderr = rest.partition("\n--- stderr ---\n")
    assert "not json: a stray progress line" in stdout and '"step_finish"' in stdout
    assert stderr == "\n"


def test_call_log_is_written_for_a_timed_out_call(
    fake_bin: Path, workdir: Path, tmp_path: Path, mode: Callable[[str], None]
) -> None:
    mode("grandchild")
    log = tmp_path / "logs" / "002-review-1.log"
    OpenCodeAgent(grace=0.3).run(make_call(workdir, timeout=0.5, log=log))
    text = log.read_text(encoding="utf-8")
    assert "timed out: yes\nfailure: timeout\n" in text
    assert "tokens: unknown\ncost: unknown\n" in text
    assert '"text": "Working' in text.partition("--- stdout ---")[2]


def test_call_log_of_a_failed_call_has_the_error_and_stderr(
    fake_bin: Path, workdir: Path, tmp_path: Path, mode: Callable[[str], None]
) -> None:
    mode("exit1")
    log = tmp_path / "logs" / "003-research-2.log"
    OpenCodeAgent().run(make_call(workdir, log=log))
    text = log.read_text(encoding="utf-8")
    assert "exit code: 1\n" in text and "failure: exit_nonzero\n" in text
    assert "error: Error: Model not found: nope/nothing\n" in text
    assert "Model not found" in text.partition("--- stderr ---")[2]


# --- the generic command agent ---------------------------------------------------------------


def test_command_agent_fills_the_model_placeholder_and_sends_the_prompt_on_stdin(
    fake_bin: Path, workdir: Path, tmp_path: Path, mode: Callable[[str], None]
) -> None:
    mode("plain")
    agent = CommandAgent("fake-agent -p --model {model} --note 'two words'")
    assert agent.check_available() == str(fake_bin / "fake-agent")
    log = tmp_path / "logs" / "cmd.log"
    result = agent.run(make_call(workdir, log=log))
    seen = record(tmp_path)
    assert result.ok and result.failure is None
    assert result.output == f"plain answer to: {PROMPT.splitlines()[0]}"
    assert (result.input_tokens, result.output_tokens, result.cost) == (None, None, None)
    assert seen["argv"][1:] == ["-p", "--model", "prov/model-x", "--note", "two words"]
    assert seen["stdin"] == PROMPT
    assert seen["pwd"] == str(workdir)
    assert "command: fake-agent -p --model prov/model-x --note 'two words'\n" in log.read_text(
        encoding="utf-8"
    )


@pytest.mark.parametrize(
    ("fake_mode", "failure"),
    [
        ("silent", FailureKind.NO_OUTPUT),
        ("exit1", FailureKind.EXIT_NONZERO),
        ("events", None),
    ],
)
def test_command_agent_classification(
    fake_bin: Path,
    workdir: Path,
    mode: Callable[[str], None],
    fake_mode: str,
    failure: FailureKind | None,
) -> None:
    mode(fake_mode)
    result = CommandAgent("fake-agent").run(make_call(workdir))
    assert result.failure is failure
    if failure is FailureKind.EXIT_NONZERO:
        assert result.error == "Error: Model not found: nope/nothing"


def test_command_agent_timeout_kills_the_group(
    fake_bin: Path, workdir: Path, tmp_path: Path, mode: Callable[[str], None]
) -> None:
    mode("grandchild")
    result = CommandAgent("fake-agent", grace=0.3).run(make_call(workdir, timeout=0.5))
    assert result.failure is FailureKind.TIMEOUT
    assert_gone(grandchild_pid(tmp_path))


@pytest.mark.parametrize("command", ["", "   ", "claude -p 'unbalanced"])
def test_command_agent_rejects_an_unusable_command(command: str) -> None:
    with pytest.raises(UsageError):
        CommandAgent(command)


# --- missing executables ---------------------------------------------------------------------


def test_missing_opencode_raises_with_the_install_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workdir: Path
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(AgentUnavailable) as found:
        find_opencode()
    assert INSTALL_HINT in str(found.value)
    assert "npm install -g opencode-ai" in INSTALL_HINT and "opencode auth login" in INSTALL_HINT
    with pytest.raises(AgentUnavailable, match="npm install -g opencode-ai"):
        OpenCodeAgent().check_available()
    with pytest.raises(AgentUnavailable, match="npm install -g opencode-ai"):
        OpenCodeAgent().run(make_call(workdir))


def test_missing_command_executable_raises_agent_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workdir: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    agent = CommandAgent("no-such-agent-cli -p --model {model}")
    with pytest.raises(AgentUnavailable, match="no-such-agent-cli"):
        agent.check_available()
    with pytest.raises(AgentUnavailable, match="no-such-agent-cli"):
        agent.run(make_call(workdir))


def test_run_process_with_a_missing_working_directory_is_not_agent_unavailable(
    tmp_path: Path,
) -> None:
    with pytest.raises(FileNotFoundError):
        run_process(
            [sys.executable, "-c", "pass"], input_text="", cwd=tmp_path / "missing", timeout=5
        )

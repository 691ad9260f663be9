"""The iteration limit the user agreed to (issue 30): the plan's tier never raises it
without asking again, never raises one --max-iterations set, says a raise --yes agreed to;
the simulated agent costs nothing and asks nothing.

A fake `opencode` (tests/fake_agents/fake_opencode.py) plays an agent that costs money and
classes the question with FAKE_OPENCODE_COMPLEXITY; the terminal cases run on a real pty.
"""

from __future__ import annotations

import os
import select
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import install_fake_agent, read_json
from helpers import REPO, events_of

from research.core.budget import LimitAgreement, LimitRaise, limit_raise

QUESTION = "How do heat pumps perform in cold climates?"
SESSION = Path(".research") / "lim"


@pytest.fixture
def deep_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake `opencode` on PATH that does the work and classes every question deep."""
    install_fake_agent(tmp_path / "bin", monkeypatch)
    monkeypatch.setenv("FAKE_OPENCODE_MODE", "agent")
    monkeypatch.setenv("FAKE_OPENCODE_COMPLEXITY", "deep")
    return tmp_path


def limit_events() -> list[dict[str, Any]]:
    return events_of(SESSION, "iteration_limit")


def methodology() -> str:
    return Path("reports/lim/report.md").read_text(encoding="utf-8").partition("## Methodology")[2]


# --- the rule ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("agreement", "after", "costs", "rule"),
    [
        (LimitAgreement.GIVEN, 261, True, LimitRaise.KEEP),
        (LimitAgreement.GIVEN, 261, False, LimitRaise.KEEP),
        (LimitAgreement.CONFIRMED, 261, True, LimitRaise.ASK),
        (LimitAgreement.CONFIRMED, 15, True, LimitRaise.ASK),
        (LimitAgreement.YES, 261, True, LimitRaise.SAY),
        (LimitAgreement.FREE, 261, False, LimitRaise.SAY),
        (LimitAgreement.UNASKED, 261, True, LimitRaise.ASK),  # now long enough to ask
        (LimitAgreement.UNASKED, 15, True, LimitRaise.SAY),
        (LimitAgreement.UNASKED, 261, False, LimitRaise.SAY),
    ],
)
def test_the_one_rule_for_raising_an_agreed_limit(
    agreement: LimitAgreement, after: int, costs: bool, rule: LimitRaise
) -> None:
    assert limit_raise(agreement, after, costs=costs) is rule


# --- through the CLI -----------------------------------------------------------------------


def test_with_yes_the_plans_tier_raises_the_limit_and_says_so_everywhere(
    deep_agent: Path, run_cli: Callable[..., Any]
) -> None:
    result = run_cli("--name", "lim", "--yes", QUESTION)
    assert result.exit_code == 0, result.stderr
    said = "the plan's deep tier raised the iteration limit from 86 to 261 (--yes)"
    assert said in result.stderr
    (event,) = limit_events()
    assert (event["before"], event["wanted"], event["raised"]) == (86, 261, True)
    assert event["message"] == said
    config = read_json(SESSION / "state.json")["config"]
    assert (config["breadth"], config["depth"], config["max_iterations"]) == (4, 3, 261)
    assert said in methodology()


def test_a_limit_max_iterations_set_is_never_raised_by_the_plans_tier(
    deep_agent: Path, run_cli: Callable[..., Any]
) -> None:
    result = run_cli("--name", "lim", "--yes", "--max-iterations", "90", QUESTION)
    assert result.exit_code == 0, result.stderr
    (event,) = limit_events()
    assert (event["before"], event["wanted"], event["raised"]) == (90, 261, False)
    assert "kept at 90 (--max-iterations set it)" in result.stderr
    config = read_json(SESSION / "state.json")["config"]
    assert (config["tier"], config["max_iterations"]) == ("deep", 90)
    assert (config["breadth"], config["depth"]) == (3, 3)  # the tree the limit covers
    assert "kept at 90" in methodology()


def test_a_plain_mock_mode_run_asks_nothing_off_a_terminal(run_cli: Callable[..., Any]) -> None:
    result = run_cli("--mock-mode", "--name", "lim", "--depth", "1", QUESTION, input="")
    assert result.exit_code == 0, result.stderr
    assert "confirmation" not in result.stderr
    assert read_json(SESSION / "state.json")["config"]["limit_agreement"] == "free"


def test_an_agent_that_costs_still_asks_before_a_long_run(
    deep_agent: Path, run_cli: Callable[..., Any]
) -> None:
    result = run_cli("--name", "lim", QUESTION, input="")
    assert result.exit_code == 2
    assert "needs confirmation" in result.stderr and "--yes" in result.stderr
    assert not SESSION.exists()


# --- at a terminal ---------------------------------------------------------------------------


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs a Linux pty")
@pytest.mark.parametrize(("answer", "limit", "raised"), [("n", 86, False), ("y", 261, True)])
def test_a_limit_confirmed_at_a_terminal_is_raised_only_if_confirmed_again(
    deep_agent: Path, isolated: Path, answer: str, limit: int, raised: bool
) -> None:
    import pty

    argv = [sys.executable, str(REPO / "research.py"), "--name", "lim", QUESTION]
    pid, fd = pty.fork()
    if pid == 0:  # the child: research.py on the pty
        os.environ.update({"TERM": "dumb", "COLUMNS": "200", "LINES": "30"})
        os.execv(sys.executable, argv)
    try:
        seen = read_until(fd, "Continue? [y/N]")
        assert "up to 86 research iterations" in seen
        os.write(fd, b"y\n")
        seen = read_until(fd, "Continue with 261? [y/N]")
        assert "may run up to 261 research iterations" in seen and "not the 86" in seen
        os.write(fd, f"{answer}\n".encode())
        rest = read_until(fd, None)
    finally:
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, rest[-2000:]
    (event,) = events_of(isolated / SESSION, "iteration_limit")
    assert (event["raised"], event["max_iterations"]) == (raised, limit)
    config = read_json(isolated / SESSION / "state.json")["config"]
    assert (config["limit_agreement"], config["max_iterations"]) == ("confirmed", limit)


def read_until(fd: int, text: str | None) -> str:
    """The pty's output up to `text` (or to its end with None); fails if the child ends
    without saying it."""
    chunks: list[bytes] = []
    deadline = time.monotonic() + 600  # a hung child, not a slow machine
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1.0)
        if not ready:
            continue
        try:
            data = os.read(fd, 65536)
        except OSError:  # the child closed the pty
            data = b""
        chunks.append(data)
        seen = b"".join(chunks).decode("utf-8", errors="replace")
        if not data or (text is not None and text in seen):
            assert text is None or text in seen, seen[-2000:]
            return seen
    raise AssertionError(f"no {text!r} within the deadline")

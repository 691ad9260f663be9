"""The OpenCode agent: `opencode run --format json`, prompt on stdin, JSON Lines events parsed."""

from __future__ import annotations

import json
import math
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from research.agents.base import Agent, AgentCall, AgentResult
from research.agents.jsonout import as_dict, is_number, json_object
from research.agents.process import CallOutcome, ProcessResult, run_agent_call
from research.core.errors import AgentUnavailable

INSTALL_HINT = (
    "Install OpenCode with `npm install -g opencode-ai`, then configure a model provider: "
    "run `opencode auth login`, or add a `provider` block to opencode.json. "
    "`--mock-mode` runs without OpenCode and without a provider."
)

# `opencode run` rejects permission requests by itself unless `--auto` is given, and still
# exits 0. 1.18 says so on stderr ("! permission requested: <name> (<patterns>);
# auto-rejecting") and in the failed tool's `tool_use` event ("The user rejected permission to
# use this specific tool call."); later sources also list them in a final `done` event.
_ASKED = re.compile(r"permission requested: (?P<what>.+?);\s*auto-rejecting", re.IGNORECASE)
_REJECTED = "rejected permission"
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_TOKEN_FIELDS = ("input", "output", "reasoning", "cache_read", "cache_write")


def find_opencode(executable: str = "opencode") -> str:
    """The full path of the OpenCode executable; `AgentUnavailable` with install help if missing."""
    path = shutil.which(executable)
    if path is None:
        raise AgentUnavailable(f"OpenCode ({executable!r}) was not found on PATH. {INSTALL_HINT}")
    return path


class OpenCodeAgent(Agent):
    """Drives `opencode run --model M --format json` with the prompt on stdin."""

    name = "opencode"
    reports_usage = True  # from the step_finish events, when the provider reports them

    def __init__(
        self, executable: str = "opencode", *, extra_args: Sequence[str] = (), grace: float = 5.0
    ) -> None:
        self.executable = executable
        self.extra_args = tuple(extra_args)
        self.grace = grace

    def check_available(self) -> str:
        """Raise `AgentUnavailable` (with install help) unless the executable is on PATH."""
        return find_opencode(self.executable)

    def argv(self, model: str) -> list[str]:
        """The command line; the prompt never appears in it (it goes to stdin)."""
        return [self.executable, "run", "--model", model, "--format", "json", *self.extra_args]

    def run(self, call: AgentCall) -> AgentResult:
        """Run one phase's prompt; failures come back classified, never raised."""
        try:
            return run_agent_call(
                self.argv(call.model), call, grace=self.grace, interpret=interpret_opencode
            )
        except AgentUnavailable as exc:
            raise AgentUnavailable(f"{exc} {INSTALL_HINT}") from exc


def interpret_opencode(proc: ProcessResult) -> CallOutcome:
    """Read OpenCode's JSON Lines events: text, token and cost totals, errors, rejections.

    Token figures fold OpenCode's breakdown into the two the loop keeps: input counts fresh,
    cache-read and cache-write tokens; output counts reasoning tokens too (the call log keeps
    the breakdown). Lines that are not JSON objects are ignored.
    """
    seen = read_events(proc.stdout)
    problems = seen.problems + stderr_rejections(proc.stderr)
    return CallOutcome(
        output="\n\n".join(seen.texts) if seen.events else proc.stdout.strip(),
        error="; ".join(dict.fromkeys(problems)) or None,
        input_tokens=seen.summed("input", "cache_read", "cache_write"),
        output_tokens=seen.summed("output", "reasoning"),
        cost=seen.cost,
        notes=seen.notes(),
    )


@dataclass
class EventSummary:
    """What one call's OpenCode events said, summed."""

    events: int = 0
    """JSON object lines read."""
    texts: list[str] = field(default_factory=list)
    """The non-empty `text` parts, stripped, in order."""
    problems: list[str] = field(default_factory=list)
    """Error events and rejected permissions, in order."""
    tokens: dict[str, float] = field(default_factory=dict)
    """Token totals by `_TOKEN_FIELDS` name; empty if no event reported any. Whole numbers
    as reported; an Infinity or NaN is kept as is for `checked_usage` to drop."""
    cost: float | None = None
    """Summed `step_finish` costs; None if no event reported one."""

    def add(self, event: dict[str, Any]) -> None:
        """Take one event into the summary."""
        self.events += 1
        kind = event.get("type")
        part = as_dict(event.get("part"))
        if kind == "text":
            self.texts += _text_of(part)
        elif kind == "step_finish":
            _add_tokens(self.tokens, part.get("tokens"))
            if is_number(part_cost := part.get("cost")):
                self.cost = (self.cost or 0.0) + _as_float(part_cost)
        elif kind == "error":
            self.problems.append(_error_text(event))
        elif kind == "tool_use":
            self.problems += _tool_rejection(part)
        elif kind == "done":
            self.problems += _done_rejections(event)

    def summed(self, *fields: str) -> float | None:
        """The total of these token fields; None when no event reported tokens."""
        return sum(self.tokens.get(name, 0) for name in fields) if self.tokens else None

    def notes(self) -> tuple[str, ...]:
        """The event count and, when known, the token breakdown, for the call log."""
        if not self.tokens:
            return (f"events: {self.events}",)
        breakdown = ", ".join(
            f"{name.replace('_', ' ')} {self.tokens.get(name, 0)}" for name in _TOKEN_FIELDS
        )
        return (f"events: {self.events}", f"token breakdown: {breakdown}")


def read_events(stdout: str) -> EventSummary:
    """Sum the JSON object lines of OpenCode's stdout; other lines are skipped."""
    summary = EventSummary()
    for line in stdout.splitlines():
        if (event := json_object(line)) is not None:
            summary.add(event)
    return summary


def stderr_rejections(stderr: str) -> list[str]:
    """The permissions `opencode run` says on stderr it auto-rejected."""
    lines = _ANSI.sub("", stderr).splitlines()
    return [
        f"permission rejected: {match['what'].strip()}"
        for line in lines
        if (match := _ASKED.search(line))
    ]


def _text_of(part: dict[str, Any]) -> list[str]:
    """A `text` part's text, stripped, unless it is empty."""
    text = part.get("text")
    return [text.strip()] if isinstance(text, str) and text.strip() else []


def _done_rejections(event: dict[str, Any]) -> list[str]:
    """The permissions a final `done` event lists as rejected."""
    rejected = event.get("rejected")
    if isinstance(rejected, list) and rejected:
        return ["permission rejected: " + ", ".join(map(str, rejected))]
    return []


def _tool_rejection(part: dict[str, Any]) -> list[str]:
    """The problem a failed `tool_use` part reports, if its error is a rejected permission."""
    state = as_dict(part.get("state"))
    error = state.get("error")
    if state.get("status") == "error" and isinstance(error, str) and _REJECTED in error:
        return [f"{part.get('tool', 'tool')}: {error.strip()}"]
    return []


def _as_float(value: float) -> float:
    """A reported figure as a float; an int beyond any float is Infinity (dropped later)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf


def _whole(value: float) -> float:
    """A finite token count truncated to a whole number; Infinity and NaN pass unchanged."""
    return int(value) if isinstance(value, int) or math.isfinite(value) else value


def _add_tokens(totals: dict[str, float], tokens: object) -> None:
    """Add one `step_finish` event's `{input, output, reasoning, cache: {read, write}}`."""
    if not isinstance(tokens, dict):
        return
    cache = as_dict(tokens.get("cache"))
    found = {
        "input": tokens.get("input"),
        "output": tokens.get("output"),
        "reasoning": tokens.get("reasoning"),
        "cache_read": cache.get("read"),
        "cache_write": cache.get("write"),
    }
    for name, value in found.items():
        if is_number(value):
            totals[name] = totals.get(name, 0) + _whole(value)


def _error_text(event: dict[str, Any]) -> str:
    """The message of an `error` event: `{"error": {"name", "data": {"message"}}}` or plainer."""
    error = event.get("error", event.get("message"))
    if isinstance(error, dict):
        data = error.get("data")
        if isinstance(data, dict) and data.get("message"):
            return str(data["message"])
        for key in ("message", "name"):
            if error.get(key):
                return str(error[key])
        return json.dumps(error)
    return str(error) if error else "error event without a message"

"""The OpenCode agent: `opencode run --format json`, prompt on stdin, JSON Lines events parsed."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Sequence
from typing import Any, TypeGuard

from research.agents.base import AgentCall, AgentResult
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


class OpenCodeAgent:
    """Drives `opencode run --model M --format json` with the prompt on stdin."""

    name = "opencode"

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
    texts: list[str] = []
    problems: list[str] = []
    totals: dict[str, int] = {}
    cost: float | None = None
    events = 0
    for line in proc.stdout.splitlines():
        event = _json_object(line)
        if event is None:
            continue
        events += 1
        kind = event.get("type")
        part = _dict(event.get("part"))
        if kind == "text":
            text = part.get("text")
            if isinstance(text, str) and text.strip():
                texts.append(text.strip())
        elif kind == "step_finish":
            _add_tokens(totals, part.get("tokens"))
            part_cost = part.get("cost")
            if _is_number(part_cost):
                cost = (cost or 0.0) + float(part_cost)
        elif kind == "error":
            problems.append(_error_text(event))
        elif kind == "tool_use":
            state = _dict(part.get("state"))
            error = state.get("error")
            if state.get("status") == "error" and isinstance(error, str) and _REJECTED in error:
                problems.append(f"{part.get('tool', 'tool')}: {error.strip()}")
        elif kind == "done":
            rejected = event.get("rejected")
            if isinstance(rejected, list) and rejected:
                problems.append("permission rejected: " + ", ".join(map(str, rejected)))
    for line in _ANSI.sub("", proc.stderr).splitlines():
        if match := _ASKED.search(line):
            problems.append(f"permission rejected: {match['what'].strip()}")

    output = "\n\n".join(texts) if events else proc.stdout.strip()
    notes = [f"events: {events}"]
    if totals:
        notes.append(
            "token breakdown: "
            + ", ".join(
                f"{field.replace('_', ' ')} {totals.get(field, 0)}" for field in _TOKEN_FIELDS
            )
        )
    reported = bool(totals)
    return CallOutcome(
        output=output,
        error="; ".join(dict.fromkeys(problems)) or None,
        input_tokens=(
            sum(totals.get(k, 0) for k in ("input", "cache_read", "cache_write"))
            if reported
            else None
        ),
        output_tokens=(
            sum(totals.get(k, 0) for k in ("output", "reasoning")) if reported else None
        ),
        cost=cost,
        notes=tuple(notes),
    )


def _json_object(line: str) -> dict[str, Any] | None:
    line = line.strip()
    if not line.startswith("{"):
        return None
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _dict(value: object) -> dict[str, Any]:
    """`value` if it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def _add_tokens(totals: dict[str, int], tokens: object) -> None:
    """Add one `step_finish` event's `{input, output, reasoning, cache: {read, write}}`."""
    if not isinstance(tokens, dict):
        return
    cache = _dict(tokens.get("cache"))
    found = {
        "input": tokens.get("input"),
        "output": tokens.get("output"),
        "reasoning": tokens.get("reasoning"),
        "cache_read": cache.get("read"),
        "cache_write": cache.get("write"),
    }
    for field, value in found.items():
        if _is_number(value):
            totals[field] = totals.get(field, 0) + int(value)


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

"""The Claude Code agent: `claude -p`, prompt on stdin, its stream-json events parsed.

Flags, and why: `--permission-mode acceptEdits` lets a phase write its files in the
working directory without a prompt (without it, `-p` silently denies every write and exits
0); `--allowedTools WebSearch,WebFetch` lets it read the web, which a research phase needs
and `acceptEdits` does not grant (a shell stays denied); `--output-format stream-json
--verbose` puts every event in the call log and ends with one `result` object holding the
usage, the cost Claude Code computed and any API error; `--no-session-persistence` keeps
a transcript of each call out of ~/.claude (the call log has it). The prompt goes on stdin,
which is then closed (an open stdin makes `claude -p` wait).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections.abc import Mapping, Sequence
from typing import Any

from research.agents.base import Agent, AgentCall, AgentResult, FailureKind
from research.agents.jsonout import as_dict, count, is_number, json_objects
from research.agents.process import CallOutcome, ProcessResult, run_agent_call
from research.core.errors import AgentUnavailable

INSTALL_HINT = (
    "Install Claude Code with `npm install -g @anthropic-ai/claude-code`, then run `claude` "
    "once to log in, or set ANTHROPIC_API_KEY."
)
ALLOWED_TOOLS = ("WebSearch", "WebFetch")
"""Tools a phase needs that `acceptEdits` does not allow by itself."""
QUIET_ENV = {
    # No telemetry, error reports or update checks: the model API is its only connection.
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    # Claude Code retries a failed request 10 times by default, for minutes; research.py's
    # own retries (with their backoff and the budgets) are the ones that should count.
    "CLAUDE_CODE_MAX_RETRIES": "2",
}
"""Set for every call unless the user's environment sets them."""
_USAGE_FIELDS = (
    "input_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "output_tokens",
)


class ClaudeAgent(Agent):
    """Drives `claude -p --output-format stream-json --permission-mode acceptEdits --model M`."""

    name = "claude"
    reports_usage = True  # the result event's usage and total_cost_usd

    def __init__(
        self, executable: str = "claude", *, extra_args: Sequence[str] = (), grace: float = 5.0
    ) -> None:
        self.executable = executable
        self.extra_args = tuple(extra_args)
        self.grace = grace

    def check_available(self) -> str:
        """The executable's path; `AgentUnavailable` with install help when it is missing."""
        path = shutil.which(self.executable)
        if path is None:
            raise AgentUnavailable(
                f"Claude Code ({self.executable!r}) was not found on PATH. {INSTALL_HINT}"
            )
        return path

    def argv(self, model: str) -> list[str]:
        """The command line; the prompt never appears in it (it goes to stdin)."""
        return [
            self.executable,
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--permission-mode",
            "acceptEdits",
            "--allowedTools",
            ",".join(ALLOWED_TOOLS),
            "--no-session-persistence",
            "--model",
            model,
            *self.extra_args,
        ]

    def run(self, call: AgentCall) -> AgentResult:
        """Run one phase's prompt; failures come back classified, never raised."""
        call = dataclasses.replace(call, env={**quiet_env(os.environ), **call.env})
        try:
            return run_agent_call(
                self.argv(call.model), call, grace=self.grace, interpret=interpret_claude
            )
        except AgentUnavailable as exc:
            raise AgentUnavailable(f"{exc} {INSTALL_HINT}") from exc


def quiet_env(environ: Mapping[str, str]) -> dict[str, str]:
    """`QUIET_ENV` without the variables the user's environment already sets."""
    return {name: value for name, value in QUIET_ENV.items() if name not in environ}


def interpret_claude(proc: ProcessResult) -> CallOutcome:
    """Read Claude Code's stream-json events: the result, usage, cost, errors, denials.

    Token figures fold the breakdown into the two the loop keeps: input counts fresh,
    cache-write and cache-read tokens (the call log keeps the breakdown). Without a
    `result` event (the call was killed), the tokens are the assistant messages' figures
    so far and the cost is unknown.
    """
    events = list(json_objects(proc.stdout))
    init = next((e for e in events if e.get("type") == "system"), {})
    result = next((e for e in reversed(events) if e.get("type") == "result"), None)
    if result is None:
        return _partial(events, proc, init)
    usage = as_dict(result.get("usage"))
    failure, error = _api_error(result)
    cost = result.get("total_cost_usd")
    text = result.get("result")
    return CallOutcome(
        output=text.strip() if isinstance(text, str) else "",
        error=error or _denials(result.get("permission_denials")),
        failure=failure,
        input_tokens=sum(count(usage.get(name)) for name in _USAGE_FIELDS[:3]),
        output_tokens=count(usage.get("output_tokens")),
        cost=float(cost) if is_number(cost) else None,
        model=_model(init, result),
        notes=(
            f"events: {len(events)}, turns: {count(result.get('num_turns'))}",
            "token breakdown: " + _breakdown(usage),
            "cost: reported by Claude Code (total_cost_usd)",
        ),
    )


def _api_error(result: dict[str, Any]) -> tuple[FailureKind | None, str | None]:
    """The API error a result reports (`is_error`; `subtype` says "success" even then)."""
    if result.get("is_error") is not True:
        return None, None
    text = result.get("result")
    message = text.strip() if isinstance(text, str) and text.strip() else "an error"
    status = result.get("api_error_status")
    if is_number(status):
        return FailureKind.of_http_status(int(status)), f"{message} (HTTP {int(status)})"
    if result.get("terminal_reason") == "api_error":
        return FailureKind.API_ERROR, message
    return FailureKind.AGENT_ERROR, f"{message} ({result.get('subtype') or 'error'})"


def _denials(denials: object) -> str | None:
    """`permission_denials` as one line: Claude Code denied these and still exited 0."""
    if not isinstance(denials, list) or not denials:
        return None
    named = []
    for denial in map(as_dict, denials):
        given = as_dict(denial.get("tool_input"))
        target = given.get("file_path") or given.get("command") or given.get("url") or ""
        named.append(f"{denial.get('tool_name', 'tool')} {target}".strip())
    return "permission denied: " + "; ".join(dict.fromkeys(named))


def _model(init: dict[str, Any], result: dict[str, Any]) -> str | None:
    """The model the call ran on: the init event's (an alias resolved), else the result's."""
    if isinstance(model := init.get("model"), str) and model:
        return model
    used = as_dict(result.get("modelUsage"))
    return next(iter(used), None)


def _breakdown(usage: dict[str, Any]) -> str:
    return ", ".join(
        f"{name.removesuffix('_tokens').replace('_', ' ')} {count(usage.get(name))}"
        for name in _USAGE_FIELDS
    )


def _partial(
    events: list[dict[str, Any]], proc: ProcessResult, init: dict[str, Any]
) -> CallOutcome:
    """What a call without a result event used: the assistant messages' usage, once each."""
    seen: dict[str, dict[str, Any]] = {}
    texts: list[str] = []
    for event in events:
        message = as_dict(event.get("message"))
        if event.get("type") != "assistant":
            continue
        seen[str(message.get("id", len(seen)))] = as_dict(message.get("usage"))
        texts += [
            block["text"].strip()
            for block in message.get("content") or []
            if isinstance(block, dict)
            and isinstance(block.get("text"), str)
            and block["text"].strip()
        ]
    found = bool(seen)
    return CallOutcome(
        output="\n\n".join(texts) if events else proc.stdout.strip(),
        input_tokens=sum(count(u.get(n)) for u in seen.values() for n in _USAGE_FIELDS[:3])
        if found
        else None,
        output_tokens=sum(count(u.get("output_tokens")) for u in seen.values()) if found else None,
        model=_model(init, {}),
        notes=(
            f"events: {len(events)}",
            "no result event: tokens are the assistant messages' interim figures "
            "(output undercounted), cost unknown",
        ),
    )

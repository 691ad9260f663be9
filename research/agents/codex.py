"""The Codex agent: `codex exec --json`, prompt on stdin, its JSON Lines events parsed.

Flags, and why: `--skip-git-repo-check` (a research directory need not be a git
repository); `--ephemeral` keeps each call's transcript out of ~/.codex (the call log has
the events); `--sandbox workspace-write` lets a phase write in the working directory and
nowhere else (its /tmp and $TMPDIR exceptions are turned off; its network is on, for
reading pages), and exec mode never asks: a write outside is rejected. The sandbox needs
user and mount namespaces; where the kernel gives none (many containers), Codex runs with
`--dangerously-bypass-approvals-and-sandbox` instead, and the call log's command says so.
`analytics.enabled=false` and `features.plugins=false` stop its other connections. The
prompt goes on stdin, which is then closed (Codex waits for its end).

Codex reports tokens but no cost: the cost is computed from `prices.py`'s dated table (or
the user's), and labelled as computed.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from research.agents.base import Agent, AgentCall, AgentResult, FailureKind
from research.agents.jsonout import as_dict, count, json_objects
from research.agents.process import CallOutcome, ProcessResult, run_agent_call
from research.core.errors import AgentUnavailable
from research.core.prices import PRICES, PRICES_AS_OF, Price

INSTALL_HINT = (
    "Install Codex with `npm install -g @openai/codex`, then run `codex login` "
    "(or set OPENAI_API_KEY)."
)
QUIET_CONFIG = ("analytics.enabled=false", "features.plugins=false")
SANDBOX_CONFIG = (
    "sandbox_workspace_write.network_access=true",
    "sandbox_workspace_write.exclude_slash_tmp=true",
    "sandbox_workspace_write.exclude_tmpdir_env_var=true",
)
RETRIES = 2
"""Codex's own retries of a failed request and of a dropped stream (4 and 5 by default, so
that a 500 takes 30 requests): research.py's retries are the ones that should count."""
BUILT_IN_PROVIDERS = frozenset({"openai", "ollama", "lmstudio", "oss"})
"""Providers whose settings Codex does not let a configuration override."""
_STATUS = re.compile(r"unexpected status (\d{3})")
_UNSHARE_PROBE = (
    "import ctypes, sys; libc = ctypes.CDLL(None, use_errno=True); "
    "sys.exit(0 if libc.unshare(0x10000000 | 0x00020000) == 0 else 1)"
)


class CodexAgent(Agent):
    """Drives `codex exec --json --sandbox workspace-write -m M -` with the prompt on stdin."""

    name = "codex"
    reports_usage = True  # tokens from turn.completed; the cost computed from a price table

    def __init__(
        self,
        executable: str = "codex",
        *,
        prices: Mapping[str, Price] | None = None,
        sandbox: bool | None = None,
        grace: float = 5.0,
    ) -> None:
        self.executable = executable
        self.prices = {**PRICES, **(prices or {})}
        self.sandbox = sandbox
        self.grace = grace

    def check_available(self) -> str:
        """The executable's path; `AgentUnavailable` with install help when it is missing."""
        path = shutil.which(self.executable)
        if path is None:
            raise AgentUnavailable(
                f"Codex ({self.executable!r}) was not found on PATH. {INSTALL_HINT}"
            )
        return path

    def unpriced_models(self, models: Sequence[str]) -> list[str]:
        """Those of `models` whose cost cannot be computed (no price for them)."""
        return [model for model in dict.fromkeys(models) if model not in self.prices]

    def argv(self, model: str, provider: str | None = None) -> list[str]:
        """The command line; `-` reads the prompt from stdin. `provider` is the configured
        model provider, whose retries are lowered when Codex allows it."""
        sandboxed = namespaces_available() if self.sandbox is None else self.sandbox
        sandbox = (
            ["--sandbox", "workspace-write", *_configs(SANDBOX_CONFIG)]
            if sandboxed
            else ["--dangerously-bypass-approvals-and-sandbox"]
        )
        retries: tuple[str, ...] = ()
        if provider is not None and provider not in BUILT_IN_PROVIDERS:
            retries = tuple(
                f"model_providers.{provider}.{key}={RETRIES}"
                for key in ("request_max_retries", "stream_max_retries")
            )
        return [
            self.executable,
            "exec",
            "--json",
            "--skip-git-repo-check",
            "--ephemeral",
            *sandbox,
            "-m",
            model,
            *_configs(QUIET_CONFIG + retries),
            "-",
        ]

    def run(self, call: AgentCall) -> AgentResult:
        """Run one phase's prompt; failures come back classified, never raised."""
        provider = configured_provider({**os.environ, **call.env})
        price = self.prices.get(call.model)
        try:
            return run_agent_call(
                self.argv(call.model, provider),
                call,
                grace=self.grace,
                interpret=functools.partial(interpret_codex, price=price, model=call.model),
            )
        except AgentUnavailable as exc:
            raise AgentUnavailable(f"{exc} {INSTALL_HINT}") from exc


def _configs(items: Sequence[str]) -> list[str]:
    return [word for item in items for word in ("-c", item)]


@functools.cache
def namespaces_available() -> bool:
    """Whether a process here may make user and mount namespaces (Codex's sandbox needs
    them): asked of a throwaway Python, so this process is not touched."""
    try:
        probe = subprocess.run(
            [sys.executable, "-c", _UNSHARE_PROBE],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


def configured_provider(environ: Mapping[str, str]) -> str | None:
    """The `model_provider` of Codex's config.toml ($CODEX_HOME, else ~/.codex), if any."""
    home = environ.get("CODEX_HOME") or str(Path(environ.get("HOME", "~")).expanduser() / ".codex")
    try:
        with open(Path(home) / "config.toml", "rb") as handle:
            config = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return None
    provider = config.get("model_provider")
    return provider if isinstance(provider, str) and re.fullmatch(r"[\w-]+", provider) else None


def interpret_codex(proc: ProcessResult, *, price: Price | None, model: str) -> CallOutcome:
    """Read Codex's JSON Lines events: the answer, usage, the failed turn.

    Input tokens include the cached ones (as OpenAI counts them); output tokens include
    the reasoning ones. The cost is computed from `price`, or unknown without one.
    """
    events = list(json_objects(proc.stdout))
    texts: list[str] = []
    usage: dict[str, int] = {}
    failure: FailureKind | None = None
    error: str | None = None
    for event in events:
        kind = event.get("type")
        item = as_dict(event.get("item"))
        if kind == "item.completed" and item.get("type") == "agent_message":
            text = item.get("text")
            texts += [text.strip()] if isinstance(text, str) and text.strip() else []
        elif kind == "turn.completed":
            _add_usage(usage, as_dict(event.get("usage")))
        elif kind == "turn.failed":
            message = as_dict(event.get("error")).get("message")
            error = str(message) if message else "the turn failed without a message"
            status = _STATUS.search(error)
            failure = FailureKind.of_http_status(int(status.group(1)) if status else None)
    found = bool(usage)
    cost = None
    if found and price is not None:
        cost = price.cost(
            usage["input_tokens"], usage["cached_input_tokens"], usage["output_tokens"]
        )
    return CallOutcome(
        output="\n\n".join(texts) if events else proc.stdout.strip(),
        error=error,
        failure=failure,
        input_tokens=usage.get("input_tokens"),
        output_tokens=usage.get("output_tokens"),
        cost=cost,
        notes=_notes(events, usage, price, model),
    )


def _add_usage(totals: dict[str, int], usage: dict[str, Any]) -> None:
    for name in ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens"):
        totals[name] = totals.get(name, 0) + count(usage.get(name))


def _notes(
    events: list[dict[str, Any]], usage: dict[str, int], price: Price | None, model: str
) -> tuple[str, ...]:
    notes = [f"events: {len(events)}"]
    if usage:
        notes.append(
            "token breakdown: "
            + ", ".join(
                f"{name.removesuffix('_tokens').replace('_', ' ')} {value}"
                for name, value in usage.items()
            )
        )
    if price is None:
        notes.append(f"cost: unknown (Codex reports none and there is no price for {model})")
    else:
        notes.append(
            f"cost: computed from research.py's prices for {model} (USD per million tokens: "
            f"input {price.input:g}, cached input {price.cached_input:g}, output {price.output:g}; "
            f"table of {PRICES_AS_OF} unless given)"
        )
    return tuple(notes)

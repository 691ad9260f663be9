"""The generic command agent: any CLI that reads a prompt on stdin (`claude -p`, …)."""

from __future__ import annotations

import shlex
import shutil

from research.agents.base import Agent, AgentCall, AgentResult
from research.agents.process import CallOutcome, ProcessResult, run_agent_call
from research.core.errors import AgentUnavailable, UsageError

MODEL_PLACEHOLDER = "{model}"


class CommandAgent(Agent):
    """Runs a user-given command with the prompt on stdin; its stdout is the output.

    The command is split like a shell would (`shlex.split`), without running a shell. Every
    `{model}` in it is replaced by the call's model after splitting, so a model name never
    needs quoting: `"claude -p --model {model}"`. Without the placeholder no model is passed.
    """

    name = "command"
    reports_usage = False  # a generic command's output has no usage format to read

    def __init__(self, command: str, *, grace: float = 5.0) -> None:
        try:
            self.words = shlex.split(command)
        except ValueError as exc:
            raise UsageError(f"Cannot parse the agent command {command!r}: {exc}.") from exc
        if not self.words:
            raise UsageError("The agent command is empty.")
        self.command = command
        self.grace = grace

    def check_available(self) -> str:
        """Raise `AgentUnavailable` unless the command's executable is on PATH."""
        path = shutil.which(self.words[0])
        if path is None:
            raise AgentUnavailable(
                f"The agent command's executable {self.words[0]!r} was not found on PATH "
                f"(agent command: {self.command!r})."
            )
        return path

    def argv(self, model: str) -> list[str]:
        """The command line with `{model}` filled in."""
        return [word.replace(MODEL_PLACEHOLDER, model) for word in self.words]

    def run(self, call: AgentCall) -> AgentResult:
        """Run one phase's prompt; failures come back classified, never raised."""
        return run_agent_call(self.argv(call.model), call, grace=self.grace, interpret=_plain)


def _plain(proc: ProcessResult) -> CallOutcome:
    return CallOutcome(output=proc.stdout.strip())

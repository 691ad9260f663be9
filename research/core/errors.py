"""The exception tree. Domain code raises these; only the CLI turns them into exit codes."""

from __future__ import annotations


class ResearchError(Exception):
    """Base class for every error the user is shown as one clear line."""

    exit_code = 1


class UsageError(ResearchError):
    """Bad flags, names, templates or other user input (exit 2)."""

    exit_code = 2


class StateError(UsageError):
    """A missing, corrupt, foreign or newer `state.json` (exit 2)."""


class TemplateError(UsageError):
    """A prompt template with an unknown variable, bad syntax, or that cannot be read."""


class PlanEditError(UsageError):
    """The plan a user edited for approval cannot be used; the session still awaits approval
    and nothing was changed (exit 2)."""


class SessionLockedError(ResearchError):
    """The session is held by a live process (exit 3)."""

    exit_code = 3


class RunFailed(ResearchError):
    """The run could not go on; state is kept for `--resume` (exit 1)."""

    exit_code = 1


class AgentUnavailable(RunFailed):
    """The agent's executable is missing (exit 1, before the lock is taken)."""


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived. A BaseException so that no `except Exception` swallows it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


class PhaseFailed(Exception):
    """A phase's agent call failed or its output did not validate (handled by the loop)."""

    def __init__(self, message: str, *, kind: str = "invalid_output") -> None:
        super().__init__(message)
        self.kind = kind


class PlanParseError(PhaseFailed):
    """`research_plan.md` could not be parsed."""

    def __init__(self, message: str) -> None:
        super().__init__(message, kind="invalid_plan")

"""The exception tree and the exit codes. Domain code raises these errors; the CLI turns
them into exit codes, and the service and the worker read a child's exit code through the
same `ExitCode` names."""

from __future__ import annotations

import signal
from enum import IntEnum


class ExitCode(IntEnum):
    """What a `research` process's exit code means: every process maps codes through these."""

    OK = 0
    FAILED = 1
    """The run could not go on (`RunFailed`); its state is kept for --resume."""
    USAGE = 2
    """Bad input (`UsageError`): nothing was run."""
    LOCKED = 3
    """Another live run holds the session (`SessionLockedError`)."""
    NOT_STARTED = 127
    """The process could not be started at all (the shell's code for it)."""


def interrupted_code(signum: int) -> int:
    """The exit code of a run stopped by signal `signum`: 128 + its number, as shells say."""
    return 128 + signum


INTERRUPTED_CODES = frozenset(interrupted_code(sig) for sig in (signal.SIGINT, signal.SIGTERM))
"""A run stopped by SIGINT or SIGTERM (130, 143): its state saved, resumable."""


class ResearchError(Exception):
    """Base class for every error the user is shown as one clear line."""

    exit_code: int = ExitCode.FAILED


class UsageError(ResearchError):
    """Bad flags, names, templates or other user input (exit 2)."""

    exit_code = ExitCode.USAGE


class StateError(UsageError):
    """A missing, corrupt, foreign or newer `state.json` (exit 2)."""


class TemplateError(UsageError):
    """A prompt template with an unknown variable, bad syntax, or that cannot be read."""


class PlanEditError(UsageError):
    """The plan a user edited for approval cannot be used; the session still awaits approval
    and nothing was changed (exit 2)."""


class SessionLockedError(ResearchError):
    """The session is held by a live process (exit 3)."""

    exit_code = ExitCode.LOCKED


class RunFailed(ResearchError):
    """The run could not go on; state is kept for `--resume` (exit 1)."""

    exit_code = ExitCode.FAILED


class AgentUnavailable(RunFailed):
    """The agent's executable is missing (exit 1, before the lock is taken)."""


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived. A BaseException so that no `except Exception` swallows it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return interrupted_code(self.signum)


class PhaseFailed(Exception):
    """A phase's agent call failed or its output did not validate (handled by the loop)."""

    def __init__(self, message: str, *, kind: str = "invalid_output") -> None:
        super().__init__(message)
        self.kind = kind


class PlanParseError(PhaseFailed):
    """`research_plan.md` could not be parsed."""

    def __init__(self, message: str) -> None:
        super().__init__(message, kind="invalid_plan")

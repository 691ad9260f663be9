"""A run request checked as the CLI checks its flags, before any job starts, and turned into
the job that runs it: its options (a 422 names the request's field), its source folders
(inside the working directory), and whether the agent it needs is there (a 503)."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import ValidationError

from research.cluster.messages import JobMessage
from research.core.agentkind import DEFAULT_AGENT, AgentKind
from research.core.errors import AgentUnavailable, UsageError
from research.core.option_fields import request_values, settings_value
from research.core.options import OPTION, iteration_floor_note
from research.service.errors import ApiError
from research.service.models import RunRequest
from research.views.exports import export_formats, missing_library


def check_agent(root: Path, agent_cmd: str | None, kind: AgentKind) -> None:
    """503 when the agent's executable is missing (the CLI's own check). The server's
    --agent-cmd stands in for the default agent only (as in `agent_args`)."""
    if kind is AgentKind.MOCK:
        return
    from research.core.settings import Settings
    from research.session.run import build_agent

    command = agent_cmd if kind is DEFAULT_AGENT else None
    try:
        build_agent(
            Settings.model_validate(
                {"root": root, "name": "check", "agent": kind, "agent_cmd": command}
            )
        )
    except AgentUnavailable as exc:
        raise ApiError(503, "agent_unavailable", for_the_web(str(exc)), retryable=True) from None
    except UsageError as exc:
        raise ApiError(503, "agent_unavailable", for_the_web(str(exc))) from None


_MOCK_FLAG = re.compile(r"[^.]*`?--mock-mode`?[^.]*\.\s*")
WEB_MOCK_HINT = (
    'The simulated agent needs nothing installed: choose "mock" as the agent '
    '("agent": "mock" in the request).'
)


def for_the_web(message: str) -> str:
    """An agent's missing-executable message as the service's user reads it: the hint to
    use the `--mock-mode` flag, which a request cannot give, becomes the request's way."""
    if "--mock-mode" not in message:
        return message
    return f"{_MOCK_FLAG.sub('', message).strip()} {WEB_MOCK_HINT}"


def can_run(root: Path, agent_cmd: str | None, kind: AgentKind) -> bool:
    """Whether `check_agent` finds the agent's executable."""
    try:
        check_agent(root, agent_cmd, kind)
    except ApiError:
        return False
    return True


def local_sources_allowed() -> bool:
    """Whether this research.py can read local documents (--sources)."""
    from research.core.settings import Settings

    return "source_dirs" in Settings.model_fields


def request_job(request: RunRequest, name: str, root: Path) -> tuple[JobMessage, list[str]]:
    """The job of a request, checked as the CLI checks its flags (a 422 names the request's
    field), its source folders resolved inside the working directory; and what the service
    tells the client it changed, as the CLI warns (a --max-iterations below the floor)."""
    fields = request.model_dump(exclude_none=True)
    try:
        values = request_values(fields)
    except ValueError as exc:
        raise ApiError(422, "validation_error", str(exc)) from None
    values.pop("name", None)
    kind = AgentKind(str(values.pop("agent", DEFAULT_AGENT)))
    if not request.task.strip():
        raise ApiError(422, "validation_error", "task: give the research question")
    if "source_dirs" in values:
        values["source_dirs"] = [str(folder) for folder in request_folders(fields["sources"], root)]
    settings = check_settings({**values, "agent": kind}, name, request.task, root)
    problem = missing_library(export_formats(str(settings.get("export") or "")))
    if problem is not None:  # the server's installation lacks the [export] extra
        raise ApiError(503, "export_unavailable", problem)
    note = iteration_floor_note(settings)
    job = JobMessage.model_validate({"name": name, "task": request.task, "agent": kind, **values})
    return job, [note] if note is not None else []


def check_settings(
    values: dict[str, object], name: str, task: str, root: Path
) -> dict[str, object]:
    """The options' values as `Settings` holds them, checked as `Settings` checks them."""
    from research.core.settings import Settings

    settings = {key: settings_value(OPTION[key], value) for key, value in values.items()}
    try:
        Settings.model_validate({"root": root, "name": name, "topic": task, **settings})
    except ValidationError as exc:
        first = exc.errors()[0]
        key = str(first["loc"][0]) if first["loc"] else ""
        where = OPTION[key].request_field if key in OPTION else key
        raise ApiError(422, "validation_error", f"{where}: {first['msg']}") from None
    return settings


def request_folders(sources: list[str], root: Path) -> list[Path]:
    """Each folder asked for: a folder inside the working directory (relative paths are
    taken from there; `..` and symbolic links may not lead out)."""
    root = root.resolve()
    folders: list[Path] = []
    for given in sources:
        if not given.strip() or "\x00" in given:
            raise ApiError(422, "validation_error", "sources: give a folder's path")
        folder = (root / given).resolve()
        if not folder.is_relative_to(root):
            raise ApiError(
                422, "validation_error", f"sources: {given!r} is outside the working directory"
            )
        if not folder.is_dir():
            raise ApiError(422, "validation_error", f"sources: {given!r} is not a folder")
        folders.append(folder)
    return folders

"""Seed 002's ErrorResponse: every error is `{error: {type, message, retryable}}`."""

from __future__ import annotations

from typing import Any

from fastapi.responses import JSONResponse

from research.core.errors import INTERRUPTED_CODES, ExitCode
from research.service.children import Job
from research.service.models import ErrorResponse


class ApiError(Exception):
    def __init__(self, status: int, kind: str, message: str, retryable: bool = False) -> None:
        super().__init__(message)
        self.status, self.kind, self.message, self.retryable = status, kind, message, retryable


def error_response(
    status: int,
    kind: str,
    message: str,
    retryable: bool = False,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    body = {"error": {"type": kind, "message": message, "retryable": retryable}}
    return JSONResponse(body, status_code=status, headers=headers)


ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorResponse, "description": text}
    for code, text in {
        400: "Bad input (an invalid name, malformed JSON)",
        401: "Missing or wrong bearer token",
        404: "Unknown session",
        409: "Session locked, running, or name taken",
        413: "Request body too large",
        422: "Invalid options",
        429: "Too many jobs running and the queue is full",
        503: "The agent's executable is missing",
    }.items()
}
"""The error statuses of every endpoint, for the OpenAPI description."""


def job_failure(job: Job) -> ApiError:
    """How a job that ended without its answer reads as an API error (its exit code's meaning)."""
    code = job.exit_code
    message = job.message or f"the job ended with exit code {code}"
    if code == ExitCode.LOCKED:
        return ApiError(409, "locked", message, retryable=True)
    if code == ExitCode.USAGE:
        return ApiError(422, "validation_error", message)
    if code in INTERRUPTED_CODES:
        return ApiError(
            409,
            "interrupted",
            f"the job was stopped; resume it with POST /runs/{job.name}/resume",
            retryable=True,
        )
    return ApiError(
        502,
        "run_failed",
        f"{message} (resume it with POST /runs/{job.name}/resume)",
        retryable=True,
    )

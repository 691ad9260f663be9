"""Seed 002's ErrorResponse: every error is `{error: {type, message, retryable}}`."""

from __future__ import annotations

from typing import Any

from fastapi.responses import JSONResponse

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

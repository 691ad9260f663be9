"""`POST /run?stream=true`: the job's events as Server-Sent Events, ending with its result.

The events are the session's `events.jsonl` lines, as GET /runs/{name}/events sends them
(each id a byte offset). Once the job has ended, the last event is `event: result` with the
SynthesisResponse, or `event: error` with the ErrorResponse of a failed run, or (approve_plan)
`event: awaiting_approval` with the session's name.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from research.service.children import Job
from research.service.errors import ApiError, job_failure
from research.service.models import ErrorBody, ErrorResponse
from research.service.service import Service

END_MARK = b"\nevent: end\n"


def error_event(exc: ApiError) -> bytes:
    body = ErrorResponse(
        error=ErrorBody(type=exc.kind, message=exc.message, retryable=exc.retryable)
    )
    return b"event: error\ndata: " + body.model_dump_json().encode() + b"\n\n"


async def run_stream(service: Service, job: Job) -> AsyncIterator[bytes]:
    """The job's events while it runs, then its result (or error) as the last event."""
    async for message in service.feeds.follow(job.name, 0):
        if END_MARK in message:  # the feed's own end: the result below ends this stream
            continue
        yield message
    await job.ended.wait()
    result = service.result(job.name)
    if result is None and service.awaiting_approval(job.name):
        yield b'event: awaiting_approval\ndata: {"name": "' + job.name.encode() + b'"}\n\n'
        return
    if result is None:
        yield error_event(job_failure(job))
        return
    yield b"event: result\ndata: " + result.model_dump_json().encode() + b"\n\n"

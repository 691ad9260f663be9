"""`POST /search`: a quick answer, the seed's `/search` beside `/run`.

It is a simple-tier session of one topic level (no subtopics), run synchronously like
`POST /run` and answered with the same SynthesisResponse. Its time budget is short by
default (SEARCH_TIME_MINUTES); the request may give another. Everything else is a job like
any other: its session is in the working directory, with its events and report.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, create_model

from research.core.option_fields import request_fields
from research.core.options import OPTION
from research.service.errors import job_failure
from research.service.models import MAX_TASK_LENGTH, RunRequest, SynthesisResponse
from research.service.service import Service

SEARCH_TIME_MINUTES = 2.0
"""The seed's max_execution_time_s upper bound (120 s). A real agent needs minutes per call,
so with one the synthesis fallback often writes the answer; give `time` for more."""


FIXED = {"depth": 1, "complexity_tier": "simple"}
"""What a search is: the simple tier, one topic level (its request cannot change these)."""
TIME = OPTION["time_budget_minutes"]


class SearchRequestBase(BaseModel):
    """A search's own fields; the generated `SearchRequest` adds the run's options but those
    a search fixes (`FIXED`)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    task: str = Field(min_length=1, max_length=MAX_TASK_LENGTH, description="The question.")
    name: str | None = Field(None, description="Session name (default: search-<slug>-<random>).")


if TYPE_CHECKING:
    SearchRequest = SearchRequestBase
else:
    SearchRequest = create_model(
        "SearchRequest",
        __base__=SearchRequestBase,
        __doc__="POST /search: a question for a quick, cited answer.",
        **request_fields(
            without={"name", *FIXED},
            descriptions={
                str(TIME.request_field): f"{TIME.help} Default {SEARCH_TIME_MINUTES:g}; "
                "'unlimited' for no limit."
            },
        ),
    )


def search_name(task: str) -> str:
    """A fresh session name for a search: the same question may be asked again."""
    from research.core.names import slugify

    return f"search-{slugify(task, max_length=40)}-{secrets.token_hex(3)}"


def as_run(body: SearchRequest) -> RunRequest:
    """The /run request of a search: the simple tier, one topic level, a short budget."""
    fields = body.model_dump(exclude_none=True)
    fields.setdefault("name", search_name(body.task))
    if TIME.request_field not in fields and TIME.request_seconds not in fields:
        fields[str(TIME.request_field)] = SEARCH_TIME_MINUTES
    return RunRequest.model_validate({**fields, **FIXED})


def search_router(service: Service) -> APIRouter:
    router = APIRouter()

    @router.post("/search", tags=["jobs"], response_model=SynthesisResponse)
    async def search(body: SearchRequest) -> Response:
        """A quick answer: a simple-tier session of one topic level, run synchronously,
        within a short time budget (2 minutes unless `time` says otherwise)."""
        job = service.new_run(as_run(body))
        await job.ended.wait()
        result = service.result(job.name)
        if result is None:
            raise job_failure(job)
        return JSONResponse(result.model_dump())

    return router

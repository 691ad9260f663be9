"""`POST /search`: a quick answer, the seed's `/search` beside `/run`.

It is a simple-tier session of one topic level (no subtopics), run synchronously like
`POST /run` and answered with the same SynthesisResponse. Its time budget is short by
default (SEARCH_TIME_MINUTES); the request may give another. Everything else is a job like
any other: its session is in the working directory, with its events and report.
"""

from __future__ import annotations

import secrets

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from research.core.agentkind import AgentKind
from research.core.options import BY_REQUEST
from research.service.models import RunRequest, SynthesisResponse
from research.service.service import Service

SEARCH_TIME_MINUTES = 2.0
"""The seed's max_execution_time_s upper bound (120 s). A real agent needs minutes per call,
so with one the synthesis fallback often writes the answer; give `time` for more."""


class SearchRequest(BaseModel):
    """POST /search: a question for a quick, cited answer."""

    model_config = ConfigDict(extra="forbid")

    task: str = Field(min_length=1, max_length=4000, description="The question.")
    name: str | None = Field(None, description="Session name (default: search-<slug>-<random>).")
    time: str | float | None = Field(
        None,
        description=f"Wall-clock budget in minutes (default {SEARCH_TIME_MINUTES:g}), or "
        "'unlimited' (as --time).",
    )
    model: str | None = Field(None, min_length=1, max_length=200)
    review_model: str | None = Field(None, min_length=1, max_length=200)
    agent: AgentKind | None = Field(
        None, description=BY_REQUEST["agent"].help + " Another agent command: the server's."
    )
    token_budget: int | None = Field(None, ge=1)
    max_cost: float | None = Field(None, gt=0, allow_inf_nan=False)


def search_name(task: str) -> str:
    """A fresh session name for a search: the same question may be asked again."""
    from research.core.names import slugify

    return f"search-{slugify(task, max_length=40)}-{secrets.token_hex(3)}"


def as_run(body: SearchRequest) -> RunRequest:
    """The /run request of a search: the simple tier, one topic level, a short budget."""
    fields = body.model_dump(exclude_none=True)
    fields.setdefault("name", search_name(body.task))
    fields.setdefault("time", SEARCH_TIME_MINUTES)
    return RunRequest.model_validate({**fields, "depth": 1, "complexity_tier": "simple"})


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
            raise service.failure(job)
        return JSONResponse(result.model_dump())

    return router

"""POST /runs/{name}/approve: a session stopped for approval (--approve-plan) continues with
the plan as approved, edited or not, and the user's answers to its open questions.

The edit is checked here as the resumed run checks it (`session.approval`), before anything
is written: a plan that cannot be used is a 422 with the CLI's line, and the session still
awaits approval with its plan file as it was.
"""

from __future__ import annotations

from research.core.budget import LimitRaise
from research.core.errors import PlanEditError
from research.model.artifacts import read_text
from research.model.plan import render_plan
from research.model.questions import with_answers
from research.service.children import Job
from research.service.errors import ApiError
from research.service.models import ApproveRequest
from research.service.service import Service
from research.session.approval import check_plan_text, kept_limit_problem, limit_rule
from research.workspace.fsutil import atomic_write_text


def approve(service: Service, name: str, body: ApproveRequest) -> Job:
    """Write the approved plan (when it changed) and resume the session."""
    snap = service.roster.snapshot(name)
    if service.roster.running(name) or (snap is not None and snap.locked):
        raise ApiError(409, "locked", f"session {name!r} is running", retryable=True)
    state = snap.state if snap is not None else None
    if state is None or not state.progress.awaiting_approval:
        raise ApiError(
            409,
            "not_awaiting_approval",
            f"session {name!r} is not awaiting approval of its plan (start it with "
            "approve_plan true to review the plan first)",
        )
    paths = service.store.paths(name)
    current = read_text(paths.plan_file)
    text = body.plan if body.plan is not None else current or render_plan(state.plan)
    if body.answers is not None:
        text = with_answers(text, body.answers)
    try:
        approval = check_plan_text(state, text, "sent", retry="send a corrected plan")
    except PlanEditError as exc:
        raise ApiError(422, "invalid_plan", str(exc)) from None
    if limit_rule(approval, costs=not state.config.mock_mode) is LimitRaise.KEEP:
        raise ApiError(422, "invalid_plan", kept_limit_problem(approval, None))
    if text != current:
        atomic_write_text(paths.plan_file, text)
    return service.resume(name)

"""POST /runs/{name}/resume: which job resumes a session, and why one cannot be resumed.

A lost job (on no queue, its session not running) is sent again; a session with a state is
resumed on its own agent, on the task queue or as a child here; one stopped before its
first save starts again from the beginning with the request it was started with.
"""

from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING

from research.cluster.messages import JobMessage, child_args
from research.core.agentkind import DEFAULT_AGENT, AgentKind, agent_names
from research.service.children import Job
from research.service.errors import ApiError
from research.service.request_checks import check_agent
from research.service.session_files import NO_STATE_YET

if TYPE_CHECKING:
    from research.service.service import Service


def resumed_agent(agent: str, mock_mode: bool) -> AgentKind:
    """The agent a resumed session runs on: its own built-in one (the simulated one only if
    it ran on it throughout), or the default (the server's --agent-cmd) for a command."""
    if agent == AgentKind.MOCK and not mock_mode:
        return DEFAULT_AGENT
    return AgentKind(agent) if agent in agent_names() else DEFAULT_AGENT


def resume_job(service: Service, name: str) -> Job:
    """The job that resumes session `name`: a lost job sent again, the run resumed on its own
    agent (queued or started here), or a session stopped before its first save started
    over; ApiError when it cannot be resumed (running, complete, unreadable)."""
    snap = service.roster.snapshot(name)
    lost = service.roster.lost(name)
    if lost is not None and (snap is None or snap.state is None):
        # lost before any run saved a state: the same request again
        again = lost.message.model_copy(update={"job_id": uuid.uuid4().hex})
        return service.enqueue(again.model_copy(update={"enqueued_at": time.time()}))
    if service.roster.running(name) or (snap is not None and snap.locked):
        ours = service.roster.job(name, snap)
        what = "queued" if ours is not None and ours.state == "queued" else "running"
        raise ApiError(
            409,
            "locked",
            f"session {name!r} is {what}"
            + (f" ({snap.lock.detail})" if snap and snap.locked else ""),
            retryable=True,
        )
    if snap is None or snap.state is None:
        return restart(service, name, snap.error if snap is not None else None)
    if snap.complete:
        raise ApiError(409, "already_complete", f"session {name!r} is complete")
    kind = resumed_agent(snap.state.config.agent, snap.state.config.mock_mode)
    job = JobMessage.model_validate({"name": name, "agent": kind})  # no task: it resumes
    if service.queue is not None:
        return service.enqueue(job)
    check_agent(service.config.root, service.config.agent_cmd, kind)
    return service.submit(name, child_args(job, service.config.root, service.config.agent_cmd))


def restart(service: Service, name: str, error: str | None) -> Job:
    """Resume a session stopped before it saved any state: this server's job of it
    starts again from the beginning, with the request it was started with. Without
    one (the server restarted since), a new POST /run with the name is what works."""
    job = service.roster.job(name)
    if error is not None and error != NO_STATE_YET:  # a state that cannot be read
        raise ApiError(409, "not_resumable", f"session {name!r} cannot be resumed: {error}")
    if job is None or not job.argv or job.topic is None:
        raise ApiError(
            409,
            "not_resumable",
            f"session {name!r} stopped before it saved any state, so there is nothing to "
            f"resume; start it again with POST /run and name {name!r}",
        )
    again = service.submit(name, job.argv[len(service.jobs.cli) :])
    again.topic = job.topic
    again.warnings = [
        *job.warnings,
        "the session stopped before it saved any state: it starts again from the beginning",
    ]
    return again

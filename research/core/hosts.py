"""Who this machine is, and how long another machine's silence means it is gone.

Several machines share one working directory (`research worker`, issue 20). Each names
itself by its host name, or by RESEARCH_HOST_ID, so that tests can run several "hosts" on
one machine. RESEARCH_FAILOVER_SECONDS bounds how long a dead machine's session waits
before another one resumes it; the queue's worker heartbeat and the session lock's watch
each take a part of it.
"""

from __future__ import annotations

import math
import os
import socket

from research.core.defaults import DEFAULT_FAILOVER_SECONDS, FAILOVER_RANGE
from research.core.errors import UsageError

HOST_ID_ENV = "RESEARCH_HOST_ID"
FAILOVER_ENV = "RESEARCH_FAILOVER_SECONDS"
MAX_HOST_ID = 200


class HostConfigError(UsageError, ValueError):
    """RESEARCH_HOST_ID or RESEARCH_FAILOVER_SECONDS holds something unusable."""


def host_id() -> str:
    """This machine's name in lock files and events: RESEARCH_HOST_ID, else the host name."""
    given = os.environ.get(HOST_ID_ENV)
    if given is None or not given.strip():
        return socket.gethostname()
    value = given.strip()
    if len(value) > MAX_HOST_ID or not value.isprintable():
        raise HostConfigError(
            f"{HOST_ID_ENV} must be a printable name of at most {MAX_HOST_ID} characters"
        )
    return value


def parse_failover(text: str) -> float:
    """A failover bound in seconds, from FAILOVER_RANGE; HostConfigError otherwise."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    low, high = FAILOVER_RANGE
    if not low <= value <= high:  # also refuses NaN
        raise HostConfigError(
            f"the failover bound must be a number of seconds from {low:.0f} to {high:.0f}, "
            f"not {text!r}"
        )
    return value


def failover_seconds() -> float:
    """The failover bound: RESEARCH_FAILOVER_SECONDS, else DEFAULT_FAILOVER_SECONDS."""
    given = os.environ.get(FAILOVER_ENV)
    if given is None or not given.strip():
        return DEFAULT_FAILOVER_SECONDS
    return parse_failover(given.strip())


def lock_watch_seconds(bound: float) -> float:
    """How long a run watches another host's lock heartbeat before it takes the lock over:
    two fifths of the bound (the queue's redelivery, a free worker's next poll and the new
    run's start take the rest)."""
    return bound * 0.4


def queue_heartbeat_seconds(bound: float) -> float:
    """After how long without a worker heartbeat the queue hands that worker's jobs to
    another worker: a fifth of the bound."""
    return bound * 0.2

"""Whether the queue can be reached, said once per change: a Redis outage while a worker
or the service runs is one warning line when it begins and one when it ends, never a
traceback per retry.

Dramatiq's consumers log every failed fetch (and a Redis that stops answering as an
"unexpected error" with its traceback) and retry each second; those records are dropped
here, and `QueueHealth` says what changed instead.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

DRAMATIQ_OUTAGE_MESSAGES = (
    "Consumer encountered",
    "Failed to post_process_message",
    "Failed to requeue messages",
    "Restarting consumer",
    "Unhandled error during post_process_message",  # a timed-out ack: delivered again later
)


class OutageRecords(logging.Filter):
    """Drops Dramatiq's records of a lost connection (QueueHealth reports the outage)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = str(record.msg)
        return not message.startswith(DRAMATIQ_OUTAGE_MESSAGES)


def quiet_dramatiq_outages() -> None:
    """Install the filter on Dramatiq's loggers (the records are made by its child
    loggers; a filter on the handler sees all of them)."""
    outage = OutageRecords()
    for handler in logging.getLogger().handlers:
        handler.addFilter(outage)
    logging.getLogger("dramatiq").addFilter(outage)


class QueueHealth:
    """The last known reachability of the queue; `say` is called once per change."""

    def __init__(self, where: str, say: Callable[[str], None]) -> None:
        self.where = where
        self.say = say
        self.up = True
        self._mutex = threading.Lock()

    def down(self, why: object) -> None:
        with self._mutex:
            changed, self.up = self.up, False
        if changed:
            self.say(
                f"warning: the queue at {self.where} cannot be reached ({why}); running "
                "jobs go on, new ones wait until it is back"
            )

    def reached(self) -> None:
        with self._mutex:
            changed, self.up = not self.up, True
        if changed:
            self.say(f"the queue at {self.where} is reachable again")

"""The one runtime signal handler: SIGINT and SIGTERM raise `Interrupted` in the main thread,
so every `finally` runs (the lock is released, the state saved, the agent's group stopped)."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from research.core.errors import Interrupted

SIGNALS = (signal.SIGINT, signal.SIGTERM)


def raise_interrupted(signum: int, _frame: object) -> None:
    raise Interrupted(signum)


@contextmanager
def signals_raise_interrupted() -> Iterator[None]:
    """While active, SIGINT and SIGTERM raise Interrupted; the previous handlers come back
    after. Nothing to do outside the main thread, or where the handler is already in place."""
    if (
        sys.platform == "win32"
        or threading.current_thread() is not threading.main_thread()
        or all(signal.getsignal(sig) is raise_interrupted for sig in SIGNALS)
    ):
        yield
        return
    previous = {sig: signal.signal(sig, raise_interrupted) for sig in SIGNALS}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)

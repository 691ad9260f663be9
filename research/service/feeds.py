"""Server-Sent Events: one follower per session, fanned out to every client watching it.

A session's `events.jsonl` is read once per poll by its `Feed`, however many clients follow
it; the new lines are formatted as SSE once and the same bytes are queued for each client.
A client that joins (or reconnects with `Last-Event-ID`) first reads its backlog straight
from the file, up to where the feed has read, then takes the feed's batches. Each event's id
is the byte offset after its line, so a reconnect goes on exactly where it left off.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

from research.service.event_files import events_from

RETRY = b"retry: 1000\n\n"
KEEP_ALIVE = b": keep-alive\n\n"
MAX_PENDING = 512
"""Messages a client may lag behind before it is dropped; its EventSource then reconnects
with Last-Event-ID and catches up from the file."""
BACKLOG_CHUNK = 1 << 20


def sse(events: list[tuple[int, str]]) -> bytes:
    """Events [(end offset, JSON text)] as SSE text: the offset is the event's id."""
    return "".join(f"id: {end}\ndata: {text}\n\n" for end, text in events).encode()


@dataclass(frozen=True)
class Batch:
    """Events the feed read in one poll: from byte `start` to byte `end` of the log."""

    start: int
    end: int
    events: list[tuple[int, str]]
    data: bytes
    restart: bool = False
    """The log was replaced (it shrank): offsets start again from 0."""

    def after(self, offset: int) -> bytes:
        """The SSE text of the events that end after `offset`."""
        if self.start >= offset:
            return self.data
        return sse([event for event in self.events if event[0] > offset])


Message = Batch | bytes | None
"""A batch of events, a keep-alive or the `end` event, or None: the stream is over."""


class Feed:
    """Follows one session's event log while it has subscribers."""

    def __init__(
        self,
        path: Path,
        running: Callable[[], bool],
        final_state: Callable[[], str],
        poll_seconds: float,
        heartbeat_seconds: float,
    ) -> None:
        self.path = path
        self.running, self.final_state = running, final_state
        self.poll_seconds, self.heartbeat_seconds = poll_seconds, heartbeat_seconds
        self.offset = 0
        """Bytes of whole lines read so far."""
        self.queues: set[asyncio.Queue[Message]] = set()
        self.closed = False
        self.task: asyncio.Task[None] | None = None
        self._last_sent = time.monotonic()

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run())

    def subscribe(self) -> tuple[asyncio.Queue[Message], int]:
        """A queue of what the feed reads from now on, and the offset it starts at."""
        self.read()  # up to date: the backlog a subscriber reads itself is as short as can be
        queue: asyncio.Queue[Message] = asyncio.Queue()
        self.queues.add(queue)
        return queue, self.offset

    def unsubscribe(self, queue: asyncio.Queue[Message]) -> None:
        self.queues.discard(queue)

    def read(self) -> bool:
        """Read the lines written since the last read and send them on; whether any were."""
        start = self.offset
        events, offset = events_from(self.path, start)
        restart = offset < start
        self.offset = offset
        if events or restart:
            self._send(Batch(0 if restart else start, offset, events, sse(events), restart))
        return bool(events)

    def _send(self, message: Message) -> None:
        self._last_sent = time.monotonic()
        for queue in list(self.queues):
            if queue.qsize() >= MAX_PENDING:  # a client that does not keep up: let it go
                self.queues.discard(queue)
                queue.put_nowait(None)
            else:
                queue.put_nowait(message)

    async def _run(self) -> None:
        try:
            while self.queues:
                if self.read():
                    await asyncio.sleep(0)
                    continue
                if not self.running():
                    while self.read():  # the lines written before it stopped
                        pass
                    final = json.dumps({"state": self.final_state()})
                    self._send(f"id: {self.offset}\nevent: end\ndata: {final}\n\n".encode())
                    break
                if time.monotonic() - self._last_sent > self.heartbeat_seconds:
                    self._send(KEEP_ALIVE)
                await asyncio.sleep(self.poll_seconds)
        finally:
            self.closed = True
            for queue in self.queues:
                queue.put_nowait(None)
            self.queues.clear()


class FeedHub:
    """The live feeds of one server, by session name."""

    def __init__(
        self,
        events_path: Callable[[str], Path],
        running: Callable[[str], bool],
        final_state: Callable[[str], str],
        poll_seconds: float,
        heartbeat_seconds: float,
    ) -> None:
        self.events_path = events_path
        self.running, self.final_state = running, final_state
        self.poll_seconds, self.heartbeat_seconds = poll_seconds, heartbeat_seconds
        self.feeds: dict[str, Feed] = {}

    def feed(self, name: str) -> Feed:
        """The session's live feed, started if there is none."""
        feed = self.feeds.get(name)
        if feed is None or feed.closed:
            feed = Feed(
                self.events_path(name),
                lambda: self.running(name),
                lambda: self.final_state(name),
                self.poll_seconds,
                self.heartbeat_seconds,
            )
            self.feeds[name] = feed
            feed.start()
        return feed

    async def follow(self, name: str, start: int) -> AsyncIterator[bytes]:
        """One client's stream: the backlog from byte `start`, then the feed's batches, and
        `event: end` once the session is not running."""
        yield RETRY
        feed = self.feed(name)
        queue, target = feed.subscribe()
        try:
            if start > target and start > _size(feed.path):
                start = 0  # the log was replaced: start over
            position = start
            while position < target:
                events, after = events_from(
                    feed.path, position, min(BACKLOG_CHUNK, target - position)
                )
                if after <= position:
                    break
                position = after
                if events:
                    yield sse(events)
            position = max(position, start)
            while True:
                message = await queue.get()
                if message is None:
                    return
                if isinstance(message, Batch):
                    if message.restart:
                        position = 0
                    data = message.after(position)
                    position = max(position, message.end)
                    if data:
                        yield data
                else:
                    yield message
        finally:
            feed.unsubscribe(queue)

    async def close(self) -> None:
        tasks = [feed.task for feed in self.feeds.values() if feed.task is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self.feeds.clear()


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0

"""The queue: a Dramatiq Redis broker, the one actor that runs a job, and the few Redis
keys of our own (live workers, stop requests).

Why Dramatiq: its Redis broker keeps each worker's fetched-but-unacknowledged messages
in a set of that worker's, with a worker heartbeat; when a worker's heartbeat is older
than `heartbeat_timeout`, any other worker's next call moves them back onto the queue.
So a dead worker's job is delivered again after a bound that does not depend on how long
jobs run (Celery's Redis transport redelivers only after a visibility timeout that must
exceed the longest job; RQ marks a dead worker's job as failed). A message is acknowledged
only after the actor returns, and the actor returns only when the session has ended.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from research.cluster.messages import JobMessage

if TYPE_CHECKING:
    import redis
    from dramatiq.brokers.redis import RedisBroker

QUEUE = "research"
ACTOR = "research_job"
NAMESPACE = "research-queue"
"""Prefix of Dramatiq's keys in Redis."""
WORKER_KEY = "research:worker:"
"""research:worker:<host>:<pid>, refreshed by each live worker, expiring on its own."""
STOP_KEY = "research:stop:"
"""research:stop:<job id>: DELETE /runs/<name> asks whichever worker runs (or will take)
that job to stop it. Keyed by the job, never the name: a later job of the name runs."""
STOP_TTL_SECONDS = 600
RUNNING_KEY = "research:running:"
"""research:running:<name> = the job id a worker runs for that session, refreshed each tick."""
RUNNING_TTL_SECONDS = 5
FOLDER_KEY = "research:folder"
"""The identifier of the folder the queue's service and workers share (checks.py)."""
CONNECT_TIMEOUT_SECONDS = 3.0
BROKER_SOCKET_TIMEOUT_SECONDS = 300.0


class QueueUnavailable(Exception):
    """Redis cannot be reached (down, restarting, wrong address or password)."""


class QueueMissing(Exception):
    """The [cluster] extra (dramatiq, redis) is not installed."""


NO_CLUSTER = "--queue needs the [cluster] extra ({exc}): pip install '.[cluster]'"
"""What --queue says without the [cluster] extra (research --queue, serve and mcp)."""


def connection_errors() -> tuple[type[BaseException], ...]:
    import redis

    return (redis.ConnectionError, redis.TimeoutError, redis.AuthenticationError)


@contextlib.contextmanager
def reaching(url: str) -> Iterator[None]:
    """Turn Redis' connection errors into QueueUnavailable, naming the host, never the
    password."""
    try:
        yield
    except connection_errors() as exc:
        raise QueueUnavailable(f"cannot reach the queue at {safe_url(url)}: {exc}") from None


def safe_url(url: str) -> str:
    """The URL without its password, for messages and logs."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return parts._replace(netloc=f"***@{host}{port}").geturl()


def check_url(url: str) -> str:
    """A redis:// or rediss:// URL; ValueError saying what is wrong otherwise."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as exc:
        raise ValueError(f"not a Redis URL ({exc})") from None
    if parts.scheme not in ("redis", "rediss") or not parts.hostname:
        raise ValueError(f"{safe_url(url)!r} is not a Redis URL (redis://HOST:PORT/DB)")
    return url


def client(url: str) -> redis.Redis:
    """A Redis client for our own keys (short timeouts: callers say when Redis is down)."""
    try:
        import redis
    except ImportError as exc:
        raise QueueMissing(str(exc)) from None
    return redis.Redis.from_url(
        url,
        socket_connect_timeout=CONNECT_TIMEOUT_SECONDS,
        socket_timeout=CONNECT_TIMEOUT_SECONDS,
    )


def open_broker(
    url: str,
    *,
    heartbeat_timeout: float,
    handler: Callable[[dict[str, Any]], None] | None = None,
) -> RedisBroker:
    """The broker, with the job actor declared (`handler` runs jobs; None to only send).

    No TimeLimit, AgeLimit or Retries middleware: a job runs for hours, and whether it is
    run again is the worker's decision (see worker.py), never an automatic retry."""
    try:
        import dramatiq
        from dramatiq.brokers.redis import RedisBroker
        from dramatiq.middleware import CurrentMessage
    except ImportError as exc:
        raise QueueMissing(str(exc)) from None
    broker = RedisBroker(  # type: ignore[no-untyped-call]
        url=url,
        namespace=NAMESPACE,
        middleware=[CurrentMessage()],
        heartbeat_timeout=int(heartbeat_timeout * 1000),
        # Every call may move a dead worker's messages back; the default (one call in a
        # thousand) could leave them waiting far beyond the failover bound.
        maintenance_chance=1_000_000,
        socket_connect_timeout=CONNECT_TIMEOUT_SECONDS,
        # A Redis that pauses (a stopped VM, a long fork) answers late rather than never: a
        # timeout would lose the answer to a command Redis then runs (a fetch: a job taken
        # and never started; an ack: a job run twice). A dead one resets the connection.
        socket_timeout=BROKER_SOCKET_TIMEOUT_SECONDS,
    )
    dramatiq.set_broker(broker)

    def research_job(**job: Any) -> None:
        if handler is not None:
            handler(job)

    dramatiq.actor(actor_name=ACTOR, queue_name=QUEUE, broker=broker)(research_job)
    return broker


def send(broker: RedisBroker, url: str, job: JobMessage, *, delay: float | None = None) -> None:
    """Put `job` on the queue (after `delay` seconds); QueueUnavailable if Redis is down."""
    from dramatiq import Message

    message: Message[Any] = Message(
        queue_name=QUEUE,
        actor_name=ACTOR,
        args=(),
        kwargs=json.loads(job.model_dump_json()),
        options={},
    )
    with reaching(url):
        broker.enqueue(message, delay=None if delay is None else int(delay * 1000))


def queue_depth(redis_client: redis.Redis) -> int:
    """Jobs waiting on the queue (not yet taken by a worker), delayed ones included."""
    waiting = redis_client.llen(f"{NAMESPACE}:{QUEUE}")
    delayed = redis_client.hlen(f"{NAMESPACE}:{QUEUE}.DQ.msgs")
    return int(waiting) + int(delayed)


def workers_alive(redis_client: redis.Redis) -> dict[str, int]:
    """Live workers by host (each one's key expires on the Redis server when it stops
    refreshing it: no two machines' clocks are compared)."""
    hosts: dict[str, int] = {}
    for key in redis_client.scan_iter(match=f"{WORKER_KEY}*", count=1000):
        text = key.decode("utf-8", "replace") if isinstance(key, bytes) else str(key)
        host = text[len(WORKER_KEY) :].rsplit(":", 1)[0]
        hosts[host] = hosts.get(host, 0) + 1
    return hosts


def queued_jobs(redis_client: redis.Redis) -> list[dict[str, Any]]:
    """The job of every message Redis holds (waiting, delayed, or taken by a worker and not
    yet acknowledged), read in one transaction: a message moving from the delay queue to
    the queue is seen once. A worker acknowledges a message only after its session's run
    ended, so a job that is not here and whose session does not run was lost."""
    pipe = redis_client.pipeline(transaction=True)
    pipe.hvals(f"{NAMESPACE}:{QUEUE}.msgs")
    pipe.hvals(f"{NAMESPACE}:{QUEUE}.DQ.msgs")
    jobs = []
    for values in pipe.execute():
        for raw in values:
            try:
                kwargs = json.loads(raw).get("kwargs")
            except (ValueError, AttributeError):
                continue
            if isinstance(kwargs, dict) and isinstance(kwargs.get("name"), str):
                jobs.append(kwargs)
    return jobs


def job_ids_of(redis_client: redis.Redis, name: str) -> set[str]:
    """The ids of the jobs of session `name` on the queue or run by a worker."""
    ids = {str(job.get("job_id")) for job in queued_jobs(redis_client) if job["name"] == name}
    running = redis_client.get(RUNNING_KEY + name)
    if running is not None:
        ids.add(running.decode("ascii", "replace") if isinstance(running, bytes) else running)
    return ids


def request_stop(redis_client: redis.Redis, job_ids: set[str]) -> None:
    for job_id in job_ids:
        redis_client.set(STOP_KEY + job_id, "1", ex=STOP_TTL_SECONDS)


class QueueClient:
    """The queue as the service and `research --queue` use it: send jobs, read its depth
    and live workers, ask a worker to stop a job. Every call raises QueueUnavailable when
    Redis cannot be reached."""

    def __init__(self, url: str, *, failover: float) -> None:
        from research.core.hosts import queue_heartbeat_seconds

        self.url = url
        self.broker = open_broker(url, heartbeat_timeout=queue_heartbeat_seconds(failover))
        self.redis = client(url)

    def send(self, job: JobMessage) -> None:
        send(self.broker, self.url, job)

    def depth(self) -> int:
        with reaching(self.url):
            return queue_depth(self.redis)

    def workers(self) -> dict[str, int]:
        with reaching(self.url):
            return workers_alive(self.redis)

    def stop(self, name: str) -> bool:
        """Ask the workers to stop the jobs of `name` there are; whether there was one."""
        with reaching(self.url):
            ids = job_ids_of(self.redis, name)
            request_stop(self.redis, ids)
        return bool(ids)

    def jobs(self) -> list[dict[str, Any]]:
        with reaching(self.url):
            return queued_jobs(self.redis)

"""GET /metrics: Prometheus metrics computed from the session files at scrape time.

Nothing is counted in memory, so a restarted server reports the same totals: the metrics
are a view of `.research/`, like every other answer of the service.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator

from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from research.model.state import Phase, RWRState
from research.service.bodies import usage_totals
from research.service.models import JOB_STATES
from research.service.session_files import Snapshot

DURATION_BUCKETS = (1.0, 5.0, 15.0, 60.0, 300.0, 900.0, 1800.0, 3600.0, 7200.0, 14400.0)
ITERATION_BUCKETS = (1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0)


def histogram(
    name: str, doc: str, values: list[float], bounds: Iterable[float]
) -> HistogramMetricFamily:
    buckets = [(repr(bound), float(sum(1 for v in values if v <= bound))) for bound in bounds]
    buckets.append(("+Inf", float(len(values))))
    return HistogramMetricFamily(name, doc, buckets=buckets, sum_value=sum(values))


def search_failures(states: list[RWRState]) -> CounterMetricFamily:
    """Seed 002's name: here the agent searches in its RESEARCH calls, so a failed search is
    a RESEARCH call that failed (error, timeout, no output)."""
    metric = CounterMetricFamily(
        "search_failures",
        "RESEARCH-phase agent calls that failed (the agent searches in them).",
    )
    research = Phase.RESEARCH.value
    metric.add_metric(
        [], sum(s.usage.phases[research].failures for s in states if research in s.usage.phases)
    )
    return metric


class SessionCollector(Collector):
    """Collects from `snapshots()`: (snapshot, job state) for every session known."""

    def __init__(self, snapshots: Callable[[], list[tuple[Snapshot | None, str]]]) -> None:
        self.snapshots = snapshots

    def collect(self) -> Iterator[Metric]:
        rows = self.snapshots()
        by_state = Counter(state for _, state in rows)
        jobs = GaugeMetricFamily("research_jobs", "Sessions by job state.", labels=["state"])
        for state in JOB_STATES:
            jobs.add_metric([state], by_state[state])
        yield jobs
        states = [snap.state for snap, _ in rows if snap is not None and snap.state is not None]
        done = [s for s in states if s.progress.is_complete]
        yield histogram(
            "research_loop_duration_seconds",
            "Wall-clock seconds of each finished session.",
            [s.progress.elapsed_seconds for s in done],
            DURATION_BUCKETS,
        )
        yield histogram(
            "iterations_per_request",
            "RESEARCH-REVIEW iterations of each finished session.",
            [float(s.progress.iteration) for s in done],
            ITERATION_BUCKETS,
        )
        failures = CounterMetricFamily(
            "agent_call_failures", "Agent calls that failed (errors, timeouts, invalid output)."
        )
        failures.add_metric([], sum(s.usage.agent_failures for s in states))
        yield failures
        yield search_failures(states)
        calls = CounterMetricFamily("research_agent_calls", "Agent calls started.")
        calls.add_metric([], sum(s.usage.agent_calls for s in states))
        yield calls
        tokens = CounterMetricFamily(
            "research_tokens", "Tokens reported by the agent.", labels=["kind"]
        )
        cost = CounterMetricFamily("research_cost_dollars", "Cost reported by the agent.")
        totals = [usage_totals(s) for s in states]
        tokens.add_metric(["input"], sum(t[0] or 0 for t in totals))
        tokens.add_metric(["output"], sum(t[1] or 0 for t in totals))
        cost.add_metric([], sum(t[2] or 0.0 for t in totals))
        yield tokens
        yield cost


class QueueCollector(Collector):
    """With --queue: the task queue's depth and live workers (from Redis), failovers and
    running sessions by host (from the session files)."""

    def __init__(
        self,
        depth: Callable[[], int],
        workers: Callable[[], dict[str, int]],
        hosts: Callable[[], list[tuple[str, str | None, int]]],
    ) -> None:
        self.depth = depth
        self.workers = workers
        self.hosts = hosts
        """(session name, host running it or None, failovers) for every session."""

    def collect(self) -> Iterator[Metric]:
        from research.cluster.broker import QueueUnavailable

        up = GaugeMetricFamily("research_queue_up", "Whether Redis answered this scrape.")
        try:
            depth, workers = self.depth(), self.workers()
        except QueueUnavailable:
            up.add_metric([], 0)
            yield up
        else:
            up.add_metric([], 1)
            yield up
            yield GaugeMetricFamily(
                "research_queue_depth", "Jobs waiting on the task queue.", value=depth
            )
            alive = GaugeMetricFamily(
                "research_workers_alive", "Live `research worker` processes.", labels=["host"]
            )
            for host, count in sorted(workers.items()):
                alive.add_metric([host], count)
            yield alive
        rows = self.hosts()
        failovers = CounterMetricFamily(
            "research_failovers", "Sessions taken over from another (dead) host."
        )
        failovers.add_metric([], sum(count for _, _, count in rows))
        yield failovers
        by_host = GaugeMetricFamily(
            "research_jobs_by_host", "Running sessions by the host running them.", labels=["host"]
        )
        for host, count in sorted(Counter(host for _, host, _ in rows if host).items()):
            by_host.add_metric([host], count)
        yield by_host

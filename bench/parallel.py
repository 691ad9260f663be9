"""--parallel N against an agent with a fixed latency per call (issue 12).

The agent is the simulated agent behind a wrapper that sleeps LATENCY seconds before each
call (an in-process fake passed to `run_session(agent=...)`, as `bench/run.py` does), so
the wall time is what N topics in flight save on a slow agent. For each N the script
reports the wall time, its ratio to N = 1, the number of agent calls, and the
orchestrator's CPU per phase (process CPU time outside the agent / phases; the sleeping
agent costs none).

    python bench/parallel.py                      # 1 s per call, breadth 3, depth 2, N = 1, 3, 6
    python bench/parallel.py --latency 0.2 --parallel 1 3
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

QUESTION = "How do heat pumps perform in cold climates?"


class SlowAgent:
    """The simulated agent, `latency` seconds slower per call; counts its own CPU time."""

    def __init__(self, inner: Any, latency: float) -> None:
        self.inner = inner
        self.latency = latency
        self.name = inner.name
        self.reports_usage = inner.reports_usage
        self.calls = 0
        self.agent_cpu = 0.0
        self._lock = threading.Lock()

    def check_available(self) -> str:
        return str(self.inner.check_available())

    def unpriced_models(self, models: Any) -> Any:
        return self.inner.unpriced_models(models)

    def run(self, call: Any) -> Any:
        time.sleep(self.latency)
        cpu = time.thread_time()
        try:
            return self.inner.run(call)
        finally:
            with self._lock:
                self.calls += 1
                self.agent_cpu += time.thread_time() - cpu


def one_run(parallel: int, latency: float, breadth: int, depth: int) -> dict[str, Any]:
    from research.core.settings import Settings
    from research.engine import Clock
    from research.session.run import run_session
    from research.simulation.agent import MockAgent

    agent = SlowAgent(MockAgent(), latency)
    phases = 0

    def listen(events: Any, _state: Any) -> None:
        def count(event: dict[str, Any]) -> None:
            nonlocal phases
            phases += event["type"] == "phase_start"

        events.listeners.append(count)

    with tempfile.TemporaryDirectory(prefix="research-parallel-") as tmp:
        settings = Settings(
            root=Path(tmp),
            name="bench",
            topic=QUESTION,
            breadth=breadth,
            depth=depth,
            mock_mode=True,
            assume_yes=True,
            quiet=True,
            parallel=parallel,
            # Given, as flags would be: the plan's tier must not change the tree measured.
            given=frozenset({"breadth", "depth"}),
        )
        wall, cpu = time.perf_counter(), time.process_time()
        outcome = run_session(
            settings,
            confirm=lambda _: True,
            warn=lambda _: None,
            on_events=listen,
            agent=(agent, Clock()),
        )
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        state = outcome.state
        assert state.progress.is_complete, "the run did not finish"
        tree = sorted((t.name, t.status.value, t.attempts) for t in state.plan.topics)
    return {
        "parallel": parallel,
        "wall_s": wall,
        "calls": agent.calls,
        "phases": phases,
        "cpu_per_phase_ms": (cpu - agent.agent_cpu) / max(phases, 1) * 1000,
        "tree": tree,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--breadth", type=int, default=3)
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--parallel", type=int, nargs="+", default=[1, 3, 6])
    args = parser.parse_args()
    results = [one_run(n, args.latency, args.breadth, args.depth) for n in args.parallel]
    base = results[0]
    print(f"latency {args.latency:g} s per call, breadth {args.breadth}, depth {args.depth}")
    for r in results:
        same = "same tree" if r["tree"] == base["tree"] else "DIFFERENT tree"
        print(
            f"--parallel {r['parallel']}: {r['wall_s']:.1f} s wall "
            f"({r['wall_s'] / base['wall_s']:.2f}x of N={base['parallel']}), "
            f"{r['calls']} agent calls, {r['phases']} phases, orchestrator CPU "
            f"{r['cpu_per_phase_ms']:.1f} ms/phase, {same}"
        )


if __name__ == "__main__":
    main()

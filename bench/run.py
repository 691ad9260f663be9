#!/usr/bin/env python3
"""Benchmarks of research.py, standard library only: run `python bench/run.py [--quick]`.

Measures, each as the median of several runs:
  overhead   orchestrator time per phase of a breadth-3, depth-2 mock run (target <= 5 ms)
  startup    `research.py --help` and `--version` against `python -c pass` (target <= 250 ms)
  duplicate  the duplicate check of one proposed topic against a 100-topic plan (< 0.5 ms)
  novelty    the novelty score of 100,000 characters of notes (< 1 ms)
  memory     peak RSS of a complete mock run in a child process (<= 80 MB)

`--json PATH` also writes every figure, with the machine and date, as JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "research.py"
sys.path.insert(0, str(REPO))  # run from a checkout without installing

from machine import machine, verdict  # noqa: E402  (bench/ is on sys.path as the script's folder)

QUESTION = "How do heat pumps perform in cold climates?"
TARGETS = {
    "overhead_ms_per_phase": 5.0,
    "startup_ms": 250.0,
    "duplicate_ms": 0.5,
    "novelty_ms": 1.0,
    "memory_mb": 80.0,
}


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


# ------------------------------------------------------------------ orchestrator overhead


class TimedAgent:
    """The mock agent, timed, so its own work is not counted as orchestrator overhead."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.reports_usage = inner.reports_usage
        self.calls: list[tuple[tuple[float, float], tuple[float, float]]] = []
        """(wall start, wall end), (cpu start, cpu end) of each call."""

    def check_available(self) -> str:
        return str(self.inner.check_available())

    def unpriced_models(self, models: Any) -> Any:
        return self.inner.unpriced_models(models)

    def run(self, call: Any) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return self.inner.run(call)
        finally:
            self.calls.append(((wall, time.perf_counter()), (cpu, time.process_time())))


VERIFY_SOURCES = True
"""The source check (fetching the simulated web, extracting, checking claims); --no-verify-sources
measures the orchestrator without it, as before issue 11."""


def verify_flag() -> str:
    return "--verify-sources" if VERIFY_SOURCES else "--no-verify-sources"


def one_mock_run(breadth: int, depth: int) -> dict[str, Any]:
    """One in-process mock session: wall and CPU time, and each phase's overhead."""
    from research.core.settings import Settings
    from research.engine import Clock
    from research.session.run import run_session
    from research.simulation.agent import MockAgent

    agent = TimedAgent(MockAgent())
    marks: list[tuple[str, float, float]] = []

    def listen(events: Any, _state: Any) -> None:
        events.listeners.append(
            lambda event: marks.append((event["type"], time.perf_counter(), time.process_time()))
        )

    with tempfile.TemporaryDirectory(prefix="research-bench-") as tmp:
        settings = Settings(
            root=Path(tmp),
            name="bench",
            topic=QUESTION,
            breadth=breadth,
            depth=depth,
            given=frozenset(
                {"breadth", "depth"}
            ),  # as --breadth/--depth: the plan's tier keeps them
            mock_mode=True,
            assume_yes=True,
            quiet=True,
            verify_sources=VERIFY_SOURCES,
        )
        wall, cpu = time.perf_counter(), time.process_time()
        outcome = run_session(
            settings,
            confirm=lambda _: True,
            warn=lambda _: None,
            on_events=listen,
            agent=(agent, Clock(sleep=lambda _: None)),
        )
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        assert outcome.state.progress.is_complete, "the mock run did not finish"
    return {
        "wall_s": wall,
        "cpu_s": cpu,
        "agent_wall_s": sum(b - a for (a, b), _ in agent.calls),
        "agent_cpu_s": sum(b - a for _, (a, b) in agent.calls),
        "wall_ms": phase_overheads([(k, w) for k, w, _ in marks], [w for w, _ in agent.calls]),
        "cpu_ms": phase_overheads([(k, c) for k, _, c in marks], [c for _, c in agent.calls]),
    }


def phase_overheads(
    marks: list[tuple[str, float]], calls: list[tuple[float, float]]
) -> list[float]:
    """Milliseconds each phase spent outside the agent, from its start to the next phase's
    start (so saving state, reconciling the plan and recording decisions are included)."""
    starts = [t for kind, t in marks if kind == "phase_start"]
    end = next(t for kind, t in reversed(marks) if kind == "run_end")
    out = []
    for begin, finish in zip(starts, [*starts[1:], end], strict=True):
        in_agent = sum(min(b, finish) - max(a, begin) for a, b in calls if a < finish and b > begin)
        out.append((finish - begin - in_agent) * 1000)
    return out


def bench_overhead(
    runs: int, breadth: int = 3, depth: int = 2, *, warm_up: bool = True
) -> dict[str, Any]:
    if warm_up:
        one_mock_run(breadth, depth)  # imports, the templates' first read, the file cache
    results = [one_mock_run(breadth, depth) for _ in range(runs)]
    phases = len(results[0]["wall_ms"])
    wall = median([r["wall_s"] for r in results])
    cli_runs = max(1, runs // 2)
    return {
        "breadth": breadth,
        "depth": depth,
        "runs": runs,
        "phases": phases,
        "wall_s": wall,
        "cpu_s": median([r["cpu_s"] for r in results]),
        "agent_wall_s": median([r["agent_wall_s"] for r in results]),
        "phases_per_s": phases / wall,
        "median_overhead_ms": median([ms for r in results for ms in r["wall_ms"]]),
        "median_overhead_cpu_ms": median([ms for r in results for ms in r["cpu_ms"]]),
        "best_run_overhead_ms": min(median(r["wall_ms"]) for r in results),
        "mean_overhead_ms": median(
            [(r["wall_s"] - r["agent_wall_s"]) * 1000 / phases for r in results]
        ),
        "cli_wall_s": median(
            [
                timed(
                    mock_cli(breadth, depth),
                    fresh_dir=True,
                )
                for _ in range(cli_runs)
            ]
        ),
    }


# ------------------------------------------------------------------ start-up time


def timed(argv: list[str], *, fresh_dir: bool = False) -> float:
    """Wall seconds of one child process."""
    with tempfile.TemporaryDirectory(prefix="research-bench-") as tmp:
        started = time.perf_counter()
        subprocess.run(
            argv,
            cwd=tmp if fresh_dir else None,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=True,
        )
        return time.perf_counter() - started


def heavy_imports(*args: str) -> list[str]:
    """Third-party packages `research.py ARGS` imports (from `python -X importtime`)."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", str(SCRIPT), *args],
        capture_output=True,
        text=True,
        check=True,
    )
    names = {
        line.rsplit("|", 1)[-1].strip().split(".")[0]
        for line in proc.stderr.splitlines()
        if line.startswith("import time:")
    }
    return sorted(names & {"pydantic", "pydantic_core", "rich", "httpx", "filelock", "typer"})


def bench_startup(runs: int, *, warm_up: bool = True) -> dict[str, Any]:
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "research.py --version": [sys.executable, str(SCRIPT), "--version"],
        "research.py --help": [sys.executable, str(SCRIPT), "--help"],
    }
    for argv in commands.values() if warm_up else ():
        timed(argv)  # warm the file cache
    samples: dict[str, list[float]] = {label: [] for label in commands}
    for _ in range(runs):  # interleaved, so a noisy moment hurts all three alike
        for label, argv in commands.items():
            samples[label].append(timed(argv) * 1000)
    medians = {label: median(values) for label, values in samples.items()}
    base = medians["python -c pass"]
    return {
        "runs": runs,
        "median_ms": medians,
        "over_python_ms": {label: ms - base for label, ms in medians.items()},
        "ratio_to_python": {label: ms / base for label, ms in medians.items()},
        "imports_help": heavy_imports("--help"),
        "imports_version": heavy_imports("--version"),
    }


# ------------------------------------------------------------------ similarity

WORDS = (
    "heat pump cold climate efficiency coefficient performance defrost cycle "
    "refrigerant compressor installation cost subsidy retrofit insulation grid demand "
    "emissions field trial laboratory standard rating seasonal backup resistance "
    "ground source air source ductless variable speed inverter Nordic Canadian "
    "Alaska household survey measurement sensor data model regression uncertainty"
).split()


def plan_topics(count: int, rng: random.Random) -> list[str]:
    return [" ".join(rng.sample(WORDS, 5)).capitalize() for _ in range(count)]


def notes_text(chars: int, rng: random.Random, *, non_ascii: bool = False) -> str:
    vocab = WORDS + [f"term{i}" for i in range(3000)]
    if non_ascii:
        vocab += ["Wärmepumpe", "coût", "eficiência", "–", "東京"]
    parts: list[str] = []
    size = 0
    while size < chars:
        sentence = " ".join(rng.choice(vocab) for _ in range(12)) + ". "
        parts.append(sentence)
        size += len(sentence)
    return "".join(parts)[:chars]


def per_call_ms(action: Callable[[], object], repeat: int, batch: int) -> float:
    """Median over `repeat` batches of the mean milliseconds of one `action()`."""
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        for _ in range(batch):
            action()
        samples.append((time.perf_counter() - started) * 1000 / batch)
    return median(samples)


def bench_duplicate(repeat: int) -> dict[str, Any]:
    from research.core.similarity import _topic_words, find_duplicate

    rng = random.Random(7)
    plan = plan_topics(100, rng)
    candidates = iter(plan_topics(100_000, rng))
    find_duplicate(plan[0], plan, 0.75)  # the plan's names, cached as in a real session

    def fresh_candidate() -> None:
        find_duplicate(next(candidates), plan, 0.75)

    def cold() -> None:
        _topic_words.cache_clear()
        find_duplicate(next(candidates), plan, 0.75)

    return {
        "plan_topics": len(plan),
        "median_ms": per_call_ms(fresh_candidate, repeat, 200),
        "cold_cache_ms": per_call_ms(cold, repeat, 20),
    }


def bench_novelty(repeat: int) -> dict[str, Any]:
    from research.core.similarity import content_words, novelty

    rng = random.Random(11)
    seen = content_words(notes_text(100_000, rng))
    ascii_text = notes_text(100_000, rng)
    mixed_text = notes_text(100_000, rng, non_ascii=True)
    return {
        "chars": len(ascii_text),
        "median_ms": per_call_ms(lambda: novelty(ascii_text, seen), repeat, 5),
        "non_ascii_ms": per_call_ms(lambda: novelty(mixed_text, seen), repeat, 5),
    }


# ------------------------------------------------------------------ memory

RSS_PROBE = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def peak_rss_mb(argv: list[str]) -> float:
    """Peak resident set size of one child process running `argv`, in MB."""
    with tempfile.TemporaryDirectory(prefix="research-bench-") as tmp:
        proc = subprocess.run(
            [sys.executable, "-c", RSS_PROBE, *argv],
            cwd=tmp,
            capture_output=True,
            text=True,
            check=True,
        )
    kilobytes = int(proc.stdout.split()[-1])
    if sys.platform == "darwin":  # ru_maxrss is in bytes there
        kilobytes //= 1024
    return kilobytes / 1024


def mock_cli(breadth: int, depth: int) -> list[str]:
    """The command line of a whole mock session named "bench" (in the current directory)."""
    return [
        sys.executable,
        str(SCRIPT),
        "--mock-mode",
        "--quiet",
        verify_flag(),
        "--yes",
        "--name",
        "bench",
        "--breadth",
        str(breadth),
        "--depth",
        str(depth),
        QUESTION,
    ]


def bench_memory(runs: int, breadth: int = 3, depth: int = 2) -> dict[str, Any]:
    run = mock_cli(breadth, depth)
    return {
        "runs": runs,
        "breadth": breadth,
        "depth": depth,
        "mock_run_mb": median([peak_rss_mb(run) for _ in range(runs)]),
        "python_mb": median([peak_rss_mb([sys.executable, "-c", "pass"]) for _ in range(runs)]),
    }


# ------------------------------------------------------------------ report


def render(results: dict[str, Any]) -> str:
    o, s, d, n, m = (results[k] for k in ("overhead", "startup", "duplicate", "novelty", "memory"))
    t = TARGETS
    lines = [
        f"research.py benchmarks — {results['machine']['date']}, Python "
        f"{results['machine']['python']}, {results['machine']['cpus']} CPUs "
        f"({results['machine']['processor']}), load average "
        f"{results['machine']['load_average']}, {'quick' if results['quick'] else 'full'} mode",
        "",
        f"orchestrator (mock, breadth {o['breadth']}, depth {o['depth']}, {o['runs']} runs, "
        f"{o['phases']} phases)",
        f"  in-process wall time      {o['wall_s'] * 1000:8.1f} ms  ({o['agent_wall_s'] * 1000:.1f}"
        f" ms inside the mock agent; CPU {o['cpu_s'] * 1000:.1f} ms)",
        f"  phases per second         {o['phases_per_s']:8.1f}",
        f"  median overhead per phase {o['median_overhead_ms']:8.2f} ms  target <= "
        f"{t['overhead_ms_per_phase']} ms  {verdict(o['median_overhead_ms'], 5.0)}",
        f"    of which CPU            {o['median_overhead_cpu_ms']:8.2f} ms",
        f"    in the best run         {o['best_run_overhead_ms']:8.2f} ms",
        f"  mean overhead per phase   {o['mean_overhead_ms']:8.2f} ms",
        f"  CLI run incl. start-up    {o['cli_wall_s'] * 1000:8.1f} ms",
        "",
        f"start-up ({s['runs']} runs each, median)",
    ]
    for label, ms in s["median_ms"].items():
        extra = ""
        if label != "python -c pass":
            extra = (
                f"  x{s['ratio_to_python'][label]:.1f} of python, target <= "
                f"{t['startup_ms']:.0f} ms  {verdict(ms, t['startup_ms'])}"
            )
        lines.append(f"  {label:<25} {ms:8.1f} ms{extra}")
    lines += [
        f"  third-party imports: --help {', '.join(s['imports_help']) or 'none'}; "
        f"--version {', '.join(s['imports_version']) or 'none'}",
        "",
        f"duplicate check vs {d['plan_topics']}-topic plan  {d['median_ms']:8.4f} ms  target "
        f"< {t['duplicate_ms']} ms  {verdict(d['median_ms'], t['duplicate_ms'])}  "
        f"(cold word cache {d['cold_cache_ms']:.3f} ms)",
        f"novelty per {n['chars']:,} chars            {n['median_ms']:8.3f} ms  target < "
        f"{t['novelty_ms']} ms  {verdict(n['median_ms'], t['novelty_ms'])}  "
        f"(non-ASCII text {n['non_ascii_ms']:.3f} ms)",
        f"peak RSS of a mock run (b{m['breadth']} d{m['depth']})   {m['mock_run_mb']:8.1f} MB  "
        f"target <= {t['memory_mb']:.0f} MB  {verdict(m['mock_run_mb'], t['memory_mb'])}  "
        f"(python -c pass {m['python_mb']:.1f} MB)",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="one small run of everything: a smoke test, not figures to quote",
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write results here")
    parser.add_argument(
        "--no-verify-sources", action="store_true", help="mock runs without the source check"
    )
    args = parser.parse_args(argv)
    global VERIFY_SOURCES
    VERIFY_SOURCES = not args.no_verify_sources
    quick = args.quick
    size = (2, 1) if quick else (3, 2)  # breadth, depth of the mock runs
    results = {
        "quick": quick,
        "machine": machine(),
        "overhead": bench_overhead(1 if quick else 7, *size, warm_up=not quick),
        "startup": bench_startup(1 if quick else 21, warm_up=not quick),
        "duplicate": bench_duplicate(repeat=1 if quick else 15),
        "novelty": bench_novelty(repeat=1 if quick else 15),
        "memory": bench_memory(1 if quick else 5, *size),
        "targets": TARGETS,
    }
    print(render(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The benchmark script runs (quick mode, no timing assertions), and `--help`/`--version`
stay free of the heavy imports the start-up target depends on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

BENCH = REPO / "bench" / "run.py"


def child_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("RESEARCH_")}


def test_the_benchmark_runs_in_quick_mode(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        env=child_env(),
    )
    assert proc.returncode == 0, proc.stderr
    results = json.loads(out.read_text(encoding="utf-8"))
    assert results["quick"] is True
    assert results["machine"]["cpus"] == os.cpu_count()
    overhead = results["overhead"]
    assert overhead["phases"] > 0 and overhead["wall_s"] > 0
    assert set(results["startup"]["median_ms"]) == {
        "python -c pass",
        "research.py --version",
        "research.py --help",
    }
    assert results["duplicate"]["plan_topics"] == 100
    assert results["novelty"]["chars"] == 100_000
    assert results["memory"]["mock_run_mb"] > results["memory"]["python_mb"] > 0
    for line in (
        "orchestrator (mock",
        "start-up",
        "duplicate check",
        "novelty per 100,000",
        "peak RSS",
    ):
        assert line in proc.stdout


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_help_and_version_do_not_import_pydantic_rich_or_httpx(flag: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", str(REPO / "research.py"), flag],
        capture_output=True,
        text=True,
        timeout=60,
        env=child_env(),
    )
    assert proc.returncode == 0
    imported = {
        line.rsplit("|", 1)[-1].strip().split(".")[0]
        for line in proc.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert "typer" in imported  # the measurement works
    assert not imported & {"pydantic", "pydantic_core", "rich", "httpx", "filelock"}

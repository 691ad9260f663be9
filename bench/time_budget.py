"""Does `--time T` hold when the agent hangs in every phase? (issue 10)

Runs `research --time T --agent-cmd "<python> bench/hung_agent.py"` in a fresh temporary
directory, measures the wall time of the whole run, and checks that the report carries the
TIME BUDGET banner. Exit 0 when the run ended within T + 10 s with the banner.

    python bench/time_budget.py            # --time 0.25 (15 s)
    python bench/time_budget.py --time 0.05
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HUNG = Path(__file__).with_name("hung_agent.py")
GRACE_SECONDS = 10.0


def run(minutes: float) -> tuple[float, int, bool]:
    """(wall seconds, exit code, banner present) of one run against the hung agent."""
    with tempfile.TemporaryDirectory(prefix="research-budget-") as tmp:
        command = [
            sys.executable,
            "-c",
            "from research.cli import main; main()",
            "--agent-cmd",
            f"{shlex.quote(sys.executable)} {shlex.quote(str(HUNG))}",
            "--time",
            str(minutes),
            "--name",
            "hung",
            "--yes",
            "--quiet",
            "How do heat pumps perform in cold climates?",
        ]
        started = time.perf_counter()
        done = subprocess.run(command, cwd=tmp, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
        report = Path(tmp, "reports", "hung", "report.md")
        text = report.read_text(encoding="utf-8") if report.exists() else ""
        if done.returncode != 0:
            sys.stderr.write(done.stderr)
        return wall, done.returncode, "WARNING: TIME BUDGET REACHED" in text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time", type=float, default=0.25, help="the budget in minutes")
    args = parser.parse_args()
    wall, code, banner = run(args.time)
    limit = args.time * 60 + GRACE_SECONDS
    print(
        f"--time {args.time:g} ({args.time * 60:g} s) with an agent that hangs in every "
        f"phase: exit {code}, {wall:.1f} s wall (limit {limit:g} s), TIME BUDGET banner: "
        f"{'yes' if banner else 'no'}"
    )
    return 0 if code == 0 and banner and wall <= limit else 1


if __name__ == "__main__":
    sys.exit(main())

"""--time holds against an agent that hangs in every phase (issue 10): the run ends within
the budget plus a few seconds, with a report under the TIME BUDGET banner."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench" / "time_budget.py"


def test_a_hung_agent_cannot_overrun_the_time_budget() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--time", "0.05"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "TIME BUDGET banner: yes" in done.stdout

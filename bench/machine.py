"""What every benchmark records about the machine it ran on, and how it judges a target."""

from __future__ import annotations

import os
import platform
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


def machine() -> dict[str, Any]:
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "processor": cpu_model() or platform.processor() or platform.machine(),
        "load_average": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
    }


def cpu_model() -> str | None:
    try:
        lines = Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    return next(
        (line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")), None
    )


def verdict(value: float, target: float) -> str:
    return "ok" if value <= target else "MISSED"

"""Model prices, for agents whose CLI reports tokens but no cost (Codex: agents/codex.py).

The built-in table is dated: prices change, and a model missing from it has no computed
cost (the run says so when --max-cost is given). `--codex-prices FILE` (or
RESEARCH_CODEX_PRICES) adds or replaces entries: a JSON object
`{"model": {"input": USD, "cached_input": USD, "output": USD}}`, in US dollars per million
tokens. A cost computed here is labelled as computed wherever it is shown.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

PRICES_AS_OF = "2025-11-13"
"""When the built-in table was last checked against OpenAI's published API prices."""


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    cached_input: float
    output: float

    def cost(self, input_tokens: int, cached_tokens: int, output_tokens: int) -> float:
        """The cost of a call: `input_tokens` includes the `cached_tokens`."""
        fresh = max(input_tokens - cached_tokens, 0)
        return (
            fresh * self.input + cached_tokens * self.cached_input + output_tokens * self.output
        ) / 1e6


PRICES: Mapping[str, Price] = {
    # OpenAI's list prices as of PRICES_AS_OF (standard tier).
    "gpt-5": Price(1.25, 0.125, 10.0),
    "gpt-5-codex": Price(1.25, 0.125, 10.0),
    "gpt-5.1": Price(1.25, 0.125, 10.0),
    "gpt-5.1-codex": Price(1.25, 0.125, 10.0),
    "gpt-5-mini": Price(0.25, 0.025, 2.0),
    "gpt-5.1-codex-mini": Price(0.25, 0.025, 2.0),
    "gpt-5-nano": Price(0.05, 0.005, 0.4),
}


def load_prices(path: Path) -> dict[str, Price]:
    """The price file's entries; ValueError saying what is wrong with it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read {str(path)!r}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ValueError(f"{str(path)!r} is not JSON: {exc}") from None
    if not isinstance(data, dict) or not data:
        raise ValueError(f"{str(path)!r} must hold a JSON object of models")
    return {str(model): _price(str(model), entry) for model, entry in data.items()}


def _price(model: str, entry: object) -> Price:
    fields = ("input", "cached_input", "output")
    if not isinstance(entry, dict) or set(entry) - set(fields) or "input" not in entry:
        raise ValueError(
            f"the price of {model!r} must be an object with input, output and optionally "
            "cached_input (USD per million tokens)"
        )
    entry = {"output": None, "cached_input": entry["input"], **entry}
    values = {name: entry[name] for name in fields}
    for name, value in values.items():
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        if not ok or not math.isfinite(value) or value < 0:
            raise ValueError(f"the {name} price of {model!r} is not a non-negative number")
    return Price(**{name: float(value) for name, value in values.items()})

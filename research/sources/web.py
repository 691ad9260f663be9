"""Where cited URLs are fetched from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import httpx

    from research.sources.addresses import Resolver


@dataclass(frozen=True)
class Web:
    """Where cited URLs are fetched from: the network, or the simulated web of --mock-mode."""

    transport: httpx.AsyncBaseTransport | None = None
    resolve: Resolver | None = None

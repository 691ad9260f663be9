"""Where a fetch may go: the resolvers (the system's, or a fixed table that never touches
DNS) and the check that refuses loopback, private and other non-global addresses."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable, Mapping, Sequence

PUBLIC_TEST_ADDRESS = "93.184.216.34"
"""A global (public) address for resolvers of simulated hosts; nothing connects to it."""

Resolver = Callable[[str, int], Awaitable[list[str]]]
"""(host, port) → IP address strings; raises OSError when the name does not resolve."""


async def system_resolver(host: str, port: int) -> list[str]:
    """The system's resolver (getaddrinfo, in the loop's executor)."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


def fixed_resolver(
    addresses: Mapping[str, str | Sequence[str]] | None = None,
    default: str | None = PUBLIC_TEST_ADDRESS,
) -> Resolver:
    """A resolver that never touches DNS: `addresses` maps host names (lower case) to one
    address or several; any other name gets `default`, or does not resolve (OSError) when
    `default` is None. For mock mode, tests and benchmarks."""
    table = {
        host.lower(): [value] if isinstance(value, str) else list(value)
        for host, value in (addresses or {}).items()
    }

    async def resolve(host: str, port: int) -> list[str]:
        found = table.get(host.lower())
        if found is not None:
            return found
        if default is None:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [default]

    return resolve


def address_problem(address: str) -> str | None:
    """Why a fetch may not go to `address` ("loopback", "private", "link-local", ...), or
    None for a global address."""
    try:
        ip: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.ip_address(
            address.split("%", 1)[0]
        )
    except ValueError:
        return "unparseable"
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    for kind, flag in (
        ("unspecified", ip.is_unspecified),
        ("loopback", ip.is_loopback),
        ("link-local", ip.is_link_local),
        ("multicast", ip.is_multicast),
        ("reserved", ip.is_reserved),
        ("private", ip.is_private),
        ("non-global", not ip.is_global),
    ):
        if flag:
            return kind
    return None

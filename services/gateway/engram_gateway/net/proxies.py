"""Whether a request came over https, also when a TLS-terminating proxy in
front speaks plain http to the gateway: its `X-Forwarded-Proto` counts only
when the connection itself comes from an address in ENGRAM_TRUSTED_PROXIES
(anyone else could send the header). The console marks its cookies `Secure`
by this."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from starlette.requests import Request

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def networks(entries: Iterable[str]) -> tuple[Network, ...]:
    """The trusted proxies as networks (an address is a /32 or /128); a
    malformed entry is an error at start, not a silently ignored proxy."""
    return tuple(ipaddress.ip_network(e.strip(), strict=False) for e in entries if e.strip())


def _trusted(host: str | None, trusted: tuple[Network, ...]) -> bool:
    if not host or not trusted:
        return False
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return any(address in n for n in trusted)


def over_https(request: Request, trusted: tuple[Network, ...]) -> bool:
    """https on the connection itself, or a trusted proxy says its client used
    https (the proxy nearest us wrote the last value of the header)."""
    if request.url.scheme == "https":
        return True
    forwarded = request.headers.get("x-forwarded-proto", "")
    if not forwarded or not _trusted(request.client.host if request.client else None, trusted):
        return False
    return forwarded.split(",")[-1].strip().lower() == "https"

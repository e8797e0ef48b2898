"""What the gateway's HTTP server does per connection, before any request
reaches the app: a deadline on each request head, and a cap on the
connections one address holds open without having shown a valid token.

uvicorn bounds neither (its keep-alive timer starts only after a response, and
any byte cancels it), so a client trickling a head, or opening connections
and sending nothing, could hold them for as long as it likes. The protocol
below is uvicorn's h11 protocol with both added; HttpGuard tells the table
when a request on a connection authenticates."""

from __future__ import annotations

import asyncio
import json
from collections import Counter

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

Peer = tuple[str, int]


class ConnectionTable:
    """The open connections that have not carried an authenticated request,
    counted per client address. `max_per_address` 0: no cap."""

    def __init__(self, max_per_address: int) -> None:
        if max_per_address < 0:
            raise ValueError("max_per_address must be 0 (no cap) or more")
        self.max_per_address = max_per_address
        self._pending: set[Peer] = set()
        self._per_host: Counter[str] = Counter()

    def open(self, peer: Peer) -> bool:
        """Count a new connection; False (and not counted) when its address
        already holds the most unauthenticated connections allowed."""
        host = peer[0]
        if 0 < self.max_per_address <= self._per_host[host]:
            return False
        self._pending.add(peer)
        self._per_host[host] += 1
        return True

    def authenticated(self, peer: Peer | None) -> None:
        """A request on this connection showed a valid token or session."""
        if peer is not None and peer in self._pending:
            self._pending.discard(peer)
            self._per_host[peer[0]] -= 1
            if self._per_host[peer[0]] <= 0:
                del self._per_host[peer[0]]

    closed = authenticated  # either way the connection no longer counts


def _raw_response(status: int, reason: str, error: str, detail: str) -> bytes:
    """A whole HTTP/1.1 response that closes the connection, written outside
    h11: it is sent before (or instead of) a complete request head."""
    body = json.dumps({"error": error, "detail": detail}).encode()
    head = (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n")
    return head.encode() + body


def guarded_h11(table: ConnectionTable, head_timeout_s: float) -> type[H11Protocol]:
    """uvicorn's h11 protocol with a head deadline and the per-address cap,
    as a class for uvicorn.Config(http=...)."""
    if head_timeout_s <= 0:
        raise ValueError("head_timeout_s must be positive")

    class GuardedH11Protocol(H11Protocol):
        _head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if self.client is not None and not table.open(self.client):
                transport.write(_raw_response(
                    429, "Too Many Requests", "resource_exhausted",
                    f"this address holds {table.max_per_address} connections that have not "
                    "shown a valid token (ENGRAM_MAX_UNAUTHENTICATED_CONNECTIONS_PER_ADDRESS)"))
                transport.close()
                return
            self._arm_head()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm_head()
            table.closed(self.client)
            super().connection_lost(exc)

        def handle_events(self) -> None:
            super().handle_events()
            # h11 leaves IDLE only once a whole request head has arrived.
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self._arm_head()
            else:
                self._disarm_head()

        def _arm_head(self) -> None:
            if self._head_timer is None:
                self._head_timer = self.loop.call_later(head_timeout_s, self._head_late)

        def _disarm_head(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_late(self) -> None:
            self._head_timer = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.write(_raw_response(
                    408, "Request Timeout", "request_timeout",
                    f"no complete request head within {head_timeout_s:g} s "
                    "(ENGRAM_HEAD_TIMEOUT_S)"))
                self.transport.close()

    return GuardedH11Protocol

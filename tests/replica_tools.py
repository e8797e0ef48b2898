"""Test helpers for a stack with replicas: an MCP client whose requests go
round robin over the gateway replicas (the worst case of a load balancer in
front of them: every HTTP request may land on another replica), and each
replica's Prometheus counters."""

from __future__ import annotations

import itertools
import re
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

if TYPE_CHECKING:
    from engram_runner.stack import Stack


class RoundRobin(httpx2.AsyncBaseTransport):
    """Each request to the next port in turn; a port that refuses the
    connection (nothing was sent) is skipped for the next one, as a load
    balancer's passive health check would."""

    def __init__(self, ports: list[int]) -> None:
        self._ports = ports
        self._turn = itertools.cycle(range(len(ports)))
        self._inner = httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        first = next(self._turn)
        for step in range(len(self._ports)):
            request.url = request.url.copy_with(
                port=self._ports[(first + step) % len(self._ports)])
            try:
                return await self._inner.handle_async_request(request)
            except httpx2.ConnectError:
                if step + 1 == len(self._ports):
                    raise
        raise AssertionError("unreachable")

    async def aclose(self) -> None:
        await self._inner.aclose()


@asynccontextmanager
async def alternating_client(urls: list[str], token: str, session: str = "",
                             mode: Any = "auto") -> AsyncIterator[Client]:
    """The official SDK client through a round robin over `urls`.
    mode="legacy": the handshake-era protocol (initialize, then an
    Mcp-Session-Id on every request)."""
    headers = {"Authorization": f"Bearer {token}"}
    if session:
        headers["X-Engram-Session"] = session
    http = httpx2.AsyncClient(headers=headers, timeout=30,
                              transport=RoundRobin([httpx2.URL(u).port or 80 for u in urls]))
    async with Client(streamable_http_client(urls[0], http_client=http),
                      mode=mode) as client:
        yield client


def metrics_text(stack: Stack, name: str) -> str:
    """`name`'s /metrics (a service's ops port; the gateway's one port)."""
    port = stack.instances[name].ports[max(stack.instances[name].ports)]
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:  # noqa: S310
        return resp.read().decode()


def counter_sum(text: str, metric: str, **labels: str) -> float:
    """The sum of `metric` over the series whose labels include `labels`."""
    total = 0.0
    for m in re.finditer(rf"^{metric}\{{([^}}]*)\}} ([0-9.e+-]+)$", text, re.M):
        have = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
        if all(have.get(k) == v for k, v in labels.items()):
            total += float(m.group(2))
    return total


def rpc_calls(stack: Stack, name: str) -> float:
    """gRPC calls `name` served, health checks left out."""
    text = metrics_text(stack, name)
    total = counter_sum(text, "engram_rpc_requests_total")
    return total - sum(float(v) for v in re.findall(
        r'^engram_rpc_requests_total\{[^}]*method="[^"]*Health[^"]*"[^}]*\} ([0-9.e+-]+)$',
        text, re.M))

"""gRPC client helpers: channels, caller metadata, deadlines, bounded retries.

Retries apply only to calls the caller marks idempotent, and only on
UNAVAILABLE; every call carries a deadline.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import grpc

from .context import CallerContext
from .errors import from_rpc_error

T = TypeVar("T")

# The largest message between services (a 16 MB PDF travels whole to memory);
# servers take the same size, gRPC's own default is 4 MiB.
MAX_MESSAGE_BYTES = 32 * 1024 * 1024

_CHANNEL_OPTIONS = [
    ("grpc.keepalive_time_ms", 30_000),
    # A peer that was down is retried within half a second once it is back,
    # instead of after gRPC's default backoff (which grows to two minutes).
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 500),
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    # Spread calls over every address the target resolves to (replicas: a
    # Kubernetes headless Service, compose replicas, or an explicit list), one
    # call per replica in turn, skipping replicas that are down. gRPC's
    # default, pick_first, would send everything to one of them.
    ("grpc.lb_policy_name", "round_robin"),
    ("grpc.service_config", json.dumps({"loadBalancingConfig": [{"round_robin": {}}]})),
]


def channel_target(address: str) -> str:
    """A gRPC target for `address`: `host:port` as is (gRPC resolves it by
    DNS, every A record a replica), `dns:///...` and other URIs as is, and a
    list `127.0.0.1:p1,127.0.0.1:p2` as gRPC's static address list."""
    if "," not in address or ":/" in address or address.startswith(("ipv4:", "ipv6:")):
        return address
    parts = [a.strip() for a in address.split(",") if a.strip()]
    scheme = "ipv6" if any(p.startswith("[") for p in parts) else "ipv4"
    return f"{scheme}:{','.join(parts)}"


def open_channel(address: str) -> grpc.aio.Channel:
    return grpc.aio.insecure_channel(channel_target(address), options=_CHANNEL_OPTIONS)


# What gRPC's load balancers say when they fail a call before sending it:
# pick_first, then round_robin (the policy of every channel here).
_NEVER_SENT = ("failed to connect to all addresses", "connections to all backends failing")


def never_sent(err: grpc.aio.AioRpcError) -> bool:
    """The call failed at connection time: gRPC's load balancer found no
    reachable address and failed it before anything was sent."""
    details = err.details() or ""
    return any(text in details for text in _NEVER_SENT)


class Caller:
    """Binds an internal credential to outgoing calls."""

    def __init__(self, internal_token: str, default_timeout_s: float = 5.0) -> None:
        self._token = internal_token
        self.default_timeout_s = default_timeout_s

    async def call(
        self,
        method: Callable[..., Awaitable[T]],
        request: Any,
        caller: CallerContext,
        *,
        timeout_s: float | None = None,
        idempotent: bool = False,
        attempts: int = 5,
    ) -> T:
        """Reads retry on UNAVAILABLE. Writes retry only when gRPC failed the
        call before sending it (no connection to the peer): right after a
        peer restarts, the channel is still in its reconnect backoff and
        fails calls fast, and a write there would be lost for nothing."""
        metadata = caller.to_metadata(self._token)
        timeout = timeout_s if timeout_s is not None else self.default_timeout_s
        for attempt in range(attempts):
            try:
                return await method(request, metadata=metadata, timeout=timeout)
            except grpc.aio.AioRpcError as err:
                retry = err.code() == grpc.StatusCode.UNAVAILABLE and attempt + 1 < attempts \
                    and (idempotent or never_sent(err))
                if not retry:
                    raise from_rpc_error(err) from None
                # 0.1 + 0.2 + 0.4 + 0.8 s: outlasts a reconnect backoff (at most
                # 0.5 s, jittered) twice.
                await asyncio.sleep(0.1 * 2**attempt)
        raise AssertionError("unreachable")

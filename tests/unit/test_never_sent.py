"""A call gRPC fails before sending it (no reachable replica) is recognised as
never sent, under the round-robin policy every channel here uses: only then
may a write be retried."""

from __future__ import annotations

import asyncio
import socket

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from engram_kit.grpc_client import never_sent, open_channel


async def _failure(address: str) -> grpc.aio.AioRpcError:
    channel = open_channel(address)
    try:
        stub = health_pb2_grpc.HealthStub(channel)
        await stub.Check(  # pyright: ignore[reportAttributeAccessIssue]
            health_pb2.HealthCheckRequest(), timeout=5)
    except grpc.aio.AioRpcError as err:
        return err
    finally:
        await channel.close()
    raise AssertionError("a call to a closed port succeeded")

def test_a_call_to_no_reachable_replica_was_never_sent() -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        port = held.getsockname()[1]
        for address in (f"127.0.0.1:{port}", f"127.0.0.1:{port},127.0.0.1:{port}"):
            err = asyncio.run(_failure(address))
            assert err.code() == grpc.StatusCode.UNAVAILABLE
            assert never_sent(err), err.details()

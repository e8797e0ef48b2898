"""Unit tests of the outage mapping: which failures are a dependency being
down (retryable UNAVAILABLE) and which are bugs, the retry-after hint across
a gRPC hop, and that a write the peer may have applied is not retried."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
import grpc
import pytest

from engram_kit.context import CallerContext
from engram_kit.db import connection_failure
from engram_kit.errors import MD_RETRY_AFTER, DomainError, Unavailable, from_rpc_error
from engram_kit.grpc_client import Caller


def _chained(outer: Exception, cause: BaseException) -> Exception:
    outer.__cause__ = cause
    return outer


@pytest.mark.parametrize("exc", [
    asyncpg.CannotConnectNowError("the database system is starting up"),
    asyncpg.AdminShutdownError("terminating connection due to administrator command"),
    asyncpg.ConnectionDoesNotExistError("connection was closed in the middle of operation"),
    asyncpg.TooManyConnectionsError("sorry, too many clients already"),
    ConnectionRefusedError(111, "Connect call failed"),
    OSError("Multiple exceptions: [Errno 111] Connect call failed"),
    TimeoutError(),
    _chained(RuntimeError("wrapped"), ConnectionResetError(104, "reset by peer")),
])
def test_outages_are_recognised(exc: Exception):
    assert connection_failure(exc)


@pytest.mark.parametrize("exc", [
    ValueError("bad"), KeyError("x"), asyncpg.UniqueViolationError("duplicate key"),
    asyncpg.UndefinedColumnError("no such column"), FileNotFoundError(2, "missing"),
])
def test_bugs_and_bad_input_are_not_outages(exc: Exception):
    assert connection_failure(exc) == ""


def _rpc_error(code: grpc.StatusCode, details: str,
               trailing: tuple[tuple[str, str], ...] = ()) -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(*trailing),
                                details=details)


def test_retry_after_travels_in_trailing_metadata():
    err = from_rpc_error(_rpc_error(grpc.StatusCode.UNAVAILABLE, "memory: the database is "
                                    "unavailable", ((MD_RETRY_AFTER, "7"),)))
    assert isinstance(err, Unavailable) and err.retry_after_s == 7
    assert "database" in err.message
    plain = from_rpc_error(_rpc_error(grpc.StatusCode.UNAVAILABLE, "failed to connect to all "
                                      "addresses; last error: ipv4:127.0.0.1:8751: refused"))
    assert isinstance(plain, Unavailable) and plain.retry_after_s >= 1
    assert "127.0.0.1" not in plain.message  # gRPC's own text stays internal
    internal = from_rpc_error(_rpc_error(grpc.StatusCode.INTERNAL, "boom"))
    assert type(internal) is DomainError


def test_a_sent_write_is_not_retried_and_a_read_is():
    calls = {"n": 0}

    async def method(request: Any, metadata: Any, timeout: float) -> Any:
        calls["n"] += 1
        raise _rpc_error(grpc.StatusCode.UNAVAILABLE, "memory: the database is unavailable")

    caller = Caller("token")
    ctx = CallerContext(namespace="default", principal="agent")
    with pytest.raises(Unavailable):
        asyncio.run(caller.call(method, object(), ctx, idempotent=False))
    assert calls["n"] == 1
    calls["n"] = 0
    with pytest.raises(Unavailable):
        asyncio.run(caller.call(method, object(), ctx, idempotent=True, attempts=3))
    assert calls["n"] == 3

"""One exception tree for domain errors and the one mapping to gRPC codes.

Servicers raise these; the server interceptor turns them into statuses;
clients turn statuses back into the same classes. Messages are written for
the user who has to act on them and never contain internals.
"""

from __future__ import annotations

import grpc


class DomainError(Exception):
    code = grpc.StatusCode.INTERNAL
    kind = "internal"

    def __init__(self, message: str, *, field: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class InvalidArgument(DomainError):
    code = grpc.StatusCode.INVALID_ARGUMENT
    kind = "invalid_argument"


class NotFound(DomainError):
    code = grpc.StatusCode.NOT_FOUND
    kind = "not_found"


class Conflict(DomainError):
    code = grpc.StatusCode.FAILED_PRECONDITION
    kind = "conflict"


class PermissionDenied(DomainError):
    code = grpc.StatusCode.PERMISSION_DENIED
    kind = "permission_denied"


class Unauthenticated(DomainError):
    code = grpc.StatusCode.UNAUTHENTICATED
    kind = "unauthenticated"


class ResourceExhausted(DomainError):
    code = grpc.StatusCode.RESOURCE_EXHAUSTED
    kind = "resource_exhausted"


# Trailing metadata of an UNAVAILABLE status: seconds after which a retry may
# succeed (a dependency is down and usually back within seconds).
MD_RETRY_AFTER = "engram-retry-after-s"
DEFAULT_RETRY_AFTER_S = 2


class Unavailable(DomainError):
    """Retryable: a dependency (a peer, the database) is down or did not
    answer in time. Nothing here says whether a write was applied: callers
    retry reads, and writes only where the write is idempotent."""

    code = grpc.StatusCode.UNAVAILABLE
    kind = "unavailable"

    def __init__(self, message: str, *, field: str = "",
                 retry_after_s: int = DEFAULT_RETRY_AFTER_S) -> None:
        super().__init__(message, field=field)
        self.retry_after_s = max(1, int(retry_after_s))

    def trailing_metadata(self) -> tuple[tuple[str, str], ...]:
        return ((MD_RETRY_AFTER, str(self.retry_after_s)),)


class DeadlineExceeded(DomainError):
    code = grpc.StatusCode.DEADLINE_EXCEEDED
    kind = "deadline_exceeded"


class NotImplementedYet(DomainError):
    code = grpc.StatusCode.UNIMPLEMENTED
    kind = "unimplemented"


_BY_CODE: dict[grpc.StatusCode, type[DomainError]] = {
    cls.code: cls
    for cls in (
        InvalidArgument,
        NotFound,
        Conflict,
        PermissionDenied,
        Unauthenticated,
        ResourceExhausted,
        Unavailable,
        NotImplementedYet,
    )
}
_BY_CODE[grpc.StatusCode.DEADLINE_EXCEEDED] = Unavailable


def _retry_after(err: grpc.aio.AioRpcError | grpc.RpcError) -> int | None:
    """The hint our servers attach; None when gRPC itself failed the call."""
    trailing = err.trailing_metadata() if hasattr(err, "trailing_metadata") else None
    # The stubs type sync metadata as key/value objects; at runtime both kinds
    # are (key, value) pairs (cygrpc's are namedtuples).
    for key, value in trailing or ():  # pyright: ignore[reportGeneralTypeIssues]
        if key == MD_RETRY_AFTER:
            try:
                return max(1, int(value))
            except (TypeError, ValueError):
                return DEFAULT_RETRY_AFTER_S
    return None


def from_rpc_error(err: grpc.aio.AioRpcError | grpc.RpcError) -> DomainError:
    """Map a failed call back into the domain tree (client side)."""
    code = err.code() if hasattr(err, "code") else grpc.StatusCode.UNKNOWN
    details = err.details() if hasattr(err, "details") else ""
    cls = _BY_CODE.get(code, DomainError)
    if cls is DomainError:
        return DomainError("internal error in a backing service")
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return Unavailable("a backing service did not answer in time")
    if code == grpc.StatusCode.UNAVAILABLE:
        hint = _retry_after(err)
        if hint is None:  # gRPC's own text names addresses and sockets: not for users
            return Unavailable("a backing service is unavailable")
        return Unavailable(details or "a backing service is unavailable", retry_after_s=hint)
    return cls(details or cls.kind)

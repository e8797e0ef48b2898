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


class Unavailable(DomainError):
    code = grpc.StatusCode.UNAVAILABLE
    kind = "unavailable"


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


def from_rpc_error(err: grpc.aio.AioRpcError | grpc.RpcError) -> DomainError:
    """Map a failed call back into the domain tree (client side)."""
    code = err.code() if hasattr(err, "code") else grpc.StatusCode.UNKNOWN
    details = err.details() if hasattr(err, "details") else ""
    cls = _BY_CODE.get(code, DomainError)
    if cls is DomainError:
        return DomainError("internal error in a backing service")
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return Unavailable("a backing service did not answer in time")
    if code == grpc.StatusCode.UNAVAILABLE and not details:
        return Unavailable("a backing service is unavailable")
    return cls(details or cls.kind)

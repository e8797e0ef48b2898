"""The backend RPCs the gateway calls, named so that pyright checks them.

`MEMORY.Store` is typed as the generated stub's attribute
(`grpc.aio.UnaryUnaryMultiCallable[StoreRequest, StoreResponse]`, from the
`*_pb2_grpc.pyi` that mypy-protobuf writes into contracts/), so a misspelt
RPC, a wrong request message or a wrong reply shape fails `make lint`. At
run time it is an `RpcName` (which channel, which proto service, which
method): a handle for `Calls.call` / `Backends.call`, never called itself.
Declared once at import, so tool registry entries can name their RPC."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar, cast

import grpc
from google.protobuf.descriptor import FileDescriptor

from engram.v1 import (
    audit_pb2,
    audit_pb2_grpc,
    coordination_pb2,
    coordination_pb2_grpc,
    cortex_pb2,
    cortex_pb2_grpc,
    dreamer_pb2,
    dreamer_pb2_grpc,
    memory_pb2,
    memory_pb2_grpc,
)

Req = TypeVar("Req")
Resp = TypeVar("Resp")
Rpc = grpc.aio.UnaryUnaryMultiCallable  # Rpc[Req, Resp], as the stubs type each RPC
S = TypeVar("S")


class Service(StrEnum):
    """A backing service: one channel each."""

    MEMORY = "memory"
    CORTEX = "cortex"
    COORDINATION = "coordination"
    DREAMER = "dreamer"


@dataclass(frozen=True)
class RpcName:
    service: Service  # the channel
    stub: str  # the proto service on it, e.g. "CortexFacts"
    method: str

    def __call__(self, *_: Any, **__: Any) -> Any:
        raise TypeError(f"{self.stub}.{self.method} is a name: call it through Calls")


class _Names:
    """Each RPC of the given proto services, by method name (cortex serves
    several services on one channel; their RPC names are unique across them)."""

    def __init__(self, service: Service, file: FileDescriptor, *stubs: str) -> None:
        self._names = {m.name: RpcName(service, stub, m.name)
                       for stub in stubs for m in file.services_by_name[stub].methods}

    def __getattr__(self, method: str) -> RpcName:
        try:
            return self._names[method]
        except KeyError:
            raise AttributeError(method) from None


def _names(typed_as: type[S], service: Service, file: FileDescriptor, *stubs: str) -> S:
    # The cast is what lets pyright read the stub's typed RPC attributes.
    return cast(S, _Names(service, file, *stubs))


def name_of(rpc: Rpc[Any, Any]) -> RpcName:
    """The handle behind an RPC named here (anything else is a bug)."""
    if not isinstance(rpc, RpcName):
        raise TypeError(f"not an RPC of engram_gateway.rpcs: {rpc!r}")
    return rpc


class CortexStubs(cortex_pb2_grpc.CortexFactsStub, cortex_pb2_grpc.CortexGraphStub,
                  cortex_pb2_grpc.CortexKnowledgeStub, cortex_pb2_grpc.CortexReviewStub,
                  cortex_pb2_grpc.CortexLifecycleStub):
    """The RPCs of every service cortex serves, as one type for the checker
    (tests/unit/test_gateway_rpcs.py holds it to cortex.proto's services)."""


CORTEX_STUBS = tuple(cortex_pb2.DESCRIPTOR.services_by_name)

MEMORY = _names(memory_pb2_grpc.MemoryServiceStub, Service.MEMORY, memory_pb2.DESCRIPTOR,
                "MemoryService")
CORTEX = _names(CortexStubs, Service.CORTEX, cortex_pb2.DESCRIPTOR, *CORTEX_STUBS)
COORDINATION = _names(coordination_pb2_grpc.CoordinationServiceStub, Service.COORDINATION,
                      coordination_pb2.DESCRIPTOR, "CoordinationService")
DREAMER = _names(dreamer_pb2_grpc.DreamerServiceStub, Service.DREAMER, dreamer_pb2.DESCRIPTOR,
                 "DreamerService")
# The audit RPCs, which each auditing service serves beside its own.
AUDIT = {service: _names(audit_pb2_grpc.AuditServiceStub, service, audit_pb2.DESCRIPTOR,
                         "AuditService")
         for service in (Service.MEMORY, Service.CORTEX, Service.COORDINATION)}

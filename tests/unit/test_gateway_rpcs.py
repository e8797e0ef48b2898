"""The gateway names each backend RPC in engram_gateway.rpcs, typed as the
generated stubs type it: pyright (`make lint`) checks a call's RPC name,
request and reply types. What pyright cannot see is checked here: that the
types it reads match what the gateway dispatches at run time."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import SecretStr

from engram.v1 import cortex_pb2, cortex_pb2_grpc, memory_pb2
from engram_gateway.clients import Backends
from engram_gateway.registry import operations
from engram_gateway.rpcs import (
    AUDIT,
    COORDINATION,
    CORTEX,
    CORTEX_STUBS,
    DREAMER,
    MEMORY,
    CortexStubs,
    RpcName,
    Service,
    name_of,
)
from engram_gateway.settings import GatewaySettings

NAMED = [MEMORY, CORTEX, COORDINATION, DREAMER, *AUDIT.values()]


def _every_rpc() -> list[RpcName]:
    return [n for handles in NAMED for n in vars(handles)["_names"].values()]


def test_the_checkers_cortex_type_has_every_cortex_service():
    """pyright types rpcs.CORTEX as CortexStubs: a cortex service missing
    from its bases would leave its RPCs unknown to the checker."""
    bases = {b.__name__ for b in CortexStubs.__bases__}
    assert bases == {f"{s}Stub" for s in cortex_pb2.DESCRIPTOR.services_by_name}
    assert all(getattr(cortex_pb2_grpc, b) in CortexStubs.__bases__ for b in bases)
    assert set(CORTEX_STUBS) == set(cortex_pb2.DESCRIPTOR.services_by_name)


def test_cortex_rpc_names_are_unique_across_its_services():
    names = [m.name for s in cortex_pb2.DESCRIPTOR.services_by_name.values()
             for m in s.methods]
    assert len(names) == len(set(names))


def test_a_misspelt_rpc_fails_at_import_too():
    with pytest.raises(AttributeError):
        _ = MEMORY.Stor  # pyright: ignore[reportAttributeAccessIssue]
    with pytest.raises(TypeError):
        MEMORY.Store(memory_pb2.StoreRequest())  # a name: calls go through Calls


def test_every_registry_operation_names_its_rpc_here():
    for spec, action, op in operations():
        if op.rpc is not None:
            assert isinstance(name_of(op.rpc), RpcName), f"{spec.name} {action}"


async def test_backends_dispatch_every_named_rpc_to_a_stub_method(tmp_path: Path):
    """Every RPC named here resolves to a method of the stub on its
    service's channel (the audit RPCs on each auditing service's own)."""
    backends = Backends(GatewaySettings(internal_token=SecretStr("x"),
                                        tokens_file=str(tmp_path / "principals.json")))
    backends.open()
    try:
        for rpc in _every_rpc():
            stub = backends._stubs[rpc.service][rpc.stub]
            assert callable(getattr(stub, rpc.method)), rpc
        assert name_of(AUDIT[Service.CORTEX].AuditShow).service is Service.CORTEX
    finally:
        await backends.close()

"""The gateway names a backend RPC by service and method string
(engram_gateway.clients): every name it uses must be an RPC that service
serves in proto/, so a typo or a renamed RPC fails here, not at a caller."""

from __future__ import annotations

import re

from google.protobuf.descriptor import FileDescriptor

from engram.v1 import audit_pb2, coordination_pb2, cortex_pb2, dreamer_pb2, memory_pb2
from engram_gateway.clients import AUDIT_METHODS, Service
from engram_gateway.registry import operations

from ..paths import REPO_ROOT

GATEWAY = REPO_ROOT / "services" / "gateway" / "engram_gateway"
FILES: dict[Service, FileDescriptor] = {
    Service.MEMORY: memory_pb2.DESCRIPTOR, Service.CORTEX: cortex_pb2.DESCRIPTOR,
    Service.COORDINATION: coordination_pb2.DESCRIPTOR, Service.DREAMER: dreamer_pb2.DESCRIPTOR}
AUDITED = {Service.MEMORY, Service.CORTEX, Service.COORDINATION}
# inv.calls.cortex("SessionChanges", ...) and backends.call(Service.X, "Name", ...)
BY_HELPER = re.compile(r"calls\.(memory|cortex|coordination|dreamer)\(\s*\"(\w+)\"")
BY_SERVICE = re.compile(r"Service\.(MEMORY|CORTEX|COORDINATION|DREAMER),\s*\"(\w+)\"")


def rpcs(service: Service) -> set[str]:
    names = {m.name for s in FILES[service].services_by_name.values() for m in s.methods}
    if service in AUDITED:
        names |= {m.name for m in audit_pb2.DESCRIPTOR.services_by_name["AuditService"].methods}
    return names


def test_the_audit_methods_are_the_audit_services():
    served = {m.name for m in audit_pb2.DESCRIPTOR.services_by_name["AuditService"].methods}
    assert set(AUDIT_METHODS) == served


def test_every_registry_operation_calls_an_rpc_its_service_serves():
    wrong = [f"{tool.name}/{action}: {op.service}.{op.method}" for tool, action, op in operations()
             if op.service is not None and op.method not in rpcs(op.service)]
    assert not wrong, wrong


def test_every_call_written_in_the_gateway_names_a_served_rpc():
    found, wrong = 0, []
    for path in sorted(GATEWAY.rglob("*.py")):
        text = path.read_text()
        calls = [(Service(h), m) for h, m in BY_HELPER.findall(text)]
        calls += [(Service[s], m) for s, m in BY_SERVICE.findall(text)]
        found += len(calls)
        wrong += [f"{path.relative_to(REPO_ROOT)}: {s}.{m}" for s, m in calls
                  if m not in rpcs(s)]
    assert found > 20, "the scan found no calls: the call shapes have changed, update it"
    assert not wrong, wrong

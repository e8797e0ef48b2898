"""A write that crosses two services converges after a partial failure: the
callee committed but its reply was lost (the connection cut right after it),
or it was killed mid-call. The caller's mark is finalised exactly once and
the callee's effect happens once."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

from engram.v1 import cortex_pb2, cortex_pb2_grpc, dreamer_pb2, dreamer_pb2_grpc
from engram_kit.context import CallerContext
from engram_kit.errors import Conflict, DeadlineExceeded, DomainError, Unavailable
from engram_kit.grpc_client import Caller, open_channel
from engram_runner.stack import Stack

from ..helpers import admin_fetchval, call, eventually, mcp_client
from ..procs import service_process

HEADERS = 0x1


class ReplyCutter:
    """A TCP proxy in front of a gRPC server. Armed, it forwards the request
    and cuts the connection when the reply's HEADERS frame comes back, i.e.
    after the server's handler finished (and committed)."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.port = 0  # the OS picks it when the proxy starts
        self.armed = False
        self.cuts = 0
        self._server: asyncio.AbstractServer | None = None
        self._open: set[asyncio.StreamWriter] = set()

    def reroute(self, upstream_port: int) -> None:
        """New connections go to `upstream_port`; the open ones are cut."""
        self.upstream_port = upstream_port
        for writer in self._open:
            writer.transport.abort()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        except OSError:
            writer.close()
            return
        self._open.add(writer)
        await asyncio.gather(self._pipe(reader, up_w), self._replies(up_r, writer),
                             return_exceptions=True)
        self._open.discard(writer)
        for w in (writer, up_w):
            w.close()

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
        writer.close()

    async def _replies(self, reader: asyncio.StreamReader,
                       writer: asyncio.StreamWriter) -> None:
        """Server to client, frame by frame (after the 0-byte preface-free
        server side: HTTP/2 frames only)."""
        while True:
            header = await reader.readexactly(9)
            body = await reader.readexactly(int.from_bytes(header[:3], "big"))
            if self.armed and header[3] == HEADERS:
                self.armed = False
                self.cuts += 1
                writer.transport.abort()
                raise ConnectionError("reply cut")
            writer.write(header + body)
            await writer.drain()


async def _merge_fact_proposal(admin_dsn: str, ns: str, entity: str) -> uuid.UUID:
    pid = uuid.uuid4()
    await admin_fetchval(
        admin_dsn, """INSERT INTO dreamer.proposals (namespace, id, signature, kind, src,
               relation, dst, evidence_quote, run_id, entity, value)
           VALUES ($1, $2, $3, 'merge_fact', 'db', 'same_value', 'database', 'q', $4, $5,
                   'postgres') RETURNING id""",
        ns, pid, f"merge_fact|{entity}|db|database", uuid.uuid4(), entity)
    return pid


async def _decide(caller: Caller, stub: dreamer_pb2_grpc.DreamerServiceStub,
                  ctx: CallerContext, pid: uuid.UUID) -> dreamer_pb2.Proposal:
    request = dreamer_pb2.DecideProposalRequest(proposal_id=str(pid), decision="approve",
                                                reasoning="one database")
    return (await caller.call(stub.DecideProposal, request, ctx)).proposal


async def _sides(admin_dsn: str, ns: str, pid: uuid.UUID, entity: str) -> tuple:
    """(the dreamer's proposal status, cortex's retractions, live attributes)."""
    status = await admin_fetchval(admin_dsn, "SELECT status FROM dreamer.proposals "
                                  "WHERE id = $1", pid)
    retracted = await admin_fetchval(
        admin_dsn, "SELECT count(*) FROM cortex.audit WHERE namespace = $1 "
        "AND action = 'fact.retract' AND detail->>'reason' LIKE $2", ns,
        f"duplicate of {entity}.%")
    live = await admin_fetchval(
        admin_dsn, "SELECT array_agg(attribute ORDER BY attribute) FROM cortex.facts "
        "WHERE namespace = $1 AND entity = $2 AND verdict = 'active'", ns, entity)
    return status, retracted, live


async def test_a_cortex_write_that_fails_midway_converges_once(stack: Stack, admin_dsn: str,
                                                               tmp_path: Path):
    ns = f"rw-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    async with mcp_client(stack.mcp_url, token) as client:
        for entity in ("billing-api", "search-api"):
            for attribute in ("db", "database"):
                await call(client, "fact_set", {"entity": entity, "attribute": attribute,
                                                "value": "postgres"})
    lost, killed = (await _merge_fact_proposal(admin_dsn, ns, "billing-api"),
                    await _merge_fact_proposal(admin_dsn, ns, "search-api"))
    cortex_port = int(stack.topology.services["cortex"].env["ENGRAM_GRPC_PORT"])
    cutter = ReplyCutter(cortex_port)
    await cutter.start()
    caller = Caller(stack.secrets["ENGRAM_INTERNAL_TOKEN"], default_timeout_s=60)
    reviewer = CallerContext(principal=f"rv-{ns}", namespace=ns, role="reviewer")
    try:
        with service_process(stack, "dreamer", {
                "ENGRAM_CORTEX_ADDR": f"127.0.0.1:{cutter.port}",
                "ENGRAM_CONSUMER_DURABLE": f"dreamer-{ns}", "ENGRAM_TRIGGER_BACKLOG": "0",
                "ENGRAM_TRIGGER_IDLE_S": "0", "ENGRAM_TRIGGER_SCHEDULE_S": "0"},
                tmp_path) as proc:
            stub = dreamer_pb2_grpc.DreamerServiceStub(open_channel(f"127.0.0.1:{proc['grpc']}"))
            # 1. cortex retracts the duplicate, and its reply is lost
            cutter.armed = True
            try:
                await _decide(caller, stub, reviewer, lost)
            except DomainError:  # the reviewer retries the same decision
                await _decide(caller, stub, reviewer, lost)
            assert cutter.cuts == 1, "the reply was lost after cortex wrote"
            assert await _sides(admin_dsn, ns, lost, "billing-api") == (
                "approved", 1, ["database"])
            # 2. cortex is killed: the approval stays marked, nothing applied
            with service_process(stack, "cortex", {}, tmp_path) as extra:
                cutter.reroute(extra["grpc"])
                extra["proc"].kill()
                extra["proc"].wait(10)
                try:
                    await _decide(caller, stub, reviewer, killed)
                    raise AssertionError("decided with cortex down")
                except (Unavailable, DeadlineExceeded):
                    pass
            assert await _sides(admin_dsn, ns, killed, "search-api") == (
                "applying", 0, ["database", "db"])
            # cortex is back: the next pass finishes the approval, once
            cutter.reroute(cortex_port)
            await caller.call(stub.Run, dreamer_pb2.DreamRunRequest(),
                              CallerContext(principal=f"p-{ns}", namespace=ns))
            await caller.call(stub.Run, dreamer_pb2.DreamRunRequest(),
                              CallerContext(principal=f"p-{ns}", namespace=ns))
    finally:
        await cutter.close()
    assert await _sides(admin_dsn, ns, killed, "search-api") == ("approved", 1, ["database"])
    assert await _sides(admin_dsn, ns, lost, "billing-api") == ("approved", 1, ["database"])


async def test_a_keyed_cortex_write_repeated_takes_effect_once(stack: Stack, admin_dsn: str):
    ns = f"rw-{uuid.uuid4().hex[:6]}"
    port = int(stack.topology.services["cortex"].env["ENGRAM_GRPC_PORT"])
    stub = cortex_pb2_grpc.CortexFactsStub(open_channel(f"127.0.0.1:{port}"))
    caller = Caller(stack.secrets["ENGRAM_INTERNAL_TOKEN"], default_timeout_s=60)
    ctx = CallerContext(principal=f"p-{ns}", namespace=ns, idempotency_key="write-1")
    request = cortex_pb2.SetFactRequest(entity="search-api", attribute="port", value="8080")
    first = await caller.call(stub.SetFact, request, ctx)
    again = await caller.call(stub.SetFact, request, ctx)
    assert (again.action, again.fact.id) == (first.action, first.fact.id) == (
        "insert", first.fact.id)
    actions = await admin_fetchval(
        admin_dsn, "SELECT array_agg(action ORDER BY id) FROM cortex.audit "
        "WHERE namespace = $1", ns)
    assert actions == ["fact.insert"], "a repeat neither wrote nor confirmed again"
    other = cortex_pb2.SetFactRequest(entity="search-api", attribute="port", value="9090")
    try:
        await caller.call(stub.SetFact, other, ctx)
        raise AssertionError("a key reused for another request was accepted")
    except Conflict as exc:
        assert "idempotency key 'write-1' was used for a different request" in exc.message


async def test_a_dream_pass_whose_fact_reply_is_lost_records_it_once(
        stack: Stack, admin_dsn: str, tmp_path: Path):
    """The pass's fact write is keyed: the retry after the lost reply gets the
    first reply, so the run records the fact and cortex holds it once."""
    ns = f"rw-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    async with mcp_client(stack.mcp_url, token) as client:
        await call(client, "memory_store", {"text": "ledger-api uses PostgreSQL 16."})

        async def one_pending() -> bool:
            status = await call(client, "dream", {"action": "status"})
            return status["pending_entries"] == 1
        await eventually(one_pending, 30, "the entry pending")
    cortex_port = int(stack.topology.services["cortex"].env["ENGRAM_GRPC_PORT"])
    cutter = ReplyCutter(cortex_port)
    await cutter.start()
    caller = Caller(stack.secrets["ENGRAM_INTERNAL_TOKEN"], default_timeout_s=60)
    try:
        with service_process(stack, "dreamer", {
                "ENGRAM_CORTEX_ADDR": f"127.0.0.1:{cutter.port}",
                "ENGRAM_CONSUMER_DURABLE": f"dreamer-{ns}", "ENGRAM_TRIGGER_BACKLOG": "0",
                "ENGRAM_TRIGGER_IDLE_S": "0", "ENGRAM_TRIGGER_SCHEDULE_S": "0"},
                tmp_path) as proc:
            stub = dreamer_pb2_grpc.DreamerServiceStub(open_channel(f"127.0.0.1:{proc['grpc']}"))
            cutter.armed = True  # the pass's first cortex call is its fact write
            run = (await caller.call(stub.Run, dreamer_pb2.DreamRunRequest(),
                                     CallerContext(principal=f"p-{ns}", namespace=ns))).run
    finally:
        await cutter.close()
    assert cutter.cuts == 1, "the fact write's reply was lost"
    assert (run.status, run.facts_written, run.errors) == ("committed", 1, 0), run
    facts = await admin_fetchval(admin_dsn, "SELECT count(*) FROM cortex.facts "
                                 "WHERE namespace = $1 AND entity = 'ledger-api'", ns)
    actions = await admin_fetchval(admin_dsn, "SELECT array_agg(action ORDER BY id) FROM "
                                   "cortex.audit WHERE namespace = $1", ns)
    recorded = await admin_fetchval(admin_dsn, "SELECT count(*) FROM dreamer.run_facts "
                                    "WHERE namespace = $1", ns)
    assert (facts, actions, recorded) == (1, ["fact.insert"], 1)

"""Shared test helpers: MCP client over real HTTP, DB access, waiting."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import asyncpg
import httpx
import httpx2
import nats
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, TextContent
from nats.aio.client import Client as NatsClient

from engram_cli.settings import CliSettings

if TYPE_CHECKING:
    from engram_runner.stack import Stack


@asynccontextmanager
async def mcp_client(url: str, token: str, session: str = "") -> AsyncIterator[Client]:
    """An MCP client; `session` makes it a distinct agent instance of its principal."""
    headers = {"Authorization": f"Bearer {token}"}
    if session:
        headers["X-Engram-Session"] = session
    http = httpx2.AsyncClient(headers=headers, timeout=30)
    async with Client(streamable_http_client(url, http_client=http)) as client:
        yield client


def cli_settings(stack: Stack, **changes: Any) -> CliSettings:
    """The settings an `engram` command run against `stack` reads: the
    stack's own (data dir, ports) and any command setting in `changes`."""
    return CliSettings(**{**stack.settings.model_dump(), **changes})


def result_text(result: CallToolResult) -> str:
    """The text of a tool result's first content block, "" when it has none:
    engram's replies and errors are text, so any other block is a failure."""
    if not result.content:
        return ""
    block = result.content[0]
    if not isinstance(block, TextContent):
        raise TypeError(f"expected a text block, got {block.type}")
    return block.text


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """Call a tool that must succeed; returns its structured reply."""
    result = await client.call_tool(tool, args)
    assert not result.is_error, result_text(result)
    return result.structured_content or json.loads(result_text(result))


async def call_error(client: Client, tool: str, args: dict[str, Any]) -> str:
    """Call a tool that must fail; returns the error text the agent sees."""
    result = await client.call_tool(tool, args)
    assert result.is_error, f"{tool} unexpectedly succeeded: {result.content}"
    return result_text(result)


async def admin_fetchval(dsn: str, sql: str, *args: Any) -> Any:
    conn = await asyncpg.connect(dsn)
    try:
        return await conn.fetchval(sql, *args)
    finally:
        await conn.close()


async def eventually(check: Callable[[], Awaitable[bool]], timeout_s: float = 30.0,
                     what: str = "condition") -> None:
    deadline = time.monotonic() + timeout_s
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not reached within {timeout_s}s")
        await asyncio.sleep(0.2)


async def postings_out_of_step(dsn: str, postings: str, key: str, rows: str,
                               length_column: str = "") -> int:
    """How many (namespace, lexeme, row id[, row length]) tuples differ
    between a postings table and the lexemes of the rows it indexes (both
    ways). `length_column` holds length(tsv) where the postings keep it."""
    kept = f"SELECT namespace, lexeme, {key}" + (f", {length_column}" if length_column else "")
    derived = ("SELECT r.namespace, u.lexeme, r.id" + (", length(r.tsv)" if length_column else "")
               + f" FROM memory.{rows} r, unnest(r.tsv) u")
    return await admin_fetchval(
        dsn, f"SELECT count(*) FROM (({kept} FROM memory.{postings} EXCEPT {derived})"
             f" UNION ALL ({derived} EXCEPT {kept} FROM memory.{postings})) differ")


async def nats_client(stack: Stack, user: str,
                      errors: list[str] | None = None) -> NatsClient:
    """A NATS connection as one of the stack's NATS users (admin, memory,
    cortex, dreamer, coordination), with that user's own reply inbox; the
    server's asynchronous errors (permission violations) land in `errors`."""
    async def on_error(exc: Exception) -> None:
        if errors is not None:
            errors.append(str(exc))

    return await nats.connect(f"nats://127.0.0.1:{stack.topology.infra_ports['nats']}",
                              user=user, password=stack.secrets[
                                  f"ENGRAM_NATS_{user.upper()}_PASSWORD"],
                              inbox_prefix=f"_INBOX_{user}", connect_timeout=2,
                              allow_reconnect=False, max_reconnect_attempts=0,
                              error_cb=on_error)


def stdio_bridge_params(url: str, token: str, session: str = "",
                        token_file: str = "") -> StdioServerParameters:
    """`engram mcp-stdio` as the SDK's stdio client spawns it: this checkout's
    code, the gateway at `url`, the token in ENGRAM_TOKEN (or `token_file`)."""
    env = {"ENGRAM_URL": url, "ENGRAM_TOKEN": token}
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    if session:
        env["ENGRAM_SESSION"] = session
    args = ["-m", "engram_cli", "mcp-stdio", *(["--token-file", token_file] if token_file else [])]
    return StdioServerParameters(command=sys.executable, args=args, env=env)


@asynccontextmanager
async def mcp_stdio_client(url: str, token: str, session: str = "",
                           **options: Any) -> AsyncIterator[Client]:
    """An MCP client over stdio, through the bridge to the gateway at `url`."""
    async with Client(stdio_bridge_params(url, token, session), **options) as client:
        yield client


def rest_client(stack: Stack, headers: dict[str, str]) -> httpx.AsyncClient:
    """An HTTP client for the gateway's REST routes, with `headers` on every call."""
    return httpx.AsyncClient(base_url=stack.mcp_url.removesuffix("/mcp"), headers=headers,
                             timeout=60)


async def ok_json(r: httpx.Response) -> Any:
    """The reply's JSON, after asserting a 200 (the failure names the call)."""
    assert r.status_code == 200, f"{r.request.method} {r.request.url}: {r.status_code} {r.text}"
    return r.json()


@asynccontextmanager
async def tampered_audit_row(admin_dsn: str, namespace: str) -> AsyncIterator[int]:
    """Alter the first memory audit row of `namespace` (as an attacker with
    database access would) and put it back on exit, so the stack's chains
    verify clean again for the tests that follow."""
    conn = await asyncpg.connect(admin_dsn)
    try:
        row = await conn.fetchrow("SELECT id, subject FROM memory.audit WHERE namespace = $1 "
                                  "ORDER BY id LIMIT 1", namespace)
        assert row is not None, f"no memory audit row in {namespace}"
        await conn.execute("UPDATE memory.audit SET subject = 'tampered' WHERE id = $1", row["id"])
        try:
            yield row["id"]
        finally:
            await conn.execute("UPDATE memory.audit SET subject = $2 WHERE id = $1",
                               row["id"], row["subject"])
    finally:
        await conn.close()

"""MCP tools for a memory's lifecycle: get, recent, supersede, forget, reinforce,
rescue."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

from engram.v1 import memory_pb2
from engram_kit.timestamps import to_timestamp

from .auth import caller_for
from .clients import Backends
from .errors import tool_errors
from .shaping import get_reply, parse_time, recent_reply, rescue_reply, store_reply
from .tools import Namespace, session_id

EntryId = Annotated[str, Field(description="The entry's id (from store/search replies).")]
READ = ToolAnnotations(read_only_hint=True, idempotent_hint=True)


def register_lifecycle_tools(mcp: MCPServer, backends: Backends) -> None:
    @mcp.tool(annotations=READ)
    async def memory_get(id: EntryId, ctx: Context, namespace: Namespace = None) -> dict[str, Any]:
        """One entry with its provenance, version history and links (supersedes, related,
        contradicts). Works for superseded entries too; the label says what it is."""
        caller = caller_for(namespace, session_id(ctx), "memory_get")
        with tool_errors("memory_get", caller.request_id):
            reply = await backends.memory("Get", caller, memory_pb2.GetRequest(id=id))
            return get_reply(reply)

    @mcp.tool(annotations=READ)
    async def memory_recent(
        ctx: Context,
        n: Annotated[int, Field(ge=1, le=50, description="How many (1-50).")] = 10,
        tags: Annotated[list[str] | None, Field(description="Only entries with all tags.")] = None,
        source: Annotated[str, Field(description="Only entries from this source.")] = "",
        verbose: Annotated[bool, Field(description="Include provenance fields.")] = False,
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """The newest current memories, newest first: {entries, tokens}."""
        caller = caller_for(namespace, session_id(ctx), "memory_recent")
        with tool_errors("memory_recent", caller.request_id):
            request = memory_pb2.RecentRequest(n=n, tags=tags or [], source=source)
            return recent_reply(await backends.memory("Recent", caller, request), verbose)

    @mcp.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False,
                                          idempotent_hint=False))
    async def memory_supersede(
        entry_id: EntryId, new_text: Annotated[str, Field(description="The corrected memory.")],
        ctx: Context,
        reason: Annotated[str, Field(description="Why the old one is wrong or outdated.")] = "",
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """Correct a memory: stores `new_text` and retires the entry it replaces (kept as
        history, never served as current). Fails if the entry is missing or already retired.
        Returns {id, superseded, ...}."""
        caller = caller_for(namespace, session_id(ctx), "memory_supersede")
        with tool_errors("memory_supersede", caller.request_id):
            request = memory_pb2.SupersedeRequest(entry_id=entry_id, new_text=new_text,
                                                  reason=reason)
            return store_reply(await backends.memory("Supersede", caller, request))

    @mcp.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True,
                                          idempotent_hint=True))
    async def memory_forget(
        reason: Annotated[str, Field(description="Why it must be forgotten (kept).")],
        ctx: Context,
        entry_id: Annotated[str, Field(description="One entry to forget.")] = "",
        tags: Annotated[list[str] | None, Field(description="Or: entries with all tags.")] = None,
        source: Annotated[str, Field(description="Or: entries from this source.")] = "",
        before: Annotated[str | None, Field(description="Or: entries valid before.")] = None,
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """Delete memories for good (rows, vectors, full-text data) by id or by filter (at
        least one). A tombstone keeps who, why, when and a keyed digest (no words), so
        storing the same content later is reported as `reasserts_forgotten`.
        Returns {forgotten, tombstones}."""
        caller = caller_for(namespace, session_id(ctx), "memory_forget")
        with tool_errors("memory_forget", caller.request_id):
            request = memory_pb2.ForgetRequest(
                entry_id=entry_id, tags=tags or [], source=source, reason=reason,
                before=to_timestamp(parse_time(before, "before")))
            reply = await backends.memory("Forget", caller, request)
            return {"forgotten": list(reply.forgotten), "tombstones": list(reply.tombstones)}

    @mcp.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False,
                                          idempotent_hint=False))
    async def memory_reinforce(entry_id: EntryId, ctx: Context,
                               namespace: Namespace = None) -> dict[str, Any]:
        """Mark a memory as confirmed useful again: {id, confirmations}."""
        caller = caller_for(namespace, session_id(ctx), "memory_reinforce")
        with tool_errors("memory_reinforce", caller.request_id):
            reply = await backends.memory("Reinforce", caller,
                                          memory_pb2.ReinforceRequest(entry_id=entry_id))
            return {"id": reply.id, "confirmations": reply.confirmations}

    @mcp.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False,
                                          idempotent_hint=True))
    async def memory_rescue(
        entry_id: EntryId, ctx: Context,
        reason: Annotated[str, Field(description="Why it matters (kept with the rescue).")] = "",
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """Bring an archived memory back into search, or protect a live one: a rescued
        entry is never archived by a later dream pass. {id, was_archived, rescued_at}."""
        caller = caller_for(namespace, session_id(ctx), "memory_rescue")
        with tool_errors("memory_rescue", caller.request_id):
            return rescue_reply(await backends.memory("Rescue", caller, memory_pb2.RescueRequest(
                entry_id=entry_id, reason=reason)))

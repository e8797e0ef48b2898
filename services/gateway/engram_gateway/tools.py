"""MCP tools: validate, authorise, call, shape. No domain logic here."""

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
from .shaping import parse_time, search_reply, store_reply

Namespace = Annotated[str | None, Field(description="Namespace to act in; default: your first.")]


def _session_id(ctx: Context) -> str:
    request = getattr(ctx.request_context, "request", None)
    headers = getattr(request, "headers", None)
    return headers.get("mcp-session-id", "") if headers is not None else ""


def register_memory_tools(mcp: MCPServer, backends: Backends) -> None:
    @mcp.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False,
                                          idempotent_hint=False))
    async def memory_store(
        text: Annotated[str, Field(description="The memory, in plain words (max 16000 chars).")],
        ctx: Context,
        source: Annotated[str, Field(description="Where it came from (file, url, chat).")] = "",
        tags: Annotated[list[str] | None, Field(description="Lowercase dotted tags.")] = None,
        origin: Annotated[str, Field(description="user | agent | assistant | action")] = "agent",
        episode: Annotated[str, Field(description="Episode/session label.")] = "",
        valid_from: Annotated[str | None, Field(description="ISO date it became true.")] = None,
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """Store a durable memory (a fact, decision, preference, lesson) after it is learned.

        Returns {id, finding, related, superseded, embedded}. finding says how it relates
        to what is already stored: new, restatement (already known; nothing added) or
        paraphrase (near-duplicate; linked in `related`). Search first, and correct an old
        memory instead of storing a contradicting duplicate."""
        caller = caller_for(namespace, _session_id(ctx))
        with tool_errors("memory_store", caller.request_id):
            request = memory_pb2.StoreRequest(
                text=text, source=source, tags=tags or [], origin=origin, episode=episode,
                valid_from=to_timestamp(parse_time(valid_from, "valid_from")),
            )
            return store_reply(await backends.memory_store(caller, request))

    @mcp.tool(annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True))
    async def memory_search(
        query: Annotated[str, Field(description="What you want to know, in natural words.")],
        ctx: Context,
        top_k: Annotated[int, Field(ge=1, description="How many results (1-50).")] = 5,
        tags: Annotated[list[str] | None, Field(description="Only entries with all tags.")] = None,
        source: Annotated[str, Field(description="Only entries from this source.")] = "",
        since: Annotated[str | None, Field(description="ISO date: valid from on/after.")] = None,
        until: Annotated[str | None, Field(description="ISO date: valid from before.")] = None,
        explain: Annotated[bool, Field(description="Include the ranking trace.")] = False,
        verbose: Annotated[bool, Field(description="Include provenance fields.")] = False,
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """Search long-term memory before acting on anything you might already know.

        Hybrid retrieval (semantic + full-text, fused). Returns {entries, facts, layer, mode,
        notes, tokens}; each entry has id, text, score, tags, source, date, label. Only live
        (current) entries are served."""
        caller = caller_for(namespace, _session_id(ctx))
        with tool_errors("memory_search", caller.request_id):
            request = memory_pb2.SearchRequest(
                query=query, top_k=top_k, tags=tags or [], source=source, explain=explain,
                since=to_timestamp(parse_time(since, "since")),
                until=to_timestamp(parse_time(until, "until")),
            )
            return search_reply(await backends.memory_search(caller, request), verbose, explain)

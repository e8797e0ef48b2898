"""MCP tools: validate, authorise, call, shape. No domain logic here."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

from engram.v1 import memory_pb2
from engram_kit.timestamps import to_timestamp

from .auth import caller_for
from .clients import Backends
from .errors import tool_errors
from .fact_block import served_facts
from .shaping import parse_time, search_reply, store_reply

Namespace = Annotated[str | None, Field(description="Namespace to act in; default: your first.")]


def session_id(ctx: Context) -> str:
    """The client's session: the MCP session header (handshake-era clients),
    else an `X-Engram-Session` header the client may send, else empty (the
    caller falls back to one rolling session per principal)."""
    request = getattr(ctx.request_context, "request", None)
    headers = getattr(request, "headers", None)
    if headers is None:
        return ""
    return headers.get("mcp-session-id", "") or headers.get("x-engram-session", "")


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
        supersedes: Annotated[str, Field(description="Id of the entry this replaces.")] = "",
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """Store a durable memory (a fact, decision, preference, lesson) after it is learned.

        Returns {id, finding, related, superseded, embedded}. finding says how it relates
        to what is stored: new; restatement (already known, nothing added); paraphrase
        (near-duplicate, linked in `related`); update (it corrects an entry, which is now
        superseded: pass `supersedes`, or phrase it as a correction); conflict (it disagrees
        with an entry and neither replaces the other: both kept, see `contested_with`).
        `reasserts_forgotten` is set when the same content was forgotten before."""
        caller = caller_for(namespace, session_id(ctx), "memory_store")
        with tool_errors("memory_store", caller.request_id):
            request = memory_pb2.StoreRequest(
                text=text, source=source, tags=tags or [], origin=origin, episode=episode,
                valid_from=to_timestamp(parse_time(valid_from, "valid_from")),
                supersedes=supersedes,
            )
            return store_reply(await backends.memory("Store", caller, request))

    @mcp.tool(annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True))
    async def memory_search(
        query: Annotated[str, Field(description="What you want to know, in natural words.")],
        ctx: Context,
        top_k: Annotated[int, Field(ge=1, le=50, description="How many results (1-50).")] = 5,
        tags: Annotated[list[str] | None, Field(description="Only entries with all tags.")] = None,
        source: Annotated[str, Field(description="Only entries from this source.")] = "",
        since: Annotated[str | None, Field(description="ISO date: valid from on/after.")] = None,
        until: Annotated[str | None, Field(description="ISO date: valid from before.")] = None,
        explain: Annotated[bool, Field(description="Include the ranking trace.")] = False,
        verbose: Annotated[bool, Field(description="Include provenance fields.")] = False,
        episode: Annotated[str, Field(description="Only entries of this episode.")] = "",
        as_of: Annotated[str | None, Field(description="ISO time: what was current then.")]
        = None,
        include_history: Annotated[bool, Field(
            description="Also superseded entries, labelled as such.")] = False,
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """Search long-term memory before acting on anything you might already know.

        Hybrid retrieval (semantic + full-text, fused). Returns {entries, facts, layer, mode,
        notes, tokens}; each entry has id, text, score, tags, source, date, label. Only
        current entries are served unless `as_of` or `include_history` says otherwise;
        entries that disagree with another current entry are labelled `contested`."""
        caller = caller_for(namespace, session_id(ctx), "memory_search")
        with tool_errors("memory_search", caller.request_id):
            request = memory_pb2.SearchRequest(
                query=query, top_k=top_k, tags=tags or [], source=source, explain=explain,
                since=to_timestamp(parse_time(since, "since")),
                until=to_timestamp(parse_time(until, "until")), episode=episode,
                as_of=to_timestamp(parse_time(as_of, "as_of")), include_history=include_history,
            )
            reply, (facts, facts_note) = await asyncio.gather(
                backends.memory("Search", caller, request),
                served_facts(backends, caller, query, top_k, historical=bool(
                    as_of or include_history)))
            return search_reply(reply, verbose, explain, facts, facts_note)

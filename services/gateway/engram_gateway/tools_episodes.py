"""MCP tools for episodes and the session-start briefing."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

from engram.v1 import memory_pb2

from .auth import caller_for
from .briefing import build_briefing as gather_briefing
from .clients import Backends
from .errors import tool_errors
from .tools import Namespace, RequestId, session_id

Title = Annotated[str, Field(description="A short title (max 200 chars).")]
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False)


def register_episode_tools(mcp: MCPServer, backends: Backends) -> None:
    async def episode_call(tool: str, method: str, ctx: Context, namespace: str | None,
                           title: str = "", request_id: str = "") -> dict[str, Any]:
        caller = caller_for(namespace, session_id(ctx), tool, request_id)
        with tool_errors(tool, caller.request_id):
            reply = await backends.memory(method, caller, memory_pb2.EpisodeRequest(title=title))
            return {"id": reply.id, "title": reply.title, "parent": reply.parent_id or None}

    @mcp.tool(annotations=WRITE)
    async def episode_start(title: Title, ctx: Context, namespace: Namespace = None,
                            request_id: RequestId = "") -> dict[str, Any]:
        """Open a task episode inside the current one (episodes nest); memories stored
        until episode_end belong to it. Returns {id, title, parent}."""
        return await episode_call("episode_start", "EpisodeStart", ctx, namespace, title,
                                  request_id)

    @mcp.tool(annotations=WRITE)
    async def episode_end(ctx: Context, namespace: Namespace = None,
                          request_id: RequestId = "") -> dict[str, Any]:
        """Close the innermost open task episode. Returns {id, title, parent}."""
        return await episode_call("episode_end", "EpisodeEnd", ctx, namespace,
                                  request_id=request_id)

    @mcp.tool(annotations=WRITE)
    async def session_title(title: Title, ctx: Context,
                            namespace: Namespace = None) -> dict[str, Any]:
        """Name this session's episode (shown in later briefings)."""
        return await episode_call("session_title", "SessionTitle", ctx, namespace, title)

    async def build_briefing(ctx: Context, namespace: str | None,
                             token_budget: int) -> dict[str, Any]:
        caller = caller_for(namespace, session_id(ctx), "briefing")
        with tool_errors("briefing", caller.request_id):
            return await gather_briefing(backends, caller, token_budget)

    @mcp.tool(annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True))
    async def briefing(
        ctx: Context,
        token_budget: Annotated[int, Field(ge=100, le=8000,
                                           description="Size limit in tokens.")] = 800,
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """What to know at session start, within a token budget: live rules, decisions and
        preferences; open fact conflicts; the lessons with most signals; your unread board
        mail (not acknowledged); a recap of recent episodes (title, when, how many memories,
        the latest ones). A section whose service is down is listed under `unavailable`
        with the reason."""
        return await build_briefing(ctx, namespace, token_budget)

    @mcp.prompt(name="briefing", description="Session-start briefing from engram memory.")
    async def briefing_prompt(ctx: Context) -> str:
        import json

        return "engram briefing:\n" + json.dumps(await build_briefing(ctx, None, 800), indent=1)


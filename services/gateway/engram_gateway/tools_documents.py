"""MCP tools for documents: verbatim ingest and chunk search."""

from __future__ import annotations

import base64
import binascii
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from engram.v1 import memory_pb2

from .auth import caller_for
from .clients import Backends
from .errors import tool_errors
from .shaping import approx_tokens, document_items
from .tools import Namespace, session_id
from .tools_episodes import WRITE


def pdf_bytes(content: str) -> bytes:
    try:
        return base64.b64decode(content, validate=True)
    except (binascii.Error, ValueError):
        raise ToolError("format pdf needs the file base64-encoded in content; "
                        "this is not valid base64") from None


def register_document_tools(mcp: MCPServer, backends: Backends) -> None:
    @mcp.tool(annotations=WRITE)
    async def document_ingest(
        content: Annotated[str, Field(description="The document's full text (max 2 MB), or "
                                      "with format pdf the file base64-encoded (max 16 MB).")],
        source: Annotated[str, Field(description="Where it is from (path, URL, name).")],
        ctx: Context,
        title: Annotated[str, Field(description="A title.")] = "",
        format: Annotated[str, Field(description="text | markdown | html | pdf")] = "text",
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """Keep a document verbatim (notes, specs, transcripts) and index it in chunks for
        document_search; memory_search falls through to documents when memories are thin.
        Send the content itself (the server does not read client paths). Returns
        {id, chunks, embedded, duplicate}."""
        caller = caller_for(namespace, session_id(ctx), "document_ingest")
        with tool_errors("document_ingest", caller.request_id):
            if format.lower() == "pdf":  # the file travels as bytes, not as text
                request = memory_pb2.DocumentIngestRequest(data=pdf_bytes(content),
                                                           source=source, title=title,
                                                           format=format)
            else:
                request = memory_pb2.DocumentIngestRequest(content=content, source=source,
                                                           title=title, format=format)
            reply = await backends.memory("DocumentIngest", caller, request)
            return {"id": reply.id, "chunks": reply.chunks, "embedded": reply.embedded,
                    "duplicate": reply.duplicate}

    @mcp.tool(annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True))
    async def document_search(
        query: Annotated[str, Field(description="What to find in stored documents.")],
        ctx: Context,
        top_k: Annotated[int, Field(ge=1, le=50, description="How many chunks (1-50).")] = 5,
        namespace: Namespace = None,
    ) -> dict[str, Any]:
        """Hybrid search over document chunks: {documents, mode, tokens}, each chunk with
        document_id, chunk (ordinal), text, source, title, score, date."""
        caller = caller_for(namespace, session_id(ctx), "document_search")
        with tool_errors("document_search", caller.request_id):
            reply = await backends.memory("DocumentSearch", caller,
                                          memory_pb2.DocumentSearchRequest(query=query,
                                                                           top_k=top_k))
            result: dict[str, Any] = {"documents": document_items(reply.documents),
                                      "mode": reply.mode}
            result["tokens"] = approx_tokens(result)
            return result

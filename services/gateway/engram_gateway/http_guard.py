"""What every HTTP route of the gateway gets before it runs: the Host/Origin
check against DNS rebinding (the one /mcp applies) and a bound on the request
body. The body is counted before any route, token check or parser sees it:
a declared Content-Length over the limit is answered 413 at once, and a body
without one (chunked) is read up to the limit and answered 413 as soon as it
passes it; a body within the limit is handed on whole."""

from __future__ import annotations

import json

from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# The request line and headers together. A GET route's arguments ride in the
# URL, so this is sized for the longest query string the OpenAPI document
# allows (memory_search: a 2000-char query and a 1000-char episode, 12 bytes a
# character percent-encoded) with room for headers. The HTTP server enforces
# it however the head arrives; over it, 400 and the connection closed.
MAX_HEAD_BYTES = 64 * 1024


class HttpGuard:
    """ASGI middleware in front of the whole gateway app."""

    def __init__(self, app: ASGIApp, security: TransportSecuritySettings,
                 max_body_bytes: int) -> None:
        if max_body_bytes <= 0:
            raise ValueError("max_body_bytes must be a positive number of bytes")
        self.app = app
        self.security = TransportSecurityMiddleware(security)
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refused = await self.security.validate_request(Request(scope))
        if refused is not None:
            await refused(scope, receive, send)
            return
        if self._declared_too_large(Headers(scope=scope)):
            await self._too_large(send)
            return
        body: list[Message] = []
        size = 0
        while True:
            message = await receive()
            body.append(message)
            if message["type"] != "http.request":
                break  # the client went away; the app sees the disconnect
            size += len(message.get("body", b""))
            if size > self.max_body_bytes:
                await self._too_large(send)
                return
            if not message.get("more_body", False):
                break
        await self.app(scope, _replay(body, receive), send)

    def _declared_too_large(self, headers: Headers) -> bool:
        try:
            return int(headers.get("content-length", "0")) > self.max_body_bytes
        except ValueError:
            return False  # not a number: the server's HTTP parser has refused it already

    async def _too_large(self, send: Send) -> None:
        detail = (f"request body is over the gateway's limit of {self.max_body_bytes} bytes "
                  "(ENGRAM_MAX_BODY_BYTES)")
        payload = json.dumps({"error": "payload_too_large", "detail": detail}).encode()
        await send({"type": "http.response.start", "status": 413, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()),
            (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": payload})


def _replay(messages: list[Message], receive: Receive) -> Receive:
    """The buffered body as one message (plus a disconnect that came with it),
    then the live channel."""
    chunks = [m for m in messages if m["type"] == "http.request"]
    queued: list[Message] = []
    if chunks:
        queued.append({"type": "http.request", "more_body": chunks[-1].get("more_body", False),
                       "body": b"".join(m.get("body", b"") for m in chunks)})
    queued += [m for m in messages if m["type"] != "http.request"]

    async def replay() -> Message:
        return queued.pop(0) if queued else await receive()

    return replay

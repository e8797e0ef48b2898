"""What every HTTP route of the gateway gets before it runs: the Host/Origin
check against DNS rebinding (the one /mcp applies), then who is asking, then
a bound on the request body in size and in time.

Only a request that shows a valid bearer token (or, under /console, a valid
console session) has its body read, up to ENGRAM_MAX_BODY_BYTES within
ENGRAM_BODY_TIMEOUT_S. Without one, no body is read at all: /v1 answers 401
here, /mcp and the console's forms answer theirs without a body, and the
response closes the connection so that nothing more is read from it. The one
exception is the console's sign-in form, whose body is the token: it is held
to SIGNIN_MAX_BYTES and SIGNIN_TIMEOUT_S. A declared Content-Length over the
limit is 413 at once; a chunked body is counted and refused as soon as it
passes the limit; a body that does not arrive in time is 408."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass

from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engram_kit.principals import PrincipalStore

from ..doors.console.session import COOKIE, Sessions
from ..doors.console.session import PATH as CONSOLE

# The request line and headers together. A GET route's arguments ride in the
# URL, so this is sized for the longest query string the OpenAPI document
# allows (memory_search: a 2000-char query and a 1000-char episode, 12 bytes a
# character percent-encoded) with room for headers. The HTTP server enforces
# it however the head arrives; over it, 400 and the connection closed.
MAX_HEAD_BYTES = 64 * 1024
# The sign-in form holds a token and a CSRF token: a few hundred bytes.
SIGNIN_MAX_BYTES = 4096
SIGNIN_TIMEOUT_S = 5.0
SIGNIN = f"{CONSOLE}/signin"
PUBLIC_REST = {"/v1/openapi.json"}


@dataclass(frozen=True)
class Doors:
    """How a request proves who it is: a bearer token anywhere, or a console
    session cookie under /console (None: the console is off)."""

    store: PrincipalStore
    sessions: Sessions | None = None

    async def admits(self, scope: Scope, headers: Headers) -> bool:
        scheme, _, token = headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and token:
            return await self.store.verify_async(token) is not None
        if self.sessions is not None and _under(scope["path"], CONSOLE):
            cookie = Request(scope).cookies.get(COOKIE)
            return cookie is not None and self.sessions.viewer(cookie) is not None
        return False


@dataclass(frozen=True)
class BodyBound:
    max_bytes: int
    timeout_s: float
    setting: str  # what an operator changes to move the bound


class HttpGuard:
    """ASGI middleware in front of the whole gateway app."""

    def __init__(self, app: ASGIApp, security: TransportSecuritySettings,
                 max_body_bytes: int, doors: Doors, body_timeout_s: float = 60.0,
                 on_authenticated: Callable[[tuple[str, int] | None], None] | None = None) -> None:
        if max_body_bytes <= 0 or body_timeout_s <= 0:
            raise ValueError("max_body_bytes and body_timeout_s must be positive")
        self.app = app
        self.security = TransportSecurityMiddleware(security)
        self.doors = doors
        self.bound = BodyBound(max_body_bytes, body_timeout_s, "ENGRAM_MAX_BODY_BYTES")
        self.signin = BodyBound(SIGNIN_MAX_BYTES, SIGNIN_TIMEOUT_S, "the sign-in form's limit")
        self.on_authenticated = on_authenticated or (lambda _peer: None)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refused = await self.security.validate_request(Request(scope))
        if refused is not None:
            await refused(scope, receive, send)
            return
        headers = Headers(scope=scope)
        if _declared_length(headers) > self.bound.max_bytes:  # whoever asks
            await _too_large(send, self.bound)
            return
        if await self.doors.admits(scope, headers):
            self.on_authenticated(scope.get("client"))
            await self._with_body(self.bound, headers, scope, receive, send)
        elif scope["method"] == "POST" and scope["path"] == SIGNIN:
            await self._with_body(self.signin, headers, scope, receive, send)
        elif _under(scope["path"], "/v1") and scope["path"] not in PUBLIC_REST:
            await _refuse(send, 401, "unauthenticated", "a valid bearer token is required",
                          [(b"www-authenticate", b"Bearer")], wrap=True)
        else:
            # Routes that need no body, and doors that refuse before reading one.
            await self.app(scope, _no_body(receive),
                           _closing(send) if _declares_body(headers) else send)

    async def _with_body(self, bound: BodyBound, headers: Headers, scope: Scope,
                         receive: Receive, send: Send) -> None:
        if _declared_length(headers) > bound.max_bytes:
            await _too_large(send, bound)
            return
        body: list[Message] = []
        size = 0
        try:
            async with asyncio.timeout(bound.timeout_s):
                while True:
                    message = await receive()
                    body.append(message)
                    if message["type"] != "http.request":
                        break  # the client went away; the app sees the disconnect
                    size += len(message.get("body", b""))
                    if size > bound.max_bytes:
                        await _too_large(send, bound)
                        return
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            await _refuse(send, 408, "request_timeout",
                          f"the request body did not arrive within {bound.timeout_s:g} s "
                          "(ENGRAM_BODY_TIMEOUT_S)" if bound is self.bound else
                          f"the sign-in form did not arrive within {bound.timeout_s:g} s")
            return
        await self.app(scope, _replay(body, receive), send)


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(f"{prefix}/")


def _declared_length(headers: Headers) -> int:
    try:
        return int(headers.get("content-length", "0"))
    except ValueError:
        return 0  # not a number: the server's HTTP parser has refused it already


def _declares_body(headers: Headers) -> bool:
    return _declared_length(headers) > 0 or "transfer-encoding" in headers


async def _too_large(send: Send, bound: BodyBound) -> None:
    await _refuse(send, 413, "payload_too_large",
                  f"request body is over the gateway's limit of {bound.max_bytes} bytes "
                  f"({bound.setting})")


async def _refuse(send: Send, status: int, error: str, detail: str,
                  extra: list[tuple[bytes, bytes]] | None = None, wrap: bool = False) -> None:
    """A JSON refusal that closes the connection (any unread body with it).
    `wrap`: in FastAPI's HTTPException shape, as the REST routes answer."""
    shaped = {"error": error, "detail": detail}
    payload = json.dumps({"detail": shaped} if wrap else shaped).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()),
        (b"connection", b"close"), *(extra or [])]})
    await send({"type": "http.response.body", "body": payload})


def _no_body(receive: Receive) -> Receive:
    """An empty body, then only the live channel's disconnect: whatever the
    client sends as a body is never handed on."""
    sent = False

    async def empty() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": b"", "more_body": False}
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return message

    return empty


def _closing(send: Send) -> Send:
    """`send` with the response marked to close the connection, so that the
    server reads no more of a body nobody will take."""
    async def closing(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"connection"]
            message = {**message, "headers": [*headers, (b"connection", b"close")]}
        await send(message)

    return closing


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

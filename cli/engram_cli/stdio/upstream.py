"""The gateway side of `engram mcp-stdio`: its settings, the SDK's streamable
HTTP client transport with one change (a request whose POST fails gets a
JSON-RPC error instead of ending the transport), and the words for each way
a request can fail."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import anyio
import httpx2
from mcp.client.streamable_http import RequestContext, StreamableHTTPTransport
from mcp.shared._context_streams import (
    ContextReceiveStream,
    ContextSendStream,
    create_context_streams,
)
from mcp.shared.message import SessionMessage
from mcp_types import CONNECTION_CLOSED, JSONRPCRequest

from engram_cli.settings import CliSettings
from engram_gateway.pipeline.admit import SESSION_RE
from engram_runner.autostart import StackStartError

DEFAULT_URL: str = CliSettings.model_fields["url"].default
WRITE_TIMEOUT_S = 30.0

log = logging.getLogger("engram.mcp_stdio")
UpRead = ContextReceiveStream[SessionMessage | Exception]
UpWrite = ContextSendStream[SessionMessage]


class BridgeConfigError(Exception):
    """A setting the bridge cannot start with (exit 2, before any protocol)."""


class GatewayRefused(Exception):
    """The gateway answered with 401/403: no retry helps until the token changes."""


@dataclass(frozen=True)
class BridgeConfig:
    url: str
    token: str = field(repr=False)
    session: str = ""
    # Bounded waits (settings): an unreachable gateway fails a request within
    # the first, a silent one within the second.
    connect_timeout_s: float = 5.0
    read_timeout_s: float = 300.0
    # --data-dir: the stack on it gives the URL (started when none runs), and
    # its agent-token the token when none was given.
    data_dir: Path | None = None
    start_timeout_s: float = 180.0

    def timeout(self) -> httpx2.Timeout:
        return httpx2.Timeout(WRITE_TIMEOUT_S, connect=self.connect_timeout_s,
                              read=self.read_timeout_s)

    def longest_wait_s(self) -> float:
        return self.connect_timeout_s + self.read_timeout_s

    def headers(self) -> dict[str, str]:
        headers = {"Authorization": f"Bearer {self.token}"}
        if self.session:
            headers["X-Engram-Session"] = self.session
        return headers


def load_config(url: str | None, token_file: str | None, settings: CliSettings,
                data_dir: str | None = None) -> BridgeConfig:
    """The endpoint (--url, else ENGRAM_URL; with --data-dir, the stack on
    it), the token (--token-file, else ENGRAM_TOKEN, else with --data-dir its
    agent-token) and the optional session (ENGRAM_SESSION)."""
    if url and data_dir:
        raise BridgeConfigError("--url and --data-dir exclude each other: --url relays to a "
                                "running gateway, --data-dir uses (or starts) that data dir's")
    url = (url or settings.url).strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise BridgeConfigError(f"the gateway URL must be http(s)://host:port/mcp "
                                f"(default {DEFAULT_URL}), got {url!r}")
    if token_file:
        try:
            token = Path(token_file).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise BridgeConfigError(f"cannot read --token-file {token_file}: "
                                    f"{getattr(exc, 'strerror', None) or exc}") from None
        if not token:
            raise BridgeConfigError(f"--token-file {token_file} is empty")
    else:
        token = settings.token.get_secret_value().strip() if settings.token else ""
        if not token and not data_dir:
            raise BridgeConfigError(
                "no token: pass --token-file PATH or set ENGRAM_TOKEN (the agent token "
                "`engram up` printed, kept in <data-dir>/agent-token, or one from "
                "`engram token create`)")
    check_token(token)
    session = settings.session.strip()
    if session and not SESSION_RE.fullmatch(session):
        raise BridgeConfigError("ENGRAM_SESSION must be 1-128 characters of "
                                "A-Z a-z 0-9 . _ : @ / + = -")
    return BridgeConfig(url=url, token=token, session=session,
                        connect_timeout_s=settings.stdio_connect_timeout_s,
                        read_timeout_s=settings.stdio_read_timeout_s,
                        data_dir=Path(data_dir).absolute() if data_dir else None,
                        start_timeout_s=settings.start_timeout_s)


def check_token(token: str) -> None:
    if not token.isprintable() or any(c.isspace() for c in token):
        raise BridgeConfigError("the token holds whitespace or control characters; "
                                "it must be the single line `engram token create` printed")


def describe(exc: BaseException, config: BridgeConfig) -> str:
    """What the client is told when a request never got the gateway's answer."""
    url = config.url
    if isinstance(exc, GatewayRefused | StackStartError):
        return str(exc)
    if isinstance(exc, httpx2.ConnectTimeout):
        return (f"engram gateway at {url} did not accept a connection within "
                f"{config.connect_timeout_s:g}s; check ENGRAM_URL and retry")
    if isinstance(exc, httpx2.ConnectError):
        return (f"engram gateway unreachable at {url} ({exc or 'connection failed'}): "
                "is `engram up` running and ENGRAM_URL right? Retry once it is up")
    if isinstance(exc, httpx2.TimeoutException):
        return f"engram gateway at {url} did not answer within {config.read_timeout_s:g}s; retry"
    what = f"{type(exc).__name__}{': ' if str(exc) else ''}{exc}"
    if isinstance(exc, httpx2.NetworkError | httpx2.RemoteProtocolError):
        return f"engram gateway at {url} dropped the connection unanswered ({what}); retry"
    return f"engram gateway at {url} failed: {what}"


async def refuse_bad_token(response: httpx2.Response) -> None:
    """httpx response hook: a refused token becomes one clear error, not the
    transport's generic 'Server returned an error response'."""
    if response.status_code not in (401, 403):
        return
    await response.aread()
    try:
        body = response.json()
        detail = str(body.get("error_description") or body.get("error") or "")[:200]
    except (ValueError, AttributeError):
        detail = ""
    raise GatewayRefused(
        f"engram gateway refused the token (HTTP {response.status_code}"
        f"{': ' + detail if detail else ''}): check --token-file / ENGRAM_TOKEN "
        "(`engram token list` shows the principals)")


class _GatewayTransport(StreamableHTTPTransport):
    """The SDK transport, except that a request whose POST fails gets a JSON-RPC
    error instead of taking the whole transport down."""

    def __init__(self, config: BridgeConfig) -> None:
        super().__init__(config.url)
        self.config = config

    async def _handle_post_request(self, ctx: RequestContext) -> None:
        try:
            await super()._handle_post_request(ctx)
        except (httpx2.HTTPError, GatewayRefused) as exc:
            text = describe(exc, self.config)
            message = ctx.session_message.message
            if isinstance(message, JSONRPCRequest):
                await self._resolve_abandoned_request(ctx.read_stream_writer, message.id, text,
                                                      code=CONNECTION_CLOSED)
            else:
                log.warning("%s (a %s message was not delivered)", text,
                            getattr(message, "method", "response"))


@asynccontextmanager
async def open_upstream(config: BridgeConfig,
                    client: httpx2.AsyncClient) -> AsyncIterator[tuple[UpRead, UpWrite]]:
    """`mcp.client.streamable_http.streamable_http_client` with _GatewayTransport."""
    transport = _GatewayTransport(config)
    read_writer, read_stream = create_context_streams[SessionMessage | Exception](0)
    write_stream, write_reader = create_context_streams[SessionMessage](0)
    async with read_writer, read_stream, write_stream, write_reader, \
            anyio.create_task_group() as tg:
        def start_get_stream() -> None:
            tg.start_soon(transport.handle_get_stream, client, read_writer)

        tg.start_soon(transport.post_writer, client, write_reader, read_writer, write_stream,
                      start_get_stream, tg)
        try:
            yield read_stream, write_stream
        finally:
            if transport.session_id:
                with anyio.move_on_after(config.connect_timeout_s, shield=True):
                    await transport.terminate_session(client)
            tg.cancel_scope.cancel()

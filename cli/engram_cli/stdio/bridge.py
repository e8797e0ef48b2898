"""`engram mcp-stdio`: MCP over stdin/stdout for clients that only speak stdio
(Claude Desktop), proxied message by message to the gateway's streamable HTTP
endpoint. Both sides are the official SDK's transports; the bridge adds the
bearer token, the HTTP headers each message needs, and a JSON-RPC error for
every request the gateway could not answer (the bridge itself keeps running).
With --data-dir it finds the stack running on that data dir, or starts one."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from contextlib import suppress
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp.client.streamable_http import MCP_SESSION_ID
from mcp.server.stdio import stdio_server
from mcp.shared._context_streams import ContextSendStream
from mcp.shared.inbound import (
    MCP_METHOD_HEADER,
    MCP_NAME_HEADER,
    MCP_PROTOCOL_VERSION_HEADER,
    NAME_BEARING_METHODS,
    encode_header_value,
    find_invalid_x_mcp_header,
    mcp_param_headers,
    x_mcp_header_map,
)
from mcp.shared.message import ClientMessageMetadata, SessionMessage
from mcp_types import (
    CONNECTION_CLOSED,
    INVALID_REQUEST,
    PARSE_ERROR,
    PROTOCOL_VERSION_META_KEY,
    ErrorData,
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    RequestId,
)
from pydantic import ValidationError

from engram_cli.settings import CliSettings
from engram_cli.stdio.upstream import (
    DEFAULT_URL,
    BridgeConfig,
    BridgeConfigError,
    UpRead,
    UpWrite,
    check_token,
    describe,
    load_config,
    log,
    open_upstream,
    refuse_bad_token,
)
from engram_runner.autostart import StackStartError, ensure_stack
from engram_runner.stack import AGENT_TOKEN_FILE

EXIT_USAGE = 2
OUTBOX_SIZE = 64
CANCELLED = "notifications/cancelled"
LOST_SESSION = ("the engram gateway no longer knows this session (it restarted?); "
                "the bridge opens a new one: retry the request")


def say(line: str) -> None:
    sys.stderr.write(f"engram mcp-stdio: {line}\n")
    sys.stderr.flush()


def agent_token(data_dir: Path) -> str:
    """The token `engram up` minted into the data dir on its first start."""
    path = data_dir / AGENT_TOKEN_FILE
    try:
        token = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise StackStartError(f"no token: cannot read {path} "
                              f"({getattr(exc, 'strerror', None) or exc}); pass --token-file "
                              "PATH or set ENGRAM_TOKEN") from None
    try:
        check_token(token)
    except BridgeConfigError as exc:
        raise StackStartError(f"{path}: {exc}") from None
    return token


def _is_initialize(message: Any) -> bool:
    return isinstance(message, JSONRPCRequest) and message.method == "initialize"


def _request_id(item: SessionMessage | None) -> RequestId | None:
    return item.message.id if item and isinstance(item.message, JSONRPCRequest) else None


def _error(request_id: RequestId | None, code: int, text: str) -> SessionMessage:
    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=request_id,
                                       error=ErrorData(code=code, message=text)))


class Bridge:
    """Forwards the client's messages to the gateway and every answer and
    notification back, unchanged. It remembers what it must: which requests
    await an answer (each gets an error if the upstream dies), the handshake (a
    new upstream session replays it), and tool schemas naming HTTP headers."""

    def __init__(self, config: BridgeConfig, to_client: ContextSendStream[SessionMessage]) -> None:
        self.config = config
        self._to_client = to_client
        self._outbox, self._inbox = anyio.create_memory_object_stream[SessionMessage](OUTBOX_SIZE)
        self._pending: dict[RequestId, str] = {}
        self._handshake: JSONRPCRequest | None = None
        self._initialized: JSONRPCNotification | None = None
        self._legacy_version = ""
        self._param_headers: dict[str, dict[tuple[str, ...], str]] = {}
        self._replays: dict[RequestId, anyio.Event] = {}
        self._lost: set[RequestId] = set()
        self._stale = False

    async def from_client(self, item: SessionMessage | Exception) -> None:
        if isinstance(item, Exception):
            log.warning("unreadable message from the client: %s", item)
            await self._to_client.send(_error(None, PARSE_ERROR, f"not a JSON-RPC message: {item}"))
            return
        message = item.message
        if isinstance(message, JSONRPCRequest):
            self._pending[message.id] = message.method
            if message.method == "initialize":
                self._handshake, self._legacy_version = message, ""
        elif isinstance(message, JSONRPCNotification) and \
                message.method == "notifications/initialized":
            self._initialized = message
        elif isinstance(message, JSONRPCNotification) and message.method == CANCELLED:
            # A cancelled request may never be answered; nothing waits for it now.
            self._pending.pop((message.params or {}).get("requestId", ""), None)
        await self._outbox.send(item)

    async def notice_lost_session(self, response: httpx2.Response) -> None:
        """httpx response hook: a 404 to a request naming a session means the
        gateway forgot it (a restart); the next message goes to a new one."""
        if response.status_code != 404 or not response.request.headers.get(MCP_SESSION_ID):
            return
        self._stale = True
        with suppress(ValueError, KeyError, TypeError):  # not a request: nobody waits
            self._lost.add(json.loads(response.request.content)["id"])

    def end_of_input(self) -> None:
        self._outbox.close()

    async def run_upstream(self, client: httpx2.AsyncClient) -> None:
        """One upstream session at a time; a new one when the last one died or
        the gateway forgot it, so the client can go on after a gateway restart."""
        first: SessionMessage | None = None
        replay = False
        while True:
            if first is None:
                try:
                    first = await self._inbox.receive()
                except anyio.EndOfStream:
                    return
            try:
                first = await self._session(client, first, replay)
            except Exception as exc:  # the transport died: answer what it held, start afresh
                log.warning("upstream session failed: %r", exc)
                await self._fail_pending(describe(exc, self.config))
                first = None
            else:
                if first is not None:  # the gateway forgot the session and what was in flight
                    await self._fail_pending(LOST_SESSION, keep=_request_id(first))
            replay = True

    async def _session(self, client: httpx2.AsyncClient, first: SessionMessage,
                       replay: bool) -> SessionMessage | None:
        """Forward until the input ends (None) or the gateway lost the session
        (the message still to send, on the next session)."""
        await self._ensure_stack(client)
        async with open_upstream(self.config, client) as (up_read, up_write), \
                anyio.create_task_group() as tg:
            tg.start_soon(self._downstream, up_read)
            if replay and not _is_initialize(first.message):
                await self._replay(up_write)
            message: SessionMessage | None = first
            while message is not None:
                if self._stale:
                    self._stale = False
                    tg.cancel_scope.cancel()
                    return message
                await up_write.send(self._stamp(message))
                await self._settle_handshake(message.message)
                try:
                    message = await self._inbox.receive()
                except anyio.EndOfStream:
                    message = None
            await self._drain()
            tg.cancel_scope.cancel()
        return None

    async def _ensure_stack(self, client: httpx2.AsyncClient) -> None:
        """With --data-dir, before each upstream session: the stack running on
        it, started first when none runs (requests wait meanwhile; a failed
        start fails them, and the next request tries again)."""
        config = self.config
        if config.data_dir is None:
            return
        url = await anyio.to_thread.run_sync(ensure_stack, config.data_dir,
                                             config.start_timeout_s, say)
        self.config = replace(config, url=url, token=config.token or agent_token(config.data_dir))
        client.headers.update(self.config.headers())

    async def _settle_handshake(self, message: Any) -> None:
        """Nothing follows an initialize until it is answered: the session id
        the answer brings is what the next messages need (a client that does
        not wait, such as a script piping its lines in, would lose them)."""
        if _is_initialize(message):
            with anyio.move_on_after(self.config.longest_wait_s()):
                while message.id in self._pending:
                    await anyio.sleep(0.02)

    async def _drain(self) -> None:
        """The input ended (`echo request | engram mcp-stdio` ends it at once):
        deliver the answers still due, bounded by the request timeouts; a
        listen stream has no end of its own and is not waited for."""
        with anyio.move_on_after(self.config.longest_wait_s()):
            while any(m != "subscriptions/listen" for m in self._pending.values()):
                await anyio.sleep(0.05)

    async def _replay(self, up_write: UpWrite) -> None:
        """A handshake-era session is per connection: give the new one the
        client's own initialize (its answer is the bridge's, not forwarded)."""
        if self._handshake is None or not self._legacy_version:
            return  # no handshake yet, or a 2026-era client: every request stands alone
        request = JSONRPCRequest(jsonrpc="2.0", id=f"engram-stdio-replay-{len(self._replays)}",
                                 method="initialize", params=self._handshake.params)
        done = self._replays[request.id] = anyio.Event()
        await up_write.send(SessionMessage(request))
        await done.wait()  # bounded: the transport answers or times out
        if self._initialized is not None:
            await up_write.send(self._stamp(SessionMessage(self._initialized)))

    async def _downstream(self, up_read: UpRead) -> None:
        async for item in up_read:
            if isinstance(item, Exception):
                log.warning("unreadable message from the gateway: %s", item)
                continue
            message = item.message
            if isinstance(message, JSONRPCResponse | JSONRPCError):
                if message.id in self._replays:
                    self._stale = isinstance(message, JSONRPCError)  # try again next message
                    self._replays[message.id].set()
                    continue
                method = self._pending.pop(message.id, "") if message.id is not None else ""
                if isinstance(message, JSONRPCResponse):
                    self._learn(method, message.result)
                elif message.id in self._lost:
                    self._lost.discard(message.id)
                    item = _error(message.id, INVALID_REQUEST, LOST_SESSION)
            await self._to_client.send(SessionMessage(item.message))

    def _learn(self, method: str, result: dict[str, Any]) -> None:
        if method == "initialize":
            self._legacy_version = str(result.get("protocolVersion", ""))
        elif method == "tools/list":
            for tool in result.get("tools") or []:
                schema = tool.get("inputSchema") if isinstance(tool, dict) else None
                if schema is not None and find_invalid_x_mcp_header(schema) is None:
                    self._param_headers[str(tool.get("name"))] = x_mcp_header_map(schema)

    def _stamp(self, item: SessionMessage) -> SessionMessage:
        """The HTTP headers the SDK's client session would have set for this message."""
        message = item.message
        headers: dict[str, str] = {}
        params = getattr(message, "params", None) or {}
        meta = params.get("_meta")
        version = meta.get(PROTOCOL_VERSION_META_KEY) if isinstance(meta, dict) else None
        if isinstance(message, JSONRPCRequest | JSONRPCNotification) and isinstance(version, str):
            headers[MCP_PROTOCOL_VERSION_HEADER] = version
            headers[MCP_METHOD_HEADER] = message.method
            name = params.get(NAME_BEARING_METHODS.get(message.method, ""))
            if isinstance(name, str):
                headers[MCP_NAME_HEADER] = encode_header_value(name)
            arguments = params.get("arguments")
            if message.method == "tools/call" and isinstance(name, str) and \
                    isinstance(arguments, dict) and name in self._param_headers:
                headers.update(mcp_param_headers(self._param_headers[name], arguments))
        elif self._legacy_version and getattr(message, "method", "") != "initialize":
            headers[MCP_PROTOCOL_VERSION_HEADER] = self._legacy_version
        return SessionMessage(message, metadata=ClientMessageMetadata(headers=headers or None))

    async def _fail_pending(self, text: str, keep: RequestId | None = None) -> None:
        """Answer every request still waiting (but `keep`, about to be resent)."""
        pending = self._pending
        self._pending = {keep: pending.pop(keep)} if keep in pending else {}
        for request_id in pending:
            await self._to_client.send(_error(request_id, CONNECTION_CLOSED, text))


async def serve(config: BridgeConfig) -> None:
    # Closing to_client at the end of input ends stdout's writer, and the process.
    async with stdio_server() as (from_client, to_client), to_client:
        bridge = Bridge(config, to_client)
        hooks = {"response": [refuse_bad_token, bridge.notice_lost_session]}
        async with httpx2.AsyncClient(headers=config.headers(), timeout=config.timeout(),
                                      event_hooks=hooks) as http, \
                anyio.create_task_group() as tg:
            tg.start_soon(bridge.run_upstream, http)
            async for item in from_client:
                await bridge.from_client(item)
            bridge.end_of_input()


def cmd_mcp_stdio(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.url, args.token_file, CliSettings(), args.data_dir)
    except ValidationError as exc:
        wrong = ", ".join(f"ENGRAM_{str(e['loc'][0]).upper()} ({e['msg']})" for e in exc.errors())
        sys.stderr.write(f"engram mcp-stdio: bad setting: {wrong}\n")
        return EXIT_USAGE
    except BridgeConfigError as exc:
        sys.stderr.write(f"engram mcp-stdio: {exc}\n")
        return EXIT_USAGE
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING,
                        format="engram mcp-stdio: %(levelname)s %(message)s")
    try:
        anyio.run(serve, config)
    except KeyboardInterrupt:
        return 130
    return 0


def add_parser(sub: Any) -> None:
    """`engram mcp-stdio` on the CLI's subcommands."""
    cmd = sub.add_parser("mcp-stdio", help="MCP over stdio for stdio-only clients, proxied to "
                         "the gateway (token: --token-file or ENGRAM_TOKEN)")
    cmd.add_argument("--url", default=None,
                     help=f"the gateway's MCP endpoint (default: $ENGRAM_URL or {DEFAULT_URL})")
    cmd.add_argument("--token-file", default=None,
                     help="file holding the bearer token (default: $ENGRAM_TOKEN, else with "
                     "--data-dir its agent-token)")
    cmd.add_argument("--data-dir", default=None,
                     help="use the stack running on this data dir, and start it (in the "
                     "background, until `engram down`) when none runs; excludes --url")
    cmd.set_defaults(func=cmd_mcp_stdio)

"""The hooks' HTTP client: HTTP/1.1 over a plain socket (http.client and
urllib import the email package: a tenth of a second a hook runs per
prompt cannot spare), one request per connection, a short timeout, and None
for anything but a 200 JSON reply (hooks fail open)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import time
from typing import Any
from urllib.parse import urlencode, urlsplit

DEFAULT_URL = "http://127.0.0.1:8750/mcp"
DEFAULT_TIMEOUT_S = 1.5
# What the gateway accepts as X-Engram-Session (auth.SESSION_RE).
SESSION_RE = re.compile(r"[A-Za-z0-9._:@/+=-]{1,128}")
MAX_REPLY_BYTES = 1_000_000


def session_header(client_session_id: str) -> str:
    """X-Engram-Session for a client's session id: the id itself when the
    gateway accepts it as is (Claude Code's are UUIDs), else a digest of it.
    Whatever else calls engram for the same client session must send the same."""
    if SESSION_RE.fullmatch(client_session_id):
        return client_session_id
    return "h:" + hashlib.sha256(client_session_id.encode()).hexdigest()[:40]


def rest_base(url: str) -> str:
    """The gateway's base URL from ENGRAM_URL, the MCP endpoint."""
    url = url.rstrip("/")
    return url[: -len("/mcp")] if url.endswith("/mcp") else url


def read_token(token_file: str) -> str:
    if token_file:
        try:
            with open(os.path.expanduser(token_file)) as f:
                return f.read().strip()
        except (OSError, UnicodeError):
            return ""
    return os.environ.get("ENGRAM_TOKEN", "").strip()


class HookClient:
    def __init__(self, url: str, token: str, session: str, namespace: str = "",
                 timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        parts = urlsplit(rest_base(url))
        self._https = parts.scheme == "https"
        self._host = parts.hostname or "127.0.0.1"
        self._port = parts.port or (443 if self._https else 80)
        self._prefix = parts.path.rstrip("/")
        self._timeout = timeout_s
        self._headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
        if session:
            self._headers["X-Engram-Session"] = session
        if namespace:
            self._headers["X-Engram-Namespace"] = namespace
        self.last_headers: dict[str, str] = {}  # of the last reply, names lowercased

    def _connect(self, timeout: float) -> socket.socket:
        sock = socket.create_connection((self._host, self._port), timeout=timeout)
        if not self._https:
            return sock
        import ssl  # only for an https ENGRAM_URL
        return ssl.create_default_context().wrap_socket(sock, server_hostname=self._host)

    def _request(self, method: str, path: str, body: dict[str, Any] | None,
                 timeout_s: float | None = None) -> Any:
        """`timeout_s` (default: the client's) bounds the whole request, not
        each socket operation: a slow trickle of bytes cannot hold a hook."""
        timeout = self._timeout if timeout_s is None else timeout_s
        end = time.monotonic() + timeout
        data = b"" if body is None else json.dumps(body).encode()
        headers = {**self._headers, "Host": f"{self._host}:{self._port}",
                   "Connection": "close", "Content-Length": str(len(data))}
        if body is not None:
            headers["Content-Type"] = "application/json"
        head = f"{method} {self._prefix}{path} HTTP/1.1\r\n" + "".join(
            f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
        try:
            with self._connect(timeout) as sock:
                sock.sendall(head.encode("latin-1") + data)
                raw = _read_all(sock, end)
            self.last_headers = _fields(raw)
            return _json_reply(raw)
        except (OSError, ValueError, UnicodeError):
            return None

    def get(self, path: str, params: dict[str, Any] | None = None,
            timeout_s: float | None = None) -> Any:
        query = f"?{urlencode(params)}" if params else ""
        return self._request("GET", path + query, None, timeout_s)

    def post(self, path: str, body: dict[str, Any]) -> Any:
        return self._request("POST", path, body)


def _read_all(sock: socket.socket, end: float) -> bytes:
    chunks, size = [], 0
    while True:
        left = end - time.monotonic()
        if left <= 0:
            raise TimeoutError("deadline passed")
        sock.settimeout(left)
        chunk = sock.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_REPLY_BYTES:
            raise ValueError("reply too large")
    return b"".join(chunks)


def _dechunk(body: bytes) -> bytes:
    out, rest = [], body
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        out.append(rest[:size])
        rest = rest[size + 2:]
    return b"".join(out)


def _fields(raw: bytes) -> dict[str, str]:
    """A reply's header fields, names lowercased."""
    lines = raw.partition(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")
    return {k.strip().lower(): v.strip() for k, _, v in
            (line.partition(":") for line in lines[1:])}


def _json_reply(raw: bytes) -> Any:
    """The JSON body of a 200 reply, else None."""
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    if len(lines[0].split(" ")) < 2 or lines[0].split(" ")[1] != "200":
        return None
    fields = _fields(raw)
    if fields.get("transfer-encoding", "").lower() == "chunked":
        body = _dechunk(body)
    return json.loads(body)

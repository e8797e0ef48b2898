"""The hooks' HTTP client: the standard library only (a hook runs per prompt
and must start in milliseconds), one request per call, a short timeout, and
None for anything but a 200 JSON reply (hooks fail open)."""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import re
from pathlib import Path
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
            return Path(token_file).expanduser().read_text().strip()
        except OSError:
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
        self._headers = {"Authorization": f"Bearer {token}", "Accept": "application/json",
                         "X-Engram-Session": session}
        if namespace:
            self._headers["X-Engram-Namespace"] = namespace

    def _request(self, method: str, path: str, body: dict[str, Any] | None) -> Any:
        cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
        conn = cls(self._host, self._port, timeout=self._timeout)
        headers = dict(self._headers)
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        try:
            conn.request(method, self._prefix + path, body=data, headers=headers)
            reply = conn.getresponse()
            raw = reply.read(MAX_REPLY_BYTES + 1)
            if reply.status != 200 or len(raw) > MAX_REPLY_BYTES:
                return None
            return json.loads(raw)
        except (OSError, http.client.HTTPException, ValueError):
            return None
        finally:
            conn.close()

    def get(self, path: str, params: dict[str, Any] | None = None) -> Any:
        query = f"?{urlencode(params)}" if params else ""
        return self._request("GET", path + query, None)

    def post(self, path: str, body: dict[str, Any]) -> Any:
        return self._request("POST", path, body)

from __future__ import annotations

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings

from engram_kit.runtime import EventLoop
from engram_kit.settings import ENGRAM_ENV


class GatewaySettings(BaseSettings):
    model_config = ENGRAM_ENV

    service_name: str = "gateway"
    log_level: str = "INFO"
    http_host: str = "127.0.0.1"
    http_port: int = 8750
    # Where to write the bound port as JSON ({"http": N}) once listening; with
    # port 0 the OS picks it and this is how to learn it.
    ports_file: str = ""
    # Public base URL clients use (shown in logs and OAuth resource metadata).
    public_url: str = ""
    internal_token: SecretStr
    tokens_file: str
    memory_addr: str = "127.0.0.1:8751"
    coordination_addr: str = "127.0.0.1:8755"
    cortex_addr: str = "127.0.0.1:8752"
    dreamer_addr: str = "127.0.0.1:8754"
    # memory_search encodes its query here once and passes the vector to memory
    # and the cortex (one Embed call, not one each). Empty: each encodes its own.
    embedder_addr: str = "127.0.0.1:8753"
    # Past this the services are called without the vector and encode their own.
    query_encode_timeout_s: float = 2.0
    call_timeout_s: float = 10.0
    # Extra Host header values accepted besides loopback (DNS-rebinding guard).
    allowed_hosts: list[str] = []
    # Browser origins allowed to call /mcp and /v1 cross-origin (CORS). Empty:
    # closed; browsers get no Access-Control-Allow-Origin from engram.
    cors_origins: list[str] = []
    shutdown_grace_s: float = 10.0
    # uvicorn's event loop: asyncio or uvloop (as every service's, kit settings).
    event_loop: EventLoop = EventLoop.ASYNCIO
    # Per-principal request rate (token bucket) of this replica; 0 disables.
    # Buckets are per replica: N replicas allow up to N times the rate.
    rate_per_s: float = 300.0
    rate_burst: int = 600
    # Open MCP sessions one principal may hold at a time; 0 disables.
    max_sessions_per_principal: int = 32
    # Largest HTTP request body on any route (/mcp and /v1); over it: 413.
    # Sized so the largest PDF document_ingest takes (16 MB) fits base64-encoded.
    max_body_bytes: int = Field(default=24 * 1024 * 1024, gt=0)
    # Seconds a request's whole body may take to arrive once its head has;
    # over it: 408 and the connection closed. 60 s carries the largest body
    # at 400 KB/s. Only requests with a valid token get this far: without one
    # no body is read (docs/security.md).
    body_timeout_s: float = Field(default=60.0, gt=0)
    # Seconds a connection may take to send a complete request head (from
    # its opening, or from the previous response); over it: 408 and closed.
    head_timeout_s: float = Field(default=10.0, gt=0)
    # Open connections one client address may hold before any request on
    # them has shown a valid token; past it a new connection gets 429 and is
    # closed. Behind a proxy every client has the proxy's address: raise it
    # or set 0 (no cap) there and cap at the proxy.
    max_unauthenticated_connections_per_address: int = Field(default=64, ge=0)
    # Handshake-era MCP clients (initialize, then Mcp-Session-Id) without a
    # session table: each request is served on its own, so any gateway replica
    # serves any request. Needed behind a load balancer without session
    # affinity; the cost: no server-to-client stream for those clients
    # (tools/list_changed reaches them at their next tools/list) and no
    # per-principal session cap (there are no sessions to count). Clients of
    # the current protocol keep no session either way.
    mcp_stateless: bool = False
    # minimal | core | full: the tools a principal sees until it calls toolset.
    default_toolset: str = "full"
    # Keys the browser console's session cookies and CSRF tokens (16+ chars; every
    # replica the same). Unset: the console at /console/ says it is off.
    console_session_key: SecretStr | None = Field(default=None, min_length=16)
    # Addresses or networks (CIDR) of TLS-terminating proxies in front of the
    # gateway: only a connection from one of them may say, in X-Forwarded-Proto,
    # that the client used https (the console then marks its cookies Secure).
    trusted_proxies: list[str] = []
    # How long a console sign-in lasts; a rotated or revoked token ends it sooner.
    console_session_ttl_s: int = Field(default=8 * 3600, gt=0)

    @property
    def base_url(self) -> str:
        return self.public_url or f"http://127.0.0.1:{self.http_port}"

"""Base settings shared by every service. Each service subclasses it once.

Only settings classes read the environment; everything else receives a
settings object.
"""

from __future__ import annotations

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from .runtime import EventLoop

# Every settings class (and mixin) carries the same config: pydantic merges
# model_config across bases, and a mixin without it would reset the prefix.
ENGRAM_ENV = SettingsConfigDict(env_prefix="ENGRAM_", extra="ignore")


class ServiceSettings(BaseSettings):
    model_config = ENGRAM_ENV

    service_name: str = "engram"
    log_level: str = "INFO"
    grpc_host: str = "127.0.0.1"
    grpc_port: int = 0
    http_host: str = "127.0.0.1"
    http_port: int = 0  # ops endpoints: /healthz, /readyz, /health, /metrics
    # Where to write the bound ports as JSON ({"grpc": N, "http": N}) once
    # listening; with port 0 the OS picks them and this is how to learn them.
    ports_file: str = ""
    internal_token: SecretStr
    shutdown_grace_s: float = 10.0
    # asyncio or uvloop. On 2 shared cores uvloop made lone calls a little
    # faster and 8 concurrent clients slower (evals/probe/uvloop.py), so
    # asyncio stays the default; measure on your own hardware.
    event_loop: EventLoop = EventLoop.ASYNCIO


class DatabaseSettings(BaseSettings):
    """Mixin for services that own a Postgres schema."""

    model_config = ENGRAM_ENV

    database_url: SecretStr  # the service's own non-superuser role
    db_pool_min: int = 1
    db_pool_max: int = 10
    # Bounds so that nothing waits on a dead database: opening a connection,
    # waiting for a pooled one (reconnecting included), and one statement.
    # Past them the call fails with a retryable UNAVAILABLE.
    db_connect_timeout_s: float = Field(default=5.0, gt=0)
    db_acquire_timeout_s: float = Field(default=5.0, gt=0)
    db_command_timeout_s: float = Field(default=30.0, gt=0)


class NatsSettings(BaseSettings):
    model_config = ENGRAM_ENV
    nats_url: str = "nats://127.0.0.1:4222"
    events_stream: str = "ENGRAM_EVENTS"
    events_subjects: str = "engram.events.>"
    events_duplicate_window_s: float = 120.0
    # This service's NATS user (deploy/nats/engram.conf grants each user its
    # own subjects); empty connects anonymously, which the stack's server refuses.
    nats_user: str = ""
    nats_password: SecretStr = SecretStr("")
    # Stream limits: the oldest events go first once either is reached, so a
    # dreamer stopped for longer than events_max_age_s misses what expired.
    events_max_age_s: float = 7 * 24 * 3600.0
    events_max_bytes: int = 1024 ** 3
    deadletter_max_age_s: float = 30 * 24 * 3600.0
    deadletter_max_bytes: int = 256 * 1024 ** 2
    # Copies of each stream kept by a JetStream cluster, set when a service
    # creates a stream (1 for one server; 3 on the Kubernetes NATS cluster).
    events_replicas: int = Field(default=1, ge=1, le=5)


class AuditSettings(BaseSettings):
    """Mixin for services that keep digests of content (audit rows,
    tombstones, mail): the per-stack key they are made with."""

    model_config = ENGRAM_ENV
    # Changing it makes earlier digests unmatchable: keep it with the data.
    audit_hmac_key: SecretStr = Field(min_length=16)

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parents[2]
# An installed wheel has no checkout: it carries a copy of the topology (setup.py).
BUNDLED = Path(__file__).resolve().parent / "bundled"


def default_compose_file() -> Path:
    """The checkout's docker-compose.yml, else the copy an installed wheel carries."""
    checkout = REPO_ROOT / "docker-compose.yml"
    return checkout if checkout.is_file() else BUNDLED / "docker-compose.yml"


class CliSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ENGRAM_", extra="ignore")

    data_dir: Path = Path.home() / ".engram"
    port_offset: int = 0
    compose_file: Path = default_compose_file()
    start_timeout_s: float = 180.0
    # `engram up --replicas`: SERVICE=COUNT,... (1..8 each; default one of each).
    replicas: str = ""
    # `engram up` restarts a process that exited after a delay that starts
    # here and doubles with each quick failure, up to the cap; a process that
    # stayed up for the reset time starts again from the first delay.
    restart_backoff_initial_s: float = Field(default=0.5, gt=0)
    restart_backoff_max_s: float = Field(default=30.0, gt=0)
    restart_backoff_reset_s: float = Field(default=60.0, ge=0)
    # The stack's audit key, for export/import against an explicit
    # --database-url (a compose stack: the value in its .env).
    audit_hmac_key: SecretStr | None = None
    # `engram backup`/`restore` and `engram up --backup-every`: the passphrase
    # a backup's keys file (secrets, principals) is sealed under, unless a key
    # file is named; never a command-line value.
    backup_passphrase: SecretStr | None = None
    # Run as root only: where the Postgres OS user gets its own directory.
    postgres_base: Path = Path("/var/lib/engram-pg")
    # `engram mcp-stdio`: the gateway's MCP endpoint it proxies to (--url wins).
    url: str = "http://127.0.0.1:8750/mcp"
    # `engram mcp-stdio`: the bearer token it sends (--token-file wins).
    token: SecretStr | None = None
    # `engram mcp-stdio`: an X-Engram-Session it sends, to be a distinct agent
    # instance of its principal.
    session: str = ""
    # `engram mcp-stdio`: a request fails when the gateway does not accept a
    # connection within this.
    stdio_connect_timeout_s: float = Field(default=5.0, gt=0)
    # `engram mcp-stdio`: a request fails when the gateway does not answer
    # within this (long: a response stream may stay open that long).
    stdio_read_timeout_s: float = Field(default=300.0, gt=0)

from __future__ import annotations

import argparse
from pathlib import Path

from pydantic import Field, SecretStr

from engram_runner.settings import RunnerSettings


class CliSettings(RunnerSettings):
    """The runner's settings (every command may start or reach the stack)
    and what the commands add."""

    # The stack's audit key, for export/import against an explicit
    # --database-url (a compose stack: the value in its .env).
    audit_hmac_key: SecretStr | None = None
    # `engram backup`/`restore` and `engram up --backup-every`: the passphrase
    # a backup's keys file (secrets, principals) is sealed under, unless a key
    # file is named; never a command-line value.
    backup_passphrase: SecretStr | None = None
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


def from_args(args: argparse.Namespace) -> CliSettings:
    """The settings, with a command's --data-dir and --replicas over the environment."""
    overrides = {}
    if getattr(args, "data_dir", None):
        overrides["data_dir"] = Path(args.data_dir)
    if getattr(args, "replicas", None):
        overrides["replicas"] = args.replicas
    return CliSettings(**overrides)

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

CHECKOUT = Path(__file__).resolve().parents[2]
# An installed wheel has no checkout: it carries a copy of the topology (setup.py).
BUNDLED = Path(__file__).resolve().parent / "bundled"


def default_compose_file() -> Path:
    """The checkout's docker-compose.yml, else the copy an installed wheel carries."""
    checkout = CHECKOUT / "docker-compose.yml"
    return checkout if checkout.is_file() else BUNDLED / "docker-compose.yml"


class RunnerSettings(BaseSettings):
    """What the embedded stack needs to start and supervise its processes."""

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
    # Run as root only: where the Postgres OS user gets its own directory.
    postgres_base: Path = Path("/var/lib/engram-pg")

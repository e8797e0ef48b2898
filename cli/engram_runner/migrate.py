"""`python -m engram_runner.migrate`: apply every service's schema migrations
as the database admin, then exit.

docker-compose.yml runs it as the one-shot `migrate` job before the
database services start, and `engram up` runs that job the same way; so
the admin (superuser) URL lives only in this short-lived process, and every
service connects as its own role (no superuser, no BYPASSRLS, not the owner
of its tables, so row-level security always applies to it)."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from pathlib import Path

from pydantic import SecretStr
from pydantic_settings import BaseSettings

from engram_kit.migrate import MigrationChanged, apply_migrations
from engram_kit.settings import ENGRAM_ENV

# schema -> the service package that owns it, in the order they are
# migrated (memory first: the others read nothing of it before).
SCHEMAS = {"memory": "engram_memory", "cortex": "engram_cortex",
           "dreamer": "engram_dreamer", "coordination": "engram_coordination"}


class MigrateSettings(BaseSettings):
    model_config = ENGRAM_ENV

    admin_database_url: SecretStr
    memory_database_url: SecretStr
    cortex_database_url: SecretStr
    dreamer_database_url: SecretStr
    coordination_database_url: SecretStr


def migrations_dir(package: str) -> Path:
    """The package's migrations, found without importing the service."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"{package} is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "migrations"


async def migrate_all(s: MigrateSettings) -> dict[str, list[int]]:
    admin = s.admin_database_url.get_secret_value()
    applied = {}
    for schema, package in SCHEMAS.items():
        dsn: SecretStr = getattr(s, f"{schema}_database_url")
        applied[schema] = await apply_migrations(admin, dsn.get_secret_value(), schema,
                                                 migrations_dir(package))
    return applied


def main() -> int:
    try:
        # The fields come from the environment, which pyright cannot see.
        applied = asyncio.run(migrate_all(MigrateSettings()))  # pyright: ignore[reportCallIssue]
    except MigrationChanged as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    for schema, versions in applied.items():
        sys.stdout.write(f"{schema}: {len(versions)} migration(s) applied\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

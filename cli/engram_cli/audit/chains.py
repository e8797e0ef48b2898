"""`engram audit show|verify`: read and check the hash-chained audit logs of
every service schema that keeps one (operators; an admin connection)."""

from __future__ import annotations

import asyncio
import json
import sys

import asyncpg

from engram_cli.hooks.inert import inert
from engram_cli.settings import CliSettings
from engram_kit import audit
from engram_runner.secrets_store import load_or_mint
from engram_runner.topology import load_topology, required_variables

# schema -> extra columns hashed into its chain
AUDITED = {"memory": (), "cortex": (), "coordination": ("agent_id",)}


def admin_dsn(settings: CliSettings, explicit: str) -> str:
    if explicit:
        return explicit
    data_dir = settings.data_dir.resolve()
    names = required_variables(settings.compose_file.read_text())
    secrets = load_or_mint(data_dir / "secrets.json", names)
    topo = load_topology(settings.compose_file, settings.port_offset, data_dir, secrets)
    # Only the one-shot migrations job holds the admin URL.
    return next(s.env["ENGRAM_ADMIN_DATABASE_URL"] for s in topo.jobs.values()
                if "ENGRAM_ADMIN_DATABASE_URL" in s.env)


async def _verify(dsn: str) -> int:
    conn = await asyncpg.connect(dsn)
    try:
        bad = 0
        for schema, extra in AUDITED.items():
            checked, problems = await audit.verify(conn, schema, extra)
            for p in problems:
                sys.stdout.write(f"[!!] {p.schema}.audit namespace {inert(p.namespace)} row "
                                 f"{p.row_id}: {inert(p.what)}\n")
            sys.stdout.write(f"[{'ok' if not problems else '!!'}] {schema}.audit: {checked} "
                             f"rows, {len(problems)} problem(s)\n")
            bad += len(problems)
        return 1 if bad else 0
    finally:
        await conn.close()


async def _show(dsn: str, schema: str, namespace: str, action: str, limit: int) -> int:
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch(
            f'SELECT * FROM "{schema}".audit WHERE ($1 = \'\' OR namespace = $1) '
            "AND ($2 = '' OR action LIKE $2 || '%') ORDER BY id DESC LIMIT $3",
            namespace, action, limit)
        for r in reversed(rows):
            detail = r["detail"] if isinstance(r["detail"], str) else json.dumps(r["detail"])
            # Every field may hold text a client sent: escape sequences and
            # control characters are shown, never sent to the terminal.
            fields = (r["namespace"], r["principal"], r["action"], r["subject"], detail)
            sys.stdout.write(f"{r['at'].isoformat()} {' '.join(inert(f) for f in fields)}\n")
        return 0
    finally:
        await conn.close()


def run_audit(settings: CliSettings, command: str, database_url: str, schema: str = "cortex",
              namespace: str = "", action: str = "", limit: int = 50) -> int:
    dsn = admin_dsn(settings, database_url)
    if command == "verify":
        return asyncio.run(_verify(dsn))
    if schema not in AUDITED:
        sys.stderr.write(f"error: schema is one of {', '.join(AUDITED)}\n")
        return 2
    return asyncio.run(_show(dsn, schema, namespace, action, limit))

"""Backups you can trust, on the session stack with data in every layer:
`engram backup --verify` restores the archive into a scratch Postgres and
finds every table's rows and every audit chain as they were backed up; the
keys file holds the secrets and principals, sealed under the operator's
passphrase; a changed archive or a manifest that does not match what
restores is reported; scheduled backups rotate, on a clock the test moves."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from engram_cli.backup import keys_file
from engram_cli.backup.archive import verify_backup
from engram_cli.backup.keys_file import BackupRefused, Manifest
from engram_cli.backup.schedule import BackupPlan, BackupSchedule
from engram_cli.backup.verify import BackupMismatch, verify
from engram_runner.stack import Stack

from ..helpers import admin_fetchval, call, cli_settings, eventually, mcp_client
from .test_documents import tiny_pdf

PASSPHRASE = "correct horse battery staple"


def engram(stack: Stack, *args: str, passphrase: str | None = PASSPHRASE
           ) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != keys_file.PASSPHRASE_VARIABLE}
    env["ENGRAM_PORT_OFFSET"] = str(stack.settings.port_offset)
    if passphrase is not None:
        env[keys_file.PASSPHRASE_VARIABLE] = passphrase
    return subprocess.run([sys.executable, "-m", "engram_cli", *args, "--data-dir",
                           str(stack.data_dir)], capture_output=True, text=True, timeout=300,
                          env=env)


async def fill_every_layer(stack: Stack, admin_dsn: str) -> None:
    ns = f"bk-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    async with mcp_client(stack.mcp_url, token, session=f"s-{ns}") as client:
        await call(client, "memory_store", {"text": "Backups run nightly at 02:00.",
                                            "namespace": ns})
        await call(client, "document_ingest", {
            "content": base64.b64encode(tiny_pdf(["Restore drill every quarter"])).decode(),
            "format": "pdf", "source": "drill.pdf", "namespace": ns})
        await call(client, "fact_set", {"entity": "backups", "attribute": "time",
                                        "value": "02:00", "namespace": ns})
        await call(client, "board_agents", {"action": "update", "status": "working",
                                            "namespace": ns})
        await call(client, "board_lease", {"action": "claim", "name": f"drill-{ns}",
                                           "ttl_seconds": 600, "namespace": ns})

    async def dreamed() -> bool:
        return bool(await admin_fetchval(admin_dsn, "SELECT count(*) FROM "
                                         "dreamer.processed_events WHERE namespace = $1", ns))

    await eventually(dreamed, timeout_s=60, what="the dreamer to see the namespace's events")


async def test_backup_verify_restores_every_layer(stack: Stack, admin_dsn: str,
                                                  tmp_path: Path):
    await fill_every_layer(stack, admin_dsn)
    out = tmp_path / "backups"
    refused = engram(stack, "backup", "--out", str(out), passphrase=None)
    assert refused.returncode == 2 and keys_file.PASSPHRASE_VARIABLE in refused.stderr
    done = engram(stack, "backup", "--out", str(out), "--verify")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "verified: restored into a scratch database" in done.stdout
    [archive] = sorted(out.glob("engram-*.dump"))
    keys = archive.with_suffix(".keys")
    assert oct(keys.stat().st_mode & 0o777) == "0o600"
    text = keys.read_text()
    for secret in (stack.secrets["POSTGRES_PASSWORD"], stack.secrets["ENGRAM_AUDIT_HMAC_KEY"]):
        assert secret not in text, "the keys file holds the secrets only encrypted"
    manifest, files = keys_file.read(keys, PASSPHRASE.encode())
    assert json.loads(files["secrets.json"]) == stack.secrets
    assert json.loads(files["principals.json"]) == json.loads(
        (stack.data_dir / "principals.json").read_text())
    for table in ("memory.entries", "memory.documents", "memory.audit", "cortex.facts",
                  "cortex.audit", "coordination.agents", "coordination.leases",
                  "coordination.audit", "dreamer.processed_events"):
        assert manifest.counts[table] > 0, f"{table} has rows in the backup"
    assert manifest.chains["memory"] and manifest.chains["cortex"]
    with pytest.raises(BackupRefused, match="does not open"):
        keys_file.read(keys, b"not the passphrase at all")

    # A manifest that promises one row more than the archive holds: the
    # scratch restore finds the difference and names the table.
    padded = Manifest(manifest.dump, manifest.dump_sha256,
                      {**manifest.counts, "cortex.facts": manifest.counts["cortex.facts"] + 1},
                      manifest.chains)
    with pytest.raises(BackupMismatch) as mismatch:
        await asyncio.to_thread(verify, archive, padded, files, stack.settings.postgres_base)
    assert [p for p in mismatch.value.problems if p.startswith("cortex.facts: ")] == [
        f"cortex.facts: {padded.counts['cortex.facts']} rows backed up, "
        f"{manifest.counts['cortex.facts']} restored"]
    with archive.open("r+b") as f:
        f.seek(archive.stat().st_size // 2)
        byte = f.read(1)
        f.seek(-1, 1)
        f.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(BackupMismatch, match="incomplete") as changed:
        await asyncio.to_thread(verify_backup, cli_settings(stack), archive, PASSPHRASE.encode())
    assert any("not the archive" in p for p in changed.value.problems)


def test_scheduled_backups_rotate_on_an_injected_clock(stack: Stack, tmp_path: Path):
    now = [0.0]
    said: list[str] = []
    off_disk = tmp_path / "off-disk"
    plan = BackupPlan(every_h=6, keep=2, to_dir=str(off_disk))
    schedule = BackupSchedule(cli_settings(stack), plan, PASSPHRASE.encode(), said.append,
                              clock=lambda: now[0])
    home = stack.data_dir / "backups"
    before = set(home.glob("engram-*.dump")) if home.exists() else set()
    taken = []
    for hours in (1, 5.9, 6, 7, 12, 18):
        now[0] = hours * 3600
        schedule.tick()
        schedule.wait(120)
        taken.append(len(said))
    assert taken == [0, 0, 1, 1, 2, 3], said
    assert all(line.startswith("scheduled backup written") for line in said), said
    kept = sorted(set(home.glob("engram-*.dump")) - before)
    assert len(kept) == 2 and all(p.with_suffix(".keys").is_file() for p in kept)
    assert sorted(p.name for p in off_disk.glob("engram-*")) == sorted(
        [p.name for p in kept] + [p.with_suffix(".keys").name for p in kept])

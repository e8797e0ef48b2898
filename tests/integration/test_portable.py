"""Export one namespace as JSONL from the session stack, import it into an
empty stack of its own, and every read answers the same there; the audit
chains still verify; a second import, a damaged file and a forged one (its
audit chain recomputed, its seal signed again by the forger) are refused
with nothing changed. The file never holds the audit key."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

from engram_cli.portable import export_seal
from engram_kit import audit
from engram_runner.settings import RunnerSettings
from engram_runner.stack import Stack

from ..helpers import call, eventually, mcp_client
from ..stacks import Variant, offset
from .test_documents import tiny_pdf

OFFSET = offset(Variant.PORTABLE)


def engram(*args: str, audit_key: str = "") -> subprocess.CompletedProcess:
    """The CLI against an explicit --database-url: the audit key comes from the env."""
    env = {k: v for k, v in os.environ.items() if k != "ENGRAM_AUDIT_HMAC_KEY"}
    if audit_key:
        env["ENGRAM_AUDIT_HMAC_KEY"] = audit_key
    return subprocess.run([sys.executable, "-m", "engram_cli", *args], capture_output=True,
                          text=True, timeout=120, env=env)


async def write_namespace(stack: Stack, ns: str, token: str) -> dict[str, Any]:
    async with mcp_client(stack.mcp_url, token) as client:
        await call(client, "episode_start", {"title": "portability", "namespace": ns})
        old = await call(client, "memory_store", {
            "text": "The staging cluster runs Kubernetes 1.29.", "tags": ["infra"],
            "namespace": ns})
        new = await call(client, "memory_supersede", {
            "entry_id": old["id"], "new_text": "The staging cluster runs Kubernetes 1.31.",
            "reason": "upgraded", "namespace": ns})
        await call(client, "memory_store", {"text": "Deploys freeze on Fridays after 3pm.",
                                            "namespace": ns})
        await call(client, "episode_end", {"namespace": ns})
        doc = await call(client, "document_ingest", {
            "content": base64.b64encode(tiny_pdf(["Pager rota: Ana then Bo then Cy"])).decode(),
            "format": "pdf", "source": "rota.pdf", "namespace": ns})
        await call(client, "fact_set", {"entity": "staging", "attribute": "k8s_version",
                                        "value": "1.29", "namespace": ns})
        await call(client, "fact_set", {"entity": "staging", "attribute": "k8s_version",
                                        "value": "1.31", "replaces": True, "namespace": ns})
        await call(client, "graph_relate", {"src": "billing-api", "relation": "depends_on",
                                            "dst": "staging", "namespace": ns})
        await call(client, "fact_verify", {"entity": "staging", "attribute": "k8s_version",
                                           "namespace": ns})
        await call(client, "fact_set", {"entity": "staging", "attribute": "queue",
                                        "value": "SQS", "kind": "DECISION",
                                        "reopen_trigger": "past 10k messages/s",
                                        "namespace": ns})
        await call(client, "fact_set", {"entity": "staging", "attribute": "deploys",
                                        "value": "no deploys on Fridays", "kind": "RULE",
                                        "earned_by": "the Friday outage", "namespace": ns})
        # Cites the entry superseded above: flagged once the dreamer relays it.
        await call(client, "fact_set", {"entity": "staging", "attribute": "cluster",
                                        "value": "Kubernetes 1.29", "namespace": ns,
                                        "source_type": "memory_entry", "source_ref": old["id"]})

        async def flagged() -> bool:
            got = await call(client, "fact_get", {"entity": "staging", "attribute": "cluster",
                                                  "namespace": ns})
            return "re_verify" in got["current"][0]

        await eventually(flagged, what="re_verify on the fact citing a superseded entry")
    return {"old": old["id"], "new": new["id"], "doc": doc["id"]}


async def read_namespace(stack: Stack, ns: str, token: str, ids: dict) -> dict[str, Any]:
    async with mcp_client(stack.mcp_url, token) as client:
        reads = {
            "search": await call(client, "memory_search", {
                "query": "which Kubernetes version does staging run", "top_k": 5,
                "namespace": ns, "explain": True}),
            "history": await call(client, "memory_search", {
                "query": "Kubernetes staging", "include_history": True, "namespace": ns}),
            "get_old": await call(client, "memory_get", {"id": ids["old"], "namespace": ns}),
            "recent": await call(client, "memory_recent", {"n": 10, "namespace": ns}),
            "docs": await call(client, "document_search", {"query": "pager rota",
                                                           "namespace": ns}),
            "fact": await call(client, "fact_get", {"entity": "staging",
                                                    "attribute": "k8s_version",
                                                    "namespace": ns}),
            "fact_history": await call(client, "fact_history", {"entity": "staging",
                                                                "namespace": ns}),
            "flagged": await call(client, "fact_get", {"entity": "staging",
                                                       "attribute": "cluster",
                                                       "namespace": ns}),
            "graph": await call(client, "graph_neighbors", {"entity": "billing-api",
                                                            "namespace": ns}),
        }
    for reply in reads.values():
        reply.pop("tokens", None)
    for item in reads["search"]["entries"]:  # float noise in the trace is not an answer
        item.pop("trace", None)
    return json.loads(json.dumps(reads, sort_keys=True))


def forged(lines: list[str], forger_key: str = "") -> list[str]:
    """What a holder of the file can make: the first memory audit row's
    principal changed and the chain recomputed so that it verifies; signed
    again under a key of the forger's when one is given."""
    header, seal = json.loads(lines[0]), lines[-1]
    body = [json.loads(ln) for ln in lines[1:-1]]
    chain = sorted((i["row"] for i in body if (i["schema"], i["table"]) == ("memory", "audit")),
                   key=lambda r: r["id"])
    chain[0]["principal"] = "forger"
    prev = audit.GENESIS
    for row in chain:
        row["prev_hash"], row["hash"] = prev, audit.row_hash(
            prev, row["namespace"], datetime.fromisoformat(row["at"]), row["principal"],
            row["action"], row["subject"], row["detail"], {})
        prev = row["hash"]
    if not forger_key:
        return [json.dumps(header), *map(json.dumps, body), seal]
    sealer = export_seal.Sealer()
    header["signer"] = export_seal.signer(forger_key)
    text = [sealer.line(json.dumps(header)), *(sealer.line(json.dumps(i)) for i in body)]
    return [t.rstrip("\n") for t in text] + [sealer.seal(forger_key).rstrip("\n")]


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


async def test_export_import_round_trip(stack: Stack, admin_dsn: str, tmp_path: Path):
    ns = f"port-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    ids = await write_namespace(stack, ns, token)
    before = await read_namespace(stack, ns, token, ids)
    out = tmp_path / "ns.jsonl"
    key = stack.secrets["ENGRAM_AUDIT_HMAC_KEY"]
    keyless = engram("export", "--namespace", ns, "--out", str(out), "--database-url", admin_dsn)
    assert keyless.returncode == 2 and "ENGRAM_AUDIT_HMAC_KEY" in keyless.stderr
    done = engram("export", "--namespace", ns, "--out", str(out), "--database-url", admin_dsn,
                  audit_key=key)
    assert done.returncode == 0, done.stderr
    lines = out.read_text().splitlines()
    assert json.loads(lines[0])["namespaces"] == [ns]
    assert key not in out.read_text(), "the audit key stays with the stack"
    assert set(json.loads(lines[0])) == {"format", "exported_at", "namespaces", "migrations",
                                         "signer", "audit_key_id"}
    fingerprint = export_seal.fingerprint(json.loads(lines[0])["signer"])
    assert f"signed by {fingerprint}" in done.stdout
    shown = engram("audit", "key-id", "--database-url", admin_dsn, audit_key=key)
    assert shown.stdout.strip() == fingerprint
    lines = lines[:-1] if not lines[-1].strip() else lines
    assert "seal" in json.loads(lines[-1])
    tables = {(json.loads(ln)["schema"], json.loads(ln)["table"]) for ln in lines[1:-1]}
    assert {("memory", "entries"), ("memory", "entry_versions"), ("memory", "documents"),
            ("memory", "audit"), ("cortex", "facts")} <= tables
    assert all(json.loads(ln)["row"]["namespace"] == ns for ln in lines[1:-1])
    facts = [json.loads(ln)["row"] for ln in lines[1:-1] if json.loads(ln)["table"] == "facts"]
    assert {(f["attribute"], f["reopen_trigger"] or f["earned_by"]) for f in facts
            if f["reopen_trigger"] or f["earned_by"]} == {
        ("queue", "past 10k messages/s"), ("deploys", "the Friday outage")}
    assert [f["value"] for f in facts if f["last_verified_at"]] == ["1.31"]
    assert ("cortex", "evidence_changes") in tables

    # The new stack takes the file's audit key before its first start, so
    # digests of forgotten content still match there.
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "secrets.json").write_text(json.dumps({"ENGRAM_AUDIT_HMAC_KEY": key}))
    other = Stack(RunnerSettings(data_dir=tmp_path / "other", port_offset=OFFSET))
    other.start()
    try:
        target = other.postgres.admin_dsn
        into = ("--namespace", ns, "--database-url", target)
        damaged = tmp_path / "damaged.jsonl"
        damaged.write_text("\n".join(lines[:3] + ["{not json"] + lines[3:]) + "\n")
        refused = engram("import", str(damaged), *into, audit_key=key)
        assert refused.returncode == 2 and "nothing changed" in refused.stderr
        altered = write_lines(tmp_path / "altered.jsonl", forged(lines))
        refused = engram("import", str(altered), *into, audit_key=key)
        assert refused.returncode == 2 and "does not match its seal" in refused.stderr
        resigned = write_lines(tmp_path / "resigned.jsonl", forged(lines, "forger-key-0123456789"))
        for trust in ((), ("--trust-signer", fingerprint)):
            refused = engram("import", str(resigned), *into, *trust, audit_key=key)
            assert refused.returncode == 2 and "does not trust" in refused.stderr
        # A stack under another audit key takes the file only when told whose it is,
        # and then only knowing its digests match nothing there.
        elsewhere = "another-stack-key-0123456789"
        refused = engram("import", str(out), *into, audit_key=elsewhere)
        assert refused.returncode == 2 and f"--trust-signer {fingerprint}" in refused.stderr
        refused = engram("import", str(out), *into, "--trust-signer", fingerprint,
                         audit_key=elsewhere)
        assert refused.returncode == 2 and "another audit key" in refused.stderr
        loaded = engram("import", str(out), *into, audit_key=key)
        assert loaded.returncode == 0, loaded.stderr
        again = engram("import", str(out), *into, audit_key=key)
        assert again.returncode == 2 and "already has rows here" in again.stderr
        other_token = other.principals.create(f"p-{ns}", "agent", [ns])
        after = await read_namespace(other, ns, other_token, ids)
        verified = engram("audit", "verify", "--database-url", target, audit_key=key)
        recorded = engram("audit", "show", "--schema", "cortex", "--namespace", ns, "--action",
                          "import", "--database-url", target, audit_key=key)
    finally:
        other.stop()
    assert after == before
    assert verified.returncode == 0, verified.stdout + verified.stderr
    # The chain goes on under the new stack, naming the file and its signer.
    digest = hashlib.sha256("".join(ln + "\n" for ln in lines[:-1]).encode()).hexdigest()
    [row] = recorded.stdout.splitlines()
    assert f"{ns} engram import import {fingerprint} " in row and digest in row

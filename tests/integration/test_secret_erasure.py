"""A secret stored in each writable layer (entry, document, fact, world fact,
lesson, mail) and erased with the tool meant for that layer is found in no
read path, no `engram export`, no `engram backup` file and no log file of
the stack."""

from __future__ import annotations

import json
import secrets
import uuid
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from engram_runner.stack import Stack

from ..helpers import call, call_error, eventually, mcp_client
from .test_board_mail import join
from .test_forget_privacy import backup_as_sql, engram, logs, plain_hashes


def secret() -> str:
    return f"zq{secrets.token_hex(10)}"


async def store_everywhere(client: Any, ns: str, s: dict[str, str]) -> dict[str, Any]:
    """One secret per layer; returns what the erasing calls need."""
    entry = await call(client, "memory_store", {
        "text": f"the staging vault password is {s['entry']}", "namespace": ns})
    doc = await call(client, "document_ingest", {
        "content": f"# Vault\n\nUnseal it with {s['document']}.\n", "format": "markdown",
        "source": "vault.md", "namespace": ns})
    await call(client, "fact_set", {
        "entity": "staging-vault", "attribute": "unseal_key", "value": s["fact"],
        "evidence_quote": f"the key is {s['fact']}", "namespace": ns})
    await call(client, "world_set", {
        "entity": "vendor-api", "attribute": "demo_key", "value": s["world"],
        "source_url": "https://vendor.example/docs", "freshness": "stable",
        "source_quote": f"use the demo key {s['world']}", "namespace": ns})
    made = await call(client, "outcome_record", {
        "task": f"log in with {s['lesson']}", "outcome": "correction",
        "detail": f"paste {s['lesson']} into the prompt", "namespace": ns})
    return {"entry": entry["id"], "document": doc["id"], "lesson": made["lesson"]["id"]}


async def read_everything(client: Any, ns: str, s: dict[str, str],
                          ids: dict[str, Any]) -> str:
    """Every read path an agent has, for every secret, as one text."""
    out: list[Any] = []
    for word in s.values():
        out += [await call(client, "memory_search", {"query": word, "namespace": ns}),
                await call(client, "memory_recall", {"query": word, "namespace": ns}),
                await call(client, "document_search", {"query": word, "namespace": ns}),
                await call(client, "world_search", {"query": word, "namespace": ns}),
                await call(client, "lesson_search", {"query": word, "namespace": ns})]
    out += [await call(client, "memory_recent", {"n": 50, "namespace": ns}),
            await call(client, "fact_get", {"entity": "staging-vault",
                                            "attribute": "unseal_key", "namespace": ns}),
            await call(client, "fact_history", {"entity": "staging-vault", "namespace": ns}),
            await call(client, "graph_neighbors", {"entity": "staging-vault", "namespace": ns}),
            await call(client, "world_search", {"query": "vendor api demo key",
                                                "namespace": ns}),
            await call(client, "briefing", {"token_budget": 8000, "namespace": ns})]
    result = await client.call_tool("memory_get", {"id": ids["entry"], "namespace": ns})
    out.append(result.content)
    return json.dumps(out, default=str)


async def test_a_secret_erased_from_each_layer_is_gone_everywhere(
        stack: Stack, agent_token: str, tmp_path: Path):
    ns = f"secret-{uuid.uuid4().hex[:6]}"
    # A reviewer: erasing for good needs the erase grant, which agents lack.
    token = stack.principals.create(f"p-{ns}", "reviewer", ["default", ns])
    s = {layer: secret() for layer in ("entry", "document", "fact", "world", "lesson", "mail")}
    needles = {w for word in s.values() for w in (word, *plain_hashes(word))}
    async with mcp_client(stack.mcp_url, token) as client:
        ids = await store_everywhere(client, ns, s)
        before = await read_everything(client, ns, s, ids)
        assert all(s[k] in before for k in ("entry", "document", "fact", "world", "lesson"))
        await call(client, "memory_forget", {"entry_id": ids["entry"], "reason": "secret",
                                             "namespace": ns})
        await call(client, "document_forget", {"document_id": ids["document"],
                                               "reason": "secret", "namespace": ns})
        await call(client, "fact_forget", {"entity": "staging-vault",
                                           "attribute": "unseal_key", "reason": "secret",
                                           "namespace": ns})
        await call(client, "world_retract", {"entity": "vendor-api", "attribute": "demo_key",
                                             "reason": "secret", "erase": True,
                                             "namespace": ns})
        await call(client, "lesson_retire", {"lesson_id": ids["lesson"], "reason": "secret",
                                             "erase": True, "namespace": ns})

    async with AsyncExitStack() as es:
        a, _ = await join(es, stack, token)
        b, b_id = await join(es, stack, agent_token)
        sent = await call(a, "board_message", {"action": "send", "to": b_id,
                                               "text": f"the vault code is {s['mail']}"})
        inbox = await call(b, "board_message", {"action": "receive"})
        assert s["mail"] in json.dumps(inbox)
        await call(a, "mail_forget", {"mail_id": sent["receipts"][0]["message_id"],
                                      "reason": "secret"})
        board = json.dumps([await call(b, "board_message", {"action": "receive"}),
                            await call(b, "briefing", {"token_budget": 8000})])
        assert s["mail"] not in board

    async with mcp_client(stack.mcp_url, token) as client:
        after = await read_everything(client, ns, s, ids)
        assert "was forgotten" in after
    assert [k for k, word in s.items() if word in after] == []

    export = tmp_path / "all.jsonl"
    holders: list[str] = []

    async def export_clean() -> bool:  # what the dreamer drew from the entry goes later
        done = engram(stack, "export", "--out", str(export))
        assert done.returncode == 0, done.stderr
        holders[:] = [line[:300] for line in export.read_text().splitlines()
                      if any(n in line for n in needles)]
        return not holders

    try:
        await eventually(export_clean, 30, "an export without the erased secrets")
    except AssertionError:
        raise AssertionError(f"the export still holds them: {holders}") from None
    backup = backup_as_sql(stack, tmp_path / "backups")
    for where, haystack in (("backup", backup), ("logs", logs(stack))):
        found = sorted(k for k, word in s.items()
                       if word in haystack or plain_hashes(word) & set(haystack.split()))
        assert not found, f"the {where} still holds the secret of {found}"
    assert "was forgotten" in await _entry_error(stack, token, ns, ids["entry"])


async def _entry_error(stack: Stack, token: str, ns: str, entry_id: str) -> str:
    async with mcp_client(stack.mcp_url, token) as client:
        return await call_error(client, "memory_get", {"id": entry_id, "namespace": ns})

"""The prompt hook's recall and the briefing's STATE facts over the real
stack, run as Claude Code runs the hooks (a subprocess, the hook's JSON on
stdin): a prompt surfaces the memory closest to it, fenced and labelled
with its author, once per session; trivial prompts, slash commands and the
off switch search nothing; a search past its deadline leaves the prompt
alone. The session-start briefing carries current STATE facts and fits its
budget as rendered."""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from engram_runner.stack import Stack

from ..helpers import call, mcp_client
from ..hookrun import client_session, fenced, run_hook

DEPLOY_RULE = "deploy only after the canary has run 30 minutes without errors"
DEPLOY = "Can I deploy the billing-api change now?"


def hook_env(url: str, token: str, state: Path, **extra: str) -> dict[str, str]:
    """Time enough for a cold stack on a loaded machine: these tests are about
    what is shown; the deadline has a test of its own."""
    return {**os.environ, "ENGRAM_URL": url, "ENGRAM_TOKEN": token,
            "ENGRAM_HOOK_STATE_DIR": str(state), "ENGRAM_HOOK_TIMEOUT_S": "10",
            "ENGRAM_HOOK_RECALL_TIMEOUT_S": "10", **extra}


def tokens(text: str) -> int:
    """The estimate the briefing is budgeted with: about four characters a token."""
    return len(text) // 4 + 1 if text else 0


async def _two_principals(stack: Stack) -> tuple[str, str, str]:
    ns = f"hr-{uuid.uuid4().hex[:6]}"
    return (ns, stack.principals.create(f"me-{ns}", "agent", [ns]),
            stack.principals.create(f"peer-{ns}", "agent", [ns]))


async def test_a_prompt_surfaces_the_closest_memory_once_fenced_and_labelled(
        stack: Stack, tmp_path: Path):
    ns, mine, peer = await _two_principals(stack)
    async with mcp_client(stack.mcp_url, peer, "peer-session") as client:
        await call(client, "fact_set", {"entity": "billing-api", "attribute": "deploy_rule",
                                        "value": DEPLOY_RULE, "kind": "RULE"})
        await call(client, "memory_store", {
            "text": "The storefront bundle is built with Vite 5 and served from the CDN."})
    sid, env = client_session(), hook_env(stack.mcp_url, mine, tmp_path)
    assert run_hook("session-start", sid, env).rc == 0
    run = run_hook("prompt", sid, env, fields={"prompt": DEPLOY})
    assert run.rc == 0 and run.stderr == "", run
    [(above, inside)] = fenced(run.context())
    assert f"- rule by peer-{ns}: billing-api.deploy_rule = {DEPLOY_RULE}" in inside, inside
    assert not any("Vite" in line for line in inside), "only the clear answers"
    assert "not instructions" in run.context()
    again = run_hook("prompt", sid, env, fields={"prompt": DEPLOY})
    assert (again.rc, again.stdout) == (0, ""), "shown once per session"
    # Another session is told again: what was shown is remembered per session.
    other = client_session()
    assert DEPLOY_RULE in run_hook("prompt", other, env, fields={"prompt": DEPLOY}).context()


async def test_trivial_prompts_slash_commands_and_the_off_switch_search_nothing(
        stack: Stack, tmp_path: Path):
    _, mine, peer = await _two_principals(stack)
    async with mcp_client(stack.mcp_url, peer, "peer-session") as client:
        await call(client, "fact_set", {"entity": "billing-api", "attribute": "deploy_rule",
                                        "value": DEPLOY_RULE, "kind": "RULE"})
    # One session: a second open one on the token would add a note of its own.
    sid, env = client_session(), hook_env(stack.mcp_url, mine, tmp_path)
    for prompt in ("deploy?", "/deploy billing-api now please"):
        run = run_hook("prompt", sid, env, fields={"prompt": prompt})
        assert (run.rc, run.stdout, run.stderr) == (0, "", ""), (prompt, run)
    off = hook_env(stack.mcp_url, mine, tmp_path, ENGRAM_HOOK_RECALL="0")
    run = run_hook("prompt", sid, off, fields={"prompt": DEPLOY})
    assert (run.rc, run.stdout, run.stderr) == (0, "", ""), run


@contextmanager
def trickling_server() -> Iterator[int]:
    """A server that answers every request one byte every 0.1 s, forever:
    no single read ever times out, so only a deadline on the whole request
    lets go of it."""
    srv = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve(conn: socket.socket) -> None:
        with conn:
            conn.recv(65536)
            while not stop.is_set():
                try:
                    conn.sendall(b"H")
                except OSError:
                    return
                time.sleep(0.1)

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield srv.getsockname()[1]
    finally:
        stop.set()
        srv.close()


def test_a_slow_gateway_cannot_hold_the_prompt(tmp_path: Path):
    with trickling_server() as port:
        env = hook_env(f"http://127.0.0.1:{port}/mcp", "some-token", tmp_path,
                       ENGRAM_HOOK_TIMEOUT_S="0.3", ENGRAM_HOOK_RECALL_TIMEOUT_S="0.3")
        run = run_hook("prompt", client_session(), env, fields={"prompt": DEPLOY})
    assert (run.rc, run.stdout, run.stderr) == (0, "", ""), run
    assert run.seconds < 2.0, f"took {run.seconds:.2f}s"


async def test_the_briefing_carries_state_facts_within_its_rendered_budget(
        stack: Stack, tmp_path: Path):
    ns, mine, _ = await _two_principals(stack)
    async with mcp_client(stack.mcp_url, mine, "writer") as client:
        for i in range(6):
            await call(client, "fact_set", {
                "entity": f"service-{i}", "attribute": "rule",
                "value": f"rule number {i} for the service, stated in a full sentence",
                "kind": "RULE" if i < 3 else "DECISION"})
        for entity, attribute, value in (("staging", "region", "eu-west-1"),
                                         ("payments-db", "version", "Postgres 16.4"),
                                         ("billing-api", "ci", "GitHub Actions")):
            await call(client, "fact_set", {"entity": entity, "attribute": attribute,
                                            "value": value, "kind": "STATE"})
    env = hook_env(stack.mcp_url, mine, tmp_path, ENGRAM_HOOK_BRIEFING_TOKENS="800")
    sid = client_session()
    context = run_hook("session-start", sid, env).context()
    assert tokens(context) <= 800, tokens(context)
    sections = dict(fenced(context))
    assert len(sections["## Rules, decisions and preferences"]) == 6, context
    assert set(sections["## Current facts"]) == {
        f"- state by me-{ns}: staging.region = eu-west-1",
        f"- state by me-{ns}: payments-db.version = Postgres 16.4",
        f"- state by me-{ns}: billing-api.ci = GitHub Actions"}
    assert run_hook("session-end", sid, env).rc == 0  # else the next one says two are open
    small = hook_env(stack.mcp_url, mine, tmp_path, ENGRAM_HOOK_BRIEFING_TOKENS="150")
    brief = run_hook("session-start", client_session(), small).context()
    assert tokens(brief) <= 150 and "- rule by" in brief, brief

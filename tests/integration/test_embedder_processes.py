"""The embedder's model worker processes: same vectors as the model, one
worker per model thread, a dead worker fails its batch clearly and is
replaced, and a stopped embedder leaves no worker behind."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc
import numpy as np
import pytest

from engram.v1 import embedder_pb2 as pb
from engram.v1 import embedder_pb2_grpc
from engram_embedder.backend import SentenceTransformerBackend
from engram_embedder.model_process import ModelProcessLost, ProcessBackend
from engram_kit.context import CallerContext
from engram_kit.embedder_client import vectors_of
from engram_runner.stack import Stack

from ..procs import service_process

LONG = [" ".join(["the staging database moved to another region"] * 20) + str(i)
        for i in range(96)]  # seconds of encoding on 2 cores


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie is gone too


def _workers(pid: int) -> list[int]:
    """Model worker processes of `pid` (not multiprocessing's resource tracker)."""
    kids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                command = (entry / "cmdline").read_bytes()
            except FileNotFoundError:
                continue
            if int(fields[1]) == pid and b"spawn_main" in command:
                kids.append(int(entry.name))
    return kids


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _wait_busy(pids: list[int], timeout_s: float = 60.0) -> int:
    """The first of `pids` to spend 0.3 s of CPU from now: a worker mid-batch."""
    start = {pid: _cpu_s(pid) for pid in pids}
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for pid in pids:
            if _cpu_s(pid) - start[pid] > 0.3:
                return pid
        time.sleep(0.05)
    raise AssertionError("no worker started encoding")


@pytest.fixture(scope="module")
def reference() -> SentenceTransformerBackend:
    return SentenceTransformerBackend("", "cpu")


def test_workers_per_thread_give_the_models_vectors_and_replace_a_dead_one(reference):
    backend = ProcessBackend("", "cpu")
    texts = ["where is the staging database?", "the lease on deploy expired"]
    try:
        assert backend.pids == [], "a worker starts on its thread's first call"
        with ThreadPoolExecutor(1) as other_lane:
            mine = backend.encode(texts)
            assert (backend.model, backend.dimension) == (reference.model, 384)
            theirs = other_lane.submit(backend.encode, texts[:1]).result().vectors
            assert len(backend.pids) == 2, "one worker per model thread"
            assert np.min(np.sum(mine.vectors * reference.encode(texts).vectors, axis=1)) > 0.999
            assert float(np.dot(theirs[0], mine.vectors[0])) > 0.999
            assert mine.tokens == reference.encode(texts).tokens > 4

            with ThreadPoolExecutor(1) as lane:  # a worker killed mid-batch
                lane.submit(backend.encode, texts).result(timeout=120)  # its worker starts
                first = backend.pids[-1]
                batch = lane.submit(backend.encode, LONG)
                os.kill(_wait_busy([first]), signal.SIGKILL)
                with pytest.raises(ModelProcessLost, match="exited mid-batch"):
                    batch.result(timeout=60)
                again = lane.submit(backend.encode, texts).result(timeout=120).vectors
                assert first not in backend.pids
                assert np.min(np.sum(again * mine.vectors, axis=1)) > 0.999
        pids = backend.pids
    finally:
        backend.close()
    assert not any(_alive(pid) for pid in pids)


async def test_a_dead_worker_is_unavailable_then_replaced_and_stop_leaves_none(
        stack: Stack, tmp_path: Path):
    md = CallerContext(principal="t", namespace="default").to_metadata(
        stack.secrets["ENGRAM_INTERNAL_TOKEN"])
    with service_process(stack, "embedder", {"ENGRAM_MODEL_PROCESSES": "true"},
                         tmp_path) as embedder:
        workers = _workers(embedder["proc"].pid)
        assert len(workers) == 2, "the model thread and the side lane each drive a worker"
        async with grpc.aio.insecure_channel(f"127.0.0.1:{embedder['grpc']}") as channel:
            stub = embedder_pb2_grpc.EmbedderServiceStub(channel)
            bulk = asyncio.ensure_future(stub.Embed(pb.EmbedRequest(
                texts=LONG, priority=pb.EMBED_PRIORITY_BULK), metadata=md, timeout=120))
            await asyncio.get_running_loop().run_in_executor(None, _wait_busy, workers)
            for pid in workers:
                os.kill(pid, signal.SIGKILL)
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await bulk
            assert err.value.code() == grpc.StatusCode.UNAVAILABLE
            assert "model process exited mid-batch" in (err.value.details() or "")
            reply = await stub.Embed(pb.EmbedRequest(texts=["back again"]), metadata=md,
                                     timeout=120)
            assert vectors_of(reply).shape == (1, 384)
        replaced = _workers(embedder["proc"].pid)
        assert replaced and not set(replaced) & set(workers)
        embedder["proc"].terminate()
        assert embedder["proc"].wait(30) == 0
    assert not any(_alive(pid) for pid in replaced)

"""Short versions of the reliability campaign (evals/bench/reliability.py runs
the full ones): a service SIGKILLed under mixed MCP + REST load loses no
acknowledged write and duplicates none, and a randomized multi-principal
run over every read path reads nothing across namespaces."""

from __future__ import annotations

import asyncio
import os
import signal
import time

from engram_runner.stack import Stack, ready
from evals.reliability.faults import EngramUp
from evals.reliability.fuzz import isolation
from evals.reliability.load import Ledger
from evals.reliability.scenarios import load, read_back

from ..procs import dead_services


class StackView(EngramUp):
    """What the campaign's scenarios need of a running stack: this session's,
    in place of an `engram up` of their own."""

    def __init__(self, stack: Stack) -> None:  # super() would start a stack of its own
        self.stack = stack
        self.data_dir = stack.data_dir
        self.port_offset = stack.settings.port_offset

    def all_ready(self) -> bool:
        return all(ready(spec.ready_url) for spec in self.s.topology.services.values())


def supervise_once(stack: Stack) -> None:
    """What `engram up` does every half second: restart what exited."""
    for name in dead_services(stack):
        stack.start_service(name)


def test_service_killed_under_load_loses_and_duplicates_nothing(stack: Stack):
    view = StackView(stack)
    ns_tokens = [stack.principals.create(f"rel-{i}-{os.getpid()}", "agent", ["campaign"])
                 for i in range(2)]

    async def run() -> dict:
        ledger = Ledger()
        async with load(view, ledger, 4, ns_tokens, pace_s=0.1):
            await asyncio.sleep(3)
            os.kill(stack.procs["memory"].pid, signal.SIGKILL)
            deadline = time.monotonic() + 120
            while not view.all_ready():
                supervise_once(stack)
                assert time.monotonic() < deadline, "memory did not come back"
                await asyncio.sleep(0.5)
            await asyncio.sleep(3)
        return {"ledger": ledger, **await read_back(view, ledger)}

    result = asyncio.run(run())
    ledger: Ledger = result["ledger"]
    assert ledger.stored, ledger.summary()
    assert result["lost_stores"] == 0, result["lost_examples"]
    assert result["duplicate_entries"] == 0, result["duplicate_examples"]
    assert result["lost_mail"] == 0 and result["duplicate_mail"] == 0, result


def test_no_cross_namespace_read_on_any_read_path(stack: Stack):
    result = asyncio.run(isolation(StackView(stack), principals=2, rounds=30))
    assert result["cross_namespace_reads"] == 0, result["examples"]
    assert not result["write_errors"], result["write_errors"]

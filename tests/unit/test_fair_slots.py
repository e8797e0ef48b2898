"""PDF worker slots shared fairly between principals (memory's FairSlots)."""

from __future__ import annotations

import asyncio

import pytest

from engram_memory.fair_slots import FairSlots


async def test_a_burst_from_one_principal_leaves_a_slot_for_another() -> None:
    slots = FairSlots(total=2, per_principal=1)
    await slots.acquire("a")
    flood = [asyncio.ensure_future(slots.acquire("a")) for _ in range(3)]
    await asyncio.sleep(0)
    assert not any(f.done() for f in flood), "a principal holds at most its share"
    await asyncio.wait_for(slots.acquire("b"), 0.1)  # the second slot, at once
    slots.release("a")
    await asyncio.sleep(0)
    assert sum(f.done() for f in flood) == 1
    for f in flood:
        f.cancel()


async def test_freed_slots_go_round_robin_between_principals() -> None:
    slots = FairSlots(total=1, per_principal=1)
    await slots.acquire("x")
    order: list[str] = []

    async def one(who: str) -> None:
        await slots.acquire(who)
        order.append(who)
        slots.release(who)

    tasks = [asyncio.ensure_future(one(w)) for w in ("a", "a", "a", "b", "c")]
    await asyncio.sleep(0)
    slots.release("x")
    await asyncio.gather(*tasks)
    assert order == ["a", "b", "c", "a", "a"]


async def test_a_waiter_that_gives_up_leaves_no_trace() -> None:
    slots = FairSlots(total=1, per_principal=1)
    await slots.acquire("a")
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(slots.acquire("b"), 0.01)
    slots.release("a")
    assert slots.held("b") == 0
    await asyncio.wait_for(slots.acquire("c"), 0.1)
    assert slots.held("c") == 1

"""Worker slots shared fairly between principals.

A plain semaphore serves waiters first come, first served: one principal
sending a burst of expensive PDFs holds every worker and queues ahead of
everyone else. Here no principal holds more than `per_principal` slots, and a
freed slot goes to the principal that has waited longest for its turn (round
robin between principals, first come within one)."""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque


class FairSlots:
    def __init__(self, total: int, per_principal: int) -> None:
        self._total = total
        self._per = max(1, min(per_principal, total))
        self._held: dict[str, int] = {}
        # Principals with waiters, in the order their turn comes.
        self._waiting: OrderedDict[str, deque[asyncio.Future[None]]] = OrderedDict()

    def held(self, principal: str) -> int:
        return self._held.get(principal, 0)

    async def acquire(self, principal: str) -> None:
        """Wait for a slot; a caller that gives up (cancelled) leaves no trace."""
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(principal, deque()).append(waiter)
        self._grant()
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release(principal)  # granted as the caller gave up: pass it on
            else:
                self._forget(principal, waiter)
            raise

    def release(self, principal: str) -> None:
        left = self._held.get(principal, 0) - 1
        if left > 0:
            self._held[principal] = left
        else:
            self._held.pop(principal, None)
        self._grant()

    def _free_for(self, principal: str) -> bool:
        return sum(self._held.values()) < self._total and self.held(principal) < self._per

    def _take(self, principal: str) -> None:
        self._held[principal] = self.held(principal) + 1

    def _grant(self) -> None:
        """Hand free slots to waiting principals, each in its turn."""
        for principal in list(self._waiting):
            if sum(self._held.values()) >= self._total:
                return
            queue = self._waiting[principal]
            if not self._free_for(principal):
                continue
            self._take(principal)
            queue.popleft().set_result(None)
            del self._waiting[principal]
            if queue:  # its next waiter goes to the back of the line
                self._waiting[principal] = queue

    def _forget(self, principal: str, waiter: asyncio.Future[None]) -> None:
        queue = self._waiting.get(principal)
        if queue is None:
            return
        try:
            queue.remove(waiter)
        except ValueError:
            return
        if not queue:
            del self._waiting[principal]
        self._grant()  # a head that left may have blocked others only by order

"""Process lifecycle: run a service until SIGTERM/SIGINT, then drain."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Awaitable, Callable, Coroutine
from enum import StrEnum
from typing import Any

log = logging.getLogger(__name__)


class EventLoop(StrEnum):
    """The event loop a service runs on (`ENGRAM_EVENT_LOOP`)."""

    ASYNCIO = "asyncio"
    UVLOOP = "uvloop"


def loop_factory(kind: EventLoop) -> Callable[[], asyncio.AbstractEventLoop]:
    if kind is EventLoop.UVLOOP:
        import uvloop  # imported here: nothing runs at import, asyncio needs none of it

        return uvloop.new_event_loop
    return asyncio.new_event_loop


def run_until_signal(main: Callable[[asyncio.Event], Awaitable[None]],
                     loop: EventLoop = EventLoop.ASYNCIO) -> None:
    """Run `main(stop)` on `loop`; `stop` is set on SIGTERM or SIGINT."""

    async def runner() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await main(stop)

    with asyncio.Runner(loop_factory=loop_factory(loop)) as run:
        run.run(runner())


async def cancel_tasks(tasks: list[asyncio.Task]) -> None:
    for task in tasks:
        task.cancel()
    for task in tasks:
        try:
            await task
        except asyncio.CancelledError:
            pass
        except Exception:  # a failing background task must not block shutdown
            log.exception("background task failed during shutdown")


async def sleep_or_stop(stop: asyncio.Event, seconds: float) -> None:
    """Sleep up to `seconds`, returning early when `stop` is set."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), timeout=seconds)


async def woken_or_stop(wake: asyncio.Event, stop: asyncio.Event, seconds: float) -> None:
    """Wait up to `seconds`, returning early when `wake` or `stop` is set
    (the caller clears `wake`)."""
    waiters = [asyncio.create_task(wake.wait()), asyncio.create_task(stop.wait())]
    try:
        await asyncio.wait(waiters, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for w in waiters:
            w.cancel()


def periodically(name: str, job: Callable[[], Awaitable[object]],
                 interval_s: float) -> Callable[[asyncio.Event], Coroutine[Any, Any, None]]:
    """A background task that runs `job` every `interval_s` until `stop`; a
    failed run is logged and the next tick retries (a sweep must not die)."""

    async def loop(stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await job()
            except Exception as exc:  # keep going; the next tick retries
                log.warning(f"{name} failed", extra={"fields": {"error": repr(exc)}})
            await sleep_or_stop(stop, interval_s)

    return loop

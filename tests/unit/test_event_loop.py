"""ENGRAM_EVENT_LOOP: every service runs on the loop its settings name."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest
import uvloop

from engram_kit.runtime import EventLoop, run_until_signal
from engram_kit.settings import ServiceSettings


def loop_of_a_run(kind: EventLoop) -> type:
    seen: list[type] = []

    async def main(stop: asyncio.Event) -> None:
        seen.append(type(asyncio.get_running_loop()))
        os.kill(os.getpid(), signal.SIGTERM)  # the signal handler sets stop
        await asyncio.wait_for(stop.wait(), 5)

    run_until_signal(main, kind)
    return seen[0]


def test_asyncio_is_the_default_loop() -> None:
    plain = asyncio.new_event_loop()
    plain.close()
    assert loop_of_a_run(EventLoop.ASYNCIO) is type(plain)


def test_uvloop_runs_main_and_stops_on_sigterm() -> None:
    assert issubclass(loop_of_a_run(EventLoop.UVLOOP), uvloop.Loop)


def test_the_setting_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_INTERNAL_TOKEN", "t")
    monkeypatch.setenv("ENGRAM_EVENT_LOOP", "uvloop")
    assert ServiceSettings().event_loop is EventLoop.UVLOOP  # pyright: ignore[reportCallIssue]
    monkeypatch.setenv("ENGRAM_EVENT_LOOP", "trio")
    with pytest.raises(ValueError, match="event_loop"):
        ServiceSettings()  # pyright: ignore[reportCallIssue]

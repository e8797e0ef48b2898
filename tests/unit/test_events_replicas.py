"""ENGRAM_EVENTS_REPLICAS reaches both streams a service creates."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from engram_kit.events import deadletter_stream_config, events_stream_config
from engram_kit.settings import NatsSettings


def test_streams_default_to_one_replica() -> None:
    settings = NatsSettings()
    assert events_stream_config(settings).num_replicas == 1
    assert deadletter_stream_config(settings).num_replicas == 1


def test_events_replicas_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_EVENTS_REPLICAS", "3")
    settings = NatsSettings()
    assert events_stream_config(settings).num_replicas == 3
    assert deadletter_stream_config(settings).num_replicas == 3


@pytest.mark.parametrize("bad", ["0", "6"])
def test_events_replicas_out_of_range_is_refused(monkeypatch: pytest.MonkeyPatch, bad: str) -> None:
    monkeypatch.setenv("ENGRAM_EVENTS_REPLICAS", bad)
    with pytest.raises(ValidationError, match="events_replicas"):
        NatsSettings()

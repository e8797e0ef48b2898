from __future__ import annotations

from engram_kit.settings import DatabaseSettings, NatsSettings, ServiceSettings


class DreamerSettings(ServiceSettings, DatabaseSettings, NatsSettings):
    service_name: str = "dreamer"
    grpc_port: int = 8754
    http_port: int = 8764
    consumer_durable: str = "dreamer"
    consumer_filter: str = "engram.events.memory.>"
    # No extractor is built yet (issue #6); "none" is reported, never hidden.
    extractor: str = "none"

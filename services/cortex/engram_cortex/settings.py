from __future__ import annotations

from engram_kit.settings import DatabaseSettings, ServiceSettings


class CortexSettings(ServiceSettings, DatabaseSettings):
    service_name: str = "cortex"
    grpc_port: int = 8752
    http_port: int = 8762

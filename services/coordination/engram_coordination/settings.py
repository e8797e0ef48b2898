from __future__ import annotations

from engram_kit.settings import DatabaseSettings, ServiceSettings


class CoordinationSettings(ServiceSettings, DatabaseSettings):
    service_name: str = "coordination"
    grpc_port: int = 8755
    http_port: int = 8765

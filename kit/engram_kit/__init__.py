"""The small shared kit: settings, logging, metrics, gRPC/NATS/DB helpers.

No business logic lives here; services share only this and the contracts.
"""

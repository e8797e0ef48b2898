"""Conversions between protobuf Timestamps and aware datetimes."""

from __future__ import annotations

from datetime import UTC, datetime

from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp


def to_timestamp(value: datetime | None) -> Timestamp | None:
    if value is None:
        return None
    ts = Timestamp()
    ts.FromDatetime(value.astimezone(UTC))
    return ts


def optional_datetime(message: Message, field: str) -> datetime | None:
    """The field as an aware UTC datetime, or None when it is unset."""
    if not message.HasField(field):
        return None
    return getattr(message, field).ToDatetime(tzinfo=UTC)

"""What one writer wrote in a window: the argument of forget_by_writer, which
memory (entries) and cortex (facts) each apply to their own rows."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .errors import InvalidArgument
from .timestamps import optional_datetime


@dataclass(frozen=True)
class WriterWindow:
    principal: str
    since: datetime | None
    until: datetime | None
    reason: str
    dry_run: bool

    @classmethod
    def of(cls, request: Any) -> WriterWindow:
        """From a ForgetByWriterRequest (common.proto)."""
        return cls(request.principal, optional_datetime(request, "since"),
                   optional_datetime(request, "until"), request.reason, request.dry_run)

    def checked(self) -> WriterWindow:
        """The window with its principal trimmed, or a typed refusal."""
        principal = self.principal.strip()
        if not principal or len(principal) > 200:
            raise InvalidArgument("principal is the writer's name (1-200 chars)",
                                  field="principal")
        if self.since and self.until and self.since >= self.until:
            raise InvalidArgument("since must be before until", field="since")
        return WriterWindow(principal, self.since, self.until, self.reason, self.dry_run)

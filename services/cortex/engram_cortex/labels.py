"""Serving labels: how a fact may be read, stated next to it
(docs/architecture.md#serving-labels)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from engram_kit.vocab import Verdict

from .rows import FactRow


def resolve_call(conflict_id: uuid.UUID | str) -> str:
    return (f"conflict_resolve(conflict_id='{conflict_id}', winner_id='<id of the true "
            "fact>', reasoning='...') or conflict_resolve(conflict_id="
            f"'{conflict_id}', both_stand=true, reasoning='...'); reviewer role")


def label(row: FactRow, conflict_id: uuid.UUID | None = None,
          as_of: datetime | None = None, now: datetime | None = None) -> str:
    now = now or datetime.now(UTC)
    verdict, day = row.verdict, row.valid_from.date().isoformat()
    if as_of is not None:
        prefix = f"as of {as_of.date().isoformat()}: "
        if verdict == Verdict.SUPERSEDED:
            return prefix + f"true then; later superseded by {row.superseded_by}"
        if verdict == Verdict.WITHDRAWN:
            return prefix + "a set member then; removed later"
    else:
        prefix = ""
    if verdict == Verdict.SUPERSEDED:
        return f"superseded by {row.superseded_by} (history, not current)"
    if verdict == Verdict.WITHDRAWN:
        return f"withdrawn: {row.retire_reason or 'retracted'} (history, not current)"
    if verdict == Verdict.PARKED:
        return "parked contender: not current; a stronger or verified value stands"
    if verdict == Verdict.CONTESTED:
        cid = conflict_id or "unknown"
        return prefix + f"contested: both sides served, neither is settled; {resolve_call(cid)}"
    if row.kind == "EVENT":
        return prefix + f"history: happened {day}"
    lifetime = row.expected_lifetime
    known = fresh_since(row)
    if row.kind == "STATE" and lifetime is not None and known + lifetime < now:
        return prefix + f"last known as of {known.date().isoformat()}, unverified since"
    return prefix + "current"


def fresh_since(row: FactRow) -> datetime:
    """A STATE's lifetime runs from its last verification (a confirm or
    fact_verify), or from when it became true if it was never verified."""
    verified = row.last_verified_at
    return max(row.valid_from, verified) if verified is not None else row.valid_from

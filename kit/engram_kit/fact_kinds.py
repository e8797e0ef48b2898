"""Which fact kind owns which kind column (`details`), and the columns'
bounds: the gateway publishes and checks them in the tool's argument schema,
the cortex checks them again on every write."""

from __future__ import annotations

KINDS = ("DECISION", "RULE", "STATE", "PREFERENCE", "REFERENCE", "RESIDUAL", "EVENT")
DETAIL_OWNERS: dict[str, tuple[str, ...]] = {
    "scope": ("DECISION", "RULE"),
    "trigger_predicate": ("RULE",),
    "status_detail": ("STATE",),
    "expected_lifetime_seconds": ("STATE",),
    # What incident or evidence earned a RULE; PREFERENCE rows took it first
    # and keep it.
    "earned_by": ("RULE", "PREFERENCE"),
    "risk_weight": ("RESIDUAL",),
    "subject": ("EVENT", "REFERENCE"),
    "reopen_trigger": ("DECISION",),
}
# Free-text kind columns are at most this long.
DETAIL_TEXT_MAX = 1000
# A STATE's lifetime: at most 100 years (a longer one is no lifetime at all,
# and the interval must fit the database's).
LIFETIME_MAX_SECONDS = 100 * 365 * 86400


def owner_problem(column: str, kind: str) -> str | None:
    """Why `kind` may not set `column` (a non-empty value), or None."""
    owners = DETAIL_OWNERS[column]
    return None if kind in owners else f"{column} belongs to {'/'.join(owners)} facts, not {kind}"

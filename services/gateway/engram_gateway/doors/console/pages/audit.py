"""Audit: the newest rows of each service's hash-chained audit (memory,
cortex, coordination) in the current namespace, filtered by service and
action prefix, and each chain's verification (ok, or the damaged rows; a
service that does not answer is shown as unavailable). Operator only."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from engram_kit.vocab import Role

from .. import ops
from ..session import Viewer
from ..web import ConsoleError, Ctx, Page

SERVICES = ("all", "memory", "cortex", "coordination")
DEFAULT_LIMIT = 50


def operator_only(viewer: Viewer) -> bool:
    return viewer.role == Role.OPERATOR


async def verification(ctx: Ctx) -> dict[str, Any]:
    """Every chain's verification in the current namespace (also shown on the
    overview); a refusal is shown as the error it is."""
    try:
        return await ops.run(ctx.backends, ctx.viewer, ctx.namespace, "audit",
                             {"service": "all"}, action="verify")
    except ConsoleError as exc:
        return {"error": exc.message}


def _limit(value: str) -> int:
    if not value:
        return DEFAULT_LIMIT
    try:
        return int(value)
    except ValueError:
        raise ConsoleError(400, "invalid_argument", "limit is a whole number "
                           "(1-200)") from None


async def audit(ctx: Ctx) -> Response:
    service = ctx.arg("service") or "all"
    if service not in SERVICES:
        raise ConsoleError(400, "invalid_argument", f"service is one of {', '.join(SERVICES)}")
    prefix, limit = ctx.arg("action"), _limit(ctx.arg("limit"))
    shown = await ops.run(ctx.backends, ctx.viewer, ctx.namespace, "audit",
                          {"service": service, "limit": limit, "action_prefix": prefix},
                          action="show")
    return ctx.render("audit.html", shown=shown, verified=await verification(ctx),
                      services=SERVICES, service=service, prefix=prefix, limit=limit)


PAGES = [Page("/audit", "Audit", audit, order=80, visible=operator_only)]

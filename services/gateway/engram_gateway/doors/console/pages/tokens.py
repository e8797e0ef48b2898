"""Tokens: the principals within the operator's grants (name, role, grants,
created and rotated, a sha256 prefix of the token; never a token), and
create, rotate and revoke through the `tokens` operation. A created or
rotated token is rendered once, in the POST's own response (no redirect,
no flash, no URL; every console response is no-store). Revoke asks first.
Operator only."""

from __future__ import annotations

import re
from typing import Any

from starlette.responses import Response

from .. import ops
from ..web import ConsoleError, Ctx, Page
from .audit import operator_only

ROLES = ("agent", "reviewer", "operator")


def _grants(value: str) -> list[str]:
    """A form's namespaces: separated by commas or spaces."""
    return [n for n in re.split(r"[\s,]+", value) if n]


async def _tokens(ctx: Ctx, action: str, **args: Any) -> dict[str, Any]:
    return await ops.run(ctx.backends, ctx.viewer, ctx.namespace, "tokens", args,
                         action=action, extras={"principals": ctx.sessions.store})


async def _render(ctx: Ctx, fresh: dict[str, Any] | None = None,
                  revoking: str = "") -> Response:
    listed = await _tokens(ctx, "list")
    if revoking and revoking not in {p["name"] for p in listed["principals"]}:
        raise ConsoleError(404, "not_found", f"no principal {revoking[:63]!r} within your "
                           "grants")
    return ctx.render("tokens.html", principals=listed["principals"], hidden=listed["hidden"],
                      fresh=fresh, revoking=revoking, roles=ROLES)


async def listing(ctx: Ctx) -> Response:
    return await _render(ctx, revoking=ctx.arg("revoke"))


async def create(ctx: Ctx) -> Response:
    f = ctx.form
    done = await _tokens(ctx, "create", name=f.get("name", "").strip(),
                         role=f.get("role", "agent"),
                         namespaces=_grants(f.get("namespaces", "")),
                         read_namespaces=_grants(f.get("read_namespaces", "")))
    return await _render(ctx, fresh={"what": "created", "name": done["principal"]["name"],
                                     "token": done["token"]})


async def rotate(ctx: Ctx) -> Response:
    done = await _tokens(ctx, "rotate", name=ctx.form.get("name", ""))
    return await _render(ctx, fresh={"what": "rotated", "name": done["principal"]["name"],
                                     "token": done["token"]})


async def revoke(ctx: Ctx) -> Response:
    name = ctx.form.get("name", "")
    if not name or ctx.form.get("confirm", "") != name:
        raise ConsoleError(400, "invalid_argument", "revoking needs its confirmation: open "
                           "revoke… on the principal and confirm there")
    done = await _tokens(ctx, "revoke", name=name)
    return ctx.done(ctx.url("/tokens"), f"{done['revoked']} revoked")


PAGES = [Page("/tokens", "Tokens", listing,
              {"create": create, "rotate": rotate, "revoke": revoke},
              order=90, visible=operator_only)]

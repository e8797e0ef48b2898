"""Registry entry for the principals' tokens (list, create, rotate, revoke)
over the principals file the gateway reads (principals.py validates names,
roles and namespaces as for `engram token`). Operator role only.

An operator manages only principals whose grants lie within its own
(read-write within its read-write grants, read within any of its grants):
a token for one namespace cannot mint or revoke access to another. Another
operator is a peer, not a subordinate: rotating or revoking it is refused
(`SecondOperatorNeeded`, a typed refusal naming who can do it) so that one
operator's token cannot take over or lock out the others. It may rotate its
own token but not revoke its own principal (it would lock itself out). A
created or rotated token is in that reply only; listings show a sha256
prefix."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from pydantic import Field

from engram_kit.errors import Conflict, InvalidArgument, NotFound, PermissionDenied
from engram_kit.principals import MAX_GRANTS, NAME_RE, Principal, PrincipalStore
from engram_kit.vocab import Role

from .argtypes import Check, Rule
from .spec import Access, Effect, Invocation, Namespace, Retry, Tier, ToolSpec, op

# principals.NAME_RE (and the namespace rule, the same shape) as a Rule.
NAME_PATTERN = r"^[a-z0-9][a-z0-9_.-]*$"


def _name_check(what: str) -> Check:
    def check(value: str, field: str) -> str | None:
        if NAME_RE.match(value):
            return None
        return f"{what} {value[:70]!r} is invalid: 1-63 chars of a-z, 0-9, '_', '.', '-'"
    return check


PrincipalName = Annotated[str, Rule({"minLength": 1, "maxLength": 63, "pattern": NAME_PATTERN},
                                    _name_check("principal name"))]
GrantName = Annotated[str, Rule({"minLength": 1, "maxLength": 63, "pattern": NAME_PATTERN},
                                _name_check("namespace"))]
Grants = Annotated[list[GrantName], Rule({"maxItems": MAX_GRANTS}, lambda v, f: None if len(
    v) <= MAX_GRANTS else f"at most {MAX_GRANTS} namespaces per principal")]
SHA_PREFIX = 12


class SecondOperatorNeeded(PermissionDenied):
    """Rotating or revoking a peer operator takes more than one operator."""


def tokens(
    action: Annotated[Literal["list", "create", "rotate", "revoke"], Field(
        description="list | create a principal | rotate its token | revoke it")] = "list",
    name: Annotated[PrincipalName, Field(description="The principal (create, rotate, "
                                         "revoke).")] = "",
    role: Annotated[Literal["agent", "reviewer", "operator"], Field(
        description="create: its role.")] = "agent",
    namespaces: Annotated[Grants, Field(description="create: read-write grants.")] = [],  # noqa: B006
    read_namespaces: Annotated[Grants, Field(description="create: read-only grants.")] = [],  # noqa: B006
    namespace: Namespace = None,
) -> None:
    """Operator only: the principals and their bearer tokens. list shows each one's role,
    grants and a sha256 prefix of its token (never the token); create and rotate return
    the new token once (rotate stops the old one at once); revoke removes a principal.
    You manage only principals whose grants lie within yours; another operator's
    token is refused (that operator rotates its own, or the stack's owner runs
    `engram token` on the host), and you cannot revoke your own."""


def _listed(p: Principal) -> dict[str, Any]:
    return {"name": p.name, "role": p.role, "namespaces": list(p.namespaces),
            "read_namespaces": list(p.read_namespaces), "created_at": p.created_at,
            "rotated_at": p.rotated_at or None,
            "token_sha256_prefix": p.token_sha256[:SHA_PREFIX]}


def _within(rw: list[str], ro: list[str], me: Principal) -> bool:
    """Whether grants rw (read-write) and ro (read) lie within `me`'s."""
    mine = {*me.namespaces, *me.read_namespaces}
    return set(rw) <= set(me.namespaces) and set(ro) <= mine


async def _state(inv: Invocation) -> tuple[PrincipalStore, Principal, list[Principal]]:
    store: PrincipalStore = inv.extras["principals"]
    everyone = await asyncio.to_thread(store.list)
    me = next((p for p in everyone if p.name == inv.caller.principal), None)
    if me is None:  # revoked between its token check and now
        raise PermissionDenied("your principal no longer exists")
    return store, me, everyone


def _target(inv: Invocation, me: Principal, everyone: list[Principal]) -> Principal:
    name = inv.args["name"]
    if not name:
        raise InvalidArgument(f"{inv.args['action']} needs name", field="name")
    target = next((p for p in everyone if p.name == name), None)
    if target is None or not _within(target.namespaces, target.read_namespaces, me):
        # Outside the caller's grants it is reported as absent: no probing.
        raise NotFound(f"no principal {name!r} within your grants")
    return target


def _not_a_peer(action: str, target: Principal, me: Principal) -> None:
    """A peer operator's token is not one operator's to rotate (it would be
    handed the peer's new token) or to revoke (it would lock the peer out)."""
    if target.role == Role.OPERATOR and target.name != me.name:
        raise SecondOperatorNeeded(
            f"refusing to {action} operator {target.name!r}: another operator's token needs a "
            f"second operator; {target.name!r} can rotate its own token, or whoever holds "
            f"the stack's data directory runs `engram token {action} {target.name}`")


async def run_tokens(inv: Invocation) -> dict[str, Any]:
    store, me, everyone = await _state(inv)
    action = inv.args["action"]
    if action == "list":
        mine = [p for p in everyone if _within(p.namespaces, p.read_namespaces, me)]
        return {"principals": [_listed(p) for p in mine], "hidden": len(everyone) - len(mine)}
    if action == "create":
        return await _create(inv, store, me, everyone)
    target = _target(inv, me, everyone)
    _not_a_peer(action, target, me)
    if action == "revoke":
        if target.name == me.name:
            raise Conflict(f"refusing to revoke your own principal {me.name!r}: you would lock "
                           "yourself out; use another operator's token or `engram token "
                           "revoke`")
        await _store_call(store.revoke, target.name)
        return {"revoked": target.name}
    token = await _store_call(store.rotate, target.name)
    fresh = next(p for p in await asyncio.to_thread(store.list) if p.name == target.name)
    return {"principal": _listed(fresh), "token": token,
            "note": "shown once; the old token no longer works"}


async def _create(inv: Invocation, store: PrincipalStore, me: Principal,
                  everyone: list[Principal]) -> dict[str, Any]:
    a = inv.args
    if not a["name"]:
        raise InvalidArgument("create needs name", field="name")
    if any(p.name == a["name"] for p in everyone):
        raise Conflict(f"principal {a['name']!r} exists; rotate its token instead")
    if not _within(a["namespaces"], a["read_namespaces"], me):
        raise PermissionDenied("a new principal's grants must lie within yours: read-write "
                               f"in {', '.join(me.namespaces) or 'none'}, read also in "
                               f"{', '.join(me.read_namespaces) or 'none'}")
    token = await _store_call(store.create, a["name"], a["role"], list(a["namespaces"]),
                              list(a["read_namespaces"]))
    fresh = next(p for p in await asyncio.to_thread(store.list) if p.name == a["name"])
    return {"principal": _listed(fresh), "token": token, "note": "shown once"}


async def _store_call(fn: Any, *args: Any) -> Any:
    try:
        return await asyncio.to_thread(fn, *args)
    except ValueError as exc:  # the store's own checks, worded for the user
        raise InvalidArgument(str(exc)) from None


TOKENS_TOOL = ToolSpec(tokens, Tier.FULL, {
    "list": op(Access.OPERATOR, Effect.NONE, Retry.SAFE, run=run_tokens,
               rest="GET /v1/operator/tokens", rest_args=()),
    "create": op(Access.OPERATOR, Effect.ADDITIVE, Retry.CONDITIONAL,
                 "a repeat is refused (the principal exists); rotate for a new token",
                 run=run_tokens, rest="POST /v1/operator/tokens",
                 rest_args=("name", "role", "namespaces", "read_namespaces"),
                 rest_required=("name",)),
    "rotate": op(Access.OPERATOR, Effect.DESTRUCTIVE, Retry.UNSAFE,
                 "each call mints another token; the one before stops working",
                 run=run_tokens, rest="POST /v1/operator/tokens/{name}/rotate", rest_args=()),
    "revoke": op(Access.OPERATOR, Effect.DESTRUCTIVE, Retry.SAFE,
                 "a repeat finds the principal gone",
                 run=run_tokens, rest="POST /v1/operator/tokens/{name}/revoke", rest_args=()),
}, action_arg="action")

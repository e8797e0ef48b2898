"""The tag registry: a dotted hierarchy whose roots a reviewer approves.

Resolution order: alias -> exact -> unique leaf name -> dotted under an
existing parent (the leaf is minted) -> unresolved (reported as a candidate,
never created silently)."""

from __future__ import annotations

import re

import asyncpg

from engram_kit.context import CallerContext
from engram_kit.db import tenant_tx
from engram_kit.errors import Conflict, InvalidArgument, NotFound
from engram_kit.vocab import TagStatus

from . import repo, repo_tags

TAG_RE = re.compile(r"^[a-z0-9][a-z0-9_-]*(?:\.[a-z0-9][a-z0-9_-]*)*\Z")
MAX_TAGS = 20


def tag_form(raw: str, field: str = "tag") -> str:
    tag = raw.strip().lower()
    if not TAG_RE.match(tag) or len(tag) > 100:
        raise InvalidArgument(f"malformed tag {raw[:60]!r}: dotted segments of a-z, 0-9, "
                              "'_' or '-', e.g. lang.python (max 100 chars)", field=field)
    return tag


async def resolve(conn: asyncpg.Connection, ns: str, raw: str, principal: str) -> str | None:
    tag = tag_form(raw)
    alias = await repo_tags.alias_target(conn, tag)
    if alias:
        return alias
    if await repo_tags.is_approved(conn, tag):
        return tag
    if "." not in tag:
        leaves = await repo_tags.approved_leaves(conn, tag)
        return leaves[0] if len(leaves) == 1 else None
    parent = tag.rsplit(".", 1)[0]
    if await repo_tags.is_approved(conn, parent):
        await repo_tags.mint_leaf(conn, ns, tag, parent, principal)
        await repo.audit(conn, ns, principal, "tag.mint", tag, {"parent": parent})
        return tag
    return None


async def resolve_all(conn: asyncpg.Connection, ns: str, raws: list[str],
                      principal: str) -> tuple[list[str], list[str]]:
    if len(raws) > MAX_TAGS:
        raise InvalidArgument(f"at most {MAX_TAGS} tags", field="tags")
    resolved, unresolved = [], []
    for raw in raws:
        tag = await resolve(conn, ns, raw, principal)
        if tag is None:
            unresolved.append(tag_form(raw))
        elif tag not in resolved:
            resolved.append(tag)
    return resolved, unresolved


class TagRegistry:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def propose_root(self, ctx: CallerContext, raw: str, reason: str) -> tuple[str, str]:
        ns = ctx.require_namespace()
        tag = tag_form(raw)
        if "." in tag:
            raise InvalidArgument("a root has no dots; a dotted tag under an approved "
                                  "parent is minted on use", field="tag")
        if not reason.strip() or len(reason) > 500:
            raise InvalidArgument("reason is 1-500 characters", field="reason")
        async with tenant_tx(self._pool, ns) as conn:
            row = await repo_tags.get(conn, tag)
            if row is not None and row.status == TagStatus.REJECTED:
                raise Conflict(f"root {tag!r} was rejected by {row.decided_by} "
                               f"({row.reason}); it is not proposed again")
            if row is not None:
                return tag, row.status
            await repo_tags.propose_root(conn, ns, tag, reason, ctx.principal)
            await repo.audit(conn, ns, ctx.principal, "tag.propose_root", tag,
                             {"reason": reason})
            return tag, TagStatus.PROPOSED

    async def add_alias(self, ctx: CallerContext, raw_alias: str, raw_tag: str) -> str:
        ns = ctx.require_namespace()
        alias, tag = tag_form(raw_alias, "alias"), tag_form(raw_tag)
        async with tenant_tx(self._pool, ns) as conn:
            if not await repo_tags.is_approved(conn, tag):
                raise NotFound(f"no approved tag {tag!r}")
            if await repo_tags.exists(conn, alias):
                raise Conflict(f"{alias!r} is itself a tag")
            existing = await repo_tags.alias_target(conn, alias)
            if existing and existing != tag:
                raise Conflict(f"{alias!r} already maps to {existing!r}")
            await repo_tags.insert_alias(conn, ns, alias, tag, ctx.principal)
            await repo.audit(conn, ns, ctx.principal, "tag.alias", alias, {"tag": tag})
            return tag

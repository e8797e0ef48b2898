"""The review queue with more open items than one page (and more than the old
cap of 100 per kind), over the real stack: every item is reached exactly once
by walking next_cursor, kind and text filters are applied by the server, the
page size is bounded, and a hostile cursor or filter gets a typed error (MCP
tool error, REST 4xx), never a 500."""

from __future__ import annotations

import asyncio
import base64
import uuid
from typing import Any

import httpx
import pytest_asyncio
from mcp import Client
from playwright.async_api import BrowserContext

from engram_runner.stack import Stack

from ..helpers import call, call_error, mcp_client
from .console_browser import (
    browser,  # noqa: F401 (fixture)
    console_url,
    context,  # noqa: F401 (fixture)
    needs_chromium,
    sign_in,
)

CONFLICTS = 150
WORKERS = 6


async def _seed(stack: Stack, agent: str, ns: str) -> None:
    """CONFLICTS open conflicts (svc-000 .. svc-149), made through MCP like an
    agent would (300 took 80 s on a loaded 2-core machine)."""

    async def worker(part: int) -> None:
        async with mcp_client(stack.mcp_url, agent) as client:
            for i in range(part, CONFLICTS, WORKERS):
                slot = {"entity": f"svc-{i:03d}", "attribute": "ci", "namespace": ns}
                await call(client, "fact_set", slot | {"value": f"alpha-{i}"})
                other = await call(client, "fact_set", slot | {"value": f"beta-{i}"})
                assert other["action"] == "contest", other

    await asyncio.gather(*(worker(p) for p in range(WORKERS)))


async def _walk(client: Client, args: dict[str, Any]) -> tuple[list[dict], set[int]]:
    """Every page of review_list from the first; (items in order, totals seen)."""
    items: list[dict] = []
    totals: set[int] = set()
    cursor = ""
    for _ in range(1000):
        page = await call(client, "review_list", args | {"cursor": cursor})
        assert len(page["items"]) <= (args.get("limit") or 100)
        items += page["items"]
        totals.add(page["total"])
        cursor = page["next_cursor"]
        if not cursor:
            return items, totals
    raise AssertionError("the cursor never ended")


@pytest_asyncio.fixture(scope="module")
async def queue(stack: Stack) -> tuple[str, str]:
    """(namespace, reviewer token): CONFLICTS open conflicts, two proposed root
    tags and one parked contender with its evidence."""
    ns = f"rq-{uuid.uuid4().hex[:6]}"
    agent = stack.principals.create(f"rq-a-{ns}", "agent", [ns])
    reviewer = stack.principals.create(f"rq-v-{ns}", "reviewer", [ns])
    await _seed(stack, agent, ns)
    async with mcp_client(stack.mcp_url, agent) as client:
        for root in ("alpharoot", "betaroot"):
            await call(client, "tag_propose_root", {"tag": f"{root}{ns[3:]}",
                                                    "reason": "paging test",
                                                    "namespace": ns})
        slot = {"entity": "billing", "attribute": "owner", "namespace": ns}
        await call(client, "fact_set", slot | {"value": "alice", "origin": "user"})
        bob = await call(client, "fact_set", slot | {
            "value": "bob", "origin": "assistant", "replaces": True,
            "evidence_quote": "bob owns billing now", "source_type": "file",
            "source_ref": "OWNERS.md"})
        assert bob["action"] == "park", bob
    return ns, reviewer


async def test_the_review_queue_pages_past_the_old_cap(stack: Stack,
                                                       queue: tuple[str, str]) -> None:
    ns, reviewer = queue
    expected = CONFLICTS + 3
    async with mcp_client(stack.mcp_url, reviewer) as rev:
        items, totals = await _walk(rev, {"namespace": ns, "limit": 100})
        ids = [i["id"] for i in items]
        assert len(ids) == len(set(ids)) == expected, (len(ids), len(set(ids)))
        assert totals == {expected}
        assert sum(i["kind"] == "conflict" for i in items) == CONFLICTS

        small, _ = await _walk(rev, {"namespace": ns, "limit": 7})
        assert [i["id"] for i in small] == ids, "the order is stable for any page size"

        first = await call(rev, "review_list", {"namespace": ns})
        assert len(first["items"]) == 100 and first["next_cursor"], "default page: 100"

        [parked] = (await call(rev, "review_list", {"namespace": ns,
                                                    "kind": "contender"}))["items"]
        assert parked["contender"]["evidence_quote"] == "bob owns billing now"
        assert parked["contender"]["evidence"]["source_ref"] == "OWNERS.md"
        tags, totals = await _walk(rev, {"namespace": ns, "kind": "root_tag"})
        assert [i["kind"] for i in tags] == ["root_tag", "root_tag"] and totals == {2}

        beta1, totals = await _walk(rev, {"namespace": ns, "q": "BETA-1", "limit": 50})
        # beta-1, beta-10..19, beta-100..149
        assert len(beta1) == 61 and totals == {61}
        assert all("beta-1" in i["summary"] for i in beta1)
        one = await call(rev, "review_list", {"namespace": ns, "q": "svc-042"})
        assert [i["conflict"]["fact_a"]["entity"] for i in one["items"]] == ["svc-042"]
        literal = await call(rev, "review_list", {"namespace": ns, "q": "beta_1%"})
        assert literal["items"] == [] and literal["total"] == 0, "wildcards are literal"

        for bad, field in (({"cursor": "not a cursor"}, "cursor"),
                           ({"cursor": "c" + base64.urlsafe_b64encode(b"soon|x").decode()},
                            "cursor"),
                           ({"cursor": "p3", "kind": "conflict"}, "cursor"),
                           ({"limit": 101}, "limit"), ({"limit": -1}, "limit"),
                           ({"kind": "everything"}, "kind"), ({"q": "x" * 201}, "q")):
            err = await call_error(rev, "review_list", {"namespace": ns} | bad)
            assert field in err and "Traceback" not in err, (bad, err)

    headers = {"Authorization": f"Bearer {reviewer}", "X-Engram-Namespace": ns}
    async with httpx.AsyncClient(base_url=stack.mcp_url.removesuffix("/mcp"),
                                 headers=headers, timeout=60) as http:
        page = (await http.get("/v1/review", params={"limit": 100})).json()
        nxt = await http.get("/v1/review", params={"limit": 100,
                                                   "cursor": page["next_cursor"]})
        assert nxt.status_code == 200 and nxt.json()["items"][0]["id"] == ids[100]
        for bad in ({"cursor": "zzz"}, {"limit": 500}, {"kind": "nope"}):
            refused = await http.get("/v1/review", params=bad)
            assert 400 <= refused.status_code < 500, (bad, refused.status_code, refused.text)


@needs_chromium
async def test_the_console_pages_and_filters_on_the_server(
        stack: Stack, queue: tuple[str, str], context: BrowserContext) -> None:  # noqa: F811
    ns, reviewer = queue
    page = await context.new_page()
    await sign_in(page, stack, reviewer)
    await page.goto(console_url(stack, f"/review?ns={ns}&size=100"))
    hint = await page.inner_text("p.hint")
    assert f"{CONFLICTS + 3} open items" in hint and "page 1 of 2" in hint, hint
    first = await page.locator("article.item").all()
    assert len(first) == 100 and await page.locator("a[rel=prev]").count() == 0
    top = await first[0].get_attribute("data-item")
    async with page.expect_navigation():
        await page.click("a[rel=next]")
    assert await page.locator("article.item").count() == CONFLICTS + 3 - 100
    assert "page 2 of 2" in await page.inner_text("p.hint")
    assert await page.locator("a[rel=next]").count() == 0
    async with page.expect_navigation():
        await page.click("a[rel=prev]")
    assert await page.locator("article.item").first.get_attribute("data-item") == top

    await page.goto(console_url(stack, f"/review?ns={ns}&q=svc-042"))
    assert await page.locator("article.item").count() == 1
    await page.goto(console_url(stack, f"/review?ns={ns}&kind=contender"))
    contender = await page.inner_text("article.item")
    for shown in ("bob owns billing now", "OWNERS.md", "assistant"):
        assert shown in contender, shown
    refused = await page.goto(console_url(stack, f"/review?ns={ns}&cursor=zzz"))
    assert refused is not None and refused.status == 400
    assert "cursor" in await page.inner_text("body")

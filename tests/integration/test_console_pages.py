"""The console's pages over the real stack, in a real browser: a fact slot's
timeline on both time axes after a supersede, a dream run rolled back from
the console (after its preview) with the rows restored, the search trace, an
entity's graph, the board without mail bodies, and the overview. Each page's
screenshot is kept in docs/img."""

from __future__ import annotations

import asyncio

from playwright.async_api import BrowserContext, Page

from engram_runner.stack import Stack

from ..helpers import call, eventually, mcp_client
from .console_browser import (
    browser,  # noqa: F401 (fixture)
    console_url,
    context,  # noqa: F401 (fixture)
    namespace,
    needs_chromium,
    screenshot,
    sign_in,
)

pytestmark = needs_chromium


async def signed_in(stack: Stack, context: BrowserContext, ns: str) -> Page:  # noqa: F811
    """A page signed in as a reviewer with a read-write grant on `ns`."""
    page = await context.new_page()
    await sign_in(page, stack, stack.principals.create(f"rev-{ns}", "reviewer", [ns]))
    return page


async def test_the_fact_timeline_shows_a_supersede_on_both_time_axes(
        stack: Stack, context: BrowserContext):  # noqa: F811
    ns = namespace("fact")
    agent = stack.principals.create(f"agent-{ns}", "agent", [ns])
    slot = {"entity": "billing-api", "attribute": "database", "namespace": ns}
    async with mcp_client(stack.mcp_url, agent) as client:
        await call(client, "fact_set", slot | {"value": "MySQL 8", "valid_from": "2024-01-10",
                                               "evidence_quote": "billing runs on MySQL 8"})
        new = await call(client, "fact_set", slot | {
            "value": "PostgreSQL 16", "valid_from": "2025-03-01", "replaces": True,
            "evidence_quote": "we moved billing to PostgreSQL 16"})
    assert new["action"] == "supersede", new

    page = await signed_in(stack, context, ns)
    await page.goto(console_url(stack, f"/fact?ns={ns}&entity=billing-api"
                                       "&attribute=database"))
    rows = page.locator("#history tr.v-superseded")
    assert await rows.count() == 1
    old = await rows.first.inner_text()
    assert "MySQL 8" in old and "2024-01-10" in old  # valid from (world time)
    assert "2025-03-01" in old  # valid to: when the new value became true
    cells = await rows.first.locator("td").all_inner_texts()
    assert cells[5] != "-" and cells[6] != "-"  # recorded and retired (system time)
    current = await page.locator("#history tr.v-active").inner_text()
    assert "PostgreSQL 16" in current
    titles = await page.locator("svg.timeline > title").all_text_contents()
    assert any("world time" in t for t in titles) and any("system time" in t for t in titles)
    assert await page.locator("svg.timeline rect.bar").count() == 4  # two facts, two axes
    assert "PostgreSQL 16" in await page.inner_text("#reader")
    await screenshot(page, "fact")

    await page.fill("input[name=as_of]", "2024-06-01")
    async with page.expect_navigation():
        await page.click("form.filters button")
    reader = await page.inner_text("#reader")
    assert "MySQL 8" in reader and "PostgreSQL 16" not in reader


async def pending(client, ns: str, n: int) -> None:
    async def check() -> bool:
        status = await call(client, "dream", {"action": "status", "namespace": ns})
        return status["pending_entries"] == n
    await eventually(check, 30, f"{n} pending entries")


async def test_a_dream_run_is_rolled_back_from_the_console(stack: Stack,
                                                           context: BrowserContext):  # noqa: F811
    ns = namespace("dream")
    agent = stack.principals.create(f"agent-{ns}", "agent", [ns])
    entries = ["billing-api uses PostgreSQL 16.", "Never force-push to main."]
    async with mcp_client(stack.mcp_url, agent) as client:
        for text in entries:
            await call(client, "memory_store", {"text": text, "namespace": ns})
        await pending(client, ns, len(entries))
        run = (await call(client, "dream", {"action": "run", "namespace": ns}))["run"]
        assert run["status"] == "committed" and run["facts_written"] > 0
        got = await call(client, "fact_get", {"entity": "billing-api", "attribute": "uses",
                                              "namespace": ns})
        assert [f["value"] for f in got["current"]] == ["PostgreSQL 16"]

    page = await signed_in(stack, context, ns)
    await page.goto(console_url(stack, f"/dream?ns={ns}"))
    async with page.expect_navigation():
        await page.click(f"#runs a:text('{run['id'][:8]}')")
    assert await page.inner_text("#run-status") == "committed"
    async with page.expect_navigation():
        await page.click("#rollback-link")
    preview = await page.inner_text("#rollback-preview")
    assert f"{run['facts_written']} facts" in preview
    await screenshot(page, "dream")
    async with page.expect_navigation():
        await page.click("#rollback-preview button")
    assert "rows restored" in await page.inner_text("#flash")
    assert await page.inner_text("#run-status") == "rolled_back"

    async with mcp_client(stack.mcp_url, agent) as client:
        got = await call(client, "fact_get", {"entity": "billing-api", "attribute": "uses",
                                              "namespace": ns})
        assert got["current"] == []
        await pending(client, ns, len(entries))


async def test_search_graph_board_and_overview(stack: Stack,
                                               context: BrowserContext):  # noqa: F811
    ns = namespace("pages")
    agent = stack.principals.create(f"agent-{ns}", "agent", [ns])
    secret_mail = "mail body the console never shows"
    async with mcp_client(stack.mcp_url, agent, session="worker-2") as peer:
        await call(peer, "board_agents", {"action": "update", "task": "review invoices",
                                          "namespace": ns})
    async with mcp_client(stack.mcp_url, agent, session="worker-1") as client:
        for text in ("The billing API deploys from the release branch.",
                     "Billing invoices are generated nightly at 02:00.",
                     "The search service uses OpenSearch."):
            await call(client, "memory_store", {"text": text, "namespace": ns})
        await call(client, "graph_relate", {"src": "billing-api", "relation": "depends_on",
                                            "dst": "postgres", "namespace": ns,
                                            "evidence_quote": "billing stores in postgres"})
        await call(client, "graph_relate", {"src": "billing-api", "relation": "part_of",
                                            "dst": "payments", "namespace": ns})
        await call(client, "board_agents", {"action": "update", "project": "billing",
                                            "task": "migrate invoices", "status": "running",
                                            "namespace": ns})
        await call(client, "board_lease", {"action": "claim", "name": "deploy:staging",
                                           "namespace": ns})
        await call(client, "board_message", {"action": "send", "to": "all",
                                             "text": secret_mail, "namespace": ns})
    await asyncio.sleep(0.5)

    page = await signed_in(stack, context, ns)
    await page.goto(console_url(stack, f"/search?ns={ns}&q=billing+deploys"))
    assert await page.locator("#results tr").count() > 1
    assert "release branch" in await page.inner_text("#results")
    assert await page.locator("#not-served").count() == 1
    await screenshot(page, "search")

    await page.goto(console_url(stack, f"/graph?ns={ns}&entity=billing-api"))
    edges = await page.inner_text("#edges")
    assert "depends_on" in edges and "asserted" in edges and "billing stores in postgres" in edges
    assert await page.locator("svg.graph circle").count() == 3
    await screenshot(page, "graph")

    await page.goto(console_url(stack, f"/board?ns={ns}"))
    assert "migrate invoices" in await page.inner_text("#agents")
    assert "deploy:staging" in await page.inner_text("#leases")
    assert "mail pending" in await page.inner_text("#mail-counts")
    assert secret_mail not in await page.content()
    await screenshot(page, "board")

    await page.goto(console_url(stack, f"/?ns={ns}"))
    health = await page.inner_text("#health")
    assert "not ready" not in health and "memory" in health
    counts = await page.locator("#counts tr", has_text=ns).inner_text()
    assert "\t3\t" in counts  # three live entries
    await screenshot(page, "overview")


async def test_a_link_proposal_is_decided_on_the_graph_page(stack: Stack,
                                                            context: BrowserContext):  # noqa: F811
    ns = namespace("link")
    agent = stack.principals.create(f"agent-{ns}", "agent", [ns])
    async with mcp_client(stack.mcp_url, agent) as client:
        await call(client, "fact_set", {"entity": "postgres", "attribute": "version",
                                        "value": "16", "namespace": ns})
        await call(client, "memory_store", {"text": "orders-api uses Postgres.",
                                            "namespace": ns})
        await pending(client, ns, 1)
        run = (await call(client, "dream", {"action": "run", "namespace": ns}))["run"]
        assert run["proposals"] == 1

    page = await signed_in(stack, context, ns)
    await page.goto(console_url(stack, f"/graph?ns={ns}&entity=orders-api"))
    proposal = page.locator("article.item", has_text="link orders-api uses postgres")
    await proposal.locator("textarea[name=reasoning]").fill("orders-api reads from postgres")
    async with page.expect_navigation():
        await proposal.get_by_role("button", name="approve").click()
    assert "approved" in await page.inner_text("#flash")
    assert "/console/graph" in page.url  # back where the decision was made
    edges = await page.inner_text("#edges")
    assert "uses" in edges and "postgres" in edges and "inferred" in edges
    assert await page.locator("article.item").count() == 0


async def test_errors_are_pages_with_the_operations_message(stack: Stack,
                                                           context: BrowserContext):  # noqa: F811
    ns = namespace("err")
    page = await signed_in(stack, context, ns)
    bad = await page.goto(console_url(stack, f"/fact?ns={ns}&entity=a&attribute=b"
                                             "&as_of=yesterday"))
    assert bad is not None and bad.status == 400
    assert "as_of must be an ISO-8601 date" in await page.inner_text("#error")
    assert "Traceback" not in await page.content()
    refused = await page.goto(console_url(stack, "/review?ns=someone-else"))
    assert refused is not None and refused.status == 403
    assert "may not use namespace 'someone-else'" in await page.inner_text("#error")
    missing = await page.goto(console_url(stack, f"/dream?ns={ns}&run=nope"))
    assert missing is not None and missing.status == 404
    for response in (bad, refused, missing):
        assert "content-security-policy" in response.headers

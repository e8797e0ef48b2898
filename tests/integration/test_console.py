"""The browser console over the real stack, in a real browser: sign-in and
its cookie, the security headers, roles (agents refused, read-only grants
shown no decisions and refused by the server), CSRF, and a conflict made
through MCP, decided in the console and seen decided through MCP."""

from __future__ import annotations

from playwright.async_api import BrowserContext

from engram_runner.stack import Stack

from ..helpers import call, mcp_client
from .console_browser import (
    browser,  # noqa: F401 (fixture)
    console_url,
    context,  # noqa: F401 (fixture)
    csrf_of,
    namespace,
    needs_chromium,
    screenshot,
    sign_in,
)

pytestmark = needs_chromium


async def contest(stack: Stack, ns: str) -> dict:
    """An open conflict in `ns`, made by an agent through MCP."""
    agent = stack.principals.create(f"agent-{ns}", "agent", [ns])
    async with mcp_client(stack.mcp_url, agent) as client:
        await call(client, "fact_set", {"entity": "billing-api", "attribute": "ci",
                                        "value": "GitHub Actions", "namespace": ns,
                                        "evidence_quote": "we build on GitHub Actions",
                                        "source_type": "utterance", "source_ref": "chat 12"})
        other = await call(client, "fact_set", {"entity": "billing-api", "attribute": "ci",
                                                "value": "Jenkins", "namespace": ns,
                                                "evidence_quote": "CI runs on Jenkins",
                                                "source_type": "file",
                                                "source_ref": "ci/pipeline.txt"})
    assert other["action"] == "contest", other
    return other


async def test_a_reviewer_decides_a_conflict_made_through_mcp(stack: Stack,
                                                              context: BrowserContext):  # noqa: F811
    ns = namespace("con")
    other = await contest(stack, ns)
    reviewer = stack.principals.create(f"rev-{ns}", "reviewer", [ns])
    page = await context.new_page()
    await sign_in(page, stack, reviewer, shot="signin")
    assert page.url.endswith("/console/")
    cookie = next(c for c in await context.cookies() if c.get("name") == "engram_console")
    assert cookie.get("httpOnly") and cookie.get("sameSite") == "Strict"
    assert cookie.get("path") == "/console" and not cookie.get("secure")  # plain http here

    response = await page.goto(console_url(stack, f"/review?ns={ns}"))
    assert response is not None and response.status == 200
    headers = response.headers
    csp = headers["content-security-policy"]
    for rule in ("default-src 'self'", "script-src 'self'", "frame-ancestors 'none'",
                 "form-action 'self'"):
        assert rule in csp
    assert "unsafe-inline" not in csp
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "same-origin"
    assert headers["cache-control"] == "no-store"

    item = page.locator("article.item", has_text="Jenkins")
    await item.wait_for()
    text = await item.inner_text()
    for shown in ("GitHub Actions", "CI runs on Jenkins", "ci/pipeline.txt", "chat 12", "origin",
                  "world time", "recorded"):
        assert shown in text, shown
    await page.keyboard.press("j")  # the vendored script's shortcut
    assert "selected" in (await page.locator("article.item").first.get_attribute("class") or "")
    await item.locator("textarea[name=reasoning]").fill("the pipeline moved to Jenkins in May")
    await screenshot(page, "review")
    await item.get_by_role("button", name="keep “Jenkins”").click()
    await page.locator("#flash").wait_for()
    assert "resolved" in await page.inner_text("#flash")

    async with mcp_client(stack.mcp_url, reviewer) as client:
        settled = await call(client, "conflict_list", {"status": "resolved", "namespace": ns})
        [conflict] = [c for c in settled["conflicts"] if c["id"] == other["conflict_id"]]
        assert conflict["winner_id"] == other["fact"]["id"]
        assert conflict["reasoning"] == "the pipeline moved to Jenkins in May"
        got = await call(client, "fact_get", {"entity": "billing-api", "attribute": "ci",
                                              "namespace": ns})
        assert [f["value"] for f in got["current"]] == ["Jenkins"]


async def test_an_agent_token_cannot_sign_in(stack: Stack, context: BrowserContext):  # noqa: F811
    ns = namespace("agt")
    agent = stack.principals.create(f"agent-{ns}", "agent", [ns])
    page = await context.new_page()
    await sign_in(page, stack, agent)
    assert "is an agent token" in await page.inner_text("#error")
    assert not [c for c in await context.cookies() if c.get("name") == "engram_console"]
    await page.goto(console_url(stack, "/"))
    assert page.url.endswith("/console/signin")


async def test_a_read_only_grant_sees_no_decisions_and_its_posts_are_refused(
        stack: Stack, context: BrowserContext):  # noqa: F811
    ns = namespace("ro")
    other = await contest(stack, ns)
    reader = stack.principals.create(f"reader-{ns}", "reviewer", [], read_namespaces=[ns])
    page = await context.new_page()
    await sign_in(page, stack, reader)
    await page.goto(console_url(stack, f"/review?ns={ns}"))
    await page.locator("article.item", has_text="Jenkins").wait_for()
    assert "Read-only" in await page.inner_text("main")
    assert await page.locator("form.decide").count() == 0

    # Posting anyway, with the page's own valid CSRF token, is refused by the server.
    refused = await page.request.post(console_url(stack, "/review/decide"), form={
        "csrf": await csrf_of(page), "ns": ns, "item_id": other["conflict_id"],
        "choice": "both_stand", "reasoning": "I may not"}, max_redirects=0)
    assert refused.status == 403
    assert "may not decide" in await refused.text()
    async with mcp_client(stack.mcp_url, reader) as client:
        still = await call(client, "conflict_list", {"namespace": ns})
        assert other["conflict_id"] in [c["id"] for c in still["conflicts"]]


async def test_a_post_without_the_csrf_token_is_refused(stack: Stack,
                                                        context: BrowserContext):  # noqa: F811
    ns = namespace("csrf")
    other = await contest(stack, ns)
    reviewer = stack.principals.create(f"rev-{ns}", "reviewer", [ns])
    page = await context.new_page()
    await sign_in(page, stack, reviewer)
    form = {"ns": ns, "item_id": other["conflict_id"], "choice": "both_stand",
            "reasoning": "forged"}
    for bad in ({}, {"csrf": "0" * 64}):
        refused = await page.request.post(console_url(stack, "/review/decide"),
                                          form=form | bad, max_redirects=0)
        assert refused.status == 403
        assert "CSRF" in await refused.text()
        assert "content-security-policy" in refused.headers
    # Another site's form is refused even with the right token.
    foreign = await page.request.post(console_url(stack, "/review/decide"), max_redirects=0,
                                      form=form | {"csrf": await csrf_of(page)},
                                      headers={"Origin": "http://127.0.0.1:1"})
    assert foreign.status == 403
    async with mcp_client(stack.mcp_url, reviewer) as client:
        still = await call(client, "conflict_list", {"namespace": ns})
        assert other["conflict_id"] in [c["id"] for c in still["conflicts"]]


async def test_rotating_the_token_ends_the_session_and_sign_out_clears_it(
        stack: Stack, context: BrowserContext):  # noqa: F811
    ns = namespace("rot")
    name = f"rev-{ns}"
    page = await context.new_page()
    await sign_in(page, stack, stack.principals.create(name, "reviewer", [ns]))
    await page.goto(console_url(stack, f"/?ns={ns}"))
    assert not page.url.endswith("/signin")
    fresh = stack.principals.rotate(name)
    await page.goto(console_url(stack, f"/?ns={ns}"))
    assert page.url.endswith("/console/signin")

    await sign_in(page, stack, fresh)
    async with page.expect_navigation():
        await page.click("form.signout button")
    assert page.url.endswith("/console/signin")
    assert not [c for c in await context.cookies() if c.get("name") == "engram_console"]


async def test_the_queue_is_paged_and_filtered_on_the_server(stack: Stack,
                                                             context: BrowserContext):  # noqa: F811
    ns = namespace("page")
    agent = stack.principals.create(f"agent-{ns}", "agent", [ns])
    async with mcp_client(stack.mcp_url, agent) as client:
        for i in range(30):
            slot = {"entity": f"svc-{i}", "attribute": "ci", "namespace": ns}
            await call(client, "fact_set", slot | {"value": "GitHub Actions"})
            await call(client, "fact_set", slot | {"value": "Jenkins",
                                                   "evidence_quote": "CI runs on Jenkins"})
    page = await context.new_page()
    await sign_in(page, stack, stack.principals.create(f"rev-{ns}", "reviewer", [ns]))
    await page.goto(console_url(stack, f"/review?ns={ns}"))
    items = page.locator("article.item")
    assert await items.count() == 25
    assert "30 open items; page 1 of 2" in await page.inner_text("main")
    await page.keyboard.press("j")
    await page.keyboard.press("j")
    assert "selected" in (await items.nth(1).get_attribute("class") or "")
    await page.keyboard.press("k")
    assert "selected" in (await items.nth(0).get_attribute("class") or "")
    async with page.expect_navigation():
        await page.click("a[rel=next]")
    assert await items.count() == 5

    await page.goto(console_url(stack, f"/review?ns={ns}&kind=conflict&q=svc-7"))
    assert await items.count() == 1
    assert "svc-7.ci" in await items.first.inner_text()
    await page.goto(console_url(stack, f"/review?ns={ns}&size=100000"))
    assert await items.count() == 30
    assert await page.get_attribute("input[name=size]", "value") == "100"

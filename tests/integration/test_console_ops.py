"""The console's operator pages over the real stack, in a real browser: the
audit rows and each chain's verification (also on the overview), and the
principals' tokens created, rotated and revoked from the console, each token
then tried through MCP. Other roles neither see nor reach these pages; a
created token is shown once and never again (page, reload, gateway log)."""

from __future__ import annotations

from playwright.async_api import BrowserContext, Page

from engram_runner.stack import Stack

from ..helpers import call, mcp_client, tampered_audit_row
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


async def as_operator(stack: Stack, context: BrowserContext, ns: str) -> tuple[str, Page]:  # noqa: F811
    name = f"op-{ns}"
    page = await context.new_page()
    await sign_in(page, stack, stack.principals.create(name, "operator", [ns]))
    return name, page


async def works(stack: Stack, token: str, ns: str) -> bool:
    """Whether `token` is accepted through MCP (a refused token fails the
    connection itself)."""
    try:
        async with mcp_client(stack.mcp_url, token) as client:
            await call(client, "memory_recent", {"namespace": ns})
    except Exception:  # noqa: BLE001 (the refusal surfaces as the transport's error)
        return False
    return True


async def test_the_operator_sees_audit_rows_and_verified_chains(
        stack: Stack, context: BrowserContext, admin_dsn: str):  # noqa: F811
    ns = namespace("audit")
    agent = stack.principals.create(f"agent-{ns}", "agent", [ns])
    async with mcp_client(stack.mcp_url, agent) as client:
        await call(client, "memory_store", {"text": "Audited words.", "namespace": ns})
        await call(client, "fact_set", {"entity": f"svc-{ns}", "attribute": "db",
                                        "value": "postgres", "namespace": ns})
    _, page = await as_operator(stack, context, ns)
    assert await page.locator("nav a:text('Audit')").count() == 1
    assert "verified ok" in await page.inner_text("#audit-status")  # the overview
    await page.goto(console_url(stack, f"/audit?ns={ns}"))
    for service in ("memory", "cortex", "coordination"):
        assert "verified ok" in await page.inner_text(f"#verify-{service}")
    rows = await page.locator("#rows-memory tr.row").count()
    assert rows >= 1
    assert "Audited words" not in await page.inner_text("main")
    await screenshot(page, "audit")
    await page.goto(console_url(stack, f"/audit?ns={ns}&service=cortex&limit=1"))
    assert await page.locator("#rows-memory").count() == 0
    assert await page.locator("#rows-cortex tr.row").count() == 1
    bad = await page.goto(console_url(stack, f"/audit?ns={ns}&limit=100000"))
    assert bad is not None and bad.status == 400

    async with tampered_audit_row(admin_dsn, ns):
        await page.goto(console_url(stack, f"/audit?ns={ns}"))
        damaged = await page.inner_text("#verify-memory")
        assert "damage" in damaged and "hash mismatch" in damaged
        assert "verified ok" in await page.inner_text("#verify-cortex")
        await page.goto(console_url(stack, f"/?ns={ns}"))
        assert "memory: damage" in await page.inner_text("#audit-status")


async def test_tokens_are_created_rotated_and_revoked_from_the_console(
        stack: Stack, context: BrowserContext):  # noqa: F811
    ns = namespace("tok")
    me, page = await as_operator(stack, context, ns)
    await page.goto(console_url(stack, f"/tokens?ns={ns}"))
    assert me in await page.inner_text("#principals")
    bot = f"bot-{ns}"
    await page.fill("#create input[name=name]", bot)
    await page.select_option("#create select[name=role]", "agent")
    await page.fill("#create input[name=namespaces]", ns)
    async with page.expect_navigation() as nav:
        await page.click("#create button[type=submit]")
    response = await nav.value
    assert response is not None and "no-store" in (await response.all_headers())["cache-control"]
    assert "?" not in page.url  # the token is in no URL
    token = (await page.inner_text("#new-token")).strip()
    assert token.startswith("eg_")
    # The docs' picture shows where the token appears, not the token itself.
    await page.eval_on_selector("#new-token", "el => { el.textContent = 'eg_…'; }")
    await screenshot(page, "tokens")
    assert await works(stack, token, ns)
    await page.goto(console_url(stack, f"/tokens?ns={ns}"))  # the page again: no token
    assert token not in await page.content()
    assert bot in await page.inner_text("#principals")

    async with page.expect_navigation():
        await page.click(f"#principals tr[data-name='{bot}'] button.rotate")
    fresh = (await page.inner_text("#new-token")).strip()
    assert fresh.startswith("eg_") and fresh != token
    assert not await works(stack, token, ns)
    assert await works(stack, fresh, ns)

    async with page.expect_navigation():
        await page.click(f"#principals tr[data-name='{bot}'] a.revoke")
    assert bot in await page.inner_text("#confirm-revoke")
    assert await works(stack, fresh, ns)  # asking is not revoking
    async with page.expect_navigation():
        await page.click("#confirm-revoke button[type=submit]")
    assert f"{bot} revoked" in await page.inner_text("#flash")
    assert not await works(stack, fresh, ns)

    mine = await page.request.post(console_url(stack, "/tokens/revoke"), max_redirects=0,
                                   form={"csrf": await csrf_of(page), "ns": ns, "name": me,
                                         "confirm": me})
    assert mine.status == 409 and "your own principal" in await mine.text()
    log = stack.log_of("gateway").read_text(errors="replace")
    assert token not in log and fresh not in log


async def test_a_post_to_tokens_without_csrf_or_confirmation_is_refused(
        stack: Stack, context: BrowserContext):  # noqa: F811
    ns = namespace("tokcsrf")
    _, page = await as_operator(stack, context, ns)
    victim = f"victim-{ns}"
    stack.principals.create(victim, "agent", [ns])
    form: dict[str, str | float | bool] = {"ns": ns, "name": victim, "confirm": victim}
    forged: list[dict[str, str | float | bool]] = [{}, {"csrf": "0" * 64}]
    for bad in forged:
        refused = await page.request.post(console_url(stack, "/tokens/revoke"),
                                          form=form | bad, max_redirects=0)
        assert refused.status == 403 and "CSRF" in await refused.text()
        created = await page.request.post(console_url(stack, "/tokens/create"),
                                          form={"ns": ns, "name": f"x-{ns}", "role": "agent",
                                                "namespaces": ns} | bad, max_redirects=0)
        assert created.status == 403
    unconfirmed = await page.request.post(console_url(stack, "/tokens/revoke"), max_redirects=0,
                                          form={"csrf": await csrf_of(page), "ns": ns,
                                                "name": victim})
    assert unconfirmed.status == 400 and "confirm" in await unconfirmed.text()
    assert stack.principals.named(victim) is not None
    assert stack.principals.named(f"x-{ns}") is None


async def test_a_reviewer_neither_sees_nor_reaches_the_operator_pages(
        stack: Stack, context: BrowserContext):  # noqa: F811
    ns = namespace("norev")
    page = await context.new_page()
    await sign_in(page, stack, stack.principals.create(f"rev-{ns}", "reviewer", [ns]))
    nav = await page.inner_text("nav")
    assert "Audit" not in nav and "Tokens" not in nav
    assert await page.locator("#audit-status").count() == 0
    for path in ("/audit", "/tokens"):
        refused = await page.goto(console_url(stack, f"{path}?ns={ns}"))
        assert refused is not None and refused.status == 403
    posted = await page.request.post(console_url(stack, "/tokens/create"), max_redirects=0,
                                     form={"csrf": await csrf_of(page), "ns": ns,
                                           "name": f"sneak-{ns}", "role": "operator",
                                           "namespaces": ns})
    assert posted.status == 403
    assert stack.principals.named(f"sneak-{ns}") is None

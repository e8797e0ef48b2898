"""A real browser (Debian's chromium, driven by playwright) against the
stack's console. The tests skip, saying why, only where chromium is absent;
CI installs it (.ci/run). Screenshots go to docs/img/console-*.png, so the
docs show the console as it is."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser, BrowserContext, Page, async_playwright

from engram_runner.stack import Stack

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
needs_chromium = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=(
    "chromium is not installed: the console's tests drive it (apt-get install chromium)"))
IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
VIEWPORT = {"width": 1200, "height": 800}


def console_url(stack: Stack, path: str = "/") -> str:
    return f"http://127.0.0.1:{stack.topology.gateway_port}/console{path}"


def namespace(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


@pytest_asyncio.fixture(scope="module")
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as pw:
        launched = await pw.chromium.launch(executable_path=CHROMIUM,
                                            args=["--no-sandbox", "--disable-gpu"])
        try:
            yield launched
        finally:
            await launched.close()


@pytest_asyncio.fixture
async def context(browser: Browser) -> AsyncIterator[BrowserContext]:
    ctx = await browser.new_context(viewport=VIEWPORT)  # type: ignore[arg-type]
    try:
        yield ctx
    finally:
        await ctx.close()


async def sign_in(page: Page, stack: Stack, token: str, shot: str = "") -> None:
    await page.goto(console_url(stack, "/signin"))
    await page.fill("input[name=token]", token)
    if shot:
        await screenshot(page, shot)
    async with page.expect_navigation():
        await page.click("form.signin button[type=submit]")


async def screenshot(page: Page, name: str) -> None:
    IMG.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(IMG / f"console-{name}.png"))


async def csrf_of(page: Page) -> str:
    """The page's CSRF token (every signed-in page has the sign-out form)."""
    value = await page.get_attribute("form.signout input[name=csrf]", "value")
    assert value
    return value

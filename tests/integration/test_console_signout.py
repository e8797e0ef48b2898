"""The console's session over plain HTTP against the real stack (no browser
needed): sign-out ends the cookie itself, not only the browser's copy, and a
forwarded-https header from an address that is not a trusted proxy does not
make the cookie Secure."""

from __future__ import annotations

import re
import uuid

import httpx

from engram_runner.stack import Stack

CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def csrf_in(html: str) -> str:
    match = CSRF.search(html)
    assert match is not None, html[:300]
    return match.group(1)


async def signed_in(http: httpx.AsyncClient, token: str) -> str:
    """Signs in; returns the session cookie."""
    form = await http.get("/console/signin")
    done = await http.post("/console/signin", data={"token": token, "csrf": csrf_in(form.text)})
    assert done.status_code == 303, done.text
    cookie = http.cookies.get("engram_console")
    assert cookie
    return cookie


async def test_a_signed_out_cookie_no_longer_signs_in(stack: Stack):
    ns = f"so-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"rev-{ns}", "reviewer", [ns])
    base = stack.mcp_url.removesuffix("/mcp")
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        cookie = await signed_in(http, token)
        page = await http.get(f"/console/?ns={ns}")
        assert page.status_code == 200
        out = await http.post("/console/signout", data={"csrf": csrf_in(page.text)})
        assert out.status_code == 303 and out.headers["location"] == "/console/signin"
    async with httpx.AsyncClient(base_url=base, timeout=30,
                                 cookies={"engram_console": cookie}) as thief:
        replayed = await thief.get(f"/console/?ns={ns}")
        assert replayed.status_code == 303, replayed.text[:300]
        assert replayed.headers["location"] == "/console/signin"
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        assert (await signed_in(http, token)) != cookie  # signing in again works


async def test_forwarded_https_from_an_untrusted_peer_is_ignored(stack: Stack):
    base = stack.mcp_url.removesuffix("/mcp")
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        form = await http.get("/console/signin", headers={"X-Forwarded-Proto": "https"})
    assert form.status_code == 200
    assert "secure" not in form.headers["set-cookie"].lower()

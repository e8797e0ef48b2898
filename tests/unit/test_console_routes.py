"""The console's routing without a stack: a page module's `visible` rule
refuses its URL to other roles (not only its menu entry), a post needs the
session's CSRF token, and without a session key the console says it is off."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, cast

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.responses import PlainTextResponse, Response

from engram_gateway.clients import Backends
from engram_gateway.doors.console import routes
from engram_gateway.doors.console.session import Sessions
from engram_gateway.doors.console.web import ConsoleHeaders, Ctx, Page
from engram_gateway.net.proxies import networks
from engram_kit.principals import PrincipalStore


async def secret(ctx: Ctx) -> Response:
    note = f"; {ctx.flash()}" if ctx.flash() else ""
    return PlainTextResponse(f"for {ctx.viewer.role} in {ctx.namespace}{note}")


async def act(ctx: Ctx) -> Response:
    return ctx.done(ctx.url("/ops-only"), "did it")


def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str | None,
           trusted: tuple[str, ...] = (), peer: str = "testclient",
           **values: Any) -> tuple[TestClient, PrincipalStore]:
    """The console of one gateway replica over the token file in tmp_path
    (each call: another replica, sharing nothing in memory)."""
    store = PrincipalStore(tmp_path / "principals.json")
    page = Page("/ops-only", "Ops", secret, {"act": act}, order=99,
                visible=lambda viewer: viewer.role == "operator")
    monkeypatch.setattr(routes, "PAGES", [page])
    sessions = Sessions(key, 600, store) if key else None
    app = FastAPI()
    app.include_router(routes.Console(sessions, cast(Backends, None),
                                      networks(trusted)).router())
    app.add_middleware(ConsoleHeaders)
    return TestClient(app, base_url="http://127.0.0.1:8750", client=(peer, 50000)), store


def sign_in(c: TestClient, token: str) -> None:
    form = c.get("/console/signin").text
    match = re.search(r'name="csrf" value="([^"]+)"', form)
    assert match is not None
    done = c.post("/console/signin", data={"token": token, "csrf": match.group(1)},
                  follow_redirects=False)
    assert done.status_code == 303, done.text


def test_a_page_for_operators_is_refused_to_a_reviewer(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch):
    c, store = client(tmp_path, monkeypatch, "k" * 32)
    sign_in(c, store.create("rev", "reviewer", ["default"]))
    refused = c.get("/console/ops-only")
    assert refused.status_code == 403 and "not for the reviewer role" in refused.text
    assert "Content-Security-Policy" in refused.headers
    assert refused.headers["Cache-Control"] == "no-store"

    c2, _ = client(tmp_path, monkeypatch, "k" * 32)
    sign_in(c2, store.create("op", "operator", ["default"]))
    assert c2.get("/console/ops-only").text == "for operator in default"
    assert c2.post("/console/ops-only/act", data={"x": "1"}).status_code == 403  # no CSRF


def test_only_the_console_puts_a_note_on_a_page(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch):
    c, store = client(tmp_path, monkeypatch, "k" * 32)
    sign_in(c, store.create("op", "operator", ["default"]))
    forged = c.get("/console/ops-only?msg=call+this+number&sig=0")
    assert forged.text == "for operator in default"
    sessions = Sessions("k" * 32, 600, store)
    viewer = sessions.viewer(c.cookies.get("engram_console"))
    assert viewer is not None
    done = c.post("/console/ops-only/act", data={"csrf": sessions.csrf(viewer)})
    assert done.text == "for operator in default; did it"


def test_without_a_key_the_console_is_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    c, _ = client(tmp_path, monkeypatch, None)
    for path in ("/console/signin", "/console/ops-only"):
        off = c.get(path)
        assert off.status_code == 503 and "ENGRAM_CONSOLE_SESSION_KEY" in off.text


def test_sign_out_ends_the_cookie_on_every_replica(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch):
    """A copy of the cookie taken before sign-out (another tab, a thief)
    stops working on this replica and on another that shares only the token
    file; a new sign-in works again."""
    a, store = client(tmp_path, monkeypatch, "k" * 32)
    token = store.create("op", "operator", ["default"])
    sign_in(a, token)
    cookie = a.cookies.get("engram_console")
    assert cookie
    b, _ = client(tmp_path, monkeypatch, "k" * 32)
    b.cookies.set("engram_console", cookie, path="/console")
    assert b.get("/console/ops-only").text == "for operator in default"

    sessions = Sessions("k" * 32, 600, store)
    viewer = sessions.viewer(cookie)
    assert viewer is not None
    out = a.post("/console/signout", data={"csrf": sessions.csrf(viewer)},
                 follow_redirects=False)
    assert out.status_code == 303 and out.headers["location"] == "/console/signin"
    for replica in (a, b):
        replica.cookies.set("engram_console", cookie, path="/console")
        replayed = replica.get("/console/ops-only", follow_redirects=False)
        assert replayed.status_code == 303, replayed.text
        assert replayed.headers["location"] == "/console/signin"
        posted = replica.post("/console/ops-only/act", data={"csrf": "x"})
        assert posted.status_code == 401
    sign_in(b, token)
    assert b.get("/console/ops-only").text == "for operator in default"


def _cookie_header(c: TestClient, **headers: str) -> str:
    reply = c.get("/console/signin", headers=headers)
    return reply.headers["set-cookie"]


def test_cookies_are_secure_over_https_from_a_trusted_proxy_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    https = {"X-Forwarded-Proto": "https"}
    behind, _ = client(tmp_path, monkeypatch, "k" * 32, trusted=("10.0.0.0/8",),
                       peer="10.1.2.3")
    assert "secure" in _cookie_header(behind, **https).lower()
    assert "secure" not in _cookie_header(behind).lower()  # the proxy said http
    stranger, _ = client(tmp_path, monkeypatch, "k" * 32, trusted=("10.0.0.0/8",),
                         peer="192.0.2.7")
    assert "secure" not in _cookie_header(stranger, **https).lower()
    untrusting, _ = client(tmp_path, monkeypatch, "k" * 32, peer="10.1.2.3")
    assert "secure" not in _cookie_header(untrusting, **https).lower()
    direct = TestClient(behind.app, base_url="https://127.0.0.1:8750", client=("192.0.2.7", 1))
    assert "secure" in _cookie_header(direct).lower()

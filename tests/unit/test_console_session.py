"""The console's session cookie and CSRF tokens, without a stack: a cookie
signs in only while its signature, expiry and the principal's current token
hash all hold; CSRF tokens are bound to the session; redirects stay inside
the console; every page module found is served."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from engram_gateway.doors.console import pages, session
from engram_gateway.doors.console.session import Sessions
from engram_gateway.doors.console.web import safe_next
from engram_kit.principals import Principal, PrincipalStore


def named(store: PrincipalStore, name: str) -> Principal:
    principal = store.named(name)
    assert principal is not None
    return principal


@pytest.fixture
def store(tmp_path: Path) -> PrincipalStore:
    return PrincipalStore(tmp_path / "principals.json")


def test_a_cookie_signs_in_its_principal_until_the_token_changes(store: PrincipalStore):
    store.create("rev", "reviewer", ["default"], read_namespaces=["shared"])
    sessions = Sessions("k" * 32, 3600, store)
    cookie = sessions.issue(named(store, "rev"))
    viewer = sessions.viewer(cookie)
    assert viewer is not None and viewer.name == "rev"
    assert viewer.namespaces == ["default", "shared"]
    assert viewer.may("review_decide", "default")
    assert not viewer.may("review_decide", "shared")  # read-only grant
    assert viewer.may("review_list", "shared")
    assert not viewer.may("forget_by_writer", "default")  # operator only

    store.rotate("rev")
    assert sessions.viewer(cookie) is None
    assert sessions.viewer(sessions.issue(named(store, "rev"))) is not None
    store.revoke("rev")
    assert sessions.viewer(cookie) is None


def test_a_forged_expired_or_foreign_cookie_signs_in_nobody(store: PrincipalStore,
                                                            monkeypatch: pytest.MonkeyPatch):
    store.create("rev", "reviewer", ["default"])
    sessions = Sessions("k" * 32, 60, store)
    cookie = sessions.issue(named(store, "rev"))
    body, _, mac = cookie.rpartition(".")
    for bad in ("", "x", f"{body}.{'0' * 64}", f"{body}x.{mac}", cookie + "0"):
        assert sessions.viewer(bad) is None, bad
    assert Sessions("other-key-0123456789", 60, store).viewer(cookie) is None
    later = time.time() + 61
    monkeypatch.setattr(session.time, "time", lambda: later)
    assert sessions.viewer(cookie) is None


def test_an_agent_never_gets_a_session(store: PrincipalStore):
    store.create("bot", "agent", ["default"])
    sessions = Sessions("k" * 32, 60, store)
    agent = named(store, "bot")
    assert not session.console_role(agent)
    assert sessions.viewer(sessions.issue(agent)) is None


def test_csrf_tokens_belong_to_their_session(store: PrincipalStore):
    store.create("a", "reviewer", ["default"])
    store.create("b", "operator", ["default"])
    sessions = Sessions("k" * 32, 60, store)
    va = sessions.viewer(sessions.issue(named(store, "a")))
    vb = sessions.viewer(sessions.issue(named(store, "b")))
    assert va is not None and vb is not None
    assert sessions.csrf_ok(va, sessions.csrf(va))
    assert not sessions.csrf_ok(va, sessions.csrf(vb))
    assert not sessions.csrf_ok(va, "")
    nonce = sessions.new_nonce()
    assert sessions.pre_csrf_ok(nonce, sessions.pre_csrf(nonce))
    assert not sessions.pre_csrf_ok(None, sessions.pre_csrf(nonce))
    assert not sessions.pre_csrf_ok(sessions.new_nonce(), sessions.pre_csrf(nonce))


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/console/",
                                    "/v1/stats", "/console", "/console\\..\\x", ""])
def test_a_form_returns_only_inside_the_console(target: str):
    assert safe_next(target, "/console/") == "/console/"


def test_every_page_module_is_served():
    paths = {p.path for p in pages.PAGES}
    assert {"/", "/review", "/fact", "/search", "/graph", "/dream", "/board"} <= paths
    assert len(paths) == len(pages.PAGES)

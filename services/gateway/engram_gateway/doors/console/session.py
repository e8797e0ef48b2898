"""Console sign-in: a signed, expiring session cookie and the CSRF tokens
derived from it.

The cookie holds the principal's name, an HMAC of its token's sha256 and of
its console generation, and an expiry, signed with the console key
(ENGRAM_CONSOLE_SESSION_KEY). The only server state is in the token file,
which every replica reads: each request looks the principal up again there,
so a rotated or revoked token ends the session at once (the stored hash no
longer matches), and so does a sign-out, which bumps the principal's console
generation (every cookie it had, in every browser, stops matching)."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass

from engram_kit.principals import Principal, PrincipalStore
from engram_kit.vocab import Role

from ...registry import operation

COOKIE = "engram_console"
PRE_COOKIE = "engram_console_pre"  # the sign-in form's CSRF nonce, before a session
PATH = "/console"
PRE_TTL_S = 1800


@dataclass(frozen=True)
class Viewer:
    """A signed-in person: the principal, and the cookie that carries it."""

    principal: Principal
    cookie: str

    @property
    def name(self) -> str:
        return self.principal.name

    @property
    def role(self) -> str:
        return self.principal.role

    @property
    def namespaces(self) -> list[str]:
        """Every namespace it may open: read-write grants, then read-only ones."""
        return [*self.principal.namespaces,
                *(n for n in self.principal.read_namespaces if n not in self.principal.namespaces)]

    def may(self, tool: str, namespace: str, action: str = "") -> bool:
        """Whether it may run a registry operation in `namespace` (the same rule
        the tools and REST routes apply; the server checks again on every call)."""
        access = operation(tool, action).access
        if self.role not in access.roles or namespace not in self.namespaces:
            return False
        return access.value == "read" or namespace in self.principal.namespaces


class Sessions:
    """Mints and checks console cookies and CSRF tokens under one key."""

    def __init__(self, key: str, ttl_s: int, store: PrincipalStore) -> None:
        self._key = key.encode()
        self.ttl_s = ttl_s
        self.store = store

    def _mac(self, *parts: str) -> str:
        return hmac.new(self._key, "\0".join(parts).encode(), hashlib.sha256).hexdigest()

    def _bind(self, p: Principal) -> str:
        return self._mac("bind", p.name, p.token_sha256, str(p.console_generation))[:32]

    def issue(self, p: Principal) -> str:
        payload = json.dumps({"p": p.name, "b": self._bind(p),
                              "e": int(time.time()) + self.ttl_s}, separators=(",", ":"))
        body = base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")
        return f"{body}.{self._mac('session', body)}"

    def viewer(self, cookie: str | None) -> Viewer | None:
        """The viewer a cookie signs in, or None: bad signature, expired, the
        token behind it rotated or revoked, signed out since, or the role no
        longer a console role."""
        if not cookie or "." not in cookie:
            return None
        body, _, mac = cookie.rpartition(".")
        if not hmac.compare_digest(mac, self._mac("session", body)):
            return None
        try:
            data = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
            name, bind, expires = str(data["p"]), str(data["b"]), int(data["e"])
        except (ValueError, KeyError, TypeError):
            return None
        if expires < time.time():
            return None
        p = self.store.named(name)
        if p is None or not hmac.compare_digest(bind, self._bind(p)) or not console_role(p):
            return None
        return Viewer(p, cookie)

    def end(self, viewer: Viewer) -> None:
        """Sign out: every cookie of the principal stops working on every replica."""
        # Revoked meanwhile (ValueError): no cookie of it works any more.
        with contextlib.suppress(ValueError):
            self.store.end_console_sessions(viewer.name)

    def csrf(self, viewer: Viewer) -> str:
        return self._mac("csrf", viewer.cookie)

    def csrf_ok(self, viewer: Viewer, given: str) -> bool:
        return bool(given) and hmac.compare_digest(given, self.csrf(viewer))

    def flash_sig(self, viewer: Viewer, message: str) -> str:
        """Signs the note a redirect carries, so that only the console (not a
        link someone else wrote) can put words on a console page."""
        return self._mac("flash", viewer.cookie, message)[:32]

    @staticmethod
    def new_nonce() -> str:
        return secrets.token_urlsafe(16)

    def pre_csrf(self, nonce: str) -> str:
        return self._mac("signin", nonce)

    def pre_csrf_ok(self, nonce: str | None, given: str) -> bool:
        return bool(nonce) and bool(given) and hmac.compare_digest(given,
                                                                   self.pre_csrf(nonce or ""))


def console_role(p: Principal) -> bool:
    """Agents work through MCP and REST; the console is for people."""
    return p.role in (Role.REVIEWER, Role.OPERATOR)

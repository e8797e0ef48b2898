"""The console's routes: sign-in and sign-out, static files, and one GET
(plus its POST actions) per registered page. Every page request checks the
session cookie and the namespace; every POST also the CSRF token and that the
Origin, when the browser sends one, is this very site."""

from __future__ import annotations

import asyncio
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from ...clients import Backends
from ...net.proxies import Network, over_https
from ...pipeline.admit import Identity, NamespaceRefused, admit
from ...pipeline.audit import AccessRecord, Door
from ...tools.spec import Access
from .pages import PAGES
from .session import COOKIE, PATH, PRE_COOKIE, PRE_TTL_S, Sessions, Viewer, console_role
from .web import (
    NAV,
    ConsoleError,
    Ctx,
    Handler,
    Page,
    error_page,
    internal_error,
    page,
    read_form,
    redirect,
)

STATIC = {"console.js": "text/javascript", "console.css": "text/css"}


def _same_origin(request: Request) -> bool:
    """No Origin (an older browser, a test client) passes, as the Host/Origin
    guard lets it; one that names another site, or "null", does not. The host
    is compared, not the scheme: a TLS proxy in front may speak http to us."""
    origin = request.headers.get("origin")
    if origin is None:
        return True
    return urlsplit(origin).netloc == request.headers.get("host", "")


def _namespace(viewer: Viewer, request: Request, form: dict[str, str]) -> str:
    """The page's namespace. A refusal here comes before any operation, so it
    is recorded as the console's own (tool "console", the page's path)."""
    wanted = form.get("ns") or request.query_params.get("ns") or ""
    try:
        return admit(Identity.of(viewer.principal), wanted or None, "", Access.READ,
                     "the console", metered=False).namespace
    except NamespaceRefused as exc:
        AccessRecord(Door.CONSOLE, "console", request.url.path, Access.READ, viewer.name,
                     wanted).finish(exc)
        raise ConsoleError(403, "permission_denied", str(exc)) from None


class Console:
    """Builds the router over the sessions and backends it serves."""

    def __init__(self, sessions: Sessions | None, backends: Backends,
                 trusted_proxies: tuple[Network, ...] = ()) -> None:
        self.sessions = sessions
        self.backends = backends
        self.trusted_proxies = trusted_proxies

    def _cookie(self, response: Response, request: Request, name: str, value: str,
                max_age: int) -> None:
        response.set_cookie(name, value, max_age=max_age, path=PATH, httponly=True,
                            samesite="strict",
                            secure=over_https(request, self.trusted_proxies))

    def router(self) -> APIRouter:
        r = APIRouter(include_in_schema=False)
        r.add_api_route(f"{PATH}/static/{{name}}", self.static, methods=["GET"])
        r.add_api_route(f"{PATH}/signin", self.signin_form, methods=["GET"])
        r.add_api_route(f"{PATH}/signin", self.signin, methods=["POST"])
        r.add_api_route(f"{PATH}/signout", self.signout, methods=["POST"])
        NAV[:] = sorted(PAGES, key=lambda p: p.order)
        for p in NAV:
            r.add_api_route(PATH + p.path, self._get(p), methods=["GET"])
            for name, handler in p.actions.items():
                r.add_api_route(f"{PATH}{p.path.rstrip('/')}/{name}",
                                self._post(handler, p), methods=["POST"])
        r.add_api_route(PATH, lambda: redirect(f"{PATH}/"), methods=["GET"])
        r.add_api_route(f"{PATH}/{{rest:path}}", self.not_found, methods=["GET", "POST"])
        return r

    async def static(self, name: str) -> Response:
        if name not in STATIC:
            return error_page(ConsoleError(404, "not_found", "no such file"))
        body = resources.files("engram_gateway.doors.console").joinpath("static", name).read_bytes()
        return Response(body, media_type=STATIC[name])

    async def not_found(self, rest: str) -> Response:
        return error_page(ConsoleError(404, "not_found", f"no console page /{rest[:80]}"))

    def _off(self) -> Response:
        return error_page(ConsoleError(503, "unavailable", "the console is off: set "
                                       "ENGRAM_CONSOLE_SESSION_KEY (16+ characters) for the "
                                       "gateway; `engram up` generates one"))

    async def signin_form(self, request: Request, note: str = "") -> Response:
        if self.sessions is None:
            return self._off()
        nonce = request.cookies.get(PRE_COOKIE) or self.sessions.new_nonce()
        resp = page("signin.html", 200 if not note else 403, note=note,
                    signin_csrf=self.sessions.pre_csrf(nonce))
        self._cookie(resp, request, PRE_COOKIE, nonce, PRE_TTL_S)
        return resp

    async def signin(self, request: Request) -> Response:
        if self.sessions is None:
            return self._off()
        try:
            form = await read_form(request)
        except ConsoleError as exc:
            return error_page(exc)
        if not _same_origin(request) or not self.sessions.pre_csrf_ok(
                request.cookies.get(PRE_COOKIE), form.get("csrf", "")):
            return error_page(_csrf_refusal())
        principal = self.sessions.store.verify(form.get("token", "").strip())
        if principal is None:
            return await self.signin_form(request, "That token is not valid (revoked, "
                                          "rotated, or mistyped).")
        if not console_role(principal):
            return await self.signin_form(
                request, f"{principal.name!r} is an agent token: agents use MCP or REST. "
                "The console takes a reviewer or operator token "
                "(engram token create NAME --role reviewer).")
        resp = redirect(f"{PATH}/")
        self._cookie(resp, request, COOKIE, self.sessions.issue(principal),
                     self.sessions.ttl_s)
        resp.delete_cookie(PRE_COOKIE, path=PATH)
        return resp

    async def signout(self, request: Request) -> Response:
        async def out(ctx: Ctx) -> Response:
            # Deleting the cookie is not enough: a copy of it would still
            # work. The new generation in the token file ends it everywhere.
            await asyncio.to_thread(ctx.sessions.end, ctx.viewer)
            resp = redirect(f"{PATH}/signin")
            resp.delete_cookie(COOKIE, path=PATH, httponly=True, samesite="strict")
            return resp
        return await self._post(out)(request)

    def _viewer(self, request: Request) -> Viewer | None:
        return self.sessions.viewer(request.cookies.get(COOKIE)) if self.sessions else None

    def _get(self, p: Page) -> Any:
        async def get(request: Request) -> Response:
            return await self._serve(request, p.get, post=False, page=p)
        get.__name__ = f"console_{p.path.strip('/') or 'overview'}"
        return get

    def _post(self, handler: Handler, p: Page | None = None) -> Any:
        async def post(request: Request) -> Response:
            return await self._serve(request, handler, post=True, page=p)
        return post

    async def _serve(self, request: Request, handler: Handler, post: bool,
                     page: Page | None = None) -> Response:
        if self.sessions is None:
            return self._off()
        viewer = self._viewer(request)
        if viewer is None:
            if post:
                return error_page(ConsoleError(401, "unauthenticated", "your session ended "
                                               "(signed out, expired, or its token was "
                                               "rotated or revoked); sign in again"))
            return redirect(f"{PATH}/signin")
        ns = ""
        try:
            form = await read_form(request) if post else {}
            if post and (not _same_origin(request)
                         or not self.sessions.csrf_ok(viewer, form.get("csrf", ""))):
                raise _csrf_refusal()
            if page is not None and not page.visible(viewer):
                raise ConsoleError(403, "permission_denied", f"{page.nav or page.path} is "
                                   f"not for the {viewer.role} role")
            ns = _namespace(viewer, request, form)
            ctx = Ctx(request, self.sessions, self.backends, viewer, ns, form)
            return await handler(ctx)
        except ConsoleError as exc:
            return error_page(exc, viewer, ns, self.sessions.csrf(viewer))
        except Exception as exc:  # never a stack trace to the browser
            return internal_error(exc)


def _csrf_refusal() -> ConsoleError:
    return ConsoleError(403, "csrf", "this form came without a valid CSRF token (or from "
                        "another site); reload the page and try again")

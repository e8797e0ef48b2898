"""What every console page shares: the template environment, the page
registry, the request context a page handler gets, the safe error page and
the security headers on every /console response."""

from __future__ import annotations

import hmac
import logging
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlencode

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ...clients import Backends
from .session import PATH, Sessions, Viewer

log = logging.getLogger(__name__)

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")
# same-origin, not no-referrer: under no-referrer Chromium sends `Origin: null`
# with the console's own form posts, which the Origin guard refuses. Nothing
# leaves for another site either way.
HEADERS = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff",
           "Referrer-Policy": "same-origin", "X-Frame-Options": "DENY"}
MAX_FORM_BYTES = 64 * 1024

ENV = Environment(loader=PackageLoader("engram_gateway.doors.console", "templates"),
                  autoescape=select_autoescape(default=True), undefined=StrictUndefined,
                  trim_blocks=True, lstrip_blocks=True)


class ConsoleError(Exception):
    """A refusal or failure shown as a page: an HTTP status, the error kind
    (the ops' typed kinds) and a message written for the user."""

    def __init__(self, status: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.status, self.kind, self.message = status, kind, message


@dataclass
class Ctx:
    """One console request as a page handler sees it."""

    request: Request
    sessions: Sessions
    backends: Backends
    viewer: Viewer
    namespace: str
    form: Mapping[str, str] = field(default_factory=dict)

    def arg(self, name: str, default: str = "") -> str:
        return self.request.query_params.get(name, default).strip()

    def flash(self) -> str:
        """The note of the redirect that led here, if the console signed it."""
        message, sig = self.arg("msg"), self.arg("sig")
        ok = message and hmac.compare_digest(sig, self.sessions.flash_sig(self.viewer, message))
        return message if ok else ""

    def done(self, url: str, message: str) -> RedirectResponse:
        """Redirect to `url` with a signed note of what was done."""
        sep = "&" if "?" in url else "?"
        sig = self.sessions.flash_sig(self.viewer, message)
        return redirect(f"{url}{sep}{urlencode({'msg': message, 'sig': sig})}")

    def may(self, tool: str, action: str = "") -> bool:
        return self.viewer.may(tool, self.namespace, action)

    def url(self, path: str, **query: Any) -> str:
        """A console URL in the current namespace."""
        q = {"ns": self.namespace} | {k: v for k, v in query.items() if v not in ("", None)}
        return f"{PATH}{path}?{urlencode(q)}"

    def render(self, template: str, status: int = 200, **values: Any) -> HTMLResponse:
        return page(template, status, viewer=self.viewer, ns=self.namespace,
                    csrf=self.sessions.csrf(self.viewer), ctx=self, **values)


Handler = Callable[[Ctx], Awaitable[Response]]


@dataclass(frozen=True)
class Page:
    """One page of the console: GET `path` renders it; each of `actions` is a
    POST to `path`/<name>. `nav` is its menu label (empty: not in the menu);
    `visible` says whether a viewer sees it in the menu."""

    path: str
    nav: str
    get: Handler
    actions: Mapping[str, Handler] = field(default_factory=dict)
    order: int = 100
    visible: Callable[[Viewer], bool] = lambda _: True


NAV: list[Page] = []


def page(template: str, status: int = 200, **values: Any) -> HTMLResponse:
    values.setdefault("viewer", None)
    values.setdefault("ns", "")
    values.setdefault("csrf", "")
    nav = [p for p in NAV if p.nav and (values["viewer"] is None or p.visible(values["viewer"]))]
    html = ENV.get_template(template).render(nav=nav, path=PATH, **values)
    return HTMLResponse(html, status_code=status)


def error_page(exc: ConsoleError, viewer: Viewer | None = None, ns: str = "",
               csrf: str = "") -> HTMLResponse:
    return page("error.html", exc.status, viewer=viewer, ns=ns, csrf=csrf, error=exc)


def internal_error(exc: BaseException) -> HTMLResponse:
    ref = uuid.uuid4().hex[:12]
    log.error("console page failed: %r", exc, extra={"fields": {"ref": ref}})
    return error_page(ConsoleError(500, "internal", f"internal error (reference {ref}); "
                                   "the gateway's log has the details"))


def redirect(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=303)


def safe_next(value: str, fallback: str) -> str:
    """Only a path inside the console: never an open redirect."""
    ok = value.startswith(f"{PATH}/") and not value.startswith("//") and "\\" not in value
    return value if ok else fallback


def back_to(ctx: Ctx, fallback: str) -> str:
    """Where a form asked to return to (its `next` field), if inside the console."""
    return safe_next(ctx.form.get("next", ""), fallback)


async def read_form(request: Request) -> dict[str, str]:
    """An urlencoded form body (the console's only kind), first value of each
    field; anything else is refused."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise ConsoleError(415, "invalid_argument", "console forms are posted "
                           "urlencoded (application/x-www-form-urlencoded)")
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        raise ConsoleError(413, "invalid_argument", f"a console form is at most "
                           f"{MAX_FORM_BYTES} bytes")
    parsed = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
    return {k: v[0] for k, v in parsed.items()}


class ConsoleHeaders:
    """ASGI middleware: the security headers on every response under
    /console, and no-store on all but the static files."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or not (path == PATH or path.startswith(f"{PATH}/")):
            await self.app(scope, receive, send)
            return
        static = path.startswith(f"{PATH}/static/")

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    headers[name] = value
                headers["Cache-Control"] = "no-cache" if static else "no-store"
            await send(message)

        await self.app(scope, receive, with_headers)

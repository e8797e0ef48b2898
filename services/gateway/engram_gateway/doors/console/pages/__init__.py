"""The console's pages: every module in this package that defines `PAGES`
(a list of web.Page) is served. A new page is one new module here and a
template; nothing else to register."""

from __future__ import annotations

import importlib
import pkgutil

from ..web import Page


def _discover() -> list[Page]:
    found: list[Page] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        found += getattr(module, "PAGES", [])
    return found


PAGES: list[Page] = _discover()

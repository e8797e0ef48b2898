"""Server-drawn SVG (no script, no library): a slot's timeline on one time
axis, and an entity's neighbourhood. Text is escaped; colours come from the
stylesheet through class names."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

from markupsafe import Markup, escape

WIDTH, ROW, LABEL = 900, 26, 220


def _time(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        t = datetime.fromisoformat(value.removesuffix("Z"))
    except ValueError:
        return None
    return t if t.tzinfo else t.replace(tzinfo=UTC)


def timeline(facts: list[dict[str, Any]], start_key: str, end_key: str, title: str) -> Markup:
    """One bar per fact from `start_key` to `end_key` (open: now)."""
    now = datetime.now(UTC)
    spans = [(f, _time(f.get(start_key)), _time(f.get(end_key)) or now) for f in facts]
    spans = [(f, s, e) for f, s, e in spans if s is not None]
    if not spans:
        return Markup("<p class='hint'>no times on this axis</p>")
    lo = min(s for _, s, _ in spans if s)
    hi = max(max(e for _, _, e in spans), now)
    scale = (WIDTH - LABEL - 20) / max((hi - lo).total_seconds(), 1.0)
    height = ROW * len(spans) + 40
    parts = [f"<svg class='timeline' role='img' viewBox='0 0 {WIDTH} {height}' "
             f"width='{WIDTH}' height='{height}'><title>{escape(title)}</title>"]
    for i, (f, s, e) in enumerate(spans):
        assert s is not None
        y = 10 + i * ROW
        x = LABEL + (s - lo).total_seconds() * scale
        w = max(3.0, (e - s).total_seconds() * scale)
        label = f"{f['value']}"[:28]
        parts.append(f"<text x='4' y='{y + 14}' class='lbl'>{escape(label)}</text>"
                     f"<rect x='{x:.1f}' y='{y}' width='{w:.1f}' height='{ROW - 8}' "
                     f"class='bar v-{escape(f.get('verdict', ''))}'><title>"
                     f"{escape(f['value'])} · {escape(f.get('verdict', ''))} · "
                     f"{escape(f.get(start_key) or '')} → {escape(f.get(end_key) or 'open')}"
                     "</title></rect>")
    y = height - 12
    parts.append(f"<text x='{LABEL}' y='{y}' class='axis'>{lo.date().isoformat()}</text>"
                 f"<text x='{WIDTH - 20}' y='{y}' class='axis end'>{hi.date().isoformat()}"
                 f" (now)</text></svg>")
    return Markup("".join(parts))


def neighbourhood(root: str, nodes: list[dict[str, Any]], edges: list[dict[str, Any]],
                  href: Any) -> Markup:
    """The root in the middle, its neighbours on rings by depth; each node
    links to its own neighbourhood (`href(entity)`)."""
    size, centre = 520, 260
    rings: dict[int, list[str]] = {}
    for n in nodes:
        if n["entity"] != root:
            rings.setdefault(max(1, n["depth"]), []).append(n["entity"])
    where: dict[str, tuple[float, float]] = {root: (centre, centre)}
    deepest = max(rings, default=1)
    for depth, names in rings.items():
        radius = 200 * depth / deepest
        for i, name in enumerate(sorted(names)):
            angle = 2 * math.pi * i / len(names) - math.pi / 2 + depth * 0.3
            where[name] = (centre + radius * math.cos(angle), centre + radius * math.sin(angle))
    parts = [f"<svg class='graph' role='img' viewBox='0 0 {size} {size}' width='{size}' "
             f"height='{size}'><title>neighbourhood of {escape(root)}</title>"]
    drawn: set[frozenset[str]] = set()
    # One line per pair: the stated edge before its derived inverse.
    for e in sorted(edges, key=lambda e: bool(e.get("derived"))):
        pair = frozenset((e["src"], e["dst"]))
        if pair in drawn:
            continue
        drawn.add(pair)
        if e["src"] in where and e["dst"] in where:
            (x1, y1), (x2, y2) = where[e["src"]], where[e["dst"]]
            kind = "derived" if e.get("derived") else escape(e.get("provenance", ""))
            parts.append(f"<line x1='{x1:.0f}' y1='{y1:.0f}' x2='{x2:.0f}' y2='{y2:.0f}' "
                         f"class='edge e-{kind}'><title>{escape(e['src'])} "
                         f"{escape(e['relation'])} {escape(e['dst'])} ({kind})</title></line>"
                         f"<text x='{(x1 + x2) / 2:.0f}' y='{(y1 + y2) / 2:.0f}' "
                         f"class='rel'>{escape(e['relation'])}</text>")
    for name, (x, y) in where.items():
        cls = "node root" if name == root else "node"
        parts.append(f"<a href='{escape(href(name))}'><circle cx='{x:.0f}' cy='{y:.0f}' r='9' "
                     f"class='{cls}'/><text x='{x + 12:.0f}' y='{y + 4:.0f}' class='name'>"
                     f"{escape(name)}</text></a>")
    parts.append("</svg>")
    return Markup("".join(parts))

"""Console templates render every shape their operations may return (with
StrictUndefined, a missing key fails here, not in a user's browser): the
dream page with and without a run-detail operation and a rollback dry run."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from engram_gateway.doors.console.session import Viewer
from engram_gateway.doors.console.web import ENV
from engram_kit.principals import Principal

RUN = {"id": "5d1f0c3e-0000-4000-8000-000000000001", "status": "committed",
       "trigger": "manual", "extractor": "rules", "model": None,
       "started_at": "2026-01-01T00:00:00Z", "finished_at": "2026-01-01T00:00:01Z",
       "entries": 2, "candidates": 2, "facts_written": 2, "dropped_unanchored": 0,
       "quarantined": 1, "errors": 0, "proposals": 0, "archived": 0,
       "counts": {"kinds": {"RULE": 1, "STATE": 1}, "duration_s": 1.2},
       "error_detail": None}
DETAIL = {"run": RUN, "entries_read": ["e1", "e2"],
          "facts_written": [{"fact_id": "f1abcdef99", "entry_id": "e1abcdef99",
                             "action": "insert", "kind": "RULE"}],
          "quarantined": [{"entry_id": "e2abcdef99", "reason": "looks like a secret"}],
          "totals": {"entries_read": 2, "facts_written": 1, "quarantined": 1}}
DRY = {"run_id": RUN["id"], "dry_run": True, "allowed": False,
       "blockers": ["fact f1 was superseded later"], "facts_reverted": [],
       "entries_reopened": ["e1"], "quarantine_cleared": [], "proposals_withdrawn": 0,
       "marks_reopened": 0, "archived_restored": 0, "truncated": False, "note": ""}


def render(template: str, **values: Any) -> str:
    viewer = Viewer(Principal("rev", "reviewer", ["default"], "0" * 64), "cookie")
    ctx = SimpleNamespace(url=lambda path, **q: f"/console{path}",
                          arg=lambda name, default="": default, flash=lambda: "")
    return ENV.get_template(template).render(
        nav=[], path="/console", viewer=viewer, ns="default", csrf="c", ctx=ctx, **values)


def test_the_dream_page_renders_with_and_without_the_optional_operations():
    plain = render("dream.html", runs=[RUN], run=RUN, detail=None, preview=True, dry=None,
                   can_rollback=True)
    assert "Row-by-row detail needs" in plain and "roll back run 5d1f0c3e" in plain
    full = render("dream.html", runs=[RUN], run=RUN, detail=DETAIL, preview=True, dry=DRY,
                  can_rollback=True)
    assert "looks like a secret" in full and "f1abcdef" in full
    assert "Refused: fact f1 was superseded later" in full
    assert "roll back run" not in full  # a dry run that is not allowed offers no button
    assert "kinds</dt><dd>RULE 1, STATE 1" in full
    allowed = render("dream.html", runs=[RUN], run=RUN, detail=DETAIL, preview=True,
                     dry=DRY | {"allowed": True, "blockers": []}, can_rollback=True)
    assert "1 entries reopened" in allowed and "roll back run 5d1f0c3e" in allowed

"""Dream runs: the journal (dream runs), one run's counts (read, written,
dropped, quarantined, archived, proposals) and, where the registry has a
run-detail operation, its rows; rollback after a preview."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from ....registry import BY_NAME
from .. import ops
from ..web import ConsoleError, Ctx, Page

# A run-detail operation, where this gateway's registry has one (tool, action).
DETAIL_OPS = (("dream", "show"), ("dream", "detail"), ("dream", "run_detail"),
              ("dream_run", ""))
RUNS_SHOWN = 50


async def _detail(ctx: Ctx, run_id: str) -> dict[str, Any] | None:
    for tool, action in DETAIL_OPS:
        if ops.has(tool, action):
            return await ops.run(ctx.backends, ctx.viewer, ctx.namespace, tool,
                                 {"run_id": run_id}, action=action)
    return None


async def _preview(ctx: Ctx, run_id: str) -> dict[str, Any] | None:
    """What a rollback would change, where the registry's rollback takes
    dry_run; None where it does not (the page then shows the run's counts)."""
    if "dry_run" not in BY_NAME["dream"].signature.parameters:
        return None
    return await ops.run(ctx.backends, ctx.viewer, ctx.namespace, "dream",
                         {"run_id": run_id, "dry_run": True}, action="rollback")


async def runs(ctx: Ctx) -> Response:
    listed = (await ops.run(ctx.backends, ctx.viewer, ctx.namespace, "dream",
                            {"limit": RUNS_SHOWN}, action="runs"))["runs"]
    run_id = ctx.arg("run")
    run = next((r for r in listed if r["id"] == run_id), None)
    if run_id and run is None:
        raise ConsoleError(404, "not_found", f"no dream run {run_id[:40]!r} among the "
                           f"latest {RUNS_SHOWN} of {ctx.namespace}")
    detail = await _detail(ctx, run_id) if run else None
    can_rollback = ctx.may("dream", "rollback")
    preview = run is not None and can_rollback and ctx.arg("preview") == "1"
    dry = await _preview(ctx, run_id) if preview and run and run["status"] == "committed" \
        else None
    return ctx.render("dream.html", runs=listed, run=run, detail=detail, preview=preview,
                      dry=dry, can_rollback=can_rollback)


async def rollback(ctx: Ctx) -> Response:
    run_id = ctx.form.get("run_id", "")
    if not ctx.may("dream", "rollback"):
        raise ConsoleError(403, "permission_denied", f"{ctx.viewer.name} may not roll back "
                           f"dream runs in {ctx.namespace} (it needs a read-write grant)")
    done = await ops.run(ctx.backends, ctx.viewer, ctx.namespace, "dream",
                         {"run_id": run_id}, action="rollback")
    msg = f"run {run_id[:8]} rolled back: {done['reverted_rows']} rows restored"
    return ctx.done(ctx.url("/dream", run=run_id), msg)


PAGES = [Page("/dream", "Dream runs", runs, {"rollback": rollback}, order=50)]

"""Execution, the pipeline's last stage for every door: the operation's
backends (a read may be resent after a lost reply, a write never: Calls
binds that rule and each call's deadline), then the registry operation's
request builder and reply shape (or its runner)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engram_kit.context import CallerContext

from ..clients import Backends, Calls
from ..tools.spec import Args, Effect, Invocation, Op, ToolSpec
from .admit import Identity, admit


async def execute(backends: Backends, o: Op, caller: CallerContext, args: Args, *,
                  ctx: Any = None, extras: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Call and shape one admitted operation."""
    calls = Calls(backends, resend=o.effect is Effect.NONE)
    return await o.invoke(Invocation(calls, caller, args, ctx, extras or {}))


async def run(backends: Backends, spec: ToolSpec, who: Identity, namespace: str | None,
              session_id: str, args: Args, *, metered: bool = True, ctx: Any = None,
              extras: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Admit and execute the operation `args` select of `spec` (arguments
    already validated by the door's strict model)."""
    o = spec.op_for(args)
    caller = admit(who, namespace, session_id, o.access,
                   spec.label(args.get(spec.action_arg, "")), metered=metered)
    return await execute(backends, o, caller, args, ctx=ctx, extras=extras)

"""Execution, the pipeline's last stage for every door: the operation's
backends (a read may be resent after a lost reply, a write never: Calls
binds that rule and each call's deadline), then the registry operation's
request builder and reply shape (or its runner). `Call` holds one call
from admission to its access record (audit.py); `run` is the whole path in
one step, as MCP and the console take it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engram_kit.context import CallerContext

from ..clients import Backends, Calls
from ..tools.spec import Args, Effect, Invocation, Op, ToolSpec
from .admit import Identity, admit
from .audit import AccessRecord, Door


async def execute(backends: Backends, o: Op, caller: CallerContext, args: Args, *,
                  ctx: Any = None, extras: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Call and shape one admitted operation."""
    calls = Calls(backends, resend=o.effect is Effect.NONE)
    return await o.invoke(Invocation(calls, caller, args, ctx, extras or {}))


class Call:
    """One call of a registry operation: admitted, executed, its access
    record written once however it ends. REST takes the two halves apart
    (admission in the route's dependency answers before FastAPI reads the
    body); a door that does neither finishes `record` itself."""

    def __init__(self, door: Door, spec: ToolSpec, who: Identity, namespace: str | None,
                 action: str = "", request_id: str = "") -> None:
        self.spec, self.action, self.op = spec, action, spec.ops[action]
        self.who, self.asked = who, namespace
        self.record = AccessRecord(door, spec.name, spec.label(action), self.op.access,
                                   who.name, namespace or "")
        if request_id:
            self.record.request_id = request_id
        self._caller: CallerContext | None = None

    @property
    def caller(self) -> CallerContext:
        """The admitted caller (a door's bug to ask before admission)."""
        if self._caller is None:
            raise RuntimeError(f"{self.record.action}: not admitted")
        return self._caller

    def select(self, args: Args) -> None:
        """The operation `args` select: an `erase_when` flag raises its grant."""
        self.op = self.spec.op_for(args)
        self.record.access = self.op.access

    def admit(self, session_id: str, *, metered: bool = True) -> CallerContext:
        """Admission; a refusal is recorded, then raised."""
        with self.record.failing():
            self._caller = admit(self.who, self.asked, session_id, self.op.access,
                                 self.record.action, metered=metered,
                                 request_id=self.record.request_id)
        self.record.admit(self._caller.namespace)
        return self._caller

    async def execute(self, backends: Backends, args: Args, *, op: Op | None = None,
                      ctx: Any = None, extras: Mapping[str, Any] | None = None
                      ) -> dict[str, Any]:
        """Execute the admitted call (`op`: the one `args` select, where the
        door admitted before it had them); the record is written on the way out."""
        with self.record.closing():
            return await execute(backends, op or self.op, self.caller, args, ctx=ctx,
                                 extras=extras)


async def run(door: Door, backends: Backends, spec: ToolSpec, who: Identity,
              namespace: str | None, session_id: str, args: Args, *, metered: bool = True,
              ctx: Any = None, extras: Mapping[str, Any] | None = None, request_id: str = "",
              check: Callable[[Args], Args] | None = None) -> dict[str, Any]:
    """Admit and execute the operation `args` select of `spec`, and write
    its access record. `check`: the door's argument validation when it has
    not run yet (its refusal is recorded too); else the arguments are the
    door's strict model's."""
    action = args.get(spec.action_arg, "") if spec.action_arg else ""
    call = Call(door, spec, who, namespace, action, request_id)
    with call.record.failing():
        args = check(args) if check is not None else args
        call.select(args)
    call.admit(session_id, metered=metered)
    return await call.execute(backends, args, ctx=ctx, extras=extras)

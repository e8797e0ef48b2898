"""What the gateway declares about each tool, in one place.

A `ToolSpec` is one row of the tool registry (registry.py): its name, tier,
arguments (a signature stub whose docstring is the description) and one `Op`
per action. An `Op` says which grant it needs (`Access`), what it does to
stored state (`Effect`), whether a client may repeat it after a lost reply
(`Retry`), and how it calls the backends: a request builder plus a reply
shape, or a runner for the few tools that call more than one service. MCP
(doors/mcp.py), REST (doors/rest_routes.py generates every /v1 route from
the `rest*` fields) and the console run the same `Op` through the pipeline."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from functools import cached_property
from typing import Annotated, Any, Concatenate, Generic

from mcp.types import ToolAnnotations
from pydantic import Field

from engram_kit.context import CallerContext

from ..clients import Calls
from ..pipeline.retry_keys import with_request_id
from ..rpcs import Req, Resp, Rpc
from .argtypes import ArgsRule, RequestIdText

Args = Mapping[str, Any]


class Access(StrEnum):
    """The grant an operation needs: a read grant, a read-write grant, or a
    read-write grant held by a principal with the reviewer (or operator) role.
    ERASE marks a permanent deletion (or a dream rollback): the erase grant,
    which the reviewer and operator roles carry and an agent does not."""

    READ = "read"
    WRITE = "write"
    ERASE = "erase"
    REVIEWER = "reviewer"
    OPERATOR = "operator"

    @property
    def roles(self) -> tuple[str, ...]:
        """The principal roles that may perform it."""
        return {Access.REVIEWER: ("reviewer", "operator"), Access.ERASE: ("reviewer", "operator"),
                Access.OPERATOR: ("operator",)}.get(self, ("agent", "reviewer", "operator"))


class Effect(StrEnum):
    """What an operation does to stored state."""

    NONE = "none"            # reads only
    SESSION = "session"      # changes only what this principal sees (toolset)
    ADDITIVE = "additive"    # adds or updates; what was there stays as history
    DESTRUCTIVE = "destructive"  # deletes, retires or overrides what was there


class Retry(StrEnum):
    """Whether repeating the same call (a client retry after a lost reply)
    can have a second effect."""

    SAFE = "safe"                # a repeat has no further effect
    CONDITIONAL = "conditional"  # safe only as the note says (e.g. with request_id)
    UNSAFE = "unsafe"            # a repeat acts again


class RestHook(StrEnum):
    """What a REST route does besides its operation (doors/rest_hooks.py):
    a hook's call tells the session binder which client sessions are open."""

    SESSION_SEEN = "session_seen"    # the X-Engram-Session is open
    SESSION_CLOSE = "session_close"  # takes `end`: the client ended the session


class Tier(IntEnum):
    """Toolset tiers: a tool is visible in its tier and every larger one."""

    MINIMAL = 0
    CORE = 1
    FULL = 2

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(frozen=True)
class Invocation:
    """One call of an operation: the backends bound to its retry rule, the
    caller, the validated arguments, and for MCP the request context."""

    calls: Calls
    caller: CallerContext
    args: Args
    ctx: Any = None
    extras: Mapping[str, Any] = field(default_factory=dict)


Runner = Callable[[Invocation], Awaitable[dict[str, Any]]]
# A reply (and the shape_args) -> JSON.
Shape = Callable[Concatenate[Resp, ...], dict[str, Any]]


@dataclass(frozen=True)
class Op(Generic[Req, Resp]):
    """One backend operation of a tool (or of one of its actions). Its type
    parameters tie `build`'s request and `shape`'s reply to `rpc`'s (named in
    engram_gateway.rpcs), so pyright checks them; `op` and `read` infer them."""

    access: Access
    effect: Effect
    retry: Retry
    note: str = ""  # when it is safe to repeat, for the tools doc
    rpc: Rpc[Req, Resp] | None = None
    build: Callable[[Args], Req] | None = None  # arguments -> protobuf request
    shape: Shape[Resp] | None = None
    shape_args: tuple[str, ...] = ()
    run: Runner | None = None  # instead of rpc/build/shape
    rest: str = ""  # the REST route that runs the same operation
    # The arguments (besides path parameters) a generated route takes; None: all the tool's.
    rest_args: tuple[str, ...] | None = None
    # Arguments the generated route requires although the tool defaults them
    # (another action of the tool does without).
    rest_required: tuple[str, ...] = ()
    # Tool argument -> the name the route gives it (path, query or body).
    rest_names: Mapping[str, str] = field(default_factory=dict)
    # Path parameters that may hold '/' (a lease name).
    rest_slashes: tuple[str, ...] = ()
    rest_hook: RestHook | None = None
    keyed: bool = False  # the `request_id` argument keys the write (a retry takes effect once)
    # A boolean argument that, when true, makes the call a permanent deletion:
    # it then needs Access.ERASE (ToolSpec.op_for applies it).
    erase_when: str = ""

    async def invoke(self, inv: Invocation,
                     shape: Shape[Resp] | None = None) -> dict[str, Any]:
        if self.keyed:
            inv = dataclasses.replace(
                inv, caller=with_request_id(inv.caller, inv.args.get("request_id", "")))
        if self.run is not None and shape is None:
            return await self.run(inv)
        if self.rpc is None or self.build is None:
            raise TypeError(f"operation {self.rest!r} has neither a runner nor a call")
        reply = await inv.calls.call(self.rpc, inv.caller, self.build(inv.args))
        shape = shape or self.shape
        assert shape is not None
        return shape(reply, *(inv.args[k] for k in self.shape_args))


def op(access: Access, effect: Effect, retry: Retry, note: str = "",
       rpc: Rpc[Req, Resp] | None = None, build: Callable[[Args], Req] | None = None,
       shape: Shape[Resp] | None = None, **rest: Any) -> Op[Req, Resp]:
    return Op(access, effect, retry, note, rpc=rpc, build=build, shape=shape, **rest)


def read(rpc: Rpc[Req, Resp] | None = None, build: Callable[[Args], Req] | None = None,
         shape: Shape[Resp] | None = None, **rest: Any) -> Op[Req, Resp]:
    """A read: no effect, safe to repeat."""
    return op(Access.READ, Effect.NONE, Retry.SAFE, rpc=rpc, build=build, shape=shape, **rest)


@dataclass(frozen=True)
class ToolSpec:
    """One tool. `params` is a stub whose signature declares the tool's
    arguments (as the MCP SDK reads them) and whose docstring describes it.
    `ops` maps the value of `action_arg` to its operation; a tool without
    actions has one operation under ""."""

    params: Callable[..., Any]
    tier: Tier
    ops: Mapping[str, Op]
    action_arg: str = ""
    example: Mapping[str, Any] = field(default_factory=dict)  # valid arguments
    # Rules across arguments, in the argument schema and checked (MCP and REST).
    rules: tuple[ArgsRule, ...] = ()

    @property
    def name(self) -> str:
        return self.params.__name__

    @property
    def description(self) -> str:
        return inspect.cleandoc(self.params.__doc__ or "")

    @cached_property
    def signature(self) -> inspect.Signature:
        return inspect.signature(self.params, eval_str=True)

    def defaults(self) -> dict[str, Any]:
        return {n: p.default for n, p in self.signature.parameters.items()
                if p.default is not inspect.Parameter.empty}

    def label(self, action: str) -> str:
        """How a refusal names an operation: the tool, and its action if any."""
        return f"{self.name}({self.action_arg}={action!r})" if self.action_arg else self.name

    def op_for(self, args: Args) -> Op:
        """The operation these arguments run, with the grant they need (an
        `erase_when` flag set raises it to Access.ERASE)."""
        o = self.ops[args.get(self.action_arg, "")] if self.action_arg else self.ops[""]
        if o.erase_when and args.get(o.erase_when):
            return dataclasses.replace(o, access=Access.ERASE)
        return o

    @property
    def annotations(self) -> ToolAnnotations:
        """MCP hints derived from the operations: read-only when none has an
        effect, destructive when any is, idempotent when every one is safe to
        repeat. Every tool acts on this deployment's own stores only."""
        ops = list(self.ops.values())
        read_only = all(o.effect is Effect.NONE for o in ops)
        return ToolAnnotations(
            read_only_hint=read_only,
            destructive_hint=None if read_only else any(
                o.effect is Effect.DESTRUCTIVE for o in ops),
            idempotent_hint=all(o.retry is Retry.SAFE for o in ops),
            open_world_hint=False)


Namespace = Annotated[str | None, Field(description="Namespace to act in; default: your first.")]
RequestId = Annotated[RequestIdText, Field(
    description="Retry key (1-128 printable ASCII): a retry with the same request_id "
    "takes effect once (kept 7 days).")]

"""The gateway's session binder without a stack: which hook session a
header-less MCP session belongs to, and when it belongs to none; and the
principal-scoped session id the services see."""

from __future__ import annotations

from engram_cli.hooks.wake import urgent
from engram_gateway.doors.session_binding import MAX_OPEN_PER_PRINCIPAL, SessionBinder
from engram_gateway.pipeline.admit import caller_context, scoped_session


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def binder(live: set[str], clock: Clock | None = None) -> SessionBinder:
    return SessionBinder(lambda: live, idle_s=100, clock=clock or Clock())


def test_a_call_without_any_session_binds_to_the_one_open_hook_session():
    b = binder(set())
    assert b.resolve("alice", "") == ""  # no hooks: the principal's rolling session
    assert b.hook_seen("alice", "s1") == 1
    assert b.resolve("alice", "") == "s1"
    assert b.resolve("bob", "") == "", "another principal's sessions are not its own"
    assert b.hook_seen("alice", "s2") == 2  # two open: calls cannot be told apart
    assert b.resolve("alice", "") == ""
    b.hook_ended("alice", "s1")
    assert b.resolve("alice", "") == "s2"


def test_bound_tool_calls_keep_a_hook_session_open():
    clock = Clock()
    b = binder(set(), clock)
    b.hook_seen("alice", "s1")
    clock.now = 90
    assert b.resolve("alice", "") == "s1"  # a long turn: tools only, no hook
    clock.now = 180
    assert b.resolve("alice", "") == "s1"
    clock.now = 290
    assert b.resolve("alice", "") == ""


def test_one_open_hook_session_binds_the_mcp_session_and_stays_bound():
    live = {"m1"}
    b = binder(live)
    assert b.resolve("alice", "m1") == ""  # no hooks: the call keeps its own session
    b.hook_seen("alice", "s1")
    assert b.resolve("alice", "m1") == "s1"
    b.hook_seen("alice", "s2")  # a second session starts after the first bound
    live.add("m2")
    assert (b.resolve("alice", "m1"), b.resolve("alice", "m2")) == ("s1", "s2")
    assert b.resolve("bob", "m1") == "", "another principal's sessions are not its own"


def test_two_unbound_hook_sessions_bind_nothing():
    b = binder({"m1", "m2"})
    b.hook_seen("alice", "s1")
    b.hook_seen("alice", "s2")
    assert b.resolve("alice", "m1") == "" and b.resolve("alice", "m2") == ""
    b.hook_ended("alice", "s2")  # one left: now it is unambiguous
    assert b.resolve("alice", "m1") == "s1"


def test_session_end_frees_the_mcp_session_for_the_next_client_session():
    b = binder({"m1"})
    b.hook_seen("alice", "s1")
    assert b.resolve("alice", "m1") == "s1"
    b.hook_ended("alice", "s1")
    assert b.resolve("alice", "m1") == ""
    b.hook_seen("alice", "s2")  # /clear: same MCP connection, new client session
    assert b.resolve("alice", "m1") == "s2"


def test_a_dead_mcp_session_releases_its_hook_session():
    live = {"m1"}
    b = binder(live)
    b.hook_seen("alice", "s1")
    assert b.resolve("alice", "m1") == "s1"
    assert b.resolve("alice", "m2") == "", "s1 is held by a live MCP session"
    live.discard("m1")  # the client reconnected with a new MCP session
    assert b.resolve("alice", "m2") == "s1"


def test_idle_hook_sessions_expire_and_the_table_is_bounded():
    clock = Clock()
    b = binder({"m1"}, clock)
    b.hook_seen("alice", "s1")
    clock.now = 101
    assert b.resolve("alice", "m1") == ""
    for i in range(MAX_OPEN_PER_PRINCIPAL + 10):
        b.hook_seen("alice", f"x{i}")
    assert b.open_sessions("alice") == MAX_OPEN_PER_PRINCIPAL


def test_the_services_see_the_session_under_its_principal():
    assert scoped_session("alice", "s1") == "alice/s1"
    assert scoped_session("alice", "") == "principal:alice"
    a = caller_context("alice", "agent", ["ns"], None, "s1")
    b = caller_context("bob", "agent", ["ns"], None, "s1")
    assert a.session_id != b.session_id


def test_urgent_mail_is_direct_mail_or_a_notice():
    assert urgent({"to": "bob-1a2b3c4d", "kind": "mail"})
    assert urgent({"to": "bob-1a2b3c4d", "kind": "notice"})
    assert not urgent({"to": "all", "kind": "mail"})
    assert not urgent({"to": "project:billing", "kind": "mail"})

"""The pipeline's audit stage without a stack: a call refused at admission
(namespace, role, rate, session) or by its arguments leaves exactly one
access record, with the failure's kind as its outcome and the operation's
label, and the record holds no argument value; the kit's JSON formatter
writes it as one line with the fields at the top level. Calls that reach
the services are checked over the real stack (tests/integration/
test_access_log.py)."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, cast

import pytest
from prometheus_client import REGISTRY

from engram_gateway import limits
from engram_gateway.clients import Backends
from engram_gateway.pipeline import execute as pipeline
from engram_gateway.pipeline.admit import Identity
from engram_gateway.pipeline.audit import ACCESS_LOGGER, Door, Outcome, outcome_of
from engram_gateway.registry import BY_NAME
from engram_kit.errors import InvalidArgument
from engram_kit.logging import JsonFormatter

SECRET = "sk-live-do-not-log-4242"
AGENT = Identity("alice", "agent", ("team",), ("shared",))


def run(who: Identity, namespace: str | None, tool: str, args: dict[str, Any],
        session: str = "", check: Any = None) -> BaseException:
    """Run a call that must fail before reaching any backend; its failure."""
    with pytest.raises(Exception) as raised:
        asyncio.run(pipeline.run(Door.REST, cast(Backends, None), BY_NAME[tool], who,
                                 namespace, session, args, check=check))
    return raised.value


def records(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    return [r.fields for r in caplog.records if r.name == ACCESS_LOGGER]  # type: ignore[attr-defined]


def counted(door: str, tool: str, outcome: str) -> float:
    return REGISTRY.get_sample_value("engram_gateway_operations_total",
                                     {"door": door, "tool": tool, "outcome": outcome}) or 0.0


@pytest.mark.parametrize(("who", "namespace", "tool", "args", "session", "outcome"), [
    (AGENT, "elsewhere", "memory_store", {"text": SECRET}, "", "permission_denied"),
    (AGENT, "shared", "memory_store", {"text": SECRET}, "", "permission_denied"),  # read-only
    (AGENT, "team", "document_forget", {"document_id": SECRET}, "",
     "permission_denied"),  # the erase grant
    (AGENT, "team", "memory_store", {"text": SECRET}, "bad session!", "invalid_argument"),
])
def test_a_refusal_at_admission_leaves_one_record(caplog: pytest.LogCaptureFixture,
                                                  who: Identity, namespace: str, tool: str,
                                                  args: dict[str, Any], session: str,
                                                  outcome: str):
    before = counted("rest", tool, outcome)
    with caplog.at_level(logging.INFO, logger=ACCESS_LOGGER):
        assert outcome_of(run(who, namespace, tool, args, session)) == outcome
    [record] = records(caplog)
    assert record["door"] == "rest" and record["principal"] == "alice"
    assert (record["tool"], record["action"]) == (tool, tool)
    assert record["namespace"] == namespace and record["outcome"] == outcome
    assert record["access"] == BY_NAME[tool].op_for(args).access.value
    assert len(record["request_id"]) == 16 and record["latency_ms"] >= 0
    assert SECRET not in json.dumps(record)
    assert counted("rest", tool, outcome) == before + 1


def test_the_rate_limit_is_recorded(caplog: pytest.LogCaptureFixture,
                                    monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(limits, "LIMITER", limits.RateLimiter(0.001, 1))
    limits.LIMITER.take("alice")  # the bucket is now empty
    with caplog.at_level(logging.INFO, logger=ACCESS_LOGGER):
        failure = run(AGENT, "team", "memory_store", {"text": SECRET})
    assert isinstance(failure, limits.RateLimited)
    [record] = records(caplog)
    assert record["outcome"] == "resource_exhausted" and record["namespace"] == "team"


def test_an_action_is_labelled_and_an_argument_refusal_recorded(
        caplog: pytest.LogCaptureFixture):
    spec = next(s for s in BY_NAME.values() if s.action_arg)
    action = next(iter(spec.ops))

    def refuse(_: Any) -> Any:
        raise InvalidArgument(f"bad value {SECRET!r}")

    with caplog.at_level(logging.INFO, logger=ACCESS_LOGGER):
        run(AGENT, "team", spec.name, {spec.action_arg: action, "x": SECRET}, check=refuse)
    [record] = records(caplog)
    assert record["action"] == spec.label(action)
    assert record["outcome"] == "invalid_argument"
    assert SECRET not in json.dumps(record)


def test_the_record_is_one_json_line_with_its_fields(caplog: pytest.LogCaptureFixture):
    with caplog.at_level(logging.INFO, logger=ACCESS_LOGGER):
        run(AGENT, "elsewhere", "memory_store", {"text": SECRET})
    [raw] = [r for r in caplog.records if r.name == ACCESS_LOGGER]
    line = JsonFormatter("gateway").format(raw)
    assert "\n" not in line and SECRET not in line
    out = json.loads(line)
    assert out["logger"] == ACCESS_LOGGER and out["msg"] == "access"
    assert {"door", "principal", "namespace", "tool", "action", "access", "outcome",
            "latency_ms", "request_id"} <= out.keys()


def test_outcomes_of_bugs_and_cancellations():
    assert outcome_of(None) == Outcome.OK
    assert outcome_of(RuntimeError("a bug")) == Outcome.INTERNAL
    assert outcome_of(asyncio.CancelledError()) == Outcome.CANCELLED

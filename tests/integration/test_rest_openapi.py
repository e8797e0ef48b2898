"""The OpenAPI document is as strict as the validation: schemathesis
generates requests for every /v1 operation from `/v1/openapi.json` alone,
and for each operation a majority must be accepted (2xx) and none may be a
server error. Where acceptance needs state the schema cannot describe (an
existing id, a grant on a named namespace), the operation is listed in
NEEDS_STATE with why; its requests must still be refused cleanly (4xx)."""

from __future__ import annotations

import uuid
from collections import Counter

import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.core.result import Ok

from engram_runner.stack import Stack

EXAMPLES = 12
NEEDS_STATE = {
    # An id generated from the UUID pattern names nothing stored: 404.
    "GET /v1/memories/{entry_id}": "needs an existing entry id",
    "POST /v1/memories/{entry_id}/supersede": "needs an existing live entry id",
    "POST /v1/memories/{entry_id}/forget": "needs an existing entry id",
    "POST /v1/memories/{entry_id}/rescue": "needs an existing archived entry id",
    "GET /v1/episodes/{episode_id}/summary": "needs an existing episode id",
    "POST /v1/documents/{document_id}/forget": "needs an existing document id",
    "GET /v1/documents/{document_id}": "needs an existing document id",
    "POST /v1/review/contenders/{fact_id}/decide": "needs an existing contender fact id",
    "POST /v1/board/messages/{mail_id}/forget": "needs an existing message id",
    "POST /v1/conflicts/{conflict_id}/resolve": "needs an existing open conflict id",
    "POST /v1/review/{item_id}/decide": "needs an existing review item id",
    "GET /v1/dream/runs/{run_id}": "needs an existing run id",
    "POST /v1/dream/runs/{run_id}/rollback": "needs an existing committed run id",
    "POST /v1/board/messages/ack": "needs ids of messages delivered to the caller",
    "POST /v1/board/messages/redact": "needs ids of stored messages",
    "POST /v1/memories/consolidate": "needs 2-20 existing live entry ids",
    "POST /v1/board/leases/{name}/renew": "needs a lease the caller holds",
    "POST /v1/board/leases/{name}/release": "needs a lease the caller holds",
    "POST /v1/facts/retract": "needs a stored fact at entity.attribute",
    "POST /v1/operator/tokens/{name}/rotate": "needs an existing principal within the "
                                              "caller's grants",
    "POST /v1/operator/tokens/{name}/revoke": "needs an existing principal within the "
                                              "caller's grants",
    # The relation vocabulary is per namespace (built in, plus relation_add): the
    # schema gives a relation's syntax, not the names a namespace knows.
    "POST /v1/graph/edges": "needs a relation in the namespace's vocabulary",
    "DELETE /v1/graph/edges": "needs a stored edge with a known relation",
    "POST /v1/board/messages": "needs a recipient on the board (an agent id or prefix, "
                               "or project:/all with active peers)",
    "POST /v1/operator/tokens": "a new principal's namespaces must be ones the caller "
                                "holds; generated names are others (403 by design)",
}


def test_every_operation_mostly_accepts_what_its_schema_generates(stack: Stack):
    ns = f"oa-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"oa-op-{ns}", "operator", [ns])
    auth = {"Authorization": f"Bearer {token}", "X-Engram-Namespace": ns}
    base = stack.mcp_url.removesuffix("/mcp")
    schema = schemathesis.openapi.from_url(f"{base}/v1/openapi.json")
    operations = [r.ok() for r in schema.get_all_operations() if isinstance(r, Ok)]
    operations = [o for o in operations if o.path.startswith("/v1/")
                  and o.path != "/v1/openapi.json"]
    names = {f"{o.method.upper()} {o.path}" for o in operations}
    assert set(NEEDS_STATE) <= names, set(NEEDS_STATE) - names
    errors: list[str] = []
    tally: dict[str, Counter[int]] = {}
    why: dict[str, set[str]] = {}  # the refusals' details, to say what the schema lacks
    for op in operations:
        name = f"{op.method.upper()} {op.path}"
        tally[name] = Counter()

        # hypothesis's enum metaclass __iter__ is unannotated (see test_rest.py)
        @settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                  suppress_health_check=list(HealthCheck))  # pyright: ignore[reportArgumentType]
        @given(op.as_strategy())
        def one_call(case: schemathesis.Case) -> None:
            name = f"{case.method.upper()} {case.operation.path}"
            response = case.call(base_url=base, headers=auth, timeout=60)
            tally[name][response.status_code] += 1
            if 400 <= response.status_code < 500:
                why.setdefault(name, set()).add(response.text[:160])
            if response.status_code >= 500 or "Traceback" in response.text:
                errors.append(f"{name} {case.query!r} {case.body!r} -> "
                              f"{response.status_code} {response.text[:200]}")

        one_call()
    rejected = {}
    for name, seen in sorted(tally.items()):
        accepted = sum(n for code, n in seen.items() if code < 400)
        if name not in NEEDS_STATE and accepted * 2 <= sum(seen.values()):
            rejected[name] = f"{dict(seen)} {sorted(why.get(name, ()))[:4]}"
    assert not errors and not rejected, "\n".join(
        ["server errors:", *errors[:10], "mostly rejected (the schema is looser than the "
         "validation):", *(f"{k} {v}" for k, v in rejected.items())])


FACT_EXAMPLES = 60


def test_fact_set_accepts_every_body_its_schema_allows(stack: Stack):
    """POST /v1/facts: each kind owns its detail columns (`earned_by`,
    `reopen_trigger`, `details`), and the cortex refuses another kind's. The
    schema says so, so a body it allows is accepted, whatever the generator
    picks. The refusals allowed need state the schema cannot describe: a 404
    for `supersedes` (it names no stored fact) and a 409 for a `request_id`
    this run already sent with other arguments (the generator repeats them)."""
    ns = f"of-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(f"of-op-{ns}", "operator", [ns])
    auth = {"Authorization": f"Bearer {token}", "X-Engram-Namespace": ns}
    base = stack.mcp_url.removesuffix("/mcp")
    schema = schemathesis.openapi.from_url(f"{base}/v1/openapi.json")
    op = schema["/v1/facts"]["POST"]
    refused: list[str] = []
    seen: Counter[int] = Counter()
    keys: set[str] = set()

    @settings(max_examples=FACT_EXAMPLES, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))  # pyright: ignore[reportArgumentType]
    @given(op.as_strategy())
    def one_call(case: schemathesis.Case) -> None:
        response = case.call(base_url=base, headers=auth, timeout=60)
        seen[response.status_code] += 1
        body = case.body if isinstance(case.body, dict) else {}
        key = str(body.get("request_id") or "")
        needs_state = ((response.status_code == 404 and bool(body.get("supersedes")))
                       or (response.status_code == 409 and bool(key) and key in keys))
        keys.add(key)
        if response.status_code >= 300 and not needs_state:
            refused.append(f"{case.body!r} -> {response.status_code} {response.text[:200]}")

    one_call()
    assert not refused, f"{dict(seen)}\n" + "\n".join(refused[:10])

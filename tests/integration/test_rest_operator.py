"""The operator routes over the real stack, each one the same registry
operation as its MCP tool: the audit chains read from each service over
gRPC (show, verify, damage found), and the principals' tokens (list without
tokens, create and rotate shown once, revoke; grants bounded by the
caller's; no self-revoke). Every other role gets a clear 403."""

from __future__ import annotations

import uuid

import httpx

from engram_runner.stack import Stack

from ..helpers import call, call_error, mcp_client, ok_json, rest_client, tampered_audit_row


def _principal(stack: Stack, role: str, ns: str, extra: list[str] | None = None
               ) -> tuple[str, dict[str, str]]:
    name = f"op-{role}-{uuid.uuid4().hex[:6]}"
    token = stack.principals.create(name, role, [ns, *(extra or [])])
    return name, {"Authorization": f"Bearer {token}", "X-Engram-Namespace": ns}



async def test_audit_show_and_verify_per_service(stack: Stack, admin_dsn: str):

    ns = f"aud-{uuid.uuid4().hex[:6]}"
    _, op = _principal(stack, "operator", ns)
    _, agent = _principal(stack, "agent", ns)
    async with rest_client(stack, op) as http, rest_client(stack, agent) as ag, \
            mcp_client(stack.mcp_url, op["Authorization"][7:]) as mcp:
        await ok_json(await http.post("/v1/memories", json={"text": "Audit me: secret-ish words."}))
        await ok_json(await http.post("/v1/facts", json={"entity": f"svc-{ns}", "attribute": "db",
                                                     "value": "postgres"}))
        await ok_json(await http.post("/v1/board/agents", json={"task": "auditing"}))
        shown = await ok_json(await http.get("/v1/operator/audit", params={"limit": 5}))
        assert shown["namespace"] == ns and not shown["unavailable"]
        assert set(shown["services"]) == {"memory", "cortex", "coordination"}
        assert all(shown["services"][s] for s in shown["services"]), shown
        assert "secret-ish" not in str(shown)
        only = await ok_json(await http.get("/v1/operator/audit", params={"service": "cortex"}))
        assert set(only["services"]) == {"cortex"}
        assert only == await call(mcp, "audit", {"service": "cortex", "namespace": ns})
        verified = await ok_json(await http.get("/v1/operator/audit/verify"))
        assert verified["ok"] is True, verified
        assert all(v["ok"] and v["rows"] >= 1 for v in verified["services"].values())
        refused = await ag.get("/v1/operator/audit")
        assert refused.status_code == 403 and "needs the operator role" in refused.text

        async with tampered_audit_row(admin_dsn, ns):
            damaged = await ok_json(await http.get("/v1/operator/audit/verify"))
    assert damaged["ok"] is False
    assert damaged["services"]["memory"]["ok"] is False
    assert "hash mismatch" in damaged["services"]["memory"]["problems"][0]["what"]
    assert damaged["services"]["cortex"]["ok"] is True


async def test_tokens_list_create_rotate_revoke(stack: Stack):
    ns, other = f"tok-{uuid.uuid4().hex[:6]}", f"tok-{uuid.uuid4().hex[:6]}"
    stack.principals.create(f"outsider-{other}", "agent", [other])
    me, op = _principal(stack, "operator", ns)
    _, agent = _principal(stack, "agent", ns)
    base = stack.mcp_url.removesuffix("/mcp")
    async with rest_client(stack, op) as http, rest_client(stack, agent) as ag, \
            mcp_client(stack.mcp_url, op["Authorization"][7:]) as mcp:
        listed = await ok_json(await http.get("/v1/operator/tokens"))
        names = {p["name"] for p in listed["principals"]}
        assert me in names and f"outsider-{other}" not in names and listed["hidden"] >= 1
        assert all("token" not in p and len(p["token_sha256_prefix"]) == 12
                   for p in listed["principals"])
        assert listed == await call(mcp, "tokens", {"namespace": ns})
        new = f"bot-{ns}"
        created = await ok_json(await http.post("/v1/operator/tokens", json={
            "name": new, "role": "agent", "namespaces": [ns]}))
        token = created["token"]
        assert token.startswith("eg_") and created["principal"]["namespaces"] == [ns]
        assert token not in str(await ok_json(await http.get("/v1/operator/tokens")))
        async with httpx.AsyncClient(base_url=base, timeout=30) as anon:
            h = {"Authorization": f"Bearer {token}", "X-Engram-Namespace": ns}
            assert (await anon.get("/v1/memories/recent", headers=h)).status_code == 200
            rotated = await ok_json(await http.post(f"/v1/operator/tokens/{new}/rotate"))
            assert (await anon.get("/v1/memories/recent", headers=h)).status_code == 401
            h2 = {**h, "Authorization": f"Bearer {rotated['token']}"}
            assert (await anon.get("/v1/memories/recent", headers=h2)).status_code == 200
            assert await ok_json(await http.post(f"/v1/operator/tokens/{new}/revoke")) == \
                {"revoked": new}
            assert (await anon.get("/v1/memories/recent", headers=h2)).status_code == 401

        twice = await http.post("/v1/operator/tokens", json={"name": me, "namespaces": [ns]})
        escalate = await http.post("/v1/operator/tokens", json={
            "name": f"esc-{ns}", "role": "operator", "namespaces": [other]})
        foreign = await http.post(f"/v1/operator/tokens/outsider-{other}/revoke")
        myself = await http.post(f"/v1/operator/tokens/{me}/revoke")
        bad_name = await http.post("/v1/operator/tokens", json={"name": "Bad Name!",
                                                                "namespaces": [ns]})
        too_many = await http.post("/v1/operator/tokens", json={
            "name": f"many-{ns}", "namespaces": [f"n{i}" for i in range(51)]})
        no_grant = await http.post("/v1/operator/tokens", json={"name": f"none-{ns}"})
        as_agent = await ag.get("/v1/operator/tokens")
        mcp_self = await call_error(mcp, "tokens", {"action": "revoke", "name": me,
                                                    "namespace": ns})
    assert twice.status_code == 409 and "exists" in twice.json()["detail"]
    assert escalate.status_code == 403 and "within yours" in escalate.json()["detail"]
    assert foreign.status_code == 404
    assert myself.status_code == 409 and "your own principal" in myself.json()["detail"]
    assert "your own principal" in mcp_self
    assert bad_name.status_code == 422 and too_many.status_code == 422
    assert no_grant.status_code == 400 and "namespace" in no_grant.json()["detail"]
    assert as_agent.status_code == 403 and "needs the operator role" in as_agent.text
    assert me in {p.name for p in stack.principals.list()}


async def test_a_peer_operators_token_needs_a_second_operator(stack: Stack):
    """An operator whose grants cover a peer operator's may neither rotate
    (it would be handed the peer's new token) nor revoke it, over REST or
    MCP; the refusal says who can. Its own token it rotates; an agent within
    its grants it still rotates and revokes."""
    ns = f"peer-{uuid.uuid4().hex[:6]}"
    me, op = _principal(stack, "operator", ns)
    peer, peer_h = _principal(stack, "operator", ns)
    agent_name, _ = _principal(stack, "agent", ns)
    async with rest_client(stack, op) as http, \
            mcp_client(stack.mcp_url, op["Authorization"][7:]) as mcp:
        rotate = await http.post(f"/v1/operator/tokens/{peer}/rotate")
        revoke = await http.post(f"/v1/operator/tokens/{peer}/revoke")
        mcp_rotate = await call_error(mcp, "tokens", {"action": "rotate", "name": peer,
                                                      "namespace": ns})
        mcp_revoke = await call_error(mcp, "tokens", {"action": "revoke", "name": peer,
                                                      "namespace": ns})
        agent_rotated = await ok_json(await http.post(f"/v1/operator/tokens/{agent_name}/rotate"))
        assert agent_rotated["token"].startswith("eg_")
    for refused in (rotate, revoke):
        assert refused.status_code == 403, refused.text
        detail = refused.json()["detail"]
        assert "second operator" in detail and "engram token" in detail
    assert "second operator" in mcp_rotate and "second operator" in mcp_revoke
    # The peer's token still works: nothing was changed by the refusals.
    assert stack.principals.verify(peer_h["Authorization"][7:]) is not None
    async with rest_client(stack, op) as http:
        mine = await ok_json(await http.post(f"/v1/operator/tokens/{me}/rotate"))
    assert stack.principals.verify(mine["token"]) is not None

"""The Kubernetes manifests (deploy/k8s): every overlay renders with kubectl and
every object validates offline; the services, probes, ports, environment and
NetworkPolicies follow docker-compose.yml; secrets are references only."""

from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
_spec = importlib.util.spec_from_file_location("k8s_check", ROOT / "scripts" / "k8s_check.py")
assert _spec is not None and _spec.loader is not None
k8s_check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(k8s_check)

SERVICES = sorted(n for n, s in COMPOSE.items()
                  if s.get("command", [None, None, ""])[2:3] == [f"engram_{n}"])
SECRETS = {"engram-internal": {"internal-token", "audit-hmac-key", "console-session-key"},
           "engram-db": {f"{s}-password" for s in ("memory", "cortex", "dreamer", "coordination")},
           "engram-nats": {f"{u}-password"
                           for u in ("route", "admin", "memory", "cortex", "dreamer",
                                     "coordination")},
           "engram-nats-routes-tls": {"tls.crt", "tls.key", "ca.crt"},
           "engram-pg-superuser": {"username", "password"},
           "engram-principals": {"principals.json"}}
SECRET_NAME = re.compile(r"PASSWORD|_TOKEN$|SECRET|HMAC_KEY$")
# The custom resources are validated by their published models, which run on
# node (`make test` and `make k8s` install them where npm exists).
needs_node = pytest.mark.skipif(shutil.which("node") is None,
                                reason="node is not installed: it runs the custom resources' "
                                "validators (tools/k8s-models)")
needs_kubectl = pytest.mark.skipif(shutil.which("kubectl") is None,
                                   reason="kubectl is not installed: it renders deploy/k8s")


def rendered(overlay: str) -> list[dict[str, Any]]:
    return k8s_check.render(overlay)


def find(objects: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    hits = [o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name]
    assert len(hits) == 1, f"{kind}/{name}: {len(hits)} objects"
    return hits[0]


def pod_specs(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [o["spec"]["template"]["spec"] for o in objects
            if o["kind"] in ("Deployment", "StatefulSet", "Job")]


def compose_env(service: str) -> dict[str, str]:
    return {k: str(v) for k, v in COMPOSE[service].get("environment", {}).items()}


def test_compose_lists_the_six_services() -> None:
    assert SERVICES == ["coordination", "cortex", "dreamer", "embedder", "gateway", "memory"]


@needs_kubectl
@needs_node
@pytest.mark.parametrize("overlay", k8s_check.OVERLAYS)
def test_every_object_validates(overlay: str) -> None:
    objects = rendered(overlay)
    assert objects
    errors = k8s_check.validate_all(objects)
    assert not errors, "\n".join(errors)


@needs_kubectl
@needs_node
def test_the_validation_refuses_a_wrong_object() -> None:
    objects = rendered("production")
    deployment = find(objects, "Deployment", "memory")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    container["readinessProbe"]["httpGet"]["paht"] = "/"
    assert k8s_check.validate(deployment)
    cluster = find(objects, "Cluster", "engram-pg")
    cluster["spec"]["instances"] = "three"
    assert k8s_check.validate(cluster)


def port_number(container: dict[str, Any], port: int | str) -> int:
    if isinstance(port, int):
        return port
    return next(p["containerPort"] for p in container["ports"] if p["name"] == port)


@needs_kubectl
@pytest.mark.parametrize("overlay", k8s_check.OVERLAYS)
def test_each_service_runs_as_compose_says_with_probes_on_its_ops_port(overlay: str) -> None:
    objects = rendered(overlay)
    for name in SERVICES:
        container = find(objects, "Deployment", name)["spec"]["template"]["spec"]["containers"][0]
        assert container["command"] == COMPOSE[name]["command"], name
        ops = int(compose_env(name)["ENGRAM_HTTP_PORT"])
        ready, live = container["readinessProbe"]["httpGet"], container["livenessProbe"]["httpGet"]
        assert (ready["path"], port_number(container, ready["port"])) == ("/readyz", ops), name
        assert (live["path"], port_number(container, live["port"])) == ("/healthz", ops), name
        published = {port_number(container, p["containerPort"]) for p in container["ports"]}
        wanted = {int(compose_env(name)[k]) for k in ("ENGRAM_GRPC_PORT", "ENGRAM_HTTP_PORT")
                  if k in compose_env(name)}
        assert published == wanted, name
        assert container["resources"]["requests"] and container["resources"]["limits"], name
    job = find(objects, "Job", "migrate")["spec"]["template"]["spec"]["containers"][0]
    assert job["command"] == COMPOSE["migrate"]["command"]


def env_of(container: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["name"]: e for e in container.get("env", [])}


def check_env_var(name: str, compose_value: str, k8s: dict[str, Any]) -> None:
    """A literal of compose is the same literal here; a `${VAR:?}` secret is a
    Secret reference; a URL holding one refers to a Secret for the password."""
    required = re.fullmatch(r"\$\{(\w+):\?[^}]*\}", compose_value)
    if required:
        assert "secretKeyRef" in k8s.get("valueFrom", {}), name
        return
    url = re.fullmatch(r"postgresql://(\w+):\$\{\w+:\?[^}]*\}@.*", compose_value)
    if url:  # the admin's user name is in its Secret too
        user = re.escape(url.group(1))
        if url.group(1) == "postgres":
            user += r"|\$\(\w+\)"
        pattern = rf"postgresql://(?:{user}):\$\(\w+\)@\$\(PG_HOST\).*"
        assert re.fullmatch(pattern, k8s["value"]), name
        return
    default = re.fullmatch(r"\$\{\w+:-([^}]*)\}", compose_value)
    assert k8s.get("value") == (default.group(1) if default else compose_value), name


# Where Kubernetes differs from compose on purpose: it runs two gateways or
# more (the HorizontalPodAutoscaler) behind a Service without session affinity.
K8S_OWN = {"gateway.ENGRAM_MCP_STATELESS": "true"}


@needs_kubectl
def test_the_environment_is_compose_s() -> None:
    objects = rendered("production")
    for name in [*SERVICES, "migrate"]:
        kind = "Job" if name == "migrate" else "Deployment"
        container = find(objects, kind, name)["spec"]["template"]["spec"]["containers"][0]
        env = env_of(container)
        for var, value in compose_env(name).items():
            assert var in env, f"{name}: {var} missing"
            if f"{name}.{var}" in K8S_OWN:
                assert env[var].get("value") == K8S_OWN[f"{name}.{var}"], (name, var)
                continue
            check_env_var(f"{name}.{var}", value, env[var])


@needs_kubectl
def test_a_url_password_comes_from_a_secret() -> None:
    objects = rendered("production")
    for spec in pod_specs(objects):
        for container in spec["containers"]:
            env = env_of(container)
            for var in env.values():
                for ref in re.findall(r"\$\((\w+)\)", var.get("value", "")):
                    if "PASSWORD" in ref:
                        assert "secretKeyRef" in env[ref]["valueFrom"], (container["name"], ref)


def allowed_peers(policy: dict[str, Any], container: dict[str, Any]) -> dict[int, set[str]]:
    """port -> who may connect: a component, `prometheus`, `anyone`, or `ns:<name>`."""
    peers: dict[int, set[str]] = {}
    for rule in policy["spec"].get("ingress", []):
        who = set()
        for peer in rule.get("from", [{}]):
            labels = peer.get("podSelector", {}).get("matchLabels", {})
            ns = peer.get("namespaceSelector", {}).get("matchLabels", {})
            if labels.get("app.kubernetes.io/name") == "prometheus":
                who.add("prometheus")
            elif "app.kubernetes.io/component" in labels:
                who.add(labels["app.kubernetes.io/component"])
            elif "cnpg.io/cluster" in labels:
                who.add("postgres")
            elif ns:
                who.add("ns:" + ns["kubernetes.io/metadata.name"])
            else:
                who.add("anyone")
        for port in rule["ports"]:
            peers.setdefault(port_number(container, port["port"]), set()).update(who)
    return peers


def callers_in_compose(target: str) -> set[str]:
    port = compose_env(target).get("ENGRAM_GRPC_PORT")
    return {n for n in COMPOSE if port and f"{target}:{port}" in compose_env(n).values()}


@needs_kubectl
@pytest.mark.parametrize("overlay", k8s_check.OVERLAYS)
def test_network_policies_admit_exactly_the_callers_compose_wires(overlay: str) -> None:
    objects = rendered(overlay)
    find(objects, "NetworkPolicy", "default-deny-ingress")
    for name in SERVICES:
        container = find(objects, "Deployment", name)["spec"]["template"]["spec"]["containers"][0]
        peers = allowed_peers(find(objects, "NetworkPolicy", name), container)
        env = compose_env(name)
        if name == "gateway":
            assert peers == {int(env["ENGRAM_HTTP_PORT"]): {"anyone"}}
            continue
        assert peers == {int(env["ENGRAM_GRPC_PORT"]): callers_in_compose(name),
                         int(env["ENGRAM_HTTP_PORT"]): {"prometheus"}}, name
    nats = find(objects, "StatefulSet", "nats")["spec"]["template"]["spec"]["containers"][0]
    nats_users = {n for n in COMPOSE if "ENGRAM_NATS_URL" in compose_env(n)}
    assert allowed_peers(find(objects, "NetworkPolicy", "nats"), nats) == {
        4222: nats_users, 6222: {"nats"}, 8222: {"prometheus"}}


@needs_kubectl
def test_postgres_admits_the_services_with_a_database_url() -> None:
    objects = rendered("production")
    db_users = {n for n in COMPOSE if any("@postgres:5432" in v for v in compose_env(n).values())}
    peers = allowed_peers(find(objects, "NetworkPolicy", "postgres"), {"ports": []})
    assert peers[5432] == db_users | {"postgres", "ns:cnpg-system"}
    assert peers[8000] == {"postgres", "ns:cnpg-system"}


@needs_kubectl
def test_vllm_takes_only_the_service_pointed_at_it() -> None:
    objects = rendered("gpu")
    for name, caller, var in (("vllm-embed", "embedder", "ENGRAM_VLLM_URL"),
                              ("vllm-llm", "dreamer", "ENGRAM_LLM_BASE_URL")):
        client = find(objects, "Deployment", caller)["spec"]["template"]["spec"]["containers"][0]
        url = env_of(client)[var]
        host, port = re.fullmatch(r"http://([\w-]+):(\d+)", url["value"]).groups()  # type: ignore[union-attr]
        assert host == name
        vllm = find(objects, "Deployment", name)["spec"]["template"]["spec"]
        assert vllm["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "1"
        assert vllm["nodeSelector"] == {"nvidia.com/gpu.present": "true"}
        policy = find(objects, "NetworkPolicy", name)
        assert allowed_peers(policy, vllm["containers"][0]) == {int(port): {caller}}


@needs_kubectl
@pytest.mark.parametrize("overlay", k8s_check.OVERLAYS)
def test_secrets_are_references_never_literals(overlay: str) -> None:
    objects = rendered(overlay)
    assert not [o for o in objects if o["kind"] == "Secret"]
    for obj in objects:
        if obj["kind"] == "ConfigMap" and obj["metadata"]["name"] == "engram-postgres":
            assert not [k for k in obj["data"] if SECRET_NAME.search(k)]
    for spec in pod_specs(objects):
        for volume in spec.get("volumes", []):
            if "secret" in volume:
                assert volume["secret"]["secretName"] in SECRETS
        for container in spec["containers"]:
            for var in container.get("env", []):
                ref = var.get("valueFrom", {}).get("secretKeyRef")
                if SECRET_NAME.search(var["name"]):
                    assert ref, f"{container['name']}: {var['name']} is a literal"
                if ref:
                    assert ref["key"] in SECRETS[ref["name"]], ref


def test_the_secrets_are_documented() -> None:
    page = (ROOT / "docs" / "kubernetes.md").read_text()
    for name, keys in SECRETS.items():
        assert f"`{name}`" in page, name
        for key in keys:
            assert key in page, f"{name}: {key}"


@needs_kubectl
@pytest.mark.parametrize("overlay", k8s_check.OVERLAYS)
def test_third_party_images_are_pinned_by_digest(overlay: str) -> None:
    base = yaml.safe_load((ROOT / "deploy" / "k8s" / "base" / "kustomization.yaml").read_text())
    ours = {f"{i['newName']}:{i['newTag']}" for i in base["images"]}
    for spec in pod_specs(rendered(overlay)):
        for container in spec["containers"]:
            image = container["image"]
            assert image in ours or re.search(r"@sha256:[0-9a-f]{64}$", image), image


@needs_kubectl
def test_engram_images_are_the_dockerfile_targets() -> None:
    objects = rendered("production")
    for name in [*SERVICES, "migrate"]:
        kind = "Job" if name == "migrate" else "Deployment"
        image = find(objects, kind, name)["spec"]["template"]["spec"]["containers"][0]["image"]
        assert image == ("engram-embedder:local" if name == "embedder" else "engram:local"), name


@needs_kubectl
def test_nats_is_a_three_node_cluster_and_streams_keep_three_copies() -> None:
    objects = rendered("production")
    assert find(objects, "StatefulSet", "nats")["spec"]["replicas"] == 3
    for name in (n for n in SERVICES if "ENGRAM_NATS_URL" in compose_env(n)):
        env = env_of(find(objects, "Deployment", name)["spec"]["template"]["spec"]["containers"][0])
        assert env["ENGRAM_EVENTS_REPLICAS"]["value"] == "3", name
    assert find(objects, "Cluster", "engram-pg")["spec"]["instances"] == 3


def cluster_block(conf: str) -> str:
    """The text of nats.conf's `cluster { ... }` block (braces balanced)."""
    start = conf.index("cluster {")
    depth = 0
    for i in range(start, len(conf)):
        depth += {"{": 1, "}": -1}.get(conf[i], 0)
        if conf[i] == "}" and depth == 0:
            return conf[start:i + 1]
    raise AssertionError("cluster block not closed")


def setting(block: str, name: str) -> str:
    found = re.search(rf"^\s*{name}\s*[:=]\s*(\S+)\s*$", block, re.M)
    assert found, f"{name} is not set in {block!r}"
    return found.group(1)


@needs_kubectl
def test_nats_routes_need_the_route_password_and_a_certificate() -> None:
    objects = rendered("production")
    config = next(o for o in objects if o["kind"] == "ConfigMap"
                  and o["metadata"]["name"].startswith("nats-config"))
    cluster = cluster_block(config["data"]["nats.conf"])
    auth = cluster_block(cluster.replace("cluster {", "x {", 1).replace("authorization {",
                                                                       "cluster {", 1))
    assert setting(auth, "user") == "route"
    assert setting(auth, "password") == "$ENGRAM_NATS_ROUTE_PASSWORD"
    tls = cluster_block(cluster.replace("cluster {", "x {", 1).replace("tls {", "cluster {", 1))
    assert setting(tls, "verify") == "true"
    files = {k: setting(tls, k) for k in ("cert_file", "key_file", "ca_file")}
    assert "routes" not in re.sub(r"#.*", "", cluster), "the routes carry the password: args"

    pod = find(objects, "StatefulSet", "nats")["spec"]["template"]["spec"]
    container = pod["containers"][0]
    mount = next(m for m in container["volumeMounts"] if m["name"] == "routes-tls")
    volume = next(v for v in pod["volumes"] if v["name"] == "routes-tls")
    assert volume["secret"]["secretName"] == "engram-nats-routes-tls"
    assert files == {"cert_file": f"{mount['mountPath']}/tls.crt",
                     "key_file": f"{mount['mountPath']}/tls.key",
                     "ca_file": f"{mount['mountPath']}/ca.crt"}
    routes = container["args"][container["args"].index("--routes") + 1].split(",")
    assert routes == [f"nats://route:$(ENGRAM_NATS_ROUTE_PASSWORD)@nats-{i}.nats-headless:6222"
                      for i in range(3)]
    ref = env_of(container)["ENGRAM_NATS_ROUTE_PASSWORD"]["valueFrom"]["secretKeyRef"]
    assert ref == {"name": "engram-nats", "key": "route-password"}


def test_the_nats_users_are_compose_s() -> None:
    copy = ROOT / "deploy" / "k8s" / "base" / "nats" / "engram.conf"
    assert copy.read_bytes() == (ROOT / "deploy" / "nats" / "engram.conf").read_bytes()


def test_the_prometheus_rule_is_alerts_yml() -> None:
    rule = yaml.safe_load((ROOT / "deploy" / "k8s" / "components" / "monitoring"
                           / "prometheusrule.yaml").read_text())
    alerts = yaml.safe_load((ROOT / "deploy" / "prometheus" / "alerts.yml").read_text())
    assert rule["spec"]["groups"] == alerts["groups"]


@needs_kubectl
def test_hpas_and_disruption_budgets() -> None:
    objects = rendered("production")
    hpas = {o["spec"]["scaleTargetRef"]["name"]
            for o in objects if o["kind"] == "HorizontalPodAutoscaler"}
    assert hpas == {"gateway", "memory", "embedder"}
    pdbs = {o["metadata"]["name"] for o in objects if o["kind"] == "PodDisruptionBudget"}
    assert pdbs == {*SERVICES, "nats"}

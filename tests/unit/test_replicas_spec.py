"""`engram up --replicas`: the spec's validation, how replicas are laid out,
and the gRPC target a list of replica addresses becomes."""

from __future__ import annotations

from pathlib import Path

import pytest

from engram_kit.grpc_client import channel_target
from engram_runner.replicas import expand, parse_replicas, pin_ports, spread
from engram_runner.topology import load_topology, required_variables

from ..paths import REPO_ROOT

SERVICES = ["embedder", "memory", "cortex", "dreamer", "coordination", "gateway"]


def test_spec_parses() -> None:
    spec = "gateway=2,memory=2,cortex=2,dreamer=2,coordination=2,embedder=1"
    assert parse_replicas(spec, SERVICES) == {"gateway": 2, "memory": 2, "cortex": 2,
                                              "dreamer": 2, "coordination": 2, "embedder": 1}
    assert parse_replicas("", SERVICES) == {}
    assert parse_replicas(" memory = 3 ,", SERVICES) == {"memory": 3}


@pytest.mark.parametrize(("spec", "words"), [
    ("postgres=2", "unknown service 'postgres'"),
    ("memroy=2", "unknown service 'memroy'"),
    ("memory=0", "from 1 to 8"),
    ("memory=9", "from 1 to 8"),
    ("memory=two", "from 1 to 8"),
    ("memory=-1", "from 1 to 8"),
    ("memory", "expected SERVICE=COUNT"),
    ("=2", "expected SERVICE=COUNT"),
    ("memory=2,memory=3", "given twice"),
])
def test_bad_spec_is_a_clear_error(spec: str, words: str) -> None:
    with pytest.raises(ValueError, match=words.replace("(", r"\(")):
        parse_replicas(spec, SERVICES)


def test_replicas_get_own_names_ports_and_callers_get_every_address(tmp_path: Path) -> None:
    compose = REPO_ROOT / "docker-compose.yml"
    names = required_variables(compose.read_text())
    topo = load_topology(compose, 0, tmp_path, {n: "s3cret" for n in names})
    inst = expand(topo.services, {"memory": 2}, tmp_path / "run")
    assert "memory" not in inst and {"memory-1", "memory-2", "cortex"} <= set(inst)
    first, second = inst["memory-1"], inst["memory-2"]
    assert first.ports == {8751: 8751, 8761: 8761} and first.env["ENGRAM_GRPC_PORT"] == "8751"
    assert second.env["ENGRAM_GRPC_PORT"] == "0" and second.env["ENGRAM_HTTP_PORT"] == "0"
    assert second.env["ENGRAM_PORTS_FILE"] == str(tmp_path / "run" / "memory-2.ports.json")
    pin_ports(second, {"grpc": 40001, "http": 40002})
    assert second.env["ENGRAM_GRPC_PORT"] == "40001"  # a restart binds the same ports
    assert second.ready_url == "http://127.0.0.1:40002/readyz"
    assert topo.services["memory"].env["ENGRAM_GRPC_PORT"] == "8751"  # template untouched
    spread(inst, "127.0.0.1:8751", ["127.0.0.1:8751", "127.0.0.1:40001"])
    assert inst["gateway"].env["ENGRAM_MEMORY_ADDR"] == "127.0.0.1:8751,127.0.0.1:40001"
    assert inst["dreamer"].env["ENGRAM_MEMORY_ADDR"] == "127.0.0.1:8751,127.0.0.1:40001"


def test_channel_target() -> None:
    assert channel_target("memory:8751") == "memory:8751"
    assert channel_target("dns:///memory:8751") == "dns:///memory:8751"
    assert channel_target("127.0.0.1:1,127.0.0.1:2") == "ipv4:127.0.0.1:1,127.0.0.1:2"
    assert channel_target("[::1]:1,[::1]:2") == "ipv6:[::1]:1,[::1]:2"

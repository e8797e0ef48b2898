"""The Kubernetes NATS servers' cluster block (deploy/k8s/base/nats/nats.conf),
run by real nats-servers on this machine: a server with the route password
and a certificate from the routes' CA joins; one without the password, or
without a certificate from that CA, does not. Only the certificate paths and
ports are changed for the run; no stack is needed."""

from __future__ import annotations

import datetime
import ipaddress
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from ..procs import probe_port

ROOT = Path(__file__).resolve().parents[2]
CONF = ROOT / "deploy" / "k8s" / "base" / "nats" / "nats.conf"
NATS = Path(sys.executable).parent / "nats-server"
PASSWORD = "pRouteSecret123"


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def make_tls_dir(path: Path, ca_name: str) -> Path:
    """tls.crt/tls.key for 127.0.0.1 signed by a fresh CA, and ca.crt: the
    keys of the engram-nats-routes-tls Secret."""
    path.mkdir(parents=True)
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (x509.CertificateBuilder().subject_name(_name(ca_name)).issuer_name(_name(ca_name))
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder().subject_name(_name("nats-route")).issuer_name(ca.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                critical=False)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH,
                                                  ExtendedKeyUsageOID.CLIENT_AUTH]),
                           critical=False)
            .sign(ca_key, hashes.SHA256()))
    (path / "ca.crt").write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    (path / "tls.crt").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (path / "tls.key").write_bytes(_pem_key(key))
    return path


def cluster_block(conf: str) -> str:
    start = conf.index("cluster {")
    depth = 0
    for i in range(start, len(conf)):
        depth += {"{": 1, "}": -1}.get(conf[i], 0)
        if depth == 0 and conf[i] == "}":
            return conf[start:i + 1]
    raise AssertionError("cluster block not closed")


@contextmanager
def server(tmp: Path, name: str, cluster: str, routes: list[str],
           env: dict[str, str]) -> Iterator[tuple[int, int]]:
    """A nats-server with `cluster` as its cluster block; yields its route
    and monitor ports."""
    client, monitor, route = probe_port(), probe_port(), probe_port()
    conf = tmp / f"{name}.conf"
    conf.write_text(f"server_name: {name}\nport: {client}\nhttp_port: {monitor}\n"
                    + re.sub(r"port: 6222", f"port: {route}", cluster) + "\n")
    args = [str(NATS), "-c", str(conf)] + (["--routes", ",".join(routes)] if routes else [])
    log = (tmp / f"{name}.log").open("wb")
    proc = subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 20
        while not _up(monitor):
            assert proc.poll() is None, (tmp / f"{name}.log").read_text()
            assert time.monotonic() < deadline, f"{name} did not start"
            time.sleep(0.1)
        yield route, monitor
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()


def _up(monitor: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{monitor}/healthz", timeout=1).is_success
    except httpx.HTTPError:
        return False


def peers_of(monitor: int) -> set[str]:
    """The servers a server has routes with (a pool of connections each)."""
    routez = httpx.get(f"http://127.0.0.1:{monitor}/routez", timeout=5).json()
    return {r["remote_name"] for r in routez.get("routes") or []}


def test_only_a_server_with_the_password_and_a_certificate_joins(tmp_path: Path):
    ours = make_tls_dir(tmp_path / "ours", "engram routes CA")
    theirs = make_tls_dir(tmp_path / "theirs", "another CA")
    block = cluster_block(CONF.read_text())
    conf_of = {d: block.replace("/etc/nats-tls", str(d)) for d in (ours, theirs)}
    plain = "cluster {\n  name: engram\n  port: 6222\n}"  # what an attacker's server runs
    env = {"ENGRAM_NATS_ROUTE_PASSWORD": PASSWORD}
    with ExitStack() as stack:
        seed_route, seed_monitor = stack.enter_context(server(tmp_path, "a", conf_of[ours],
                                                              [], env))
        url = f"127.0.0.1:{seed_route}"
        rogues = [
            ("no-password", conf_of[ours], [f"nats://{url}"]),
            ("wrong-password", conf_of[ours], [f"nats://route:wrong@{url}"]),
            ("other-ca", conf_of[theirs], [f"nats://route:{PASSWORD}@{url}"]),
            ("no-tls", plain, [f"nats://route:{PASSWORD}@{url}"]),
        ]
        rogue_monitors = [stack.enter_context(server(tmp_path, n, c, r, env))[1]
                          for n, c, r in rogues]
        _, member = stack.enter_context(server(tmp_path, "b", conf_of[ours],
                                               [f"nats://route:{PASSWORD}@{url}"], env))
        deadline = time.monotonic() + 15
        while not peers_of(member):
            assert time.monotonic() < deadline, (tmp_path / "b.log").read_text()
            time.sleep(0.2)
        time.sleep(3)  # the rogues retry every second: give them time to get in
        assert peers_of(seed_monitor) == {"b"}, [(tmp_path / f"{n}.log").read_text()[-400:]
                                              for n, _, _ in rogues]
        assert [peers_of(m) for m in rogue_monitors] == [set()] * 4


def test_nats_server_accepts_the_config(tmp_path: Path):
    """`nats-server -t` on the whole Kubernetes config (engram.conf included),
    with a certificate where the Secret would be mounted."""
    tls = make_tls_dir(tmp_path / "tls", "engram routes CA")
    for name in ("nats.conf", "engram.conf"):
        text = (CONF.parent / name).read_text().replace("/etc/nats-tls", str(tls))
        (tmp_path / name).write_text(text)
    env = {"POD_NAME": "nats-0", "ENGRAM_NATS_ROUTE_PASSWORD": PASSWORD,
           **{f"ENGRAM_NATS_{u}_PASSWORD": "ci"
              for u in ("ADMIN", "MEMORY", "CORTEX", "DREAMER", "COORDINATION")}}
    done = subprocess.run([str(NATS), "-c", "nats.conf", "-t"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stdout + done.stderr

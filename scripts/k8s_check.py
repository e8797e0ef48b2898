"""Render every overlay under deploy/k8s/overlays with `kubectl kustomize` and
validate each object offline: built-in kinds with kubernetes-validate at
K8S_VERSION (strict: an unknown field is an error), custom resources
(CloudNativePG, Prometheus Operator) with the validators of their published
models, pinned in tools/k8s-models (`make k8s` installs them with npm).

    python scripts/k8s_check.py            # `make k8s`; exit 1 on any error"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import kubernetes_validate
import yaml

ROOT = Path(__file__).resolve().parent.parent
K8S = ROOT / "deploy" / "k8s"
OVERLAYS = sorted(p.name for p in (K8S / "overlays").iterdir() if p.is_dir())
MODELS = ROOT / "tools" / "k8s-models"
# The Kubernetes version the manifests are checked against (kubectl here is 1.32).
K8S_VERSION = "1.32.0"


def render(overlay: str) -> list[dict[str, Any]]:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        raise FileNotFoundError("kubectl is not on PATH: it renders the manifests")
    out = subprocess.run([kubectl, "kustomize", str(K8S / "overlays" / overlay)],
                         check=True, capture_output=True, text=True).stdout
    return [doc for doc in yaml.safe_load_all(out) if doc]


def _is_builtin(obj: dict[str, Any]) -> bool:
    group = obj["apiVersion"].rpartition("/")[0]
    return "." not in group or group.endswith(".k8s.io")


def _custom_errors(objects: list[dict[str, Any]]) -> list[list[str]]:
    """One error list per custom resource, from the published models."""
    if not objects:
        return []
    node = shutil.which("node")
    if node is None or not (MODELS / "node_modules").is_dir():
        raise FileNotFoundError("the custom resource models are missing: run `make k8s` "
                                "(node and npm install them into tools/k8s-models)")
    out = subprocess.run([node, str(MODELS / "validate.mjs")], input=json.dumps(objects),
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def _name(obj: dict[str, Any]) -> str:
    return f"{obj.get('kind')}/{obj.get('metadata', {}).get('name')}"


def _builtin_errors(obj: dict[str, Any]) -> list[str]:
    try:
        kubernetes_validate.validate(obj, K8S_VERSION, strict=True)
    except kubernetes_validate.ValidationError as e:
        return [f"{'.'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"]
    except kubernetes_validate.SchemaNotFoundError as e:
        return [f"{e.message} (a custom resource without a model?)"]
    return []


def validate_all(objects: list[dict[str, Any]]) -> list[str]:
    """Every error in `objects`, each naming its object."""
    custom = [o for o in objects if not _is_builtin(o)]
    errors = [f"{_name(o)}: {e}" for o in objects if _is_builtin(o) for e in _builtin_errors(o)]
    for obj, found in zip(custom, _custom_errors(custom), strict=True):
        errors += [f"{_name(obj)}: {e}" for e in found]
    return errors


def validate(obj: dict[str, Any]) -> list[str]:
    return validate_all([obj])


def main() -> int:
    failed = False
    for overlay in OVERLAYS:
        objects = render(overlay)
        errors = validate_all(objects)
        for err in errors:
            sys.stderr.write(f"{overlay}: {err}\n")
        failed = failed or bool(errors)
        sys.stdout.write(f"{overlay}: {len(objects)} objects, {len(errors)} errors\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

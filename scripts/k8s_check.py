"""Render every overlay under deploy/k8s/overlays with `kubectl kustomize` and
validate each object offline: built-in kinds with kubernetes-validate at
K8S_VERSION (strict: an unknown field is an error), custom resources with
jsonschema against the schemas vendored in deploy/k8s/crd-schemas (where an
object declares its properties, an unknown one is refused there too).

    python scripts/k8s_check.py            # `make k8s`; exit 1 on any error"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import yaml

ROOT = Path(__file__).resolve().parent.parent
K8S = ROOT / "deploy" / "k8s"
OVERLAYS = sorted(p.name for p in (K8S / "overlays").iterdir() if p.is_dir())
CRD_SCHEMAS = K8S / "crd-schemas"
# The Kubernetes version the manifests are checked against (kubectl here is 1.32).
K8S_VERSION = "1.32.0"


def render(overlay: str) -> list[dict[str, Any]]:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        raise FileNotFoundError("kubectl is not on PATH: it renders the manifests")
    out = subprocess.run([kubectl, "kustomize", str(K8S / "overlays" / overlay)],
                         check=True, capture_output=True, text=True).stdout
    return [doc for doc in yaml.safe_load_all(out) if doc]


def _closed(schema: Any) -> Any:
    """The schema with unknown properties refused wherever it lists them, as
    the API server's strict field validation does."""
    if isinstance(schema, list):
        return [_closed(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    closed = {k: _closed(v) for k, v in schema.items()}
    if ("properties" in closed and "additionalProperties" not in closed
            and not closed.get("x-kubernetes-preserve-unknown-fields")):
        closed["additionalProperties"] = False
    return closed


def crd_schema(obj: dict[str, Any]) -> dict[str, Any] | None:
    group, _, version = obj["apiVersion"].rpartition("/")
    path = CRD_SCHEMAS / f"{obj['kind'].lower()}-{group}-{version}.json"
    if not group or not path.exists():
        return None
    schema = _closed(json.loads(path.read_text()))
    # metadata is the API server's ObjectMeta, checked by kind-independent rules
    schema["properties"]["metadata"] = {"type": "object"}
    return schema


def validate(obj: dict[str, Any]) -> list[str]:
    """Every error in one object, each naming the object and the field."""
    name = f"{obj.get('kind')}/{obj.get('metadata', {}).get('name')}"
    schema = crd_schema(obj)
    if schema is not None:
        validator = jsonschema.Draft7Validator(schema)
        return [f"{name}: {'.'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"
                for e in validator.iter_errors(obj)]
    try:
        kubernetes_validate.validate(obj, K8S_VERSION, strict=True)
    except kubernetes_validate.ValidationError as e:
        return [f"{name}: {'.'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"]
    except kubernetes_validate.SchemaNotFoundError as e:
        return [f"{name}: {e.message} (a CRD without a vendored schema?)"]
    return []


def main() -> int:
    failed = False
    for overlay in OVERLAYS:
        objects = render(overlay)
        errors = [err for obj in objects for err in validate(obj)]
        for err in errors:
            sys.stderr.write(f"{overlay}: {err}\n")
        failed = failed or bool(errors)
        sys.stdout.write(f"{overlay}: {len(objects)} objects, {len(errors)} errors\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

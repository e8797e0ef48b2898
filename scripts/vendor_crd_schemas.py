"""Extract the OpenAPI schema of each served version of a CustomResourceDefinition
into deploy/k8s/crd-schemas/<kind>-<group>-<version>.json, descriptions dropped
(they do not take part in validation and are most of the size).

    python scripts/vendor_crd_schemas.py CRD.yaml [CRD.yaml ...]

deploy/k8s/crd-schemas/README.md lists the upstream releases they come from."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

OUT = Path(__file__).resolve().parent.parent / "deploy" / "k8s" / "crd-schemas"


def strip_descriptions(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: strip_descriptions(v) for k, v in node.items() if k != "description"}
    if isinstance(node, list):
        return [strip_descriptions(v) for v in node]
    return node


def vendor(crd_path: Path) -> list[Path]:
    crd = yaml.safe_load(crd_path.read_text())
    spec = crd["spec"]
    written = []
    for version in spec["versions"]:
        if not version.get("served"):
            continue
        schema = strip_descriptions(version["schema"]["openAPIV3Schema"])
        name = f"{spec['names']['kind'].lower()}-{spec['group']}-{version['name']}.json"
        path = OUT / name
        path.write_text(json.dumps(schema, indent=1, sort_keys=True) + "\n")
        written.append(path)
    return written


def main(argv: list[str]) -> int:
    for arg in argv:
        for path in vendor(Path(arg)):
            sys.stdout.write(f"{path}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

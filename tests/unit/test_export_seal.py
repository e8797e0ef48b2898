"""An export's seal: it matches the file it ends, its signer is trusted only
as this stack or as a fingerprint the operator names, and nothing in the
file gives the audit key away."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engram_cli.portable import export_seal
from engram_cli.portable.import_check import ImportRefused

KEY = "the-stack-audit-key-0123456789"


def sealed(path: Path, key: str, rows: list[dict]) -> dict:
    header = {"format": "engram-export/2", "signer": export_seal.signer(key),
              "audit_key_id": export_seal.key_id(key)}
    sealer = export_seal.Sealer()
    text = sealer.line(json.dumps(header)) + "".join(sealer.line(json.dumps(r)) for r in rows)
    path.write_text(text + sealer.seal(key))
    return header


def checked(path: Path, header: dict, own_key: str, trusted: list[str] = ()) -> str:  # type: ignore[assignment]
    _, digest, seal = export_seal.read_seal(path)
    return export_seal.check(header, digest, seal, own_key, list(trusted))


def test_a_sealed_file_checks_under_its_own_stack(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    header = sealed(path, KEY, [{"row": {"a": 1}}, {"row": {"a": 2}}])
    assert checked(path, header, KEY) == export_seal.fingerprint(header["signer"])
    text = path.read_text()
    assert KEY not in text and KEY.encode().hex() not in text


def test_a_changed_line_breaks_the_seal(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    header = sealed(path, KEY, [{"row": {"a": 1}}, {"row": {"a": 2}}])
    path.write_text(path.read_text().replace('"a": 2', '"a": 3'))
    with pytest.raises(ImportRefused, match="does not match its seal"):
        checked(path, header, KEY)


def test_a_file_signed_again_by_its_holder_is_not_trusted(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    mine = export_seal.fingerprint(export_seal.signer(KEY))
    header = sealed(path, "the-forgers-own-key-0123456789", [{"row": {"a": 3}}])
    for trusted in ([], [mine]):
        with pytest.raises(ImportRefused, match="does not trust"):
            checked(path, header, KEY, trusted)
    theirs = export_seal.fingerprint(header["signer"])
    assert checked(path, header, KEY, [theirs.upper()]) == theirs


def test_a_header_naming_another_signer_fails_the_signature(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    header = sealed(path, "the-forgers-own-key-0123456789", [{"row": {"a": 3}}])
    header["signer"] = export_seal.signer(KEY)
    with pytest.raises(ImportRefused, match="not signed by the signer"):
        checked(path, header, KEY)


def test_a_file_cut_short_has_no_seal(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    sealed(path, KEY, [{"row": {"a": 1}}])
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:-1]))
    with pytest.raises(ImportRefused, match="no seal line"):
        export_seal.read_seal(path)

"""What an export carries instead of the stack's audit key.

The audit chains are plain SHA-256: anyone can recompute them, so a chain
that verifies only proves the rows hold together, not who wrote them. An
export is therefore sealed: its last line holds the SHA-256 of every line
before it and an Ed25519 signature over that digest. The signing key is
derived from the stack's audit key (HMAC with a fixed label), so it needs no
storage of its own, comes back with a restored key, and its public half
reveals nothing of the audit key. The header names the public key (the
signer) and a key id, an HMAC of a fixed label, which tells an importing
stack whether it holds the same audit key without carrying it.

An import checks the seal against the file and the signer against what it
trusts: its own signer (a file this stack, or a stack with its key, made)
or a fingerprint the operator names with --trust-signer after reading it
from `engram audit key-id` on the exporting stack. A holder who alters a
row must sign again with a key of their own, whose fingerprint is not the
one trusted: the file is refused."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from engram_cli.portable.import_check import ImportRefused

SIGNING_LABEL = b"engram export signing key/1"
KEY_ID_LABEL = b"engram audit key id/1"
SEAL_LABEL = b"engram export seal/1\n"
FINGERPRINT_CHARS = 32


def _signing_key(audit_key: str) -> Ed25519PrivateKey:
    seed = hmac.new(audit_key.encode(), SIGNING_LABEL, hashlib.sha256).digest()
    return Ed25519PrivateKey.from_private_bytes(seed)


def signer(audit_key: str) -> str:
    """The public half of the stack's export signing key, hex."""
    return _signing_key(audit_key).public_key().public_bytes_raw().hex()


def fingerprint(signer_hex: str) -> str:
    """What an operator compares between stacks: short, and not the key."""
    return hashlib.sha256(bytes.fromhex(signer_hex)).hexdigest()[:FINGERPRINT_CHARS]


def key_id(audit_key: str) -> str:
    """Names the audit key without giving it away (an HMAC of a fixed label)."""
    return hmac.new(audit_key.encode(), KEY_ID_LABEL, hashlib.sha256).hexdigest()


class Sealer:
    """Digests each line as it is written; `seal` is the file's last line."""

    def __init__(self) -> None:
        self.digest = hashlib.sha256()

    def line(self, text: str) -> str:
        out = text + "\n"
        self.digest.update(out.encode())
        return out

    def seal(self, audit_key: str) -> str:
        value = self.digest.hexdigest()
        signature = _signing_key(audit_key).sign(SEAL_LABEL + value.encode()).hex()
        return json.dumps({"seal": {"sha256": value, "signature": signature}}) + "\n"


class LineDigest:
    """The digest of the lines before the seal, taken again while loading:
    the file may change between the check and the load."""

    def __init__(self, seal_line: int) -> None:
        self.seal_line = seal_line
        self.digest = hashlib.sha256()

    def add(self, n: int, text: str) -> None:
        if n < self.seal_line:
            self.digest.update(text.encode())


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    with path.open(encoding="utf-8") as f:
        yield from enumerate(f, start=1)


def read_seal(path: Path) -> tuple[int, str, dict[str, Any]]:
    """(the seal's line number, the digest of the lines before it, the seal)."""
    running, before = hashlib.sha256(), hashlib.sha256()
    last, last_text = 0, ""
    for n, text in _lines(path):
        if text.strip():
            before = running.copy()
            last, last_text = n, text
        running.update(text.encode())
    try:
        seal = json.loads(last_text).get("seal") if last_text else None
    except (json.JSONDecodeError, AttributeError):
        seal = None
    if not isinstance(seal, dict) or not all(isinstance(seal.get(k), str)
                                             for k in ("sha256", "signature")):
        raise ImportRefused("the export has no seal line at its end: it is cut short, or "
                            "was not written by `engram export`")
    return last, before.hexdigest(), seal


def check(header: dict[str, Any], digest: str, seal: dict[str, Any], own_key: str,
          trusted: list[str]) -> str:
    """Refuse a file whose seal does not match it or whose signer is not
    trusted here; returns the signer's fingerprint."""
    if not hmac.compare_digest(digest, seal["sha256"]):
        raise ImportRefused("the export does not match its seal: lines were changed, added "
                            "or removed after it was written")
    try:
        public = Ed25519PublicKey.from_public_bytes(bytes.fromhex(str(header.get("signer"))))
        public.verify(bytes.fromhex(seal["signature"]), SEAL_LABEL + digest.encode())
    except (ValueError, InvalidSignature):
        raise ImportRefused("the export's seal is not signed by the signer its header "
                            "names") from None
    found = fingerprint(str(header["signer"]))
    wanted = {t.strip().lower() for t in trusted}
    if found != fingerprint(signer(own_key)) and found not in wanted:
        raise ImportRefused(
            f"the export is signed by {found}, which this stack does not trust. If the file "
            "came from a stack you trust, run `engram audit key-id` there and, when it prints "
            f"the same fingerprint, import with --trust-signer {found}")
    return found

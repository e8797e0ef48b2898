"""The stack's audit key (ENGRAM_AUDIT_HMAC_KEY), which keys every content
digest its services keep. It never leaves the stack: an export carries a
signature made with a key derived from it, and its id (export_seal)."""

from __future__ import annotations

import json
import sys

from engram_cli.portable import export_seal
from engram_cli.settings import CliSettings

KEY_VARIABLE = "ENGRAM_AUDIT_HMAC_KEY"


class AuditKeyMissing(Exception):
    """The CLI cannot tell which audit key the stack uses."""


def stack_audit_key(settings: CliSettings, explicit_dsn: str) -> str:
    """From the environment if set; else, for the embedded stack, from its
    data directory's secrets. With an explicit --database-url the data
    directory may belong to another stack, so only the environment counts."""
    if settings.audit_hmac_key is not None:
        return settings.audit_hmac_key.get_secret_value()
    if explicit_dsn:
        raise AuditKeyMissing(f"with --database-url, set {KEY_VARIABLE} to that stack's "
                              "audit key (the value in its .env)")
    path = settings.data_dir.resolve() / "secrets.json"
    known = json.loads(path.read_text()) if path.is_file() else {}
    if not known.get(KEY_VARIABLE):
        raise AuditKeyMissing(f"no {KEY_VARIABLE} in {path}; start the stack once with "
                              "`engram up`")
    return str(known[KEY_VARIABLE])


def run_key_id(settings: CliSettings, database_url: str) -> int:
    """`engram audit key-id`: what an importing operator compares."""
    try:
        key = stack_audit_key(settings, database_url)
    except AuditKeyMissing as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    sys.stdout.write(f"{export_seal.fingerprint(export_seal.signer(key))}\n")
    return 0

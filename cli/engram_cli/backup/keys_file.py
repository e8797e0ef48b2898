"""The half of a backup that is not in the database: the data directory's
secrets (every password and the audit key) and principals (the tokens'
hashes), encrypted under a secret the operator holds, beside the manifest
a verify compares against.

Each backup `engram-<time>.dump` gets `engram-<time>.keys`: JSON with the
dump's SHA-256, the row count of every table and the head of every audit
chain as taken in the dump's own snapshot, and the two files sealed with
AES-256-GCM under a key scrypt derives from the operator's passphrase
(ENGRAM_BACKUP_PASSPHRASE) or key file (--key-file): never a command-line
argument, which other users can read in the process table. The manifest is
the GCM's associated data, so a changed count or chain head fails to open
as surely as a changed secret."""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt
from pydantic import SecretStr

from engram_kit.errors import InvalidArgument

FORMAT = "engram-backup/1"
SUFFIX = ".keys"
PASSPHRASE_VARIABLE = "ENGRAM_BACKUP_PASSPHRASE"
# The data directory's files a restore needs besides the database.
KEPT_FILES = ("secrets.json", "principals.json")
# scrypt at 2^15 x 8: ~32 MiB and a fraction of a second, per backup.
SCRYPT = {"n": 2**15, "r": 8, "p": 1}
MIN_SECRET_CHARS = 12


class BackupRefused(InvalidArgument):
    """A backup cannot be taken, opened or trusted; the message says why."""


@dataclass(frozen=True)
class Manifest:
    dump: str  # file name of the pg_dump archive beside the keys file
    dump_sha256: str
    counts: dict[str, int]  # "schema.table" -> rows
    chains: dict[str, dict[str, str]]  # schema -> namespace -> newest hash

    def as_json(self) -> dict[str, Any]:
        return {"dump": self.dump, "dump_sha256": self.dump_sha256, "counts": self.counts,
                "chains": self.chains}


def operator_secret(key_file: str, passphrase: SecretStr | None) -> bytes:
    """From --key-file, else from ENGRAM_BACKUP_PASSPHRASE (the settings')."""
    if key_file:
        try:
            value = Path(key_file).read_bytes().strip()
        except OSError as exc:
            raise BackupRefused(f"cannot read the backup key file {key_file}: "
                                f"{exc.strerror}") from None
    else:
        value = passphrase.get_secret_value().encode() if passphrase is not None else b""
    if len(value) < MIN_SECRET_CHARS:
        raise BackupRefused(
            f"a backup holds the stack's secrets, encrypted: set {PASSPHRASE_VARIABLE} or "
            "name a key file (--key-file; --backup-key-file for engram up), at least "
            f"{MIN_SECRET_CHARS} characters, and keep it away from the backups")
    return value


def _key(secret: bytes, salt: bytes, kdf: dict[str, int]) -> bytes:
    return Scrypt(salt=salt, length=32, n=kdf["n"], r=kdf["r"], p=kdf["p"]).derive(secret)


def _associated(header: dict[str, Any]) -> bytes:
    return json.dumps(header, sort_keys=True, separators=(",", ":")).encode()


def write(path: Path, manifest: Manifest, data_dir: Path, secret: bytes) -> None:
    """Seal the data directory's kept files into `path` (created 0600)."""
    files = {name: (data_dir / name).read_text() for name in KEPT_FILES
             if (data_dir / name).is_file()}
    salt, nonce = secrets.token_bytes(16), secrets.token_bytes(12)
    header = {"format": FORMAT, **manifest.as_json(),
              "kdf": {"name": "scrypt", **SCRYPT, "salt": salt.hex()}}
    sealed = AESGCM(_key(secret, salt, SCRYPT)).encrypt(
        nonce, json.dumps(files).encode(), _associated(header))
    text = json.dumps({**header, "nonce": nonce.hex(), "sealed": sealed.hex()}, indent=1)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)


def read(path: Path, secret: bytes) -> tuple[Manifest, dict[str, str]]:
    """The manifest and the kept files; refused when the secret is wrong or
    anything in the file was changed."""
    try:
        raw = json.loads(path.read_text())
        header = {k: v for k, v in raw.items() if k not in ("nonce", "sealed")}
        kdf = header["kdf"]
        if header.get("format") != FORMAT or kdf.get("name") != "scrypt":
            raise BackupRefused(f"{path.name} is not an {FORMAT} keys file")
        key = _key(secret, bytes.fromhex(kdf["salt"]),
                   {k: int(kdf[k]) for k in ("n", "r", "p")})
        files = json.loads(AESGCM(key).decrypt(bytes.fromhex(raw["nonce"]),
                                               bytes.fromhex(raw["sealed"]),
                                               _associated(header)))
        manifest = Manifest(header["dump"], header["dump_sha256"], header["counts"],
                            header["chains"])
    except InvalidTag:
        raise BackupRefused(f"{path.name} does not open with this passphrase or key file, "
                            "or it was changed") from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise BackupRefused(f"{path.name} is not a readable keys file ({exc})") from None
    return manifest, files

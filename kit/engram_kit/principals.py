"""Principals and their bearer tokens, stored hashed in a JSON file.

The file lives in the data directory (compose: a volume). The gateway
re-reads it when it changes, so a new or removed token takes effect without
a restart. Tokens are 256-bit random values, so a plain SHA-256 is a sound
at-rest hash (no password stretching needed)."""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
import hmac
import json
import os
import re
import secrets
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from engram_kit.context import NAMESPACE_RE
from engram_kit.vocab import Role

ROLES = tuple(Role)
TOKEN_PREFIX = "eg_"
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,62}\Z")
# The store is one JSON file read on every change: bounded, so a runaway
# script cannot make each request's token check read megabytes.
MAX_PRINCIPALS = 1000
MAX_GRANTS = 50  # namespaces per principal, read-write and read together


@dataclass(frozen=True)
class Principal:
    name: str
    role: str
    namespaces: list[str]
    token_sha256: str
    created_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat())
    read_namespaces: list[str] = field(default_factory=list)
    rotated_at: str = ""
    # Bumped by a console sign-out: every console cookie minted before it
    # stops working, on every gateway replica (they all read this file).
    console_generation: int = 0


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class PrincipalStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._mtime: tuple[int, int] | None = None
        self._by_hash: dict[str, Principal] = {}

    def _load(self) -> list[Principal]:
        if not self.path.exists():
            return []
        data = json.loads(self.path.read_text())
        return [Principal(**p) for p in data.get("principals", [])]

    def _stamp(self) -> tuple[int, int] | None:
        """(mtime_ns, inode) of the file, None without one: every replace is seen."""
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            return None
        return stat.st_mtime_ns, stat.st_ino

    def _refresh(self) -> None:
        mtime = self._stamp()
        if mtime is None:
            self._by_hash, self._mtime = {}, None
        elif mtime != self._mtime:
            self._by_hash = {p.token_sha256: p for p in self._load()}
            self._mtime = mtime

    async def verify_async(self, token: str) -> Principal | None:
        """`verify` from an event loop: on the loop itself while the file is
        unchanged (a stat, a hash and a dict walk), on a thread when it must
        be read again. Each request checks its token more than once (the
        connection guard, the MCP session guard, the SDK's verifier), and a
        thread hop each time cost more than the check."""
        stamp = self._stamp()
        if stamp is not None and stamp == self._mtime:
            return self._match(token)
        return await asyncio.to_thread(self.verify, token)

    def verify(self, token: str) -> Principal | None:
        self._refresh()
        return self._match(token)

    def _match(self, token: str) -> Principal | None:
        digest = hash_token(token)
        for known, principal in self._by_hash.items():
            if hmac.compare_digest(known, digest):
                return principal
        return None

    def named(self, name: str) -> Principal | None:
        """The principal called `name` as the file says now (re-read on change)."""
        self._refresh()
        return next((p for p in self._by_hash.values() if p.name == name), None)

    def count(self) -> int:
        self._refresh()
        return len(self._by_hash)

    def create(self, name: str, role: str, namespaces: list[str],
               read_namespaces: list[str] | None = None) -> str:
        """Mint a token for a new principal; returns the token (shown once)."""
        if not NAME_RE.match(name):
            raise ValueError("a principal name is 1-63 chars of a-z, 0-9, '_', '.', '-'")
        if role not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}")
        namespaces = list(dict.fromkeys(namespaces))
        read_namespaces = [n for n in dict.fromkeys(read_namespaces or [])
                           if n not in namespaces]
        if not namespaces and not read_namespaces:
            raise ValueError("at least one namespace is required")
        bad = [n for n in [*namespaces, *read_namespaces] if not NAMESPACE_RE.match(n)]
        if bad:
            raise ValueError(f"namespace {bad[0][:70]!r} is invalid: 1-63 chars of a-z, 0-9, "
                             "'_', '.', '-'")
        if len(namespaces) + len(read_namespaces) > MAX_GRANTS:
            raise ValueError(f"at most {MAX_GRANTS} namespaces per principal")
        with self._locked():
            principals = self._load()
            if any(p.name == name for p in principals):
                raise ValueError(f"principal {name!r} exists; use `engram token rotate`")
            if len(principals) >= MAX_PRINCIPALS:
                raise ValueError(f"the store holds {MAX_PRINCIPALS} principals, its limit; "
                                 "revoke unused ones first")
            token = TOKEN_PREFIX + secrets.token_urlsafe(32)
            principals.append(Principal(name, role, namespaces, hash_token(token),
                                        read_namespaces=read_namespaces))
            self._write(principals)
        return token

    def list(self) -> list[Principal]:
        return self._load()

    def rotate(self, name: str) -> str:
        """A new token for the principal; the old one stops working at once."""
        with self._locked():
            principals = self._load()
            for i, p in enumerate(principals):
                if p.name == name:
                    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
                    principals[i] = replace(p, token_sha256=hash_token(token),
                                            rotated_at=datetime.now(UTC).isoformat())
                    self._write(principals)
                    return token
        raise ValueError(f"no principal {name!r}")

    def end_console_sessions(self, name: str) -> None:
        """Sign the principal out of the console everywhere (a new generation)."""
        with self._locked():
            principals = self._load()
            for i, p in enumerate(principals):
                if p.name == name:
                    principals[i] = replace(p, console_generation=p.console_generation + 1)
                    self._write(principals)
                    return
        raise ValueError(f"no principal {name!r}")

    def revoke(self, name: str) -> None:
        with self._locked():
            principals = self._load()
            kept = [p for p in principals if p.name != name]
            if len(kept) == len(principals):
                raise ValueError(f"no principal {name!r}")
            self._write(kept)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """One writer at a time (the CLI and the gateway's token routes): each
        change reads, edits and replaces the whole file."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.parent / ".principals.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _write(self, principals: list[Principal]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = json.dumps({"principals": [asdict(p) for p in principals]}, indent=2)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".principals-")
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w") as fh:
                fh.write(payload)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

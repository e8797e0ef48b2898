"""The PDF worker's sandbox: no network, a read-only file system, no root.

Entered by the worker process before it parses anything (pdf_worker.py);
the worker already holds the bytes and the pipe it answers on, so it needs
nothing else from the host. A parser bug that an attacker's PDF reaches then
finds no socket to call out on and no file it can change.

- Network: a network namespace of its own, whose only interface (loopback)
  is down.
- Files: a mount namespace of its own in which every mount is read-only.
- Privilege: under root it keeps uid 0 (the interpreter may sit where only
  root can read) but drops every capability for good; otherwise it enters
  a user namespace of its own first (unprivileged user namespaces), which
  is what lets it make the other two.

Where the host allows none of it (no root and user namespaces switched off)
the worker runs with its rlimits only and says so in `Sandbox.missing`."""

from __future__ import annotations

import ctypes
import os
import re
from dataclasses import dataclass, field

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_NOATIME, MS_NODIRATIME, MS_BIND = 32, 1024, 2048, 4096
MS_REC, MS_PRIVATE, MS_RELATIME = 16384, 1 << 18, 1 << 21
# statvfs flags -> mount flags a read-only remount must keep (a user
# namespace may not clear them).
_KEEP = ((os.ST_NOSUID, MS_NOSUID), (os.ST_NODEV, MS_NODEV), (os.ST_NOEXEC, MS_NOEXEC),
         (os.ST_NOATIME, MS_NOATIME), (os.ST_NODIRATIME, MS_NODIRATIME),
         (os.ST_RELATIME, MS_RELATIME))
PR_CAPBSET_DROP, PR_SET_SECUREBITS, PR_SET_NO_NEW_PRIVS = 24, 28, 38
SECBIT_NOROOT, SECBIT_NOROOT_LOCKED = 1, 2
_CAP_VERSION_3 = 0x20080522
_OCTAL = re.compile(r"\\([0-7]{3})")


@dataclass
class Sandbox:
    applied: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _unshare(flags: int) -> None:
    if _libc().unshare(flags) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


def _mount(target: str, flags: int) -> None:
    if _libc().mount(None, target.encode(), None, flags, None) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()), target)


def mount_points() -> list[str]:
    """Every mount point this process sees but autofs ones (looking at one
    can wait on a mount)."""
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as f:
        rows = [line.split() for line in f if line.strip()]
    points = [row[4] for row in rows if row[row.index("-") + 1] != "autofs"]
    # mountinfo escapes spaces and the like as octal: \040
    return [_OCTAL.sub(lambda m: chr(int(m.group(1), 8)), p) for p in points]


def read_only_mounts() -> int:
    """Remount every mount read-only in this (private) mount namespace;
    returns how many could not be (a mount hidden under another, say)."""
    _mount("/", MS_REC | MS_PRIVATE)
    failed = 0
    for point in mount_points():
        try:
            kept = os.statvfs(point).f_flag
            flags = MS_REMOUNT | MS_BIND | MS_RDONLY
            flags |= sum(ms for st, ms in _KEEP if kept & st)
            _mount(point, flags)
        except OSError:
            failed += 1
    return failed


def drop_capabilities() -> None:
    """Root keeps its uid (the interpreter may live where only root can
    read) but loses every capability, for good: no bounding set to regain
    them from, and an exec as uid 0 grants none (SECBIT_NOROOT)."""
    libc = _libc()
    libc.prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED, 0, 0, 0)
    for cap in range(64):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            break  # past the last capability this kernel knows
    header = (ctypes.c_uint32 * 2)(_CAP_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable x 2: all empty
    if libc.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)


def enter() -> Sandbox:
    """Cut this process off from the network and from writing files."""
    box = Sandbox()
    root = os.geteuid() == 0
    try:
        _unshare(CLONE_NEWNET | CLONE_NEWNS | (0 if root else CLONE_NEWUSER))
    except OSError:
        box.missing += ["network", "read-only files"]
    else:
        box.applied.append("network")
        try:
            failed = read_only_mounts()
            box.applied.append("read-only files")
            if failed:
                box.missing.append(f"{failed} mounts left writable")
        except OSError:
            box.missing.append("read-only files")
    if root:
        try:
            drop_capabilities()
            box.applied.append("no capabilities")
        except OSError:
            box.missing.append("no capabilities")
    return box

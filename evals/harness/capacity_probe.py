"""What bench/capacity.py reads beside the latencies: CPU seconds and memory
per process of one stack (its own process trees, never another stack's on a
shared machine), the whole machine's CPU, and the event stream's size."""

from __future__ import annotations

import os
import resource
from pathlib import Path
from typing import Any

import asyncpg
import nats

from engram_runner.stack import Stack

TICKS = os.sysconf("SC_CLK_TCK")
PROC = Path("/proc")
EVENTS_STREAM = "ENGRAM_EVENTS"


def _stat(pid: int) -> list[str] | None:
    try:
        return (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))):
            tree.setdefault(int(fields[1]), []).append(int(entry.name))
    return tree


def _tree(pid: int, tree: dict[int, list[int]]) -> list[int]:
    """`pid` and every process below it (Postgres' backends, a wrapper's child)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(tree.get(p, []))
    return out


def stack_roots(stack: Stack) -> dict[str, int]:
    """Every process the stack started, by name (a replica keeps its own name)."""
    roots = {name: proc.pid for name, proc in stack.procs.items() if proc.poll() is None}
    for name in ("postgres", "nats"):
        proc = stack.process(name)
        if proc is not None and proc.poll() is None:
            roots[name] = proc.pid
    return roots


def cpu_snapshot(stack: Stack) -> dict[str, float]:
    """CPU seconds so far (user + system) of each process tree of the stack."""
    tree, snap = _children(), {}
    for name, pid in stack_roots(stack).items():
        total = 0
        for p in _tree(pid, tree):
            if fields := _stat(p):
                total += int(fields[11]) + int(fields[12])
        snap[name] = total / TICKS
    return snap


def self_cpu_s() -> float:
    """The load generator's own CPU seconds (this process, all its threads)."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def machine_cpu() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot, all cores."""
    fields = [int(x) for x in (PROC / "stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    total = sum(fields[:8])  # guest time is already counted in user
    return (total - idle) / TICKS, total / TICKS


def _kib(path: Path, key: str) -> int:
    try:
        for line in path.read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def memory_mib(stack: Stack) -> dict[str, float]:
    """Proportional set size (shared pages split between their users, so
    Postgres' shared buffers count once) of each process tree, in MiB."""
    tree, out = _children(), {}
    for name, pid in stack_roots(stack).items():
        kib = sum(_kib(PROC / str(p) / "smaps_rollup", "Pss") for p in _tree(pid, tree))
        out[name] = round(kib / 1024, 1)
    return out


def delta(after: dict[str, float], before: dict[str, float]) -> dict[str, float]:
    return {k: after[k] - before.get(k, 0.0) for k in after}


async def stream_state(stack: Stack) -> dict[str, Any]:
    """The event stream's messages and bytes (as stored, with JetStream's
    per-message overhead: what its disk holds), per subject, and each
    consumer's backlog; read as the NATS admin user."""
    nc = await nats.connect(f"nats://127.0.0.1:{stack.topology.infra_ports['nats']}",
                            user="admin", password=stack.secrets["ENGRAM_NATS_ADMIN_PASSWORD"],
                            connect_timeout=5, max_reconnect_attempts=0)
    try:
        js = nc.jsm()
        info = await js.stream_info(EVENTS_STREAM, subjects_filter=">")
        consumers = {c.name: {"pending": c.num_pending, "ack_pending": c.num_ack_pending}
                     for c in await js.consumers_info(EVENTS_STREAM)}
    finally:
        await nc.close()
    return {"messages": info.state.messages, "bytes": info.state.bytes,
            "subjects": dict(info.state.subjects or {}), "consumers": consumers}


def stream_delta(after: dict[str, Any], before: dict[str, Any], writes: int) -> dict[str, Any]:
    messages = after["messages"] - before["messages"]
    size = after["bytes"] - before["bytes"]
    kinds = {subject: count - before["subjects"].get(subject, 0)
             for subject, count in after["subjects"].items()
             if count != before["subjects"].get(subject, 0)}
    return {"writes": writes, "events": messages, "bytes": size,
            "events_per_write": round(messages / writes, 3) if writes else None,
            "bytes_per_event": round(size / messages, 1) if messages else None,
            "bytes_per_write": round(size / writes, 1) if writes else None,
            "events_by_subject": kinds,
            "consumer_backlog_after": after["consumers"]}


async def table_bytes(dsn: str) -> dict[str, int]:
    """Bytes of every table of the services' schemas, with indexes and TOAST."""
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch(
            "SELECT n.nspname || '.' || c.relname AS name, pg_total_relation_size(c.oid) AS bytes"
            " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE c.relkind = 'r' AND n.nspname IN"
            " ('memory', 'cortex', 'dreamer', 'coordination')")
    finally:
        await conn.close()
    return {r["name"]: r["bytes"] for r in rows}


def growth_per_write(after: dict[str, int], before: dict[str, int], writes: int,
                     entry_tables: tuple[str, ...]) -> dict[str, Any]:
    """What the writes added to the database, per write: the entry itself
    (its row and postings, which bench_scale measures at size) and the rest
    (audit, versions, outbox, idempotency, what the dreamer and cortex wrote)."""
    grown = {k: v - before.get(k, 0) for k, v in after.items() if v != before.get(k, 0)}
    per = {k: round(v / max(writes, 1)) for k, v in sorted(grown.items(), key=lambda kv: -kv[1])}
    entry = sum(v for k, v in per.items() if k in entry_tables)
    return {"bytes_per_write": sum(per.values()), "entry_bytes_per_write": entry,
            "other_bytes_per_write": sum(per.values()) - entry, "by_table": per,
            "note": "8 KiB pages: a table that gained one page shows as 8192/writes"}

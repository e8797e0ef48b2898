"""`engram status`: each process of the running stack, from the state file
its `engram up` keeps (pid, start time, restarts, last exit), with readiness
probed live: a service's /readyz, Postgres accepting connections, NATS
greeting a client."""

from __future__ import annotations

import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from engram_cli.settings import CliSettings
from engram_runner import proctab
from engram_runner.infra import nats_answering, postgres_accepting
from engram_runner.stack import ready
from engram_runner.supervisor import Phase, load_state

NOT_RUNNING = 3  # as an init script's `status` says it
NOT_READY = 1


def probe(spec: dict[str, Any]) -> bool:
    kind = spec.get("kind")
    if kind == "postgres":
        return postgres_accepting(int(spec["port"]))
    if kind == "nats":
        return nats_answering(int(spec["port"]))
    return ready(str(spec.get("url", "")))


def _row(proc: dict[str, Any], ready: bool, now: float) -> dict[str, Any]:
    pid = proc.get("pid")
    running = proc.get("phase") == Phase.RUNNING and pid is not None and proctab.alive(pid)
    probe_spec = proc.get("probe", {})
    return {"name": proc["name"], "service": probe_spec.get("service") or proc["name"],
            "replica": probe_spec.get("replica", 0), "pid": pid if running else None,
            "uptime_s": round(now - proc["started_at"], 1) if running else None,
            "restarts": proc.get("restarts", 0), "ready": running and ready,
            "phase": proc.get("phase"), "last_exit": proc.get("last_exit", ""),
            "restart_in_s": proc.get("restart_in_s")}


def _uptime(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    s = int(seconds)
    return (f"{s // 86400}d{s % 86400 // 3600:02d}h" if s >= 86400 else
            f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s")


def _table(rows: list[dict[str, Any]]) -> str:
    lines = [f"{'NAME':<14}{'PID':>8}  {'UPTIME':>8}  {'RESTARTS':>8}  {'READY':<6}LAST EXIT"]
    for r in rows:
        ready = "yes" if r["ready"] else ("no" if r["pid"] else r["phase"] or "down")
        lines.append(f"{r['name']:<14}{r['pid'] or '-':>8}  {_uptime(r['uptime_s']):>8}  "
                     f"{r['restarts']:>8}  {ready:<6}{r['last_exit'] or '-'}")
    return "\n".join(lines) + "\n"


def run_status(settings: CliSettings, as_json: bool) -> int:
    data_dir = settings.data_dir.resolve()
    state, why = load_state(data_dir)
    if state is None:
        if as_json:
            sys.stdout.write(json.dumps({"running": False, "reason": why}) + "\n")
        sys.stderr.write(why + "\n")
        return NOT_RUNNING
    procs = state.get("processes", [])
    with ThreadPoolExecutor(max(1, len(procs))) as pool:
        ready = list(pool.map(lambda p: probe(p.get("probe", {})), procs))
    now = time.time()
    rows = [_row(p, r, now) for p, r in zip(procs, ready, strict=True)]
    all_ready = all(r["ready"] for r in rows)
    if as_json:
        sys.stdout.write(json.dumps({"running": True, "ready": all_ready,
                                     "supervisor_pid": state["supervisor"]["pid"],
                                     "processes": rows}, indent=2) + "\n")
    else:
        sys.stdout.write(_table(rows))
    return 0 if all_ready else NOT_READY

"""`engram up` brings back every process it started: Postgres (crash
recovery, a stale postmaster.pid does not block it), NATS (JetStream state
kept) and the services (with backoff); `engram status` reports them."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import nats
import pytest

from engram_runner.infra import EmbeddedPostgres, port_open
from engram_runner.settings import RunnerSettings
from engram_runner.stack import Stack
from engram_runner.supervisor import backoff_delay

from ..helpers import admin_fetchval, call, eventually, mcp_client
from ..procs import probe_port
from ..stacks import Variant, offset

OFFSET = offset(Variant.SUPERVISOR)
CLI = Path(sys.executable).parent / "engram"
RECORDED = "SELECT count(*) FROM dreamer.processed_events WHERE subject_id = $1"


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry))
    return found


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


class Up:
    """An `engram up` of its own; its output is collected in a thread."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.env = {**os.environ, "ENGRAM_PORT_OFFSET": str(OFFSET)}
        self.proc = subprocess.Popen([str(CLI), "up", "--data-dir", str(data_dir)],
                                     env=self.env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        self.view = Stack(RunnerSettings(data_dir=data_dir, port_offset=OFFSET))

    def _read(self) -> None:
        assert self.proc.stdout is not None  # stdout=PIPE
        for line in self.proc.stdout:
            self.lines.append(line)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def wait_for(self, text: str, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while text not in self.output:
            assert self.proc.poll() is None, f"engram up exited:\n{self.output}"
            assert time.monotonic() < deadline, f"no {text!r} within {timeout_s}s:\n{self.output}"
            time.sleep(0.2)

    def service_pid(self, module: str) -> int:
        """Found as an operator would: the child whose command line names its module."""
        pids = [p for p in _children(self.proc.pid) if f"-m {module}" in _cmdline(p)]
        assert len(pids) == 1, (module, pids)
        return pids[0]

    def status(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(CLI), "status", "--data-dir", str(self.data_dir), *args],
                              env=self.env, capture_output=True, text=True, timeout=60)


def _wait_new_pid(find: object, old: int, timeout_s: float, up: Up) -> int:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            pid = find()  # type: ignore[operator]
            if pid != old:
                return pid
        except (AssertionError, OSError, ValueError):
            pass
        assert time.monotonic() < deadline, f"not restarted within {timeout_s}s:\n{up.output}"
        time.sleep(0.2)


@pytest.fixture(scope="module")
def up(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Up]:
    running = Up(tmp_path_factory.mktemp("supervised"))
    try:
        running.wait_for("Ctrl-C stops the stack", 300)
        yield running
    finally:
        if running.proc.poll() is None:
            running.proc.send_signal(signal.SIGINT)
            try:
                running.proc.wait(120)
            except subprocess.TimeoutExpired:
                running.proc.kill()


def test_a_killed_service_is_restarted_with_backoff(up: Up):
    first = up.service_pid("engram_cortex")
    os.kill(first, signal.SIGKILL)
    second = _wait_new_pid(lambda: up.service_pid("engram_cortex"), first, 60, up)
    # Killed again at once: it did not stay up, so the next delay doubles.
    os.kill(second, signal.SIGKILL)
    _wait_new_pid(lambda: up.service_pid("engram_cortex"), second, 60, up)
    up.wait_for("cortex restarted", 30)
    exits = re.findall(r"cortex \(pid (\d+)\) exited: killed by signal 9 \(SIGKILL\).*"
                       r"restarting in ([\d.]+)s", up.output)
    assert [int(p) for p, _ in exits] == [first, second], up.output
    assert [float(d) for _, d in exits] == [0.5, 1.0], up.output
    up.view.wait_ready(["cortex"], 120)


async def test_killed_nats_comes_back_with_its_jetstream_state(up: Up):
    view = up.view
    token = (up.data_dir / "agent-token").read_text().strip()
    async with mcp_client(view.mcp_url, token) as client:
        before = await call(client, "memory_store",
                            {"text": "Supervisor check: the NATS canary is named finch-7."})
    dsn = view.postgres.admin_dsn
    await eventually(lambda: _recorded(dsn, before["id"]), 60, "the dreamer to see the event")
    stream_before = await _stream(view)
    old = _nats_pid(up)
    os.kill(old, signal.SIGKILL)
    _wait_new_pid(lambda: _nats_pid(up), old, 60, up)
    up.wait_for("nats restarted", 60)
    stream_after = await _stream(view)
    assert "dreamer" in stream_after["consumers"]
    assert stream_after["first_seq"] <= stream_before["last_seq"] <= stream_after["last_seq"]

    async def stored_after() -> dict:
        deadline = time.monotonic() + 120
        while True:
            try:
                async with mcp_client(view.mcp_url, token) as client:
                    return await call(client, "memory_store",
                                      {"text": "Supervisor check: after NATS, canary wren-3."})
            except Exception:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(1)

    after = await stored_after()
    await eventually(lambda: _recorded(dsn, after["id"]), 120,
                     "the dreamer to see an event written after NATS came back")


async def _recorded(dsn: str, subject: str) -> bool:
    return await admin_fetchval(dsn, RECORDED, subject) == 1


def _nats_pid(up: Up) -> int:
    pids = [p for p in _children(up.proc.pid) if "nats-server" in _cmdline(p)]
    assert len(pids) == 1, pids
    return pids[0]


async def _stream(view: Stack) -> dict:
    nc = await nats.connect(f"nats://127.0.0.1:{view.topology.infra_ports['nats']}",
                            user="admin", password=view.secrets["ENGRAM_NATS_ADMIN_PASSWORD"],
                            connect_timeout=5, max_reconnect_attempts=0)
    try:
        js = nc.jetstream(timeout=10)
        info = await js.stream_info("ENGRAM_EVENTS")
        consumers = [c.name for c in await js.consumers_info("ENGRAM_EVENTS")]
        return {"first_seq": info.state.first_seq, "last_seq": info.state.last_seq,
                "consumers": consumers}
    finally:
        await nc.close()


def _kill_postgres(pgdata: Path, lock_pid: int | None = None) -> int:
    """SIGKILL the postmaster and its backends, as a crash would; with
    `lock_pid`, its postmaster.pid is left naming that (live) process."""
    lock = pgdata / "postmaster.pid"
    lines = lock.read_text().splitlines(keepends=True)
    postmaster = int(lines[0])
    if lock_pid is not None:
        lock.write_text("".join([f"{lock_pid}\n", *lines[1:]]))
    victims = [postmaster, *_children(postmaster)]
    for pid in victims:
        os.kill(pid, signal.SIGKILL)
    return postmaster


async def test_killed_postgres_comes_back_despite_a_stale_lock(up: Up):
    view = up.view
    token = (up.data_dir / "agent-token").read_text().strip()
    unrelated = subprocess.Popen(["sleep", "600"])
    try:
        old = _kill_postgres(view.postgres.pgdata, lock_pid=unrelated.pid)
        deadline = time.monotonic() + 180
        while True:
            try:
                async with mcp_client(view.mcp_url, token) as client:
                    stored = await call(client, "memory_store",
                                        {"text": "Supervisor check: after Postgres, heron-9."})
                break
            except Exception as exc:  # refused or retryable until Postgres is back
                assert time.monotonic() < deadline, \
                    f"no write within 180s, last error {exc!r}:\n{up.output}"
                await asyncio.sleep(1)
        assert unrelated.poll() is None  # the process the stale lock named is untouched
    finally:
        unrelated.kill()
        unrelated.wait()
    assert int((view.postgres.pgdata / "postmaster.pid").read_text().split()[0]) != old
    async with mcp_client(view.mcp_url, token) as client:
        found = await call(client, "memory_search", {"query": "after Postgres heron-9"})
    assert found["entries"][0]["id"] == stored["id"]
    assert re.search(r"postgres \(pid \d+\) exited: killed by signal 9", up.output), up.output


def test_status_shows_every_process_with_restarts(up: Up):
    expected = {"postgres", "nats", "embedder", "memory", "cortex", "dreamer",
                "coordination", "gateway"}
    deadline = time.monotonic() + 180
    while True:
        done = up.status("--json")
        if done.returncode == 0:
            break
        assert time.monotonic() < deadline, done.stdout + done.stderr
        time.sleep(1)
    report = json.loads(done.stdout)
    rows = {p["name"]: p for p in report["processes"]}
    assert set(rows) == expected
    for name, row in rows.items():
        assert row["ready"] is True, row
        assert row["pid"] > 0 and row["uptime_s"] >= 0, row
        if name not in ("postgres", "nats"):
            assert f"engram_{name}" in _cmdline(row["pid"])
    assert rows["cortex"]["restarts"] >= 2
    assert rows["nats"]["restarts"] >= 1 and rows["postgres"]["restarts"] >= 1
    assert rows["postgres"]["last_exit"] == "killed by signal 9 (SIGKILL)"
    assert rows["gateway"]["restarts"] == 0
    table = up.status()
    assert table.returncode == 0, table.stderr
    header, *lines = table.stdout.strip().splitlines()
    assert header.split()[:5] == ["NAME", "PID", "UPTIME", "RESTARTS", "READY"]
    assert {line.split()[0] for line in lines} == expected

    up.proc.send_signal(signal.SIGINT)
    up.proc.wait(120)
    stopped = up.status()
    assert stopped.returncode == 3
    assert "not running" in stopped.stderr


def test_status_of_a_stack_that_never_ran(tmp_path: Path):
    done = subprocess.run([str(CLI), "status", "--data-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 3 and "not running" in done.stderr


def test_a_stale_postmaster_pid_naming_a_live_process_does_not_block_start(tmp_path: Path):
    """A crash leaves postmaster.pid behind; when its PID now belongs to an
    unrelated live process, Postgres itself refuses to start."""
    postgres = EmbeddedPostgres(tmp_path, probe_port(), "pw", RunnerSettings().postgres_base)
    postgres.start()
    unrelated = subprocess.Popen(["sleep", "600"])
    try:
        _kill_postgres(postgres.pgdata, lock_pid=unrelated.pid)
        deadline = time.monotonic() + 30
        while port_open(postgres.port):
            assert time.monotonic() < deadline
            time.sleep(0.1)
        postgres.start()
        assert unrelated.poll() is None
        # A lock naming a live Postgres of this data dir is respected.
        second = EmbeddedPostgres(tmp_path, probe_port(), "pw", RunnerSettings().postgres_base)
        with pytest.raises(RuntimeError):
            second.start()
        assert port_open(postgres.port)
    finally:
        unrelated.kill()
        unrelated.wait()
        postgres.stop()


def test_restart_delay_doubles_up_to_its_cap():
    settings = RunnerSettings(restart_backoff_initial_s=0.5, restart_backoff_max_s=30)
    delays = [backoff_delay(settings, n) for n in (1, 2, 3, 4, 7, 8, 10_000)]
    assert delays == [0.5, 1.0, 2.0, 4.0, 30.0, 30.0, 30.0]

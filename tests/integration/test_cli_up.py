"""`engram up` (what `make up` runs): prints ready + the MCP URL and the
first token with the claude line; takes the scheduled backups it was asked
for, rotated here and in the --to copy; Ctrl-C stops every child cleanly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from engram_runner.infra import port_open

from ..stacks import Variant, offset

OFFSET = offset(Variant.CLI_UP)


def test_engram_up_prints_ready_and_stops_cleanly_on_ctrl_c(tmp_path: Path):
    cli = Path(sys.executable).parent / "engram"
    env = {**os.environ, "ENGRAM_PORT_OFFSET": str(OFFSET),
           "ENGRAM_BACKUP_PASSPHRASE": "a passphrase for the test"}
    off_disk = tmp_path.parent / f"{tmp_path.name}-off-disk"
    # Every 3.6 s: the schedule's wiring, with the rotation's hours left to
    # test_backup_verify's injected clock.
    proc = subprocess.Popen([str(cli), "up", "--data-dir", str(tmp_path), "--backup-every",
                             "0.001", "--keep", "2", "--to", str(off_disk)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None  # stdout=PIPE
    lines: list[str] = []
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            if "Ctrl-C stops the stack" in line:
                break
        output = "".join(lines)
        assert "ready" in output and f"http://127.0.0.1:{8750 + OFFSET}/mcp" in output
        assert "engram connect claude-code --url" in output and "--token-file" in output
        token = (tmp_path / "agent-token").read_text().strip()
        assert token in output
        # Shown once on a line of its own, never inside a command to paste.
        assert [line.strip() for line in output.splitlines() if token in line] == [token]
        assert port_open(8750 + OFFSET)
        while time.monotonic() < deadline and "".join(lines).count(
                "scheduled backup written") < 3:
            lines.append(proc.stdout.readline())
        assert "".join(lines).count("scheduled backup written") == 3, "".join(lines[-20:])
        proc.send_signal(signal.SIGINT)
        rest, _ = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, rest
    assert "stopped" in rest
    # Counted once stopped: a backup under way when Ctrl-C came has finished.
    assert len(list((tmp_path / "backups").glob("engram-*.dump"))) == 2
    assert len(list(off_disk.glob("engram-*.keys"))) == 2
    for base in (8750, 8751, 8752, 8753, 8754, 8755, 8756, 8757):
        assert not port_open(base + OFFSET), f"port {base + OFFSET} still open after Ctrl-C"

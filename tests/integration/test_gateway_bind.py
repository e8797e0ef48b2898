"""The gateway will not listen beyond loopback while no token exists: the
MCP endpoint would be open to anyone on the network."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from engram_runner.stack import Stack


def gateway(stack: Stack, host: str, tokens: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, **stack.topology.services["gateway"].env,
           "ENGRAM_HTTP_HOST": host, "ENGRAM_HTTP_PORT": "0",
           "ENGRAM_TOKENS_FILE": str(tokens)}
    return subprocess.run([sys.executable, "-m", "engram_gateway"], env=env, timeout=60,
                          capture_output=True, text=True)


def test_a_non_loopback_bind_without_tokens_is_refused(stack: Stack, tmp_path: Path):
    for host in ("0.0.0.0", "::", "192.0.2.10"):
        done = gateway(stack, host, tmp_path / "no-principals.json")
        assert done.returncode != 0
        assert f"refusing to bind {host}: no tokens are configured" in done.stderr
        assert "Traceback" not in done.stderr

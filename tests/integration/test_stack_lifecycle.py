"""The stack starts from a fresh data directory and again from an existing
one, keeping data and tokens; `engram token create` works while it is down."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from engram_runner.settings import RunnerSettings
from engram_runner.stack import Stack

from ..helpers import call, mcp_client
from ..stacks import Variant, offset

OFFSET = offset(Variant.LIFECYCLE)


async def test_fresh_then_existing_data_directory(tmp_path: Path):
    settings = RunnerSettings(data_dir=tmp_path / "data", port_offset=OFFSET)
    first = Stack(settings)
    first.start()
    try:
        token = first.first_token
        assert token
        token_file = tmp_path / "data" / "agent-token"
        assert token_file.read_text().strip() == token
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        assert stat.S_IMODE((tmp_path / "data" / "secrets.json").stat().st_mode) == 0o600
        async with mcp_client(first.mcp_url, token) as client:
            stored = await call(client, "memory_store",
                                {"text": "Persistence check: the build cache is in /srv/cache."})
    finally:
        first.stop()

    second = Stack(settings)
    second.start()
    try:
        assert second.first_token is None  # no new token on an existing data dir
        async with mcp_client(second.mcp_url, token) as client:
            found = await call(client, "memory_search", {"query": "where is the build cache?"})
        assert found["entries"][0]["id"] == stored["id"]
    finally:
        second.stop()


def test_token_create_cli_works_without_a_running_stack(tmp_path: Path):
    cli = Path(sys.executable).parent / "engram"
    out = subprocess.run(
        [str(cli), "token", "create", "--principal", "ci-bot", "--role", "reviewer",
         "--namespace", "alpha", "--namespace", "beta", "--data-dir", str(tmp_path)],
        capture_output=True, text=True, check=True, env={**os.environ},
    )
    token = out.stdout.strip().splitlines()[-1]
    assert token.startswith("eg_") and len(token) > 40
    principals = (tmp_path / "principals.json").read_text()
    assert token not in principals  # stored hashed only
    assert "ci-bot" in principals and "beta" in principals
    bad = subprocess.run(
        [str(cli), "token", "create", "--principal", "x", "--role", "king", "--namespace", "a",
         "--data-dir", str(tmp_path)], capture_output=True, text=True)
    assert bad.returncode == 2 and "invalid choice" in bad.stderr

"""Backup and restore round trip on a stack of its own: what a backup holds
comes back exactly after a restore, later changes are undone, old backups
rotate out with their keys files, and a restore into a data directory that
lost its secrets brings them back from the keys file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from engram_runner.settings import RunnerSettings
from engram_runner.stack import Stack

from ..helpers import call, call_error, mcp_client
from ..stacks import Variant, offset

OFFSET = offset(Variant.BACKUP)
KEY_FILE_TEXT = "a key file the operator keeps elsewhere\n"


def engram(data_dir: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engram_cli", *args, "--data-dir",
                           str(data_dir)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "ENGRAM_PORT_OFFSET": str(OFFSET)})


async def test_backup_restore_round_trip_and_rotation(tmp_path: Path):
    data = tmp_path / "data"
    key_file = tmp_path / "backup.key"
    key_file.write_text(KEY_FILE_TEXT)
    settings = RunnerSettings(data_dir=data, port_offset=OFFSET)
    stack = Stack(settings)
    stack.start()
    try:
        token = stack.first_token
        assert token, "a fresh data directory mints the first agent token"
        async with mcp_client(stack.mcp_url, token) as client:
            kept = await call(client, "memory_store",
                              {"text": "Backup check: the release train leaves on Thursdays."})
            await call(client, "fact_set", {"entity": "release-train", "attribute": "day",
                                            "value": "Thursday"})
        for _ in range(3):
            done = engram(data, "backup", "--keep", "2", "--key-file", str(key_file))
            assert done.returncode == 0, done.stderr
        backups = sorted((data / "backups").glob("engram-*.dump"))
        assert len(backups) == 2, "older backups rotate out"
        assert sorted((data / "backups").glob("engram-*.keys")) == [
            b.with_suffix(".keys") for b in backups], "each with its keys file"
        async with mcp_client(stack.mcp_url, token) as client:
            await call(client, "memory_forget", {"entry_id": kept["id"], "reason": "test"})
            await call(client, "fact_set", {"entity": "release-train", "attribute": "day",
                                            "value": "Friday", "replaces": True})
        refused = engram(data, "restore", str(backups[-1]))
        assert refused.returncode == 2 and "stop the stack" in refused.stderr
    finally:
        stack.stop()

    # The data directory lost its secrets and principals (the database stays):
    # the restore takes them from the keys file, which opens only with the key.
    lost = {n: (data / n).read_text() for n in ("secrets.json", "principals.json")}
    for name in lost:
        (data / name).unlink()
    locked = engram(data, "restore", str(backups[-1]))
    assert locked.returncode == 2 and "ENGRAM_BACKUP_PASSPHRASE" in locked.stderr
    assert not (data / "secrets.json").exists(), "nothing minted in their place"
    restored = engram(data, "restore", str(backups[-1]), "--key-file", str(key_file))
    assert restored.returncode == 0, restored.stderr
    assert {n: (data / n).read_text() for n in lost} == lost
    again = Stack(settings)
    again.start()
    try:
        async with mcp_client(again.mcp_url, token) as client:
            got = await call(client, "memory_get", {"id": kept["id"]})
            assert got["text"].startswith("Backup check")
            fact = await call(client, "fact_get", {"entity": "release-train",
                                                   "attribute": "day"})
            assert [f["value"] for f in fact["current"]] == ["Thursday"]
            err = await call_error(client, "memory_get", {"id": "not-an-id"})
            assert "entry id" in err
        missing = engram(data, "restore", str(tmp_path / "nope.dump"))
        assert missing.returncode == 2 and "no backup file" in missing.stderr
    finally:
        again.stop()

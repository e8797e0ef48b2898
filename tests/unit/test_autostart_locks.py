"""The data dir's locks that `engram up`, `engram down` and `engram
mcp-stdio --data-dir` agree through: one holder, its pid readable, gone with
the holder's descriptor (as with the process)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engram_runner import autostart
from engram_runner.autostart import UP_LOCK, hold_up_lock, stop_stack, up_lock_holder


def test_one_engram_up_per_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(autostart, "UP_LOCK_WAIT_S", 0.2)
    assert up_lock_holder(tmp_path) is None  # no lock file yet
    fd = hold_up_lock(tmp_path)
    assert fd is not None
    try:
        assert up_lock_holder(tmp_path) == os.getpid()
        assert hold_up_lock(tmp_path) is None, "a second engram up must be refused"
        assert (tmp_path / UP_LOCK).stat().st_mode & 0o777 == 0o600
    finally:
        os.close(fd)
    assert up_lock_holder(tmp_path) is None, "the lock goes with its holder"
    assert stop_stack(tmp_path, 1.0) == f"no engram stack runs on {tmp_path}"


def test_a_planted_link_is_not_followed(tmp_path: Path):
    (tmp_path / UP_LOCK).symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OSError):
        hold_up_lock(tmp_path)
    assert not (tmp_path / "elsewhere").exists()

"""PrincipalStore.verify_async: on the loop while the file is unchanged, and
every change (a new token, a revoked one) seen by the next check."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from engram_kit.principals import Principal, PrincipalStore


def name(principal: Principal | None) -> str | None:
    return None if principal is None else principal.name


async def test_an_unchanged_store_answers_without_a_thread(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    store = PrincipalStore(tmp_path / "tokens.json")
    token = store.create("alice", "agent", ["work"])
    assert name(await store.verify_async(token)) == "alice"  # first read: on a thread

    def no_thread(*_: object, **__: object) -> None:
        raise AssertionError("went to a thread with the file unchanged")

    monkeypatch.setattr(asyncio, "to_thread", no_thread)
    assert name(await store.verify_async(token)) == "alice"
    assert await store.verify_async("eg_not-a-token") is None


async def test_a_change_to_the_file_is_seen_at_the_next_check(tmp_path: Path) -> None:
    writer, reader = PrincipalStore(tmp_path / "t.json"), PrincipalStore(tmp_path / "t.json")
    first = writer.create("alice", "agent", ["work"])
    assert await reader.verify_async(first) is not None
    second = writer.create("bob", "agent", ["work"])  # another process mints a token
    assert name(await reader.verify_async(second)) == "bob"
    writer.revoke("alice")
    assert await reader.verify_async(first) is None
    (tmp_path / "t.json").unlink()
    assert await reader.verify_async(second) is None

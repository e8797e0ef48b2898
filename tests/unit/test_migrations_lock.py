"""Landed migrations are frozen: every migrations directory carries a
migrations.lock with each file's sha256, and the texts a file had before
(superseded) are recorded so databases built from them still start."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from engram_kit.migrate import (
    LOCK_NAME,
    MigrationChanged,
    check_against_lock,
    load_lock,
    load_migrations,
)

ROOT = Path(__file__).resolve().parents[2]
DIRS = sorted(ROOT.glob("services/*/engram_*/migrations"))
SUPERSEDED = ROOT / "tests" / "fixtures" / "superseded_migrations"


def test_every_service_with_migrations_has_a_lock() -> None:
    assert len(DIRS) == 4
    for d in DIRS:
        assert (d / LOCK_NAME).is_file(), f"{d} has no {LOCK_NAME}"


@pytest.mark.parametrize("directory", DIRS, ids=lambda d: d.parent.name)
def test_landed_files_match_their_lock(directory: Path) -> None:
    lock = load_lock(directory)
    on_disk = {p.name: hashlib.sha256(p.read_text().encode()).hexdigest()
               for p in directory.glob("*.sql")}
    missing = sorted(set(lock) - set(on_disk))
    assert not missing, f"landed migrations removed: {missing}"
    unlocked = sorted(set(on_disk) - set(lock))
    assert not unlocked, (f"{unlocked} not in {directory / LOCK_NAME}: record them with "
                          "`make migrations-lock` when they land")
    changed = sorted(name for name, sha in on_disk.items() if lock[name]["sha256"] != sha)
    assert not changed, (f"landed migrations changed: {changed}; restore them and add a "
                         "new numbered migration instead")


def test_superseded_checksums_are_those_of_the_earlier_texts() -> None:
    """Each superseded checksum is the sha256 of a text the file really had
    (kept under tests/fixtures), and every kept text is recorded."""
    recorded = {(d.parent.name.removeprefix("engram_"), name, sha)
                for d in DIRS for name, entry in load_lock(d).items()
                for sha in entry.get("superseded", {})}
    kept = set()
    for path in SUPERSEDED.glob("*/*.sql"):
        name = path.name.split(".")[0] + ".sql"
        kept.add((path.parent.name, name, hashlib.sha256(path.read_text().encode()).hexdigest()))
    assert recorded == kept
    assert len(kept) == 5


def test_an_edited_landed_file_is_refused(tmp_path: Path) -> None:
    source = next(d for d in DIRS if d.parent.name == "engram_dreamer")
    for path in source.glob("*"):
        (tmp_path / path.name).write_text(path.read_text())
    edited = tmp_path / "0002_passes.sql"
    edited.write_text(edited.read_text() + "\n-- an afterthought\n")
    with pytest.raises(MigrationChanged, match="0002_passes.sql differs from its checksum"):
        check_against_lock(tmp_path, load_migrations(tmp_path), load_lock(tmp_path))


def test_the_migrate_job_reports_a_changed_migration_without_a_traceback(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from engram_runner import migrate as job

    async def refused(_settings: object) -> dict[str, list[int]]:
        raise MigrationChanged("migration dreamer/0002_passes.sql was applied ...")

    monkeypatch.setattr(job, "migrate_all", refused)
    monkeypatch.setattr(job, "MigrateSettings", lambda: None)
    assert job.main() == 2
    err = capsys.readouterr().err
    assert err.startswith("error: migration dreamer/0002_passes.sql") and "Traceback" not in err

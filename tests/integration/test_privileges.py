"""Files and privileges of an embedded stack started the way `engram up`
starts it (these tests run as root here, so the Postgres OS user is a
different user): no parent directory of the data dir is loosened, what the
stack writes is owner-only, service logs do not follow planted symlinks,
and no service process holds the Postgres superuser's credentials."""

from __future__ import annotations

import os
import pwd
import stat
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest
from pydantic import SecretStr

from engram_cli.backup.archive import run_backup
from engram_cli.portable.command import run_export
from engram_runner.pgdirs import PG_OS_USER, ensure_os_user, os_user_for
from engram_runner.settings import RunnerSettings
from engram_runner.stack import Stack

from ..helpers import call, cli_settings, mcp_client
from ..stacks import Variant, offset, running
from ..stacks import settings as stack_settings

OFFSET = offset(Variant.PRIVILEGES)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


@pytest.fixture(scope="module")
def private_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Stack, dict]]:
    """A stack whose data dir sits under a 0700 parent (as ~/.engram under
    /root does), with the mode and owner of every parent recorded first."""
    parent = tmp_path_factory.mktemp("private")
    parent.chmod(0o700)
    chain = [parent, *parent.parents]
    before = {p: (mode(p), p.lstat().st_uid) for p in chain}
    with running(Variant.PRIVILEGES, parent / "data") as s:
        yield s, before


def test_no_parent_of_the_data_dir_changes_mode(private_stack: tuple[Stack, dict]):
    _, before = private_stack
    after = {p: (mode(p), p.lstat().st_uid) for p in before}
    assert after == before


def test_data_dir_and_logs_are_owner_only(private_stack: tuple[Stack, dict]):
    stack, _ = private_stack
    data = stack.data_dir
    assert mode(data) == 0o700
    for name in ("secrets.json", "principals.json", "agent-token"):
        assert mode(data / name) == 0o600, name
    logs = data / "logs"
    # The Postgres OS user can neither write here nor plant links for root to follow.
    assert (mode(logs), logs.lstat().st_uid) == (0o700, os.geteuid())
    if os.geteuid() == 0:  # Postgres runs as another user and logs in its own directory
        assert not (logs / "postgres.log").exists()
    for log in logs.iterdir():
        assert log.lstat().st_uid == os.geteuid() and mode(log) == 0o600, log


def test_backups_and_exports_are_owner_only(private_stack: tuple[Stack, dict],
                                            tmp_path: Path):
    stack, _ = private_stack
    settings = cli_settings(stack, backup_passphrase=SecretStr("a passphrase for the test"))
    assert run_backup(settings, "", 2) == 0
    backups = stack.data_dir / "backups"
    assert mode(backups) == 0o700
    dumps = list(backups.glob("engram-*.dump"))
    assert dumps and all(mode(d) == 0o600 for d in dumps)
    assert all(mode(d.with_suffix(".keys")) == 0o600 for d in dumps)
    elsewhere = tmp_path / "offsite" / "dumps"
    assert run_backup(settings, str(elsewhere), 2) == 0
    assert mode(elsewhere) == 0o700
    assert all(mode(d) == 0o600 for d in elsewhere.iterdir())
    out = tmp_path / "all.jsonl"
    assert run_export(cli_settings(stack), "", [], str(out)) == 0
    assert mode(out) == 0o600


def test_a_symlink_planted_in_the_log_dir_is_not_followed(private_stack: tuple[Stack, dict],
                                                         tmp_path: Path):
    stack, _ = private_stack
    target = tmp_path / "elsewhere.txt"
    target.write_text("")
    log = stack.data_dir / "logs" / "gateway.log"
    stack.stop_service("gateway")
    log.unlink()
    log.symlink_to(target)
    try:
        with pytest.raises(RuntimeError, match="symlink"):
            stack.start_service("gateway")
    finally:
        log.unlink()
        stack.start_service("gateway")
        stack.wait_ready(["gateway"], 120)
    assert target.read_text() == ""


async def test_services_hold_no_superuser_credentials(private_stack: tuple[Stack, dict]):
    stack, _ = private_stack
    password = stack.secrets["POSTGRES_PASSWORD"].encode()
    for name, proc in stack.procs.items():
        environ = Path(f"/proc/{proc.pid}/environ").read_bytes()
        assert password not in environ, f"{name} holds the superuser password"
        assert b"ENGRAM_ADMIN_DATABASE_URL" not in environ, name
    conn = await asyncpg.connect(stack.postgres.admin_dsn)
    try:
        rows = await conn.fetch(
            "SELECT a.application_name, r.rolsuper, r.rolbypassrls FROM pg_stat_activity a"
            " JOIN pg_roles r ON r.rolname = a.usename"
            " WHERE a.application_name = ANY($1::text[])",
            ["memory", "cortex", "dreamer", "coordination"])
    finally:
        await conn.close()
    assert {r["application_name"] for r in rows} == {"memory", "cortex", "dreamer",
                                                      "coordination"}
    assert not any(r["rolsuper"] or r["rolbypassrls"] for r in rows)


def test_the_database_lives_in_a_directory_of_its_own(private_stack: tuple[Stack, dict]):
    stack, _ = private_stack
    if os.geteuid() != 0:
        pytest.skip("only root runs Postgres as a separate OS user")
    home = stack.postgres.home
    assert home.lstat().st_uid != 0 and mode(home) == 0o700
    for base in (home.parent, home.parent.parent):
        assert (base.lstat().st_uid, mode(base)) == (0, 0o711)


def proc_uid(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("Uid:")).split()[1])


def test_each_stacks_database_runs_as_an_os_user_of_its_own(
        private_stack: tuple[Stack, dict], stack: Stack):
    """Two stacks on one host: each Postgres runs as its own OS user and owns
    only its own directory, so one cannot read the other's files."""
    if os.geteuid() != 0:
        pytest.skip("only root runs Postgres as a separate OS user")
    users = []
    for s in (private_stack[0], stack):
        assert s.postgres.proc is not None
        uid = proc_uid(s.postgres.proc.pid)
        assert s.postgres.home.lstat().st_uid == uid
        users.append(pwd.getpwuid(uid).pw_name)
    assert users[0] != users[1] and PG_OS_USER not in users, users
    assert users == [os_user_for(s.postgres.home) for s in (private_stack[0], stack)]


def test_a_base_the_database_user_cannot_reach_is_refused_not_opened(tmp_path: Path):
    if os.geteuid() != 0:
        pytest.skip("only root runs Postgres as a separate OS user")
    closed = Path(os.environ["ENGRAM_POSTGRES_BASE"]) / "closed"
    closed.mkdir(mode=0o700)
    settings = RunnerSettings(data_dir=tmp_path / "data", port_offset=OFFSET,
                           postgres_base=closed / "base")
    with pytest.raises(RuntimeError, match=f"{closed} .*closed to other users"):
        Stack(settings).start()
    assert mode(closed) == 0o700 and not (closed / "base").exists()


async def test_a_data_dir_laid_out_by_an_older_version_is_taken_over(tmp_path: Path):
    """Earlier versions kept the cluster in <data dir>/postgres, lent the
    logs dir to the Postgres OS user and ran every stack's database as one
    shared user: the next start moves the cluster into the database's own
    directory, gives it to the stack's own user and takes the logs dir back."""
    if os.geteuid() != 0:
        pytest.skip("only root runs Postgres as a separate OS user")
    settings = stack_settings(Variant.PRIVILEGES_SECOND, tmp_path / "data")
    first = Stack(settings)
    first.start()
    token = first.first_token
    assert token, "a fresh data directory mints the first agent token"
    try:
        async with mcp_client(first.mcp_url, token) as client:
            stored = await call(client, "memory_store",
                                {"text": "Upgrade check: the staging database is on host db-7."})
    finally:
        first.stop()
    pg_user = ensure_os_user(PG_OS_USER)  # the one user earlier versions shared
    logs = first.data_dir / "logs"
    first.postgres.pgdata.rename(first.data_dir / "postgres")
    for path in (first.data_dir / "postgres", first.postgres.home):
        for top, dirs, files in os.walk(path):
            for name in dirs + files:
                os.lchown(os.path.join(top, name), pg_user.pw_uid, pg_user.pw_gid)
        os.lchown(path, pg_user.pw_uid, pg_user.pw_gid)
    os.chown(logs, pg_user.pw_uid, pg_user.pw_gid)

    second = Stack(settings)
    second.start()
    try:
        async with mcp_client(second.mcp_url, token) as client:
            found = await call(client, "memory_search", {"query": "where is the staging db?"})
        assert found["entries"][0]["id"] == stored["id"]
        assert not (second.data_dir / "postgres").exists()
        assert (second.postgres.pgdata / "PG_VERSION").exists()
        assert (mode(logs), logs.lstat().st_uid) == (0o700, 0)
        own = pwd.getpwnam(os_user_for(second.postgres.home)).pw_uid
        assert second.postgres.home.lstat().st_uid == own
        assert all(os.lstat(os.path.join(top, n)).st_uid == own
                   for top, dirs, files in os.walk(second.postgres.pgdata) for n in dirs + files)
    finally:
        second.stop()

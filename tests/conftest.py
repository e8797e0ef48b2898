"""Two tiers: tests/unit runs no process and no stack (seconds: `make
test-unit`); tests/integration runs the real stack. The stack fixture starts
it from the same code as `engram up` (engram_runner.stack.Stack), on ports
shifted by 100 so it does not collide with a stack a developer has running."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engram_runner.pgdirs import DEFAULT_BASE, ensure_base, os_user_for
from engram_runner.stack import Stack

from .stacks import Variant, offset, running

UNIT = Path(__file__).parent / "unit"
# Fixtures that start or reach a running stack: no unit test may use them.
STACK_FIXTURES = {"stack", "agent_token", "admin_dsn"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Each test is marked by its tier (`-m unit` / `-m integration`); a unit
    test that asks for the stack is a misplaced test, refused at collection."""
    for item in items:
        unit = UNIT in Path(str(item.fspath)).parents
        item.add_marker(pytest.mark.unit if unit else pytest.mark.integration)
        used = STACK_FIXTURES & set(getattr(item, "fixturenames", ()))
        if unit and used:
            raise pytest.UsageError(f"{item.nodeid} is a unit test but uses {sorted(used)}: "
                                    "move it to tests/integration")


TEST_PORT_OFFSET = offset(Variant.SESSION)
USERDEL_TRIES = 30
USER_BUSY = 8  # userdel's status while a process still runs as the user


# Run as root, a stack keeps its database in a directory of the Postgres OS
# user under ENGRAM_POSTGRES_BASE, outside the data dir: the test stacks of
# this run (and the `engram` commands they start) share a base of their own,
# which goes with the run.
_OWN_PG_BASE = os.geteuid() == 0 and "ENGRAM_POSTGRES_BASE" not in os.environ
if _OWN_PG_BASE:
    os.environ["ENGRAM_POSTGRES_BASE"] = str(DEFAULT_BASE / f"tests-{os.getpid()}")


@pytest.fixture(scope="session", autouse=True)
def postgres_base() -> Iterator[None]:
    if not _OWN_PG_BASE:
        yield
        return
    base = Path(os.environ["ENGRAM_POSTGRES_BASE"])
    ensure_base(base.parent)
    ensure_base(base)
    try:
        yield
    finally:
        # Each test stack's database had an OS user of its own: they go too.
        homes = [home for home in base.iterdir() if home.is_dir()]
        shutil.rmtree(base, ignore_errors=True)
        for home in homes:
            remove_os_user(os_user_for(home))


def remove_os_user(name: str) -> None:
    """`userdel`, waiting out a database still shutting down (status 8: the
    user still runs a process)."""
    for _ in range(USERDEL_TRIES):
        if subprocess.run(["userdel", name], capture_output=True).returncode != USER_BUSY:
            return
        time.sleep(1.0)


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    data_dir: Path = tmp_path_factory.mktemp("engram-data")
    with running(Variant.SESSION, data_dir) as s:
        yield s


@pytest.fixture(scope="session")
def agent_token(stack: Stack) -> str:
    assert stack.first_token, "a fresh data directory must mint the first agent token"
    return stack.first_token


@pytest.fixture(scope="session")
def admin_dsn(stack: Stack) -> str:
    return stack.postgres.admin_dsn

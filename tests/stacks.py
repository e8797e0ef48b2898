"""Every stack the integration tier starts, by name: the session stack the
tests share (tests/conftest.py) and the ones a module starts for itself
(a second stack to import into, replicas, outages, ...). Each has its port
offset here, held apart from the others (tests/unit/test_stack_variants.py),
and `running` starts and stops one the way `engram up` does."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Any

from engram_runner.settings import RunnerSettings
from engram_runner.stack import Stack

# ENGRAM_TEST_PORT_SHIFT moves every test stack, so two test runs can share a
# machine (and a developer's `make up` stays on the default ports).
PORT_SHIFT = int(os.environ.get("ENGRAM_TEST_PORT_SHIFT", "0"))
# A stack's widest block of published ports (gateway to ops, 8750-8765):
# offsets this far apart never share a port.
PORT_SPAN = 20


class Variant(StrEnum):
    SESSION = "session"  # the stack every integration test shares
    LIFECYCLE = "lifecycle"  # started, stopped and started again on one data dir
    PRIVILEGES = "privileges"  # its data dir under a 0700 parent
    PRIVILEGES_SECOND = "privileges-second"  # a second stack's own database user
    CLI_UP = "cli-up"  # `engram up` in a subprocess
    BACKUP = "backup"  # backed up, wiped, restored
    PORTABLE = "portable"  # the import target of an export
    IMPORT_TARGET = "import-target"  # the import checks' target
    OUTAGES = "outages"  # Postgres and NATS killed under it
    SUPERVISOR = "supervisor"  # `engram up`'s supervisor restarting services
    UPGRADE = "upgrade"  # started on an older release's database
    STDIO_AUTOSTART = "stdio-autostart"  # started by `engram mcp-stdio`
    REPLICAS = "replicas"  # several replicas of the stateless services


OFFSETS: dict[Variant, int] = {
    Variant.SESSION: 100,
    Variant.LIFECYCLE: 150,
    Variant.PRIVILEGES: 170,
    Variant.PRIVILEGES_SECOND: 190,
    Variant.CLI_UP: 210,
    Variant.BACKUP: 250,
    Variant.PORTABLE: 280,
    Variant.IMPORT_TARGET: 320,
    Variant.OUTAGES: 350,
    Variant.SUPERVISOR: 370,
    Variant.UPGRADE: 390,
    Variant.STDIO_AUTOSTART: 420,
    Variant.REPLICAS: 450,
}


def offset(variant: Variant) -> int:
    return OFFSETS[variant] + PORT_SHIFT


def settings(variant: Variant, data_dir: Path, **changes: Any) -> RunnerSettings:
    return RunnerSettings(data_dir=data_dir, port_offset=offset(variant), **changes)


@contextmanager
def running(variant: Variant, data_dir: Path, **changes: Any) -> Iterator[Stack]:
    """A started stack of this variant on `data_dir`, stopped on the way out."""
    stack = Stack(settings(variant, data_dir, **changes))
    stack.start()
    try:
        yield stack
    finally:
        stack.stop()

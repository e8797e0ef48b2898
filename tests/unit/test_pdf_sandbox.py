"""The PDF worker's sandbox (memory's sandbox.py), entered for real in a
worker process made the way the PDF workers are (the forkserver)."""

from __future__ import annotations

import multiprocessing
import os
import socket
import sys
from pathlib import Path
from typing import Any

import pytest

from engram_memory import sandbox

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")


def probe(out: Any, port: int, directory: str) -> None:
    box = sandbox.enter()
    seen: dict[str, Any] = {"applied": box.applied, "missing": box.missing}
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        seen["connect"] = "connected"
    except OSError as exc:
        seen["connect"] = exc.strerror
    try:
        Path(directory, "planted").write_text("x")
        seen["write"] = "written"
    except OSError as exc:
        seen["write"] = exc.strerror
    status = Path("/proc/self/status").read_text()
    seen["cap_eff"] = next(x.split()[1] for x in status.splitlines() if x.startswith("CapEff"))
    out.send(seen)


def test_the_pdf_worker_has_no_network_and_writes_no_file(tmp_path: Path) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    context = multiprocessing.get_context("forkserver")
    receive, send = context.Pipe(duplex=False)
    worker = context.Process(target=probe, args=(send, listener.getsockname()[1],
                                                 str(tmp_path)))
    worker.start()
    assert receive.poll(30), "the worker did not answer"
    seen = receive.recv()
    worker.join(10)
    listener.close()
    if seen["missing"] and os.geteuid() != 0:
        pytest.skip(f"this host allows no sandbox without root: {seen['missing']}")
    assert seen["missing"] == [], seen
    assert seen["connect"] != "connected" and seen["write"] != "written", seen
    assert not (tmp_path / "planted").exists()
    if os.geteuid() == 0:
        assert int(seen["cap_eff"], 16) == 0, "root's worker kept capabilities"
    (tmp_path / "after").write_text("the service itself still writes")

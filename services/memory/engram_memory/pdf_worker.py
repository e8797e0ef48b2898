"""PDF extraction in a worker process with a budget.

pypdf is pure Python and a small file can cost it minutes (pages sharing one
large content stream are parsed again for every page). Each extraction runs
in its own process, forked from a forkserver that has pypdf loaded, under
CPU-time and address-space rlimits and a wall-clock deadline: the sooner of
the setting and the caller's own gRPC deadline. A worker past its budget is
killed, so no work outlives the call that asked for it, and the next call
gets a fresh process. At most `pdf_workers` extractions run at once, and at
most `pdf_workers_per_principal` of them for one principal."""

from __future__ import annotations

import asyncio
import logging
import math
import multiprocessing
import resource
import signal
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

from engram_kit.context import current_caller, time_left
from engram_kit.errors import DeadlineExceeded, DomainError, InvalidArgument, ResourceExhausted

from . import sandbox
from .fair_slots import FairSlots
from .pdf import pdf_text
from .settings import MemorySettings

log = logging.getLogger(__name__)

_CONTEXT = multiprocessing.get_context("forkserver")
_CONTEXT.set_forkserver_preload(["pypdf", "engram_memory.pdf_worker"])
TOO_EXPENSIVE = ("the PDF is too expensive to extract: {why}; send a smaller or simpler "
                 "file, or its text with format text")


@dataclass(frozen=True)
class Budget:
    wall_s: float
    cpu_s: int
    memory_bytes: int


def limit_self(budget: Budget) -> None:
    """In the worker: leave the network and every writable mount (sandbox.py),
    cap its own CPU time and address space; an alarm ends it at the wall
    deadline even if the service lost track of it."""
    box = sandbox.enter()
    if box.missing:
        log.warning("pdf worker sandbox incomplete", extra={"fields": {
            "applied": box.applied, "missing": box.missing}})
    cpu = max(1, math.ceil(budget.cpu_s))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (budget.memory_bytes, budget.memory_bytes))
    signal.alarm(max(1, math.ceil(budget.wall_s)) + 1)


def work(out: Connection, data: bytes, max_pages: int, max_chars: int, budget: Budget) -> None:
    """The worker's entry point: sends ("ok", text) or ("error", message)."""
    limit_self(budget)
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its warnings are about bad input
    try:
        reply: tuple[str, str] = ("ok", pdf_text(data, max_pages, max_chars))
    except InvalidArgument as exc:
        reply = ("error", exc.message)
    except MemoryError:
        reply = ("expensive", "it needs more than "
                 f"{budget.memory_bytes // 2**20} MiB of memory")
    except Exception:  # noqa: BLE001 (untrusted input: any parser failure is a bad file)
        reply = ("error", "the PDF could not be read (damaged or unsupported)")
    out.send(reply)
    out.close()


class PdfExtractor:
    def __init__(self, settings: MemorySettings) -> None:
        self.s = settings
        self._slots = FairSlots(settings.pdf_workers, settings.pdf_workers_per_principal)

    async def warm(self) -> None:
        """Start the forkserver now, so the first PDF does not pay for it."""
        from multiprocessing import forkserver
        await asyncio.to_thread(forkserver.ensure_running)

    async def text(self, data: bytes) -> str:
        wall = time_left(self.s.pdf_extract_timeout_s)
        ours = wall == self.s.pdf_extract_timeout_s  # else the caller's deadline is nearer
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wall
        principal = current_caller().principal
        try:
            await asyncio.wait_for(self._slots.acquire(principal), timeout=max(wall, 0.001))
        except TimeoutError:
            busy = ("your own PDFs kept their share of the workers busy "
                    f"(ENGRAM_PDF_WORKERS_PER_PRINCIPAL={self.s.pdf_workers_per_principal})"
                    if self._slots.held(principal) >= self.s.pdf_workers_per_principal
                    else "every PDF worker stayed busy")
            raise self._overrun(ours, busy) from None
        try:
            return await self._extract(data, Budget(
                deadline - loop.time(), self.s.pdf_extract_cpu_s,
                self.s.pdf_extract_memory_mb * 2**20), ours)
        finally:
            self._slots.release(principal)

    async def _extract(self, data: bytes, budget: Budget, ours: bool) -> str:
        if budget.wall_s <= 0:
            raise self._overrun(ours, "no time was left")
        receive, send = _CONTEXT.Pipe(duplex=False)
        proc = _CONTEXT.Process(target=work, daemon=True, args=(
            send, data, self.s.max_pdf_pages, self.s.max_document_chars, budget))
        answered = False
        try:
            await asyncio.to_thread(proc.start)
            send.close()
            if not await readable(receive, budget.wall_s):
                raise self._overrun(ours, f"no text within {budget.wall_s:.1f} s")
            try:
                status, message = await asyncio.to_thread(receive.recv)
            except (EOFError, OSError):  # killed by its CPU or memory limit
                raise ResourceExhausted(TOO_EXPENSIVE.format(
                    why=f"it passed {budget.cpu_s} s of CPU or "
                        f"{budget.memory_bytes // 2**20} MiB of memory")) from None
            answered = True
        finally:
            await stop(proc, 0.5 if answered else 0.0)
            receive.close()
            send.close()
        if status == "ok":
            return message
        if status == "expensive":
            raise ResourceExhausted(TOO_EXPENSIVE.format(why=message))
        raise InvalidArgument(message, field="content")

    def _overrun(self, ours: bool, why: str) -> DomainError:
        if ours:
            return ResourceExhausted(TOO_EXPENSIVE.format(
                why=f"{why} (ENGRAM_PDF_EXTRACT_TIMEOUT_S={self.s.pdf_extract_timeout_s:g})"))
        return DeadlineExceeded("PDF extraction ran past the call's deadline and was stopped")


async def readable(conn: Connection, timeout_s: float) -> bool:
    """Wait, off the event loop's back, until the worker answers or exits."""
    loop = asyncio.get_running_loop()
    ready = loop.create_future()
    loop.add_reader(conn.fileno(), lambda: ready.done() or ready.set_result(True))
    try:
        await asyncio.wait_for(ready, timeout=timeout_s)
        return True
    except TimeoutError:
        return False
    finally:
        loop.remove_reader(conn.fileno())


async def stop(proc: BaseProcess, grace_s: float) -> None:
    """Reap the worker, killing it if it still runs `grace_s` later (0 when
    it has not answered: past its budget, or the call was cancelled)."""
    if proc.pid is None:
        return
    await asyncio.shield(asyncio.to_thread(_reap, proc, grace_s))


def _reap(proc: BaseProcess, grace_s: float) -> None:
    proc.join(grace_s)
    if proc.exitcode is None:
        proc.kill()
        proc.join(5.0)
    if proc.exitcode not in (0, None):
        log.info("pdf worker ended", extra={"fields": {"exitcode": proc.exitcode}})

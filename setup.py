"""The wheel also carries the files the embedded runner reads from the
checkout: docker-compose.yml (the topology `engram up` derives its processes
from) and the NATS config it mounts. They are copied at build time into
engram_runner/bundled/, keeping their paths relative to each other; a checkout
(and its editable install) reads the originals."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
BUNDLED = ("docker-compose.yml", "deploy/nats/engram.conf")


class BuildWithTopology(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "engram_runner" / "bundled"
        for name in BUNDLED:
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / name, target / name)


setup(cmdclass={"build_py": BuildWithTopology})

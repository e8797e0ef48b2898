"""The integration tier's stacks (tests/stacks.py): each has a name and an
offset no other is near, and no test module picks a port offset of its own."""

from __future__ import annotations

import itertools
import re

from ..paths import REPO_ROOT
from ..stacks import OFFSETS, PORT_SPAN, Variant

OWN_OFFSET = re.compile(r"(?:OFFSET\s*=\s*\d|port_offset\s*=\s*\d|ENGRAM_PORT_OFFSET\"?:\s*\"\d)")


def test_every_variant_has_an_offset():
    assert set(OFFSETS) == set(Variant)


def test_no_two_stacks_share_a_port():
    near = [(a, b) for (a, x), (b, y) in itertools.combinations(OFFSETS.items(), 2)
            if abs(x - y) < PORT_SPAN]
    assert not near, f"offsets closer than {PORT_SPAN}: {near}"


def test_no_test_module_picks_its_own_offset():
    tests = REPO_ROOT / "tests"
    files = [*sorted(tests.glob("*.py")), *sorted((tests / "integration").rglob("*.py"))]
    own = [f"{p.relative_to(REPO_ROOT)}: {m.group(0)}" for p in files if p.name != "stacks.py"
           for m in OWN_OFFSET.finditer(p.read_text())]
    assert not own, "port offsets outside tests/stacks.py:\n" + "\n".join(own)

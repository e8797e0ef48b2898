"""The unit tier is hermetic: no test reaches past this machine. A connection
to any address other than loopback (or a Unix socket) fails the test at once,
so a unit test that would need the network, a registry or a model hub is
found here, not in CI on a machine without them."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from typing import Any

import pytest

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _loopback(address: Any) -> bool:
    if not isinstance(address, tuple):  # AF_UNIX path or abstract name
        return True
    host = str(address[0])
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


class OffMachine(AssertionError):
    pass


def _guarded(real: Any) -> Any:
    def connect(self: socket.socket, address: Any) -> Any:
        if not _loopback(address):
            raise OffMachine(f"a unit test connected to {address!r}: the unit tier is hermetic "
                             "(loopback only); move it to tests/integration or fake the peer")
        return real(self, address)
    return connect


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(socket.socket, "connect", _guarded(_real_connect))
    monkeypatch.setattr(socket.socket, "connect_ex", _guarded(_real_connect_ex))
    yield

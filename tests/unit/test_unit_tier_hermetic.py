"""The unit tier's network guard (tests/unit/conftest.py) refuses what leaves
the machine and lets loopback through."""

from __future__ import annotations

import socket

import pytest

from .conftest import OffMachine


def test_a_connection_off_the_machine_fails_the_test():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s, pytest.raises(OffMachine):
        s.connect(("192.0.2.1", 443))  # TEST-NET-1: never reached, refused before any packet
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s, pytest.raises(OffMachine):
        s.connect_ex(("example.invalid", 80))


def test_loopback_is_allowed():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as client:
            client.connect(server.getsockname())

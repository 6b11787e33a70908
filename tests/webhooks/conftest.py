"""The webhook tests' network and deployments.

Every webhook test stays on the loopback interface: a connection anywhere else, or a
name looked up in DNS, fails the test before a packet leaves (this process; the
service's own processes refuse such addresses themselves, as they must). A deployment
of its own for the tests over HTTP (tests/support/webhook_deployment.py): one that may
deliver to 127.0.0.1 (``allowed``), and one that may not (``guarded``).
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from service.jobs import outbound
from tests.support.webhook_deployment import Deployment, deployment
from tests.support.webhooks import loopback_only

_real_getaddrinfo = socket.getaddrinfo


def _numeric_getaddrinfo(host, port, family=0, type=0, proto=0, flags=0):  # noqa: A002
    """getaddrinfo for address literals only: a name fails instead of reaching DNS."""
    return _real_getaddrinfo(host, port, family, type, proto, flags | socket.AI_NUMERICHOST)


@pytest.fixture(autouse=True)
def loopback_network_only(monkeypatch):
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def connect(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            loopback_only(address)
        return real_connect(self, address)

    def connect_ex(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            loopback_only(address)
        return real_connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", _numeric_getaddrinfo)
    # post's default resolver was bound when the module was read: replace it too.
    monkeypatch.setitem(outbound.post.__kwdefaults__, "resolve", _numeric_getaddrinfo)


@pytest.fixture(scope="module")
def allowed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    yield from deployment(tmp_path_factory.mktemp("hooks"), "127.0.0.1/32")


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    yield from deployment(tmp_path_factory.mktemp("guarded"), "")

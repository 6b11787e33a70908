"""Clients as strangers and attackers use them: from another address, with raw sockets."""

from __future__ import annotations

import requests
from requests.adapters import HTTPAdapter


class _FromAddress(HTTPAdapter):
    def __init__(self, address: str):
        self.address = address
        super().__init__()

    def init_poolmanager(self, *args, **kwargs):
        kwargs["source_address"] = (self.address, 0)
        return super().init_poolmanager(*args, **kwargs)


def session_from(address: str) -> requests.Session:
    """A ``requests`` session whose connections leave from ``address`` (any of 127.0.0.0/8).

    On Linux every address of the loopback range is local, so one machine can
    play several clients that the server tells apart by their address.
    """
    session = requests.Session()
    session.mount("http://", _FromAddress(address))
    return session


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}

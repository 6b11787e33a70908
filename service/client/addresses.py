"""Where people and the terminal client reach a service that listens on a host and port.

The run command listens where ``SCHNAPSEN_HOST``/``SCHNAPSEN_PORT`` say; its start
banner and the terminal client (``schnapsen play``) both need the address to visit,
which for a wildcard host (``0.0.0.0``, ``::``) is the loopback address.
"""

from __future__ import annotations

from collections.abc import Mapping

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000

#: Addresses a server listens on but nobody visits, and the one to visit instead.
_WILDCARDS = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}


def visit_url(host: str, port: int | str) -> str:
    """``http://host:port`` as a browser or client on this machine reaches it."""
    shown = _WILDCARDS.get(host, host)
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"  # an IPv6 address in a URL
    return f"http://{shown}:{port}"


def service_url(environ: Mapping[str, str]) -> str:
    """The service a client talks to: ``SCHNAPSEN_URL``, else where the run command listens
    (``SCHNAPSEN_HOST``, ``SCHNAPSEN_PORT``), else http://127.0.0.1:8000."""
    if environ.get("SCHNAPSEN_URL"):
        return environ["SCHNAPSEN_URL"]
    host = environ.get("SCHNAPSEN_HOST", DEFAULT_HOST)
    return visit_url(host, environ.get("SCHNAPSEN_PORT", str(DEFAULT_PORT)))

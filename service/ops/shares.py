"""Shares that do not share: a per-caller bound at or above the total it is a part of.

A share (the waiting slots one address may hold, the connections one address
may open, a caller's decisions in the queue) exists so that one caller cannot
take everything. Set at or above its total (or off, 0, while the total is
bounded), it keeps nobody from anything, and nothing said so: one address
could hold every waiting slot of a process. ``overreaching_shares`` names
each such pair, so the app factory, the gunicorn worker and the run command
warn at start.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.ops.settings import ENVIRONMENT, Settings

#: The environment variable of the gunicorn connections per process (the run command's
#: ``--web-connections``; gunicorn's ``--worker-connections``), not one of ``Settings``.
WEB_CONNECTIONS = "SCHNAPSEN_WEB_CONNECTIONS"


@dataclass(frozen=True, slots=True)
class Share:
    """A bound per caller (``share``) that is meant to stay below the bound of the whole
    (``total``): their settings' keys (or the environment variable's name), and who
    takes everything when it does not."""

    share: str
    total: str
    who: str
    #: A share of 0 means "no share of its own" (so the whole may go to one), rather
    #: than "none at all".
    zero_is_off: bool = True


#: Every share/total pair among the settings.
SHARES = (
    Share("MAX_WAITING_PER_ADDRESS", "MAX_WAITING", "one client address"),
    Share("MAX_WAITING_PER_CLIENT", "MAX_WAITING", "one client app"),
    Share("MAX_WAITING_PER_GAME", "MAX_WAITING", "the waiters of one game"),
    Share("DECISIONS_PER_CALLER", "DECISION_QUEUE_MAX_JOBS", "one caller"),
    Share("EXPORT_JOBS_PER_CALLER_PER_HOUR", "EXPORT_QUEUE_MAX_JOBS", "one caller"),
)
#: The pairs whose total is the connections of a gunicorn process.
CONNECTION_SHARES = (
    Share("CONNECTIONS_PER_ADDRESS", WEB_CONNECTIONS, "one client address"),
    Share("MAX_WAITING", WEB_CONNECTIONS, "waiting requests", zero_is_off=False),
)


def _variable(key: str) -> str:
    return ENVIRONMENT.get(key, key)


def overreaching_shares(settings: Settings) -> list[str]:
    """A warning for each share among the settings (``SHARES``) at or above its total, or
    off (0) while its total is bounded."""
    return _overreaching(SHARES, settings, None)


def overreaching_connection_shares(settings: Settings, connections: int) -> list[str]:
    """The same for the shares of a gunicorn process's ``connections`` (``CONNECTION_SHARES``;
    behind proxies, ``PROXY_HOPS``, the cap per address is the proxy's, not checked)."""
    pairs = CONNECTION_SHARES
    if settings.proxy_hops:
        pairs = tuple(pair for pair in pairs if pair.share != "CONNECTIONS_PER_ADDRESS")
    return _overreaching(pairs, settings, connections)


def _value(settings: Settings, key: str, connections: int | None) -> int:
    """The setting ``key`` names (``WEB_CONNECTIONS``: ``connections``)."""
    if key == WEB_CONNECTIONS and connections is not None:
        return connections
    return int(getattr(settings, key.lower()))


def _overreaching(
    pairs: tuple[Share, ...], settings: Settings, connections: int | None
) -> list[str]:
    warnings = []
    for pair in pairs:
        share = _value(settings, pair.share, connections)
        total = _value(settings, pair.total, connections)
        if total <= 0 or 0 < share < total or (share == 0 and not pair.zero_is_off):
            continue
        name, whole = _variable(pair.share), _variable(pair.total)
        amount = "is 0 (no share)" if share == 0 else f"is {share}, at or above"
        warnings.append(
            f"{name} {amount} {whole}={total}: {pair.who} may take all of it; "
            f"set {name} below {total}"
        )
    return warnings

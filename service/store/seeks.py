"""Seeks: players of one client app waiting to be paired, in one Redis slot per app.

A seek is a player's wish to play now (a variant, rated or casual, and
optionally the ratings it accepts). It lives while somebody waits on it: each
wait keeps it alive ``alive_seconds`` longer, and a seek nobody waits on ends
by itself (expired). Pairing is one script (``lua/seek.lua``) over the app's
pool, so two seeks are paired once, never one twice, never a player with
itself, and a cancelled seek never; on Redis Cluster every key of the pool
carries the app's hash tag, so the script runs in one slot.

Who is paired with whom (the rule docs/api.md states): among the waiting seeks
of the same kind (variant, rated or casual, clock), the one whose rating is
closest, if each side's window holds the other: a window starts at
``window_start`` rating points and widens by ``window_widening`` a second of
the seek's waiting, up to ``window_widest``; a seek's own rating range, when
given, is never widened. Ties go to the seek that waited longer.

A pairing draws its game's id, which seek takes which seat, and the nonces of
the two seats' tokens at random when it is made, and keeps them in both
seeks' records: whichever seeker's wait answers first makes the game, once,
and nothing of it follows from a seek's id or a caller's key.

Redis keys (tag ``{client:<app>}``):

- ``sch:{client:<app>}:pool``              sorted set: waiting seek id -> rating
- ``sch:{client:<app>}:seek:<id>``         hash: the seek (kept ``record_seconds``)
- ``sch:{client:<app>}:seeking:<player>``  the player's one waiting seek
"""

from __future__ import annotations

import contextlib
import secrets
import time
from dataclasses import dataclass
from enum import StrEnum

import redis

from service.game.auth import new_nonce
from service.store.scripts import Script, lua_script


class SeekStatus(StrEnum):
    """Where a seek stands: waiting, or ended one of three ways."""

    WAITING = "waiting"
    PAIRED = "paired"
    CANCELLED = "cancelled"
    EXPIRED = "expired"


class SeekExists(Exception):
    """The player already waits on a seek (its id is the argument)."""


class SeeksFull(Exception):
    """The app's pool holds as many waiting seeks as it may."""


class UnknownSeek(LookupError):
    """No seek of this app has that id (or it was forgotten)."""


@dataclass(frozen=True, slots=True)
class SeekRules:
    """How seeks pair and how long they live (the settings name them)."""

    alive_seconds: float = 20.0
    window_start: float = 100.0
    window_widening: float = 25.0
    window_widest: float = 600.0
    pool_cap: int = 10_000
    neighbours: int = 16
    record_seconds: int = 3600


@dataclass(frozen=True, slots=True)
class SeekState:
    """A seek as the pool holds it: its status and, once paired, the game and seat."""

    id: str
    status: SeekStatus
    game_id: str | None = None
    seat: int | None = None
    partner: str | None = None
    #: The nonces of the paired game's two seat tokens (seat 0's, seat 1's): server-side
    #: only, each seeker is answered its own seat's token.
    nonces: tuple[str, str] | None = None


def _key_prefix(app: str) -> str:
    return f"sch:{{client:{app}}}:"


class SeekPool:
    """The seeks of every app: create (and pair at once), wait (and pair), cancel, read."""

    def __init__(self, client: redis.Redis, rules: SeekRules = SeekRules()):
        self.redis = client
        self.rules = rules
        self._script = Script(client, lua_script("seek"))

    def create(
        self,
        app: str,
        player: str,
        rating: float,
        kind: str,
        low: float | None,
        high: float | None,
    ) -> SeekState:
        """A new waiting seek, with a random id, paired at once when a partner waits.
        Raises ``SeekExists`` (the player's waiting seek) and ``SeeksFull``."""
        extra = [player, repr(float(rating)), kind, _bound(low), _bound(high)]
        while True:
            try:
                return self._run(app, "create", "sk_" + secrets.token_hex(8), extra)
            except UnknownSeek:  # the random id is taken (never seen): draw another
                continue

    def wait(self, app: str, seek_id: str) -> SeekState:
        """Keep a waiting seek alive and try to pair it again (its window has widened)."""
        return self._run(app, "wait", seek_id)

    def cancel(self, app: str, seek_id: str) -> SeekState:
        """End a waiting seek; a paired one stays paired (the answer says so)."""
        return self._run(app, "cancel", seek_id)

    def forget_player(self, app: str, player: str) -> None:
        """End the player's waiting seek, if any, so it is paired with nobody (the player
        is being erased); a seek record left expires with its record's time."""
        found = self.redis.get(f"{_key_prefix(app)}seeking:{player}")
        if found:
            with contextlib.suppress(UnknownSeek):
                self.cancel(app, found.decode())
            self.redis.delete(f"{_key_prefix(app)}seeking:{player}")

    def owner(self, app: str, seek_id: str) -> str | None:
        """The player whose seek this is; None for no such seek."""
        found = self.redis.hget(f"{_key_prefix(app)}seek:{seek_id}", "player")
        return found.decode() if found else None

    def kind(self, app: str, seek_id: str) -> str | None:
        """What the seek pairs with: ``variant|rated|clock`` (None for no such seek)."""
        found = self.redis.hget(f"{_key_prefix(app)}seek:{seek_id}", "kind")
        return found.decode() if found else None

    def _run(self, app: str, op: str, seek_id: str, extra: list[str] | None = None) -> SeekState:
        rules = self.rules
        args = [
            _key_prefix(app),
            op,
            seek_id,
            int(time.time() * 1000),
            int(rules.alive_seconds * 1000),
            secrets.token_hex(8),  # the game of a pairing made now: a random id
            secrets.randbelow(2),  # which seat the older seek takes: a coin
            rules.window_start,
            rules.window_widening,
            rules.window_widest,
            rules.pool_cap,
            rules.neighbours,
            rules.record_seconds,
            f"{new_nonce()} {new_nonce()}",  # the two seat tokens' nonces, drawn now
            *(extra or []),
        ]
        status, found_id, game, seat, partner, nonces = self._script(
            keys=[f"{_key_prefix(app)}pool"], args=args
        )
        status = status.decode()
        if status == "gone":
            raise UnknownSeek(seek_id)
        if status == "exists":  # the player's waiting seek, whose id the script answers
            raise SeekExists(found_id.decode())
        if status == "full":
            raise SeeksFull(app)
        return SeekState(
            id=found_id.decode(),
            status=SeekStatus(status),
            game_id=game.decode() if game else None,
            seat=int(seat) if seat else None,
            partner=partner.decode() if partner else None,
            nonces=_pair(nonces.decode()) if nonces else None,
        )


def _pair(nonces: str) -> tuple[str, str]:
    first, second = nonces.split(" ")
    return first, second


def _bound(value: float | None) -> str:
    return "" if value is None else repr(float(value))

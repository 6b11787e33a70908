"""Challenges: a player of a client app asks a named player of the same app to play.

A challenge stands for ``open_seconds``; the challenged player accepts or
declines it, the challenger may cancel it. Its changes are one script
(``lua/challenge.lua``), so a challenge is accepted once, only by the player
it names, and never after a decline, a cancel or its time. The accept draws
the game's id, the challenger's seat and the nonces of the two seats' tokens
at random and keeps them in the record (as a pairing does,
``GameService.create_paired``), so either player's request makes the game,
once, and nothing of it follows from the challenge's id or a caller's key.

Redis keys (tag ``{client:<app>}``, the app's slot):

- ``sch:{client:<app>}:challenge:<id>``       hash: from, to, variant, rated, status,
  created (ms), game, from_seat, nonces; kept ``record_seconds``
- ``sch:{client:<app>}:challenges:<player>``  sorted set: the player's challenges,
  made and received, by creation time; the open ones are capped per maker
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from enum import StrEnum

import redis

from service.game.auth import new_nonce
from service.store.scripts import Script, lua_script


class ChallengeStatus(StrEnum):
    OFFERED = "offered"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    CANCELLED = "cancelled"
    EXPIRED = "expired"


class UnknownChallenge(LookupError):
    """No challenge of this app has that id (or it was forgotten)."""


class TooManyChallenges(Exception):
    """The player has as many open challenges as it may make, or has made as many as it
    may within a record's lifetime (``records_per_player``)."""


@dataclass(frozen=True, slots=True)
class Challenge:
    """A challenge as Redis holds it."""

    id: str
    challenger: str
    challenged: str
    variant: str
    rated: bool
    status: ChallengeStatus
    created: int
    game_id: str | None = None
    #: The challenger's seat in the game, once accepted.
    challenger_seat: int | None = None
    #: The game's time control (``TimeControl.encode``); None: no clock.
    clock: str | None = None
    #: The nonces of the game's two seat tokens (seat 0's, seat 1's), once accepted:
    #: server-side only, each player is answered its own seat's token.
    nonces: tuple[str, str] | None = None

    def seat_of(self, player: str) -> int | None:
        if self.challenger_seat is None:
            return None
        return self.challenger_seat if player == self.challenger else 1 - self.challenger_seat


def _prefix(app: str) -> str:
    return f"sch:{{client:{app}}}:"


class Challenges:
    """The challenges of every app: make, read, accept, decline, cancel, list."""

    def __init__(
        self,
        client: redis.Redis,
        *,
        open_seconds: float = 600.0,
        open_per_player: int = 20,
        record_seconds: int = 24 * 3600,
        records_per_player: int = 100,
    ):
        self.redis = client
        self.open_seconds = open_seconds
        self.open_per_player = open_per_player
        self.record_seconds = record_seconds
        #: The challenges a player may make within ``record_seconds``, whatever became of
        #: them: each leaves a record for that long, so this bounds a player's records
        #: (a declined or cancelled one too) by a number, not by the request rate.
        self.records_per_player = records_per_player
        self._script = Script(client, lua_script("challenge"))

    def make(
        self,
        app: str,
        challenger: str,
        challenged: str,
        variant: str,
        rated: bool,
        clock: str | None = None,
    ) -> Challenge:
        """A new open challenge, with a random id; ``TooManyChallenges`` past the
        challenger's open ones, or past the ones it made within a record's lifetime."""
        now = int(time.time() * 1000)
        own = f"{_prefix(app)}challenges:{challenger}"
        open_since = now - int(self.open_seconds * 1000)
        kept_since = now - self.record_seconds * 1000
        listed = self.redis.zrangebyscore(own, kept_since, "+inf", withscores=True)
        open_made = kept_made = 0
        if listed:
            with self.redis.pipeline(transaction=False) as pipe:
                for cid, _created in listed:
                    pipe.hmget(f"{_prefix(app)}challenge:{cid.decode()}", "from", "status")
                for (_cid, created), (found_from, status) in zip(
                    listed, pipe.execute(), strict=True
                ):
                    if not found_from or found_from.decode() != challenger:
                        continue  # received, or forgotten
                    kept_made += 1
                    if status == b"offered" and created >= open_since:
                        open_made += 1
        if open_made >= self.open_per_player or kept_made >= self.records_per_player:
            raise TooManyChallenges(challenger)
        challenge = Challenge(
            id="ch_" + secrets.token_hex(8),
            challenger=challenger,
            challenged=challenged,
            variant=variant,
            rated=rated,
            status=ChallengeStatus.OFFERED,
            created=now,
            clock=clock,
        )
        key = f"{_prefix(app)}challenge:{challenge.id}"
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(
                key,
                mapping={
                    "from": challenger,
                    "to": challenged,
                    "variant": variant,
                    "rated": int(rated),
                    "status": challenge.status.value,
                    "created": now,
                    "clock": clock or "",
                },
            )
            pipe.expire(key, self.record_seconds)
            for player in (challenger, challenged):
                index = f"{_prefix(app)}challenges:{player}"
                pipe.zadd(index, {challenge.id: now})
                # the index keeps what its records keep: nothing older than a record
                pipe.zremrangebyscore(index, "-inf", now - self.record_seconds * 1000)
                pipe.expire(index, self.record_seconds)
            pipe.execute()
        return challenge

    def get(self, app: str, challenge_id: str) -> Challenge:
        """The challenge (an offered one past its time reads as expired)."""
        return self._run(app, challenge_id, "read", "")

    def accept(self, app: str, challenge_id: str, player: str) -> Challenge:
        return self._run(app, challenge_id, "accept", player)

    def decline(self, app: str, challenge_id: str, player: str) -> Challenge:
        return self._run(app, challenge_id, "decline", player)

    def cancel(self, app: str, challenge_id: str, player: str) -> Challenge:
        return self._run(app, challenge_id, "cancel", player)

    def of_player(self, app: str, player: str, count: int = 100) -> list[Challenge]:
        """The player's challenges, made and received, newest first."""
        ids = self.redis.zrevrange(f"{_prefix(app)}challenges:{player}", 0, count - 1)
        found = []
        for cid in ids:
            try:
                found.append(self.get(app, cid.decode()))
            except UnknownChallenge:
                continue
        return found

    def forget_player(self, app: str, player: str) -> int:
        """Delete every challenge the player made or received, and its list (the player
        is being erased): an open one is neither accepted nor shown again, and the other
        player's list stops naming it. How many were deleted."""
        own = f"{_prefix(app)}challenges:{player}"
        ids = [cid.decode() for cid in self.redis.zrange(own, 0, -1)]
        for challenge_id in ids:
            key = f"{_prefix(app)}challenge:{challenge_id}"
            sides = self.redis.hmget(key, "from", "to")
            self.redis.delete(key)
            for other in {side.decode() for side in sides if side} - {player}:
                self.redis.zrem(f"{_prefix(app)}challenges:{other}", challenge_id)
        self.redis.delete(own)
        return len(ids)

    def _run(self, app: str, challenge_id: str, op: str, player: str) -> Challenge:
        key = f"{_prefix(app)}challenge:{challenge_id}"
        answer = self._script(
            keys=[key],
            args=[
                op,
                player,
                int(time.time() * 1000),
                int(self.open_seconds * 1000),
                secrets.token_hex(8),  # the game an accept now makes: a random id
                secrets.randbelow(2),  # the challenger's seat in it: a coin
                f"{new_nonce()} {new_nonce()}",  # its seat tokens' nonces, drawn now
            ],
        )
        if answer[0] == b"gone":
            raise UnknownChallenge(challenge_id)
        flat = [item.decode() for item in answer[1]]
        text = dict(zip(flat[::2], flat[1::2], strict=True))
        return Challenge(
            id=challenge_id,
            challenger=text["from"],
            challenged=text["to"],
            variant=text["variant"],
            rated=text["rated"] == "1",
            status=ChallengeStatus(answer[0].decode()),
            created=int(text["created"]),
            game_id=text.get("game"),
            challenger_seat=int(text["from_seat"]) if "from_seat" in text else None,
            clock=text.get("clock") or None,
            nonces=_pair(text["nonces"]) if "nonces" in text else None,
        )


def _pair(nonces: str) -> tuple[str, str]:
    first, second = nonces.split(" ")
    return first, second

"""Finished games on their way from Redis to the archive, as tests drive and inspect them.

``Table`` is the game service wired as the API and the workers wire it
(``build``) with an archive behind it; ``finish`` plays a game to
one of its endings on it, steering the players so that every way a deal or
a game can end comes up: going out, running out of cards, closing the talon,
a false claim, resigning, aborting and a timeout claim. ``game_keys`` and
``archived_rows`` look at where a game is kept: its keys in Redis, its rows in
the archive (counted by id, whatever the back end).
"""

from __future__ import annotations

import random
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import psycopg
import redis

from service.engine import Action, ActionType, GameState, Variant, legal_actions
from service.engine.state import DealEndReason
from service.game.commands import GameService, NewGame, Opponent
from service.ops.composition import RedisClients, Services, build
from service.ops.settings import from_env
from service.store.archive import Archive
from service.store.archive_keys import game_key
from tests.support.paths import SECRET

#: How players choose, for the deals' endings to vary: any legal action; claims only with
#: 66 (never a false one); a claim whenever one is allowed; close the talon at once and
#: claim only with 66; never claim nor close (the cards run out).
POLICIES = ("random", "honest", "claimer", "closer", "patient")
#: How a game ends: by its deals, or by a seat (RX1 resign, RX2 abort before anyone
#: joined or after both did, RX3 a timeout claim).
GAME_ENDINGS = ("played", "resigned", "aborted_unjoined", "aborted", "timed_out")
#: The deals' endings a set of games must hold between them, and the reasons that count.
DEAL_ENDINGS = {
    "out": {DealEndReason.WENT_OUT, DealEndReason.CLOSER_WENT_OUT},
    "ran_out": {DealEndReason.LAST_TRICK, DealEndReason.CLOSER_RAN_OUT},
    "closed": {
        DealEndReason.CLOSER_WENT_OUT,
        DealEndReason.CLOSER_FALSE_CLAIM,
        DealEndReason.CLOSER_RAN_OUT,
        DealEndReason.CLOSER_OPPONENT_WENT_OUT,
    },
    "false_claim": {DealEndReason.FALSE_CLAIM, DealEndReason.CLOSER_FALSE_CLAIM},
}


def table(
    client: redis.Redis, archive: Archive | None, *, grace_seconds: float = 3600.0
) -> Services:
    """The game service on ``client`` (its log and its queues) with ``archive`` behind it."""
    settings = from_env({}).overridden(
        {"SECRET_KEY": SECRET, "ARCHIVE_GRACE_SECONDS": grace_seconds}
    )
    return build(settings, RedisClients(client, client), archive=archive)


def choose(state: GameState, rng: random.Random, policy: str) -> Action:
    """The action of the seat to move under ``policy`` (see ``POLICIES``)."""
    legal = legal_actions(state)
    deal = state.deal
    assert deal is not None and state.to_move is not None
    mine = deal.card_points(state.to_move)
    claims = [a for a in legal if a.type is ActionType.CLAIM]
    closes = [a for a in legal if a.type is ActionType.CLOSE_TALON]
    others = [a for a in legal if a.type not in (ActionType.CLAIM, ActionType.CLOSE_TALON)]
    if policy == "claimer" and claims:
        return claims[0]
    if policy in ("honest", "closer") and claims and mine >= 66:
        return claims[0]
    if policy == "closer" and closes:
        return closes[0]
    if policy == "random" or not others:
        return rng.choice(legal)
    return rng.choice(others)


@dataclass
class Finished:
    """A game played to its end on a ``Table``: its id, the seats' tokens, how it ended."""

    game_id: str
    variant: Variant
    ending: str
    tokens: dict[int, str] = field(default_factory=dict)
    #: Why each deal ended (played games; resigned and timed out ones may have some).
    deals: list[DealEndReason] = field(default_factory=list)


def moves(games: GameService, game_id: str, tokens: dict[int, str], count: int | None,
          rng: random.Random, policy: str) -> GameState:  # fmt: skip
    """``count`` actions (None: until the game is over) by the seats' ``policy``."""
    done = 0
    while count is None or done < count:
        state = games.current(game_id).state
        if state.over:
            return state
        seat = state.to_move
        assert seat is not None
        games.act(game_id, tokens[seat], choose(state, rng, policy))
        done += 1
    return games.current(game_id).state


#: How a seat ends a game (``finish``): ("resign" | "abort" | "claim-timeout", game, token).
Ender = Callable[[str, str, str], None]


def ended_by_service(games: GameService, *, timeout_seconds: float = 0.001) -> Ender:
    """Seats that end games through ``games`` itself (a timeout claim after ``timeout_seconds``)."""

    def end(what: str, game_id: str, token: str) -> None:
        if what == "resign":
            games.resign(game_id, token)
        elif what == "abort":
            games.abort(game_id, token)
        else:
            games.claim_timeout(game_id, token, timeout_seconds=timeout_seconds)

    return end


def finish(
    games: GameService,
    rng: random.Random,
    ending: str,
    variant: Variant,
    *,
    owner: str | None = None,
    end: Ender | None = None,
    timeout_wait: float = 0.002,
) -> Finished:
    """One game from its create to ``ending`` (see ``GAME_ENDINGS``) on ``games``.

    ``owner`` lists the game in that client app's games; ``end`` is how a seat
    resigns, aborts or claims a timeout (default: through ``games``, the turn
    timeout half of ``timeout_wait``, which the test waits first). A resign or a
    timeout claim comes after a random number of actions, unless the deals end
    the game first (then it is "played").
    """
    end = end or ended_by_service(games, timeout_seconds=timeout_wait / 2)
    policy = rng.choice(POLICIES)
    created = games.create(NewGame(variant, Opponent(), seed=rng.randrange(2**31)), owner=owner)
    game_id = created.current.game_id
    tokens = {0: created.token}
    if ending == "aborted_unjoined":
        end("abort", game_id, tokens[0])
        return Finished(game_id, variant, ending, tokens)
    assert created.invite is not None
    tokens[1] = games.join(game_id, created.invite).token
    if ending == "aborted":
        end("abort", game_id, tokens[rng.randrange(2)])
        return Finished(game_id, variant, ending, tokens)
    count = None if ending == "played" else rng.randrange(0, 60)
    state = moves(games, game_id, tokens, count, rng, policy)
    if not state.over:
        if ending == "resigned":
            end("resign", game_id, tokens[rng.randrange(2)])
        else:
            assert ending == "timed_out" and state.to_move is not None
            time.sleep(timeout_wait)  # the log's clock passes the tiny turn timeout
            end("claim-timeout", game_id, tokens[1 - state.to_move])
        state = games.current(game_id).state
        assert state.over
    how = ending if state.ending is not None else "played"
    return Finished(game_id, variant, how, tokens, [r.reason for r in state.results])


def deal_endings(games: Iterable[Finished]) -> set[str]:
    """Which of ``DEAL_ENDINGS`` the games' deals hold between them."""
    reasons = {reason for game in games for reason in game.deals}
    return {name for name, among in DEAL_ENDINGS.items() if reasons & among}


def game_keys(client: redis.Redis, game_id: str) -> set[str]:
    """Every key Redis holds of the game (its hash tag's keys)."""
    return {key.decode() for key in client.scan_iter(match=f"sch:{{{game_id}}}:*", count=1000)}


def archived_rows(url: str, game_ids: Iterable[str]) -> dict[str, int]:
    """How many rows the archive at ``url`` holds of each game, read by id with SQL (the
    table keeps an id as its number: ``service.store.archive_keys``)."""
    ids = list(game_ids)
    keys = [game_key(game_id) for game_id in ids]
    sql = "SELECT game_id, count(*) FROM games WHERE game_id = ANY(%s) GROUP BY game_id"
    if url.startswith("sqlite:///"):
        marks = ",".join("?" * len(ids))
        sql = f"SELECT game_id, count(*) FROM games WHERE game_id IN ({marks}) GROUP BY game_id"
        with sqlite3.connect(url.removeprefix("sqlite:///")) as db:
            found = dict(db.execute(sql, keys).fetchall())
    else:
        with psycopg.connect(url) as db:
            found = dict(db.execute(sql, (keys,)).fetchall())
    return {game_id: int(found.get(game_key(game_id), 0)) for game_id in ids}


__all__ = [
    "DEAL_ENDINGS",
    "Ender",
    "GAME_ENDINGS",
    "POLICIES",
    "Finished",
    "archived_rows",
    "choose",
    "deal_endings",
    "ended_by_service",
    "finish",
    "game_keys",
    "moves",
    "table",
]

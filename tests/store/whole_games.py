"""Random whole games as the service records them: events, append times, seats hash.

A game is built the way ``GameService`` builds it, on the engine alone: the
create appends ``game_created``, the seats taken and the first deal at one
time; a person joins later; each action appends itself (and the next deal,
when it ends one) through ``decide``; a seat may resign, abort before the
first action, or claim a turn that waited past the timeout. Times follow
people (seconds to think) and bots (a worker's fraction of a second), and a
few games are old ones: entries without a time, deals without a nonce.

Write the archived games kept for ever of a new format version (a file of
its own; an old one's lines never change, and it is not written again)::

    python -m tests.store.whole_games
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from service.engine import (
    DECK,
    Aborted,
    ActionTaken,
    ActionType,
    Card,
    ClockMoved,
    Dealing,
    DealStarted,
    Event,
    GameCreated,
    GameState,
    Resigned,
    SeatTaken,
    TimeoutClaimed,
    Variant,
    apply_event,
    decide,
    event_to_dict,
    legal_actions,
)
from service.game.bot_levels import LEVELS
from service.game.clock import TimeControl
from service.store.archive_codec import ARCHIVE_VERSION, ArchivedGame, encode

DATA = Path(__file__).resolve().parent.parent / "data"
#: The archived games kept for ever, a file for each format version.
ARCHIVED_GAMES = {version: DATA / f"archived_games_v{version}.txt" for version in (1, 2)}
ARCHIVED_GAMES_V1 = ARCHIVED_GAMES[1]

#: How a game ends: by its deals (a seat reaches 0 game points), or by a seat (RX1-RX3).
PLAYED, RESIGNED, ABORTED, TIMED_OUT = "played", "resigned", "aborted", "timed_out"
ENDINGS = (PLAYED, RESIGNED, ABORTED, TIMED_OUT)
#: The turn timeout a claim waited past (ms).
TURN_TIMEOUT_MS = 300_000


def human_think_ms(rng: random.Random) -> int:
    """A person's turn: most take a few seconds, some half a minute."""
    return int(math.exp(rng.uniform(math.log(700), math.log(30_000))))


def bot_move_ms(rng: random.Random) -> int:
    """A bot's turn: a worker's job, from tens of ms to over a second."""
    return int(math.exp(rng.uniform(math.log(40), math.log(1_500))))


def _hex(rng: random.Random, size: int) -> str:
    return rng.randbytes(size).hex()


def _deck(rng: random.Random) -> tuple[Card, ...]:
    cards = list(DECK)
    rng.shuffle(cards)
    return tuple(cards)


def random_game(
    rng: random.Random,
    *,
    ending: str | None = None,
    bot: bool | None = None,
    patient: bool | None = None,
    clocked: bool = False,
) -> ArchivedGame:
    """One whole game, finished by ``ending`` (random when None) if its deals do not end it.

    ``patient`` players claim and close rarely, so their deals run long, as
    between careful players; others pick any legal action. A ``clocked`` game
    has a time control in its seats, and now and then a bot plays a person's
    move on time (``ClockMoved``); an unclocked game draws nothing more from
    ``rng``, so the games of a seed are those they always were.
    """
    bot = rng.random() < 0.5 if bot is None else bot
    # A game against a bot is never aborted, and a bot never claims a timeout.
    ending = ending or rng.choice((PLAYED, RESIGNED) if bot else ENDINGS)
    patient = rng.random() < 0.5 if patient is None else patient
    old = rng.random() < 0.06  # written before entries carried times, deals nonces
    variant = rng.choice((Variant.HEAD, Variant.TRACKED))
    dealing = rng.choice((Dealing.RANDOM, Dealing.RANDOM, Dealing.SEEDED, Dealing.FIXED))
    seed = rng.randrange(2**63) if dealing is Dealing.SEEDED or rng.random() < 0.1 else None
    events: list[Event] = []
    times: list[int | None] = []
    now = rng.randrange(1_767_225_600_000, 1_830_297_600_000)
    state: GameState | None = None

    def append(new: list[Event] | tuple[Event, ...], ms: int) -> None:
        nonlocal state
        for event in new:
            state = apply_event(state, event)
        events.extend(new)
        times.extend([ms] * len(new))

    def nonce() -> str | None:
        return None if old else _hex(rng, 32)

    created: list[Event] = [GameCreated(variant, rng.randrange(2), dealing), SeatTaken(0, "human")]
    level = rng.choice(LEVELS)
    if bot:
        created.append(SeatTaken(1, "bot", level))
    first_dealer = created[0].first_dealer  # type: ignore[union-attr]
    created.append(DealStarted(1, first_dealer, _deck(rng), nonce()))
    append(created, now)
    seats = {"nonce:0": _hex(rng, 16), "token:0": _hex(rng, 32), "player:0": "human"}
    seats["player:1"] = f"bot:{level}" if bot else "human"
    if not bot:
        seats.update(invite_nonce=_hex(rng, 16), invite=_hex(rng, 32))
    if seed is not None:
        seats["seed"] = str(seed)
    if clocked:
        seats["clock"] = TimeControl(rng.randrange(5, 3601), bot_level=rng.choice(LEVELS)).encode()
    assert state is not None
    if not bot:
        if ending == ABORTED and rng.random() < 0.5:  # called off before anyone joined
            now += human_think_ms(rng) * 20
            append([Aborted(0)], now)
            return _finished(rng, events, times, seats, old)
        now += int(math.exp(rng.uniform(math.log(3_000), math.log(600_000))))
        append([SeatTaken(1, "human")], now)
        seats.update({"nonce:1": _hex(rng, 16), "token:1": _hex(rng, 32)})
    if ending == ABORTED:
        now += human_think_ms(rng)
        append([Aborted(rng.randrange(2))], now)
        return _finished(rng, events, times, seats, old)
    # Where a resign or a claim comes, in actions; a game may end by its deals first.
    end_at = rng.randrange(1, 160) if ending in (RESIGNED, TIMED_OUT) else None
    played = 0
    while not state.over:
        seat = state.to_move
        assert seat is not None
        if played == end_at:
            if ending == RESIGNED:
                now += human_think_ms(rng)
                append([Resigned(0 if bot else rng.randrange(2))], now)
            else:
                waited = TURN_TIMEOUT_MS + human_think_ms(rng) * 10
                now += waited + rng.randrange(5)
                append([TimeoutClaimed(1 - seat, waited)], now)
            break
        legal = legal_actions(state)
        if patient and rng.random() < 0.9:
            calm = [a for a in legal if a.type not in (ActionType.CLAIM, ActionType.CLOSE_TALON)]
            legal = calm or legal
        action = rng.choice(legal)
        decided = decide(state, seat, action, lambda _number: _deck(rng), nonce)
        now += bot_move_ms(rng) if bot and seat == 1 else human_think_ms(rng)
        moved = decided.events
        if clocked and not (bot and seat == 1) and rng.random() < 0.3:
            first = moved[0]
            assert isinstance(first, ActionTaken)
            moved = (ClockMoved(first.seat, first.action, rng.choice(LEVELS)), *moved[1:])
        append(moved, now)
        played += 1
    return _finished(rng, events, times, seats, old)


def _finished(
    rng: random.Random,
    events: list[Event],
    times: list[int | None],
    seats: dict[str, str],
    old: bool,
) -> ArchivedGame:
    """The game with its id; an old game's first entries (or all) have no time."""
    if old:
        cut = rng.randrange(len(events) + 1)
        times = [None] * cut + times[cut:]
    return ArchivedGame.of(_hex(rng, 8), events, times, seats)


def random_games(seed: int, count: int, **plan: Any) -> Iterator[ArchivedGame]:
    rng = random.Random(seed)
    for _ in range(count):
        yield random_game(rng, **plan)


# -- the games kept for ever ------------------------------------------------------------


def game_json(game: ArchivedGame) -> dict[str, Any]:
    """The game in the store's own words: the log's JSON events, their times, the seats."""
    return {
        "game_id": game.game_id,
        "events": [event_to_dict(event) for event in game.events],
        "times": list(game.times),
        "seats": game.seat_fields,
    }


def game_digest(game: ArchivedGame) -> str:
    """SHA-256 of ``game_json`` in a fixed layout: what an archived line must decode to."""
    text = json.dumps(game_json(game), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def unusual_games() -> list[ArchivedGame]:
    """Games whose values only text keeps: an id that is no hex, an odd seats field, a
    seed with a sign, a nonce in capitals, a player of another kind."""
    rng = random.Random(7)
    base = random_game(rng, ending=RESIGNED, bot=False)
    deals = [i for i, event in enumerate(base.events) if isinstance(event, DealStarted)]
    events = list(base.events)
    first = events[deals[0]]
    assert isinstance(first, DealStarted) and first.nonce is not None
    events[deals[0]] = DealStarted(first.number, first.dealer, first.deck, first.nonce.upper())
    events[1] = SeatTaken(0, "guest", "table 7")
    seats = {
        **base.seat_fields,
        "seed": "+12",
        "nonce:0": "not hex",
        "player:0": "guest",
        "zz:note": "kept as it was",
        "a:first": "",
    }
    odd = ArchivedGame.of("game-Ω-1", events, base.times, seats)
    lone = random_game(rng, ending=ABORTED, bot=False)
    bare = ArchivedGame.of(lone.game_id, lone.events, [None] * lone.version, {})
    return [odd, bare]


def write_archived_games() -> None:
    """The file of archived games of the format written now, each with the digest it
    decodes to (the same games in every version's file)."""
    rng = random.Random(20261203)
    games = [
        random_game(rng, ending=ending, bot=bot)
        for ending in ENDINGS
        for bot in (False, True)
        if not (bot and ending in (ABORTED, TIMED_OUT))
        for _ in range(3)
    ]
    games += unusual_games()
    lines = [
        f"# Archived games of format {ARCHIVE_VERSION}, kept for ever: base64 of the bytes, then",
        "# the SHA-256 of the game they decode to (tests/store/whole_games.py: game_digest).",
    ]
    for game in games:
        data = base64.b64encode(encode(game)).decode()
        lines.append(f"{data} {game_digest(game)}")
    path = ARCHIVED_GAMES[ARCHIVE_VERSION]
    if path.exists():
        raise SystemExit(f"{path} is kept for ever: a new format writes a file of its own")
    path.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    write_archived_games()

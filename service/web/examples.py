"""The examples of openapi.yaml: request bodies and main answers.

Why computed: an example the engine did not produce drifts from the schema
and misleads ("Try it out" in /docs posts the request examples as they are).
The answers here are one real game against the heuristic bot, as seat 0 sees
it after its first deal was dealt and after its first card, folded by the pure
engine from a fixed deck; the spec linter checks each against its schema.
"""

from __future__ import annotations

import json
import random
from typing import Any

from schemas.bots import DEFAULT_LEVEL
from service.bots.catalog import describe_levels
from service.engine import DECK, Action, ActionType, Variant
from service.engine.events import (
    Aborted,
    ActionTaken,
    DealStarted,
    GameCreated,
    Resigned,
    SeatTaken,
    TimeoutClaimed,
    replay,
)
from service.engine.observation import observe
from service.engine.replays import replay_record, visible_events
from service.game.replay_export import build
from service.web.render import replay_body

GAME_ID = "g_6f1d2c3b4a5e"
TOKEN = "st_kZ3v9...seat-token"
_DECK = tuple(random.Random(13).sample(list(DECK), len(DECK)))
_NONCE = "00" * 32
_PLAYERS = [
    {"seat": 0, "type": "human", "joined": True},
    {"seat": 1, "type": "bot", "level": "heuristic", "joined": True},
]


_EVENTS = [
    GameCreated(Variant.HEAD, 1),
    SeatTaken(0, "human"),
    SeatTaken(1, "bot", "heuristic"),
    DealStarted(1, 1, _DECK, _NONCE),
]


def _first_play() -> ActionTaken:
    state = replay(_EVENTS)
    assert state.deal is not None
    card = sorted(state.deal.hands[0], key=lambda c: c.value)[0]
    return ActionTaken(0, Action(ActionType.PLAY, card=card))


_PLAYED = [*_EVENTS, _first_play()]


def view(events: list[Any], seat: int | None = 0) -> dict[str, Any]:
    body = observe(replay(events), seat)
    # Against a bot nobody is invited: the invite is null.
    return {**body, "game_id": GAME_ID, "version": len(events), "players": _PLAYERS,
            "rated": False, "pool": "head-untimed", "invite": None, "rematch": None,
            "rematch_of": None}  # fmt: skip


CREATE_GAME = {"variant": "head", "opponent": {"type": "bot", "level": "heuristic"}}
JOIN = {"invite": "inv_Yc2...from-the-creator"}
EXPORT = {"format": "json"}
HINT = {"level": "heuristic"}

GAME_VIEW = view(_EVENTS)
AFTER_ACTION = view(_PLAYED)
#: The first legal action of the view: what a client posts.
ACTION = GAME_VIEW["deal"]["legal_actions"][0]

SEATED = {
    "game_id": GAME_ID,
    "seat": 0,
    "token": TOKEN,
    "invite": None,
    "version": len(_EVENTS),
    "dealing": "random",
    "game": GAME_VIEW,
}
REMATCH_ID = "9c0e4f2a71b3d58e"
REMATCH_OFFERED = {"offered_by": 0, "status": "offered", "game_id": None}
REMATCH_DECLINED = {"offered_by": 0, "status": "declined", "game_id": None}
REMATCH_ACCEPTED = {"offered_by": 0, "status": "accepted", "game_id": REMATCH_ID}
#: Seat 0's answer against the bot, which accepts at once: its seat in the new game.
REMATCH_SEATED = {
    **SEATED,
    "game_id": REMATCH_ID,
    "game": {**GAME_VIEW, "game_id": REMATCH_ID, "rematch_of": GAME_ID},
    "rematch": REMATCH_ACCEPTED,
}
REMATCH_STATUS = {"seat": 0, **REMATCH_ACCEPTED, "token": TOKEN}
EVENTS = {
    "game_id": GAME_ID,
    "version": len(_PLAYED),
    "events": list(visible_events(_PLAYED, 0, after=len(_EVENTS))),
}
REPLAY = {"game_id": GAME_ID, **replay_record(_PLAYED, 0)}
REPLAY["state"].update(game_id=GAME_ID, version=len(_PLAYED), players=_PLAYERS)
REPLAY_EXPORT = json.loads(build(_PLAYED, GAME_ID, 0, "json"))

POSITION = {
    "seat": 0,
    "dealer": 1,
    "hand": ["AS", "TS", "KH", "QH", "JD"],
    "trump_card": "QC",
    "talon_size": 9,
    "tricks": [],
    "current_trick": [],
}
BOT_MOVE = {"level": "heuristic", "position": POSITION}
DECISION = {
    "level": "heuristic",
    "action": {"type": "play", "card": "AS"},
    "elapsed_ms": 0.1,
    "budget_ms": None,
}
MOVE_JOB = {"id": "move-0c1f7d0e9a8b4c3d", "kind": "move", "status": "finished",
            "result": DECISION}  # fmt: skip
HINT_JOB = {"id": "hint-5e4d3c2b1a0f9e8d", "kind": "hint", "status": "queued"}
EXPORT_ID = "x_2b7e15162a"
EXPORT_JOB = {
    "id": "export-7a6b5c4d3e2f1a0b",
    "kind": "export",
    "status": "queued",
    "export_id": EXPORT_ID,
    "export_url": f"/v1/exports/{EXPORT_ID}",
}

#: The caller's view after a game ended by a seat's decision (RX1-RX3).
RESIGNED = view([*_PLAYED, Resigned(0)])
#: A line of a client's export (GET /v1/games/export): that resigned game, as anyone sees it.
GAME_EXPORT_LINE = {
    "game_id": GAME_ID,
    "created_at": "2026-12-01T12:00:00.000Z",
    "ended_at": "2026-12-01T12:03:41.250Z",
    "variant": "head",
    "status": "finished",
    "replay": replay_body(GAME_ID, [*_PLAYED, Resigned(0)], _PLAYERS, None),
}
GAME_EXPORT = json.dumps(GAME_EXPORT_LINE, separators=(",", ":")) + "\n"
ABORTED = view([*_EVENTS, Aborted(0)])
TIMED_OUT = view([*_PLAYED, TimeoutClaimed(0, 86_400_000)])
GAME_LIST = {
    "games": [
        {
            "game_id": GAME_ID,
            "created_at": "2026-12-01T12:00:00.000Z",
            **{
                key: AFTER_ACTION[key]
                for key in (
                    "version",
                    "status",
                    "variant",
                    "dealing",
                    "game_points",
                    "winner",
                    "to_move",
                    "players",
                    "ending",
                    "rated",
                    "pool",
                )
            },  # fmt: skip
        }
    ],
    "next_cursor": None,
}
BOT_LEVELS = describe_levels(2000, DEFAULT_LEVEL)


def _analysis_example() -> dict[str, Any]:
    """The analysis of seat 0's first decision above, by the expert at a small budget."""
    # the expert's search: imported only for this example
    from service.analysis import review as analysis

    moment = next(analysis.moments(_PLAYED))
    record = analysis.analyse_moment(
        GAME_ID, moment, budget_ms=ANALYSIS_BUDGET_MS, secret=EXAMPLE_SECRET
    )
    summary = analysis.summary([record])
    return {
        "game_id": GAME_ID,
        "level": analysis.LEVEL,
        "budget_ms": ANALYSIS_BUDGET_MS,
        "game_finished": True,
        "seats": [0],
        "deals": [1],
        "thresholds": analysis.thresholds(),
        "decisions": [record],
        "players": summary["players"],
        "deal_accuracy": summary["deals"],
    }


#: The example's think time: small, so that building the document stays quick.
ANALYSIS_BUDGET_MS = 5
#: The example server's secret, which keys the seeds of the example analysis (``bot_seed``).
EXAMPLE_SECRET = b"example"
ANALYSIS_REQUEST = {"seat": 0, "deals": [1]}
ANALYSIS = _analysis_example()
ANALYSIS_JOB = {
    "id": f"analysis-{GAME_ID}-3f2a1b0c9d8e7f6a",
    "kind": "analysis",
    "status": "started",
    "progress": 0.25,
    "analysis_url": f"/v1/games/{GAME_ID}/analysis",
}


# -- players, ratings and seeks ------------------------------------------------------------
_RATING = {
    "rating": 1662.31,
    "deviation": 84.07,
    "volatility": 0.059998,
    "games": 23,
    "provisional": False,
}
_UNRATED = {"rating": 1500.0, "deviation": 350.0, "volatility": 0.06, "games": 0,
            "provisional": True}  # fmt: skip
PLAYER_VIEW = {
    "player_id": "pl_3f9c2a1b7d4e5f60",
    "name": "Anna",
    "rating": _RATING,
    "ratings": [
        {
            "pool": f"{variant}-{speed}",
            "variant": variant,
            "speed": speed,
            **(_RATING if (variant, speed) == ("head", "untimed") else _UNRATED),
        }
        for variant in ("head", "tracked")
        for speed in ("blitz", "rapid", "classical", "untimed")
    ],  # fmt: skip
}
OWN_PLAYER = {**PLAYER_VIEW, "app_player_id": "user-8812", "created": 1796511600.123}
REGISTER_PLAYER = {"app_player_id": "user-8812", "name": "Anna"}
REGISTERED_PLAYER = {
    "player": OWN_PLAYER,
    "token": "spt_Vt2w0cWq3nUxzQ0Hq2b5oYx1u9mR7kLa4eJd8sTfGhI",
}
RATING_HISTORY = {
    "changes": [
        {
            "game_id": "9f2c4e1a7b3d5c60",
            "pool": "head-untimed",
            "at": 1796511900123,
            "opponent": "pl_0a1b2c3d4e5f6071",
            "score": 1.0,
            "rating_before": 1648.02,
            "rating": 1662.31,
            "deviation": 84.07,
            "volatility": 0.059998,
        }
    ],
    "next_cursor": None,
}
PLAYER_GAMES = {
    "games": [
        {
            "game_id": "9f2c4e1a7b3d5c60",
            "started": 1796511600123,
            "rated": True,
            "pool": "head-untimed",
        }
    ],  # fmt: skip
    "next_before": None,
    "next_cursor": None,
}
LEADERBOARD = {"pool": "head-untimed", "players": [{"rank": 1, "player": PLAYER_VIEW}]}
POOLS = {
    "pools": [
        {
            "pool": "head-blitz",
            "variant": "head",
            "speed": "blitz",
            "description": "head games with a clock of at most 15 s a move",
        },
        {
            "pool": "head-untimed",
            "variant": "head",
            "speed": "untimed",
            "description": "head games with no clock",
        },
    ],  # fmt: skip
    "default": "head-untimed",
    "provisional_deviation": 110.0,
}
PLAYER_EXPORT = {
    "player": OWN_PLAYER,
    "ratings": RATING_HISTORY["changes"],
    "games": [{"game_id": "9f2c4e1a7b3d5c60", "started": 1796511600123}],
    "webhook_deliveries": [],
    "exported": 1796512000.5,
}
SEEK = {"variant": "head", "rated": True, "min_rating": 1400}
SEEK_WAITING = {
    "seek_id": "sk_5e1d2c3b4a596877",
    "status": "waiting",
    "variant": "head",
    "rated": True,
    "clock": None,
    "game_id": None,
    "seat": None,
    "token": None,
}
SEEK_PAIRED = {
    **SEEK_WAITING,
    "status": "paired",
    "game_id": "c0ffee0123456789",
    "seat": 1,
    "token": "u3Xb1mR7kLa4eJd8sTfGhIVt2w0cWq3nUxzQ0Hq2b5o",
}
CHALLENGE = {"player_id": "pl_0a1b2c3d4e5f6071", "variant": "head", "rated": False}
CHALLENGE_OFFERED = {
    "challenge_id": "ch_7a6b5c4d3e2f1a0b",
    "challenger": "pl_3f9c2a1b7d4e5f60",
    "challenged": "pl_0a1b2c3d4e5f6071",
    "variant": "head",
    "rated": False,
    "clock": {
        "seconds_per_move": 30,
        "on_timeout": "bot",
        "bot_level": "heuristic",
        "bot_moves_limit": 3,
    },
    "status": "offered",
    "game_id": None,
    "seat": None,
    "token": None,
}
CHALLENGE_ACCEPTED = {
    **CHALLENGE_OFFERED,
    "status": "accepted",
    "game_id": "5eed0123456789ab",
    "seat": 0,
    "token": "kLa4eJd8sTfGhIVt2w0cWq3nUxzQ0Hq2b5ou3Xb1mR7",
}
CHALLENGE_LIST = {"challenges": [CHALLENGE_OFFERED]}


# -- webhooks --------------------------------------------------------------------------------
WEBHOOK_REQUEST = {
    "url": "https://backend.example.com/schnapsen/events",
    "events": ["game.turn", "game.finished", "seek.paired"],
    "description": "push notifications",
}
WEBHOOK = {
    "webhook_id": "wh_1a2b3c4d5e6f7081",
    "url": "https://backend.example.com/schnapsen/events",
    "events": ["game.turn", "game.finished", "seek.paired"],
    "description": "push notifications",
    "created": 1796511600.123,
    "enabled": True,
    "notice": "",
    "failures": 0,
}
WEBHOOK_CREATED = {**WEBHOOK, "secret": "whsec_Zx8v0dQm2Lr5TnYp7Ka1Wb3Hc6Jf9Ue4Sg2Oi8Pl0Nk"}
WEBHOOK_LIST = {"webhooks": [WEBHOOK]}
DELIVERY = {
    "delivery_id": "dlv_9f8e7d6c5b4a39281706f5e4",
    "event_id": "evt_0a1b2c3d4e5f60718293a4b5",
    "kind": "game.turn",
    "game_id": "9f2c4e1a7b3d5c60",
    "version": 12,
    "state": "delivered",
    "attempts": 2,
    "created": 1796511900123,
    "last_status": 200,
    "last_latency_ms": 41.7,
    "last_error": None,
    "history": [
        {"at": 1796511900150, "status": 500, "latency_ms": 38.2, "error": None},
        {"at": 1796511910190, "status": 200, "latency_ms": 41.7, "error": None},
    ],
    "body": '{"id":"evt_0a1b2c3d4e5f60718293a4b5","type":"game.turn","created":1796511900123}',
}
DELIVERY_LIST = {"deliveries": [DELIVERY]}

TOURNAMENT_REQUEST = {
    "name": "Friday Swiss",
    "rounds": 5,
    "starts_in": 3600,
    "variant": "head",
    "clock": {"seconds_per_move": 30, "on_timeout": "lose"},
}
TOURNAMENT = {
    "tournament_id": "tn_0c1d2e3f4a5b6c7d",
    "name": "Friday Swiss",
    "kind": "swiss",
    "variant": "head",
    # As the server answers the request above: the levels a clock's bot defaults to.
    "clock": {"seconds_per_move": 30, "on_timeout": "lose", "bot_level": "heuristic",
              "bot_moves_limit": 3},
    "rounds": 5,
    "round": 2,
    "duration": None,
    "ends_at": None,
    "status": "started",
    "starts_at": 1796515200.0,
    "created": 1796511900.0,
    "players": 24,
}  # fmt: skip
TOURNAMENT_LIST = {"tournaments": [TOURNAMENT]}
ENTRY = {
    "tournament_id": "tn_0c1d2e3f4a5b6c7d",
    "player_id": "pl_3f2a1b0c9d8e7f60",
    "status": "entered",
}
STANDINGS = {
    "tournament_id": "tn_0c1d2e3f4a5b6c7d",
    "total": 24,
    "standings": [
        {"rank": 1, "player_id": "pl_3f2a1b0c9d8e7f60", "points": 2, "buchholz": 2,
         "sonneborn_berger": 2, "wins": 2, "games": 2, "byes": 0},
    ],
}  # fmt: skip
BOARDS = {
    "tournament_id": "tn_0c1d2e3f4a5b6c7d",
    "round": 2,
    "bye": None,
    "boards": [
        {"round": 2, "board": 1, "game_id": "9f8e7d6c5b4a3210", "dealer": "pl_3f2a1b0c9d8e7f60",
         "forehand": "pl_0a9b8c7d6e5f4a3b", "winner": None, "seat": 0, "token": "st_example"},
    ],
}  # fmt: skip

LIVE_GAME = {
    "game_id": GAME_ID,
    "pool": "head-rapid",
    "rated": True,
    "variant": "head",
    "rating": 1622,
    "tournament": None,
    "version": 14,
    "game_points": [7, 5],
    "to_move": 1,
    "players": [
        {"seat": 0, "type": "human", "joined": True, "player_id": "pl_3f9c2a1b7d4e5f60",
         "name": "Anna", "rating": 1688},
        {"seat": 1, "type": "human", "joined": True, "player_id": "pl_0a1b2c3d4e5f6071",
         "name": "Bernd", "rating": 1556},
    ],
    "links": {
        "view": f"/v1/games/{GAME_ID}",
        "stream": f"/v1/games/{GAME_ID}/stream",
        "board": f"/watch/?game={GAME_ID}",
    },
}  # fmt: skip
LIVE_GAMES = {"games": [LIVE_GAME], "next_cursor": None}

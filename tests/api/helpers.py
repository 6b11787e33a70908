"""Helpers of the HTTP API tests: one small client over either transport.

``Api`` speaks to the app through Flask's test client or to the live
gunicorn server through ``requests``; every helper returns parsed JSON and
asserts the status code. The engine-side helpers rebuild the truth from the
Redis log (``EventStore.events``) so the tests can judge what the API shows.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import redis
import requests

from service.engine import ActionTaken, DealStarted, GameState, replay
from service.engine.observation import observe
from service.store.events import EventStore

PROBLEM_JSON = "application/problem+json"
#: Fields the API adds to the engine's observation of a game.
API_FIELDS = ("game_id", "version", "players", "invite")
#: A card code standing on its own in a body's text (JSON, SSE).
CARD_CODE = re.compile(r"(?<![A-Za-z0-9])[ATKQJ][CDHS](?![A-Za-z0-9])")


# -- transport ------------------------------------------------------------


@dataclass
class Reply:
    """An HTTP answer, whichever transport carried it."""

    status: int
    headers: Mapping[str, str]
    text: str

    @property
    def content_type(self) -> str:
        return self.headers.get("Content-Type", "")

    def json(self) -> Any:
        return json.loads(self.text)

    def __repr__(self) -> str:
        return f"<Reply {self.status} {self.content_type} {self.text[:500]!r}>"


class Api:
    """A client of the service: a Flask test client or ``requests`` against a URL."""

    def __init__(self, client: Any = None, *, base_url: str | None = None):
        self.client = client
        self.base_url = base_url
        if base_url is not None and client is None:
            self.client = requests.Session()

    @classmethod
    def live(cls, base_url: str, session: requests.Session | None = None) -> Api:
        return cls(session or requests.Session(), base_url=base_url)

    def request(
        self,
        method: str,
        path: str,
        *,
        json_body: Any = None,
        data: bytes | str | None = None,
        content_type: str | None = None,
        headers: Mapping[str, str] | None = None,
        token: str | None = None,
    ) -> Reply:
        sent = dict(headers or {})
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        if json_body is not None:
            data = json.dumps(json_body)
            content_type = content_type or "application/json"
        if content_type is not None:
            sent["Content-Type"] = content_type
        if self.base_url is not None:
            answer = self.client.request(
                method, self.base_url + path, data=data, headers=sent, timeout=30
            )
            return Reply(answer.status_code, answer.headers, answer.text)
        answer = self.client.open(path, method=method, data=data, headers=sent)
        return Reply(answer.status_code, answer.headers, answer.get_data(as_text=True))

    def get(self, path: str, **kwargs: Any) -> Reply:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> Reply:
        return self.request("POST", path, **kwargs)


def ok(reply: Reply, status: int | tuple[int, ...] = 200) -> Any:
    """The JSON body of a successful answer, asserting its status."""
    statuses = (status,) if isinstance(status, int) else status
    assert reply.status in statuses, reply
    assert reply.content_type.startswith("application/json"), reply
    return reply.json()


def problem(reply: Reply, status: int, code: str | None = None) -> dict[str, Any]:
    """The RFC 9457 body of a refusal, asserting its shape, status and code."""
    assert reply.status == status, reply
    assert reply.content_type.split(";")[0].strip() == PROBLEM_JSON, reply
    body = reply.json()
    for member in ("type", "title", "status", "detail", "code"):
        assert member in body, (member, body)
    assert body["status"] == status, body
    assert isinstance(body["detail"], str) and body["detail"], body
    assert isinstance(body["title"], str) and body["title"], body
    if code is not None:
        assert body["code"] == code, body
    return body


# -- games over HTTP ------------------------------------------------------


@dataclass
class Game:
    """A game created over HTTP: its id and the two seats' tokens."""

    game_id: str
    tokens: dict[int, str]
    invite: str | None = None
    version: int = 0
    sent: list[tuple[int, dict[str, Any]]] = field(default_factory=list)

    @property
    def path(self) -> str:
        return f"/v1/games/{self.game_id}"


def create(
    api: Api, body: Mapping[str, Any] | None = None, *, key: str | None = None, status: int = 201
) -> dict[str, Any]:
    headers = {"Idempotency-Key": key} if key else None
    return ok(api.post("/v1/games", json_body=dict(body or {}), headers=headers), status)


def join(api: Api, game_id: str, invite: str, *, key: str | None = None) -> dict[str, Any]:
    headers = {"Idempotency-Key": key} if key else None
    reply = api.post(f"/v1/games/{game_id}/join", json_body={"invite": invite}, headers=headers)
    return ok(reply, (200, 201))


def new_game(api: Api, **body: Any) -> Game:
    """A game with both human seats taken."""
    created = create(api, body)
    joined = join(api, created["game_id"], created["invite"])
    assert joined["seat"] == 1 and created["seat"] == 0
    return Game(
        created["game_id"],
        {0: created["token"], 1: joined["token"]},
        created["invite"],
        joined["version"],
    )


def view(api: Api, game_id: str, token: str | None = None) -> dict[str, Any]:
    return ok(api.get(f"/v1/games/{game_id}", token=token))


def act(
    api: Api,
    game: Game,
    seat: int,
    action: Mapping[str, Any],
    *,
    expected_version: int | None = None,
    if_match: str | None = None,
    key: str | None = None,
) -> dict[str, Any]:
    """One successful action for ``seat``: its new view."""
    body = dict(action)
    if expected_version is not None:
        body["expected_version"] = expected_version
    headers = {}
    if if_match is not None:
        headers["If-Match"] = if_match
    if key is not None:
        headers["Idempotency-Key"] = key
    reply = api.post(
        f"{game.path}/actions", json_body=body, token=game.tokens[seat], headers=headers
    )
    answer = ok(reply, (200, 201))
    assert answer["seat"] == seat
    assert reply.headers.get("ETag") == f'"{answer["version"]}"'
    game.sent.append((seat, dict(action)))
    game.version = answer["version"]
    return answer


def to_move_view(api: Api, game: Game) -> dict[str, Any] | None:
    """The view of the seat to move (None once the game is over)."""
    seen = view(api, game.game_id, game.tokens[0])
    if seen["status"] == "finished":
        return None
    seat = seen["to_move"]
    assert seat in (0, 1), seen
    return seen if seat == 0 else view(api, game.game_id, game.tokens[1])


def play_random_game(
    api: Api,
    game: Game,
    rng: random.Random,
    *,
    after_each: Callable[[Game, dict[str, Any]], None] | None = None,
    max_actions: int = 2000,
) -> dict[str, Any]:
    """Play to the end, each seat choosing uniformly among the legal actions it is shown."""
    for _ in range(max_actions):
        seen = to_move_view(api, game)
        if seen is None:
            return view(api, game.game_id, game.tokens[0])
        legal = seen["deal"]["legal_actions"]
        assert legal, seen
        answer = act(api, game, seen["seat"], rng.choice(legal))
        if after_each is not None:
            after_each(game, answer)
    raise AssertionError(f"game {game.game_id} did not end in {max_actions} actions")


# -- the truth, from the Redis log ----------------------------------------


def log_events(redis_client: redis.Redis, game_id: str) -> list[Any]:
    return EventStore(redis_client).events(game_id)


def log_head(redis_client: redis.Redis, game_id: str) -> int:
    return EventStore(redis_client).head(game_id)


def truth(redis_client: redis.Redis, game_id: str) -> GameState:
    return replay(log_events(redis_client, game_id))


def log_decks(events: Iterable[Any]) -> list[list[str]]:
    return [[card.value for card in e.deck] for e in events if isinstance(e, DealStarted)]


def logged_actions(events: Iterable[Any]) -> list[tuple[int, dict[str, Any]]]:
    return [(e.seat, e.action.to_dict()) for e in events if isinstance(e, ActionTaken)]


def deal_start_version(events: list[Any]) -> int:
    """The version of the newest deal_started event."""
    return max(i + 1 for i, e in enumerate(events) if isinstance(e, DealStarted))


def engine_view(state: GameState, seat: int | None) -> dict[str, Any]:
    """What the engine says ``seat`` sees; the API's view minus the fields it adds."""
    return observe(state, seat)


def without_api_fields(body: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in body.items() if key not in API_FIELDS}


# -- hidden information ---------------------------------------------------


def hidden_cards(state: GameState, viewer: int | None) -> set[str]:
    """The cards ``viewer`` may not know now (R11b, R11c): empty once no deal runs."""
    deal = state.deal
    if deal is None or deal.result is not None:
        return set()
    hidden = set(deal.talon)
    for seat in (0, 1) if viewer is None else (1 - viewer,):
        hidden |= set(deal.hands[seat]) - set(deal.public_cards_in_hand(seat))
    return {card.value for card in hidden}


def cards_in(text_or_data: Any) -> set[str]:
    text = text_or_data if isinstance(text_or_data, str) else json.dumps(text_or_data)
    return set(CARD_CODE.findall(text))


def assert_hides(data: Any, hidden: set[str], where: str) -> None:
    leaked = cards_in(data) & hidden
    assert not leaked, f"{where} shows hidden cards {sorted(leaked)}: {data!r:.2000}"


def hands_in(data: Any) -> list[Any]:
    """Every value of a 'hand' member anywhere in JSON-like data."""
    found: list[Any] = []
    if isinstance(data, dict):
        for key, value in data.items():
            if key == "hand":
                found.append(value)
            found.extend(hands_in(value))
    elif isinstance(data, list):
        for item in data:
            found.extend(hands_in(item))
    return found


def parse_sse(text: str) -> list[dict[str, Any]]:
    """Server-Sent Events from a text/event-stream body: id, event and parsed data."""
    events = []
    for block in text.split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields[name] = value[1:] if value.startswith(" ") else value
        if "data" in fields:
            events.append(
                {
                    "id": fields.get("id"),
                    "event": fields.get("event"),
                    "data": json.loads(fields["data"]),
                }
            )
    return events

"""Every answer of a live server matches openapi.yaml: 0 mismatches.

A whole game against the bot is played over HTTP while a seat and a
spectator read it every way a client can (views, event feeds, the SSE
stream, replays at every version, jobs, exports, analysis), with problems,
a 304 and a 204 on the way; every answer is then validated against the
schema the document gives its operation and status (tests/contract/spec_check.py).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from service.engine.cards import Card
from service.store.clients import ClientRegistry
from service.web.openapi import OPENAPI_FILE
from tests.contract.spec_check import Answer, RecordingClient, SpecChecker
from tests.support.http import auth
from tests.support.openapi_document import load_yaml
from tests.support.servers import LiveServer
from tests.support.waiting import wait_until

GAME = "/v1/games/{game_id}"
JOB = "/v1/jobs/{job_id}"
CARDS = [card.value for card in Card]
#: The operations and statuses the game below must have met, or it checked too little.
MET = {
    "POST /v1/games -> 201", "GET /v1/games -> 200", "GET /v1/games/{game_id} -> 200",
    "GET /v1/games/{game_id} -> 304", "POST /v1/games/{game_id}/join -> 201",
    "POST /v1/games/{game_id}/actions -> 200", "GET /v1/games/{game_id}/events -> 200",
    "GET /v1/games/{game_id}/stream -> 200", "GET /v1/games/{game_id}/stream -> 204",
    "GET /v1/games/{game_id}/replay -> 200", "POST /v1/games/{game_id}/hint -> 200",
    "POST /v1/games/{game_id}/exports -> 202", "GET /v1/exports/{export_id} -> 200",
    "POST /v1/games/{game_id}/analysis -> 202", "GET /v1/games/{game_id}/analysis -> 200",
    "POST /v1/bot/moves -> 200", "GET /v1/jobs/{job_id} -> 200", "GET /v1/bot/levels -> 200",
    "POST /v1/games/{game_id}/resign -> 200", "POST /v1/games/{game_id}/abort -> 200",
    "POST /v1/games/{game_id}/claim-timeout -> 200",
    "GET /readyz -> 200", "GET /v1/games/{game_id} -> 404", "POST /v1/games -> 422",
    "POST /v1/games/{game_id}/actions -> 422", "GET /v1/games/{game_id} -> 401",
    "GET /v1/games/{game_id}/replay -> 422", "GET /v1/jobs/{job_id} -> 404",
}  # fmt: skip


@pytest.fixture(scope="module")
def server(redis_url: str) -> Iterator[LiveServer]:
    """A server whose rate limits let one seat read its replay at every version, and
    whose turns time out soon, so that a seat can claim a game (RX3)."""
    settings = {f"SCHNAPSEN_RATE_LIMIT_PER_{who}": "1000000" for who in ("TOKEN", "IP", "CLIENT")}
    settings["SCHNAPSEN_TURN_TIMEOUT_SECONDS"] = "1"
    live = LiveServer(redis_url, env=settings)
    try:
        yield live
    finally:
        live.stop()


def finished_job(client: RecordingClient, job: dict[str, Any]) -> dict[str, Any]:
    deadline = time.monotonic() + 120  # bounds a hang only
    while job["status"] not in ("finished", "failed"):
        assert time.monotonic() < deadline, f"job {job['id']} still {job['status']}"
        job = client.call("get", JOB, params={"job_id": job["id"]}, query={"wait": 10}).json()
    assert job["status"] == "finished", job
    return job


def claim_a_timed_out_game(app: RecordingClient, anonymous: RecordingClient) -> str:
    """A game between people that the waiting seat claims once the turn timed out;
    asked too early first. Returns its id."""
    created = app.call("post", "/v1/games", json={}).json()
    ids = {"game_id": created["game_id"]}
    joined = anonymous.call("post", f"{GAME}/join", params=ids, json={"invite": created["invite"]})
    tokens = {0: created["token"], 1: joined.json()["token"]}
    to_move = joined.json()["game"]["to_move"]
    waiting = RecordingClient(str(app.http.base_url), app.answers, auth(tokens[1 - to_move]))
    waiting.call("post", f"{GAME}/claim-timeout", params=ids)  # most likely too early
    wait_until(
        lambda: waiting.call("post", f"{GAME}/claim-timeout", params=ids).status_code == 200,
        30,
        "the turn to time out",
    )
    return created["game_id"]


def play_to_the_end(seat: RecordingClient, spectator: RecordingClient, game_id: str) -> dict:
    """Play seat 0's first legal action on each of its turns until the game is over;
    both readers follow the game on the event feed and read its replay as it runs."""
    ids = {"game_id": game_id}
    view = seat.call("get", GAME, params=ids).json()
    hinted = False
    while view["status"] != "finished":
        if view["to_move"] == view["seat"]:
            if not hinted:
                seat.call("post", f"{GAME}/hint", params=ids, json={"level": "random"},
                          query={"wait": 10})  # fmt: skip
                absent = next(card for card in CARDS if card not in view["deal"]["hand"])
                refused = seat.call("post", f"{GAME}/actions", params=ids,
                                    json={"type": "play", "card": absent})  # fmt: skip
                assert refused.status_code == 422, refused.text
                hinted = True
            action = view["deal"]["legal_actions"][0]
            view = seat.call("post", f"{GAME}/actions", params=ids, json=action).json()
        else:
            feed = seat.call(
                "get",
                f"{GAME}/events",
                params=ids,
                query={"after": view["version"], "wait": 10, "include": "view"},
            )
            view = feed.json().get("view", view)
        spectator.call("get", f"{GAME}/events", params=ids, query={"after": 0})
        spectator.call("get", f"{GAME}/replay", params=ids)
        seat.call("get", f"{GAME}/replay", params=ids, query={"at": view["version"]})
    return view


def test_every_answer_of_a_whole_game_matches_the_spec(server, worker, redis_client):
    document = load_yaml(OPENAPI_FILE.read_text())
    answers: list[Answer] = []
    _, key = ClientRegistry(redis_client).create("contract test (answers)")
    app = RecordingClient(server.url, answers, {"X-Client-Key": key})
    anonymous = RecordingClient(server.url, answers)
    anonymous.call("get", "/readyz")
    anonymous.call("get", "/v1/bot/levels")
    anonymous.call("get", GAME, params={"game_id": "g_nowhere"})
    anonymous.call("post", "/v1/games", json={"variant": "upside-down"})
    anonymous.call("get", JOB, params={"job_id": "nothing-here"})
    app.call("post", "/v1/bot/moves", query={"wait": 10}, json={
        "level": "heuristic",
        "position": {"seat": 0, "dealer": 1, "hand": ["AS", "TS", "KH", "QH", "JD"],
                     "trump_card": "QC", "talon_size": 9}})  # fmt: skip

    # Between people: a view with an invite, a join, an abort and a resignation.
    waiting = app.call("post", "/v1/games", json={}).json()
    ids = {"game_id": waiting["game_id"]}
    host = RecordingClient(server.url, answers, auth(waiting["token"]))
    host.call("get", GAME, params=ids)
    host.call("post", f"{GAME}/abort", params=ids)
    other = app.call("post", "/v1/games", json={"variant": "tracked"}).json()
    ids = {"game_id": other["game_id"]}
    guest = anonymous.call("post", f"{GAME}/join", params=ids, json={"invite": other["invite"]})
    RecordingClient(server.url, answers, auth(guest.json()["token"])).call(
        "post", f"{GAME}/resign", params=ids
    )
    claimed = claim_a_timed_out_game(app, anonymous)
    for gone in (waiting["game_id"], other["game_id"], claimed):
        anonymous.call("get", f"{GAME}/replay", params={"game_id": gone})
        anonymous.call("get", f"{GAME}/stream", params={"game_id": gone})
    app.call("get", "/v1/games", query={"client": "me", "limit": 2})

    # Against the bot, to the end.
    seated = anonymous.call("post", "/v1/games",
                            json={"opponent": {"type": "bot", "level": "random"}}).json()  # fmt: skip
    ids = {"game_id": seated["game_id"]}
    seat = RecordingClient(server.url, answers, auth(seated["token"]))
    spectator = RecordingClient(server.url, answers)
    RecordingClient(server.url, answers, auth("not-a-token")).call("get", GAME, params=ids)
    final = play_to_the_end(seat, spectator, seated["game_id"])
    seat.call("get", GAME, params=ids, headers={"If-None-Match": f'"{final["version"]}"'})
    spectator.call("get", GAME, params=ids)
    for reader in (seat, spectator):
        for version in range(1, final["version"] + 1):
            reader.call("get", f"{GAME}/replay", params=ids, query={"at": version})
        reader.call("get", f"{GAME}/replay", params=ids, query={"at": final["version"] + 1})
        reader.call("get", f"{GAME}/events", params=ids, query={"after": 0, "include": "view"})
        reader.call("get", f"{GAME}/stream", params=ids, query={"include": "view"})
        reader.call("get", f"{GAME}/stream", params=ids, query={"after": final["version"]})
        job = reader.call("post", f"{GAME}/exports", params=ids, json={"format": "json"}).json()
        done = finished_job(reader, job)
        reader.call("get", "/v1/exports/{export_id}",
                    params={"export_id": done["result"]["export_id"]})  # fmt: skip
    job = seat.call("post", f"{GAME}/analysis", params=ids, json={"deals": [1]}).json()
    finished_job(seat, job)
    seat.call("get", f"{GAME}/analysis", params=ids, query={"deal": 1})

    checker = SpecChecker(document)
    mismatches = [found for answer in answers for found in checker.mismatches(answer)]
    assert set(checker.checked) >= MET, MET - set(checker.checked)
    distinct = Counter(mismatches)
    report = "\n".join(f"{count} x {text}" for text, count in distinct.most_common())
    assert mismatches == [], f"{len(mismatches)} mismatches:\n{report}"

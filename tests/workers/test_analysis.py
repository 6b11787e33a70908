"""Post-game analysis over HTTP (gunicorn) with a real worker: values, access rules, progress, cache.

R11b: each decision is valued from the deciding seat's view alone. The check
below recomputes every decision of the analysed games from a *permuted*
state (the cards the seat could not see shuffled among their places) and
gets the very values the job stored: the analysis input holds no hidden card.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
import requests

from service.analysis import review as analysis
from service.bots.expert import DEFAULT_BUDGET_MS, ExpertBot
from service.engine.events import ActionTaken, apply_event
from service.engine.knowledge import seat_view
from service.game.seeds import bot_seed
from service.store.events import EventStore
from tests.support.http import auth
from tests.support.paths import SECRET
from tests.support.positions import permuted
from tests.support.waiting import wait_until

PROBLEM = "application/problem+json"


class Http:
    """The live server over HTTP (gunicorn), paths relative to its URL."""

    def __init__(self, url: str):
        self.url = url
        self.session = requests.Session()

    def get(self, path: str, **options: Any) -> requests.Response:
        return self.session.get(self.url + path, timeout=30, **options)

    def post(self, path: str, **options: Any) -> requests.Response:
        return self.session.post(self.url + path, timeout=30, **options)


@pytest.fixture(scope="module")
def http(live_server) -> Http:
    return Http(live_server.url)


def create_human_game(client, variant: str, seed: int) -> tuple[str, dict[int, str]]:
    created = client.post("/v1/games", json={"variant": variant, "seed": seed}).json()
    game_id = created["game_id"]
    invite = client.get(f"/v1/games/{game_id}", headers=auth(created["token"])).json()["invite"]
    joined = client.post(f"/v1/games/{game_id}/join", json={"invite": invite}).json()
    return game_id, {0: created["token"], 1: joined["token"]}


def play(client, game_id: str, tokens: dict[int, str], rng: random.Random, until) -> dict:
    """Both seats take random legal actions until ``until(view)`` (or the game ends)."""
    while True:
        view = client.get(f"/v1/games/{game_id}").json()
        if view["status"] == "finished" or until(view):
            return view
        seat = view["to_move"]
        mine = client.get(f"/v1/games/{game_id}", headers=auth(tokens[seat])).json()
        action = rng.choice(mine["deal"]["legal_actions"])
        response = client.post(
            f"/v1/games/{game_id}/actions", json=action, headers=auth(tokens[seat])
        )
        assert response.status_code == 200, response.json()


def run_analysis(client, game_id: str, body: dict | None = None, token: str | None = None):
    """Request the analysis (``body`` None: no body at all) and wait for its job's end;
    the job's reports seen on the way."""
    headers = auth(token) if token else {}
    options = {} if body is None else {"json": body}
    response = client.post(f"/v1/games/{game_id}/analysis", headers=headers, **options)
    assert response.status_code == 202, response.json()
    job = response.json()
    assert job["kind"] == "analysis" and 0 <= job["progress"] <= 1
    assert response.headers["Location"] == f"/v1/jobs/{job['id']}"
    reports = [job]

    def finished() -> bool:
        reports.append(client.get(f"/v1/jobs/{job['id']}").json())
        assert reports[-1]["status"] != "failed", reports[-1]
        return reports[-1]["status"] == "finished"

    wait_until(finished, 120, "the analysis job")
    return reports


def check_against_the_seat_views(redis_client, game_id: str, records: list[dict[str, Any]]):
    """R11b: every record equals the expert's valuation of the seat's view of a permuted state."""
    events = EventStore(redis_client).events(game_id)
    by_version = {record["version"]: record for record in records}
    rng = random.Random(game_id)
    state = None
    checked = 0
    for index, event in enumerate(events):
        if isinstance(event, ActionTaken) and index in by_version:
            record = by_version[index]
            other = permuted(state, event.seat, rng)
            view = seat_view(other, event.seat)
            assert view == seat_view(state, event.seat)
            moment = analysis.Moment(
                index, state.deal.number, len(view.tricks) + 1, view, event.action
            )
            assert analysis.analyse_moment(game_id, moment, secret=SECRET.encode()) == record
            # ... and the values are the top level's own evaluations of that view, at that version
            expert = ExpertBot(wall_clock_guard=False).choose(
                view, seed=bot_seed(game_id, index, SECRET.encode()), budget_ms=analysis.BUDGET_MS
            )
            evaluations = [
                {"action": action.to_dict(), "value": round(value, 4)}
                for action, value in expert.evaluations or ()
            ]
            assert record["values"] == evaluations
            checked += 1
        state = apply_event(state, event)
    assert checked == len(records)


@pytest.mark.parametrize(("variant", "seed"), [("head", 5), ("tracked", 6)])
def test_r11b_a_finished_games_analysis_values_each_decision_from_the_seats_view(
    http, redis_client, worker, variant, seed
):
    """R11b: every value from the deciding seat's view; R11d: once the game is over the whole
    analysis is open to a spectator, both seats and every deal."""
    client = http
    game_id, tokens = create_human_game(client, variant, seed)
    final = play(client, game_id, tokens, random.Random(seed), lambda view: False)
    assert final["status"] == "finished"

    refused(client.get(f"/v1/games/{game_id}/analysis"), 404, "analysis_not_found")
    reports = run_analysis(client, game_id, {})  # a spectator may ask once the game is over
    progress = [r["progress"] for r in reports]
    assert progress == sorted(progress) and progress[-1] == 1.0
    assert reports[-1]["result"]["url"] == f"/v1/games/{game_id}/analysis"

    body = client.get(f"/v1/games/{game_id}/analysis").json()
    actions = [
        e
        for e in client.get(f"/v1/games/{game_id}/replay").json()["events"]
        if e["type"] == "action_taken"
    ]
    records = body["decisions"]
    assert len(records) == len(actions) == reports[-1]["result"]["decisions_analysed"]
    assert [r["chosen"] for r in records] == [e["action"] for e in actions]
    assert body["seats"] == [0, 1] and body["game_finished"] is True
    assert (body["level"], body["budget_ms"]) == ("expert", DEFAULT_BUDGET_MS)  # the top level
    for record in records:
        assert record["loss"] >= 0
        if record["label"] == "forced":
            assert record["values"] == []
            continue
        values = [v["value"] for v in record["values"]]
        assert record["best_value"] == max(values)
        assert record["label"] == analysis.label(record["loss"], False)
    assert {p["seat"] for p in body["players"]} == {0, 1}
    assert all(0 <= p["accuracy"] <= 100 for p in body["players"])
    assert len(body["deal_accuracy"]) == 2 * len(final["deals"])
    check_against_the_seat_views(redis_client, game_id, records)

    # Cached: a second request values nothing again and serves the same analysis.
    again = run_analysis(client, game_id, token=tokens[0])  # no body: everything
    assert again[-1]["result"]["decisions_analysed"] == 0
    assert client.get(f"/v1/games/{game_id}/analysis").json() == body
    # Parts: one seat, one deal.
    response = client.get(f"/v1/games/{game_id}/analysis?seat=1&deal=1")
    assert response.status_code == 200, response.json()
    part = response.json()
    assert part["decisions"] == [r for r in records if r["seat"] == 1 and r["deal"] == 1]


def refused(response, status: int, code: str) -> None:
    assert response.status_code == status, response.json()
    assert response.headers["Content-Type"].startswith(PROBLEM)
    assert response.json()["code"] == code


def test_r11_a_running_games_analysis_is_the_seats_own_finished_deals(http, redis_client, worker):
    """R11a: during a game a seat reads only its own decisions of finished deals."""
    client = http
    game_id, tokens = create_human_game(client, "head", 17)
    rng = random.Random(17)
    url = f"/v1/games/{game_id}/analysis"
    refused(client.post(url, json={}, headers=auth(tokens[0])), 409, "deal_not_finished")
    view = play(client, game_id, tokens, rng, lambda view: len(view["deals"]) >= 1)
    assert view["status"] == "active"
    current = view["deal"]["number"]
    assert current == 2

    # Refused: the spectator, the opponent's decisions, the current deal, an unknown deal.
    refused(client.post(url, json={}), 401, "token_required")
    refused(client.get(url), 401, "token_required")
    # Who asks is known before what it asks for: a deal never dealt is not told to a spectator.
    refused(client.post(url, json={"deals": [9]}), 401, "token_required")
    refused(
        client.post(url, json={"seat": 1}, headers=auth(tokens[0])), 403, "analysis_not_allowed"
    )
    refused(client.get(f"{url}?seat=0", headers=auth(tokens[1])), 403, "analysis_not_allowed")
    refused(
        client.post(url, json={"deals": [2]}, headers=auth(tokens[0])), 409, "deal_not_finished"
    )
    refused(client.get(f"{url}?deal=1&deal=2", headers=auth(tokens[0])), 409, "deal_not_finished")
    # A deal the game has not dealt is a thing not found, as a game never made is (404).
    refused(client.post(url, json={"deals": [9]}, headers=auth(tokens[0])), 404, "unknown_deal")
    # Reading the analysis of a deal the game never dealt: there is none to find (404).
    refused(client.get(f"{url}?deal=9", headers=auth(tokens[0])), 404, "analysis_not_found")
    refused(client.post(url, json={"seat": 2}, headers=auth(tokens[0])), 422, "invalid_request")
    refused(client.post(url, json={"deals": []}, headers=auth(tokens[0])), 422, "invalid_request")
    refused(client.post(url, json={"at": 1}, headers=auth(tokens[0])), 422, "invalid_request")
    refused(client.get(f"{url}?deal=first", headers=auth(tokens[0])), 422, "invalid_request")
    refused(client.get(f"{url}?seat=2", headers=auth(tokens[0])), 422, "invalid_request")
    refused(client.get(url, headers=auth(tokens[0])), 404, "analysis_not_found")

    run_analysis(client, game_id, token=tokens[0])
    body = client.get(url, headers=auth(tokens[0])).json()
    assert body["seats"] == [0] and body["deals"] == [1] and body["game_finished"] is False
    assert body["decisions"] and {(r["seat"], r["deal"]) for r in body["decisions"]} == {(0, 1)}
    check_against_the_seat_views(redis_client, game_id, body["decisions"])
    # Seat 1 has not asked for its own: nothing of seat 0's part is served to it.
    refused(client.get(url, headers=auth(tokens[1])), 404, "analysis_not_found")

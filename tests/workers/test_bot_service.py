"""Bots as a service: positions from every phase, hints, and impossible positions."""

from __future__ import annotations

import random

import pytest

from service.bots import LEVELS
from service.engine import DECK, Variant, apply, legal_actions, new_game, start_deal, take_seat
from service.engine.knowledge import seat_view
from service.engine.position import position_from_view, view_from_position
from tests.support.http import auth

PHASES = {
    "open talon": lambda d: d.talon_open and d.lead_card is None and d.tricks,
    "open talon, following": lambda d: d.talon_open and d.lead_card is not None and d.tricks,
    "closed talon": lambda d: d.closed_by is not None and d.hands[0],
    "exhausted talon": lambda d: d.exhausted and d.closed_by is None and d.hands[d.to_move],
    "after a marriage": lambda d: d.declared is not None,
    "last-trick claim window": lambda d: d.cards_out,
}


def positions_by_phase(variant: Variant) -> dict[str, dict]:
    """One position (as the seat to move sees it) per phase, from random play."""
    found: dict[str, dict] = {}
    rng = random.Random(11)
    while len(found) < len(PHASES):
        state = take_seat(take_seat(new_game(variant, 0), 0), 1)
        deck = list(DECK)
        rng.shuffle(deck)
        state = start_deal(state, deck)
        while state.deal.result is None:
            for phase, test in PHASES.items():
                if phase not in found and test(state.deal):
                    found[phase] = position_from_view(seat_view(state, state.to_move))
            choices = legal_actions(state)
            calm = [a for a in choices if a.type.value != "claim"] or choices
            state = apply(state, rng.choice(calm if rng.random() < 0.97 else choices))
        if variant is Variant.TRACKED:
            found.setdefault("last-trick claim window", None)
    return {phase: position for phase, position in found.items() if position is not None}


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("phase", list(PHASES))
def test_the_bot_move_service_answers_a_legal_action_in_every_phase(client, worker, level, phase):
    position = positions_by_phase(Variant.HEAD)[phase]
    response = client.post("/v1/bot/moves?wait=20", json={"position": position, "level": level})
    assert response.status_code == 200, response.json
    job = response.json
    assert job["status"] == "finished" and job["kind"] == "move"
    assert response.headers["Location"] == f"/v1/jobs/{job['id']}"
    legal = [a.to_dict() for a in view_from_position(position).legal_actions()]
    assert job["result"]["action"] in legal
    assert job["result"]["level"] == level
    again = client.get(f"/v1/jobs/{job['id']}").json
    assert again == job


def test_without_wait_the_service_answers_202_and_the_job_finishes(client, worker):
    position = positions_by_phase(Variant.TRACKED)["closed talon"]
    response = client.post("/v1/bot/moves", json={"position": position, "level": "random"})
    assert response.status_code == 202
    job = client.get(f"{response.headers['Location']}?wait=20").json
    assert job["status"] == "finished"
    legal = [a.to_dict() for a in view_from_position(position).legal_actions()]
    assert job["result"]["action"] in legal


def impossible(change):
    position = positions_by_phase(Variant.HEAD)["open talon, following"]
    change(position)
    return position


@pytest.mark.parametrize(
    ("name", "change", "field"),
    [
        ("a duplicate card", lambda p: p["hand"].__setitem__(0, p["current_trick"][0]["card"]), ""),
        ("a hand too small", lambda p: p["hand"].pop(), "hand"),
        ("a talon of the wrong size", lambda p: p.__setitem__("talon_size", 1), "talon_size"),
        ("an illegal current trick", lambda p: p["current_trick"][0].__setitem__("seat", p["seat"]),
         "current_trick"),
        ("a wrong trick winner",
         lambda p: p["tricks"][0].__setitem__("winner", 1 - p["tricks"][0]["winner"]), "tricks[0]"),
    ],
)  # fmt: skip
def test_impossible_positions_get_a_422_naming_the_problem(client, name, change, field):
    position = impossible(change)
    response = client.post("/v1/bot/moves", json={"position": position, "level": "random"})
    assert response.status_code == 422, (name, response.json)
    problem = response.json
    assert response.mimetype == "application/problem+json"
    assert problem["code"] == "impossible_position"
    assert any(key.startswith(field) for key in problem["errors"]), (name, problem)


def test_a_malformed_position_is_a_schema_error(client):
    response = client.post("/v1/bot/moves", json={"position": {"seat": 0}, "level": "random"})
    assert response.status_code == 422
    assert "position" in response.json["errors"]


def test_unknown_job_is_404(client):
    assert client.get("/v1/jobs/move-doesnotexist").status_code == 404
    assert client.get("/v1/jobs/bot-someone-else").status_code == 404


def test_a_hint_for_the_seat_to_move(client, worker):
    created = client.post("/v1/games", json={"seed": 21, "first_dealer": 1}).json
    joined = client.post(f"/v1/games/{created['game_id']}/join", json={"invite": created["invite"]})
    game = created["game_id"]
    assert (
        client.post(f"/v1/games/{game}/hint", headers=auth(joined.json["token"])).status_code == 409
    )
    response = client.post(
        f"/v1/games/{game}/hint?wait=20",
        json={"level": "random", "budget_ms": 10_000},
        headers=auth(created["token"]),
    )
    assert response.status_code == 200, response.json
    assert response.json["result"]["budget_ms"] == 2000, "hints get the service's cap too"
    view = client.get(f"/v1/games/{game}", headers=auth(created["token"])).json
    assert response.json["result"]["action"] in view["deal"]["legal_actions"]
    assert client.post(f"/v1/games/{game}/hint").status_code == 401

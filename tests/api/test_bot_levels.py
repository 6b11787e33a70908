"""`GET /v1/bot/levels`: the levels a client may choose, with their budgets and strength.

The strength figures are the README's measured ones (benchmarks/tournament.py),
never made up: a test reads them back from the README.
"""

from __future__ import annotations

import pytest

from service.bots import LEVELS
from service.bots.expert import DEFAULT_BUDGET_MS
from tests.api.helpers import Api, create, ok, problem
from tests.conftest import REPO


@pytest.fixture
def api(client) -> Api:
    return Api(client)


def test_the_levels_weakest_first_with_budgets(api, app):
    body = ok(api.get("/v1/bot/levels"))
    levels = body["levels"]
    assert [level["name"] for level in levels] == list(LEVELS)
    assert body["default_level"] in LEVELS
    for level in levels:
        assert isinstance(level["description"], str) and "\n" not in level["description"]
        assert level["description"]
    by_name = {level["name"]: level for level in levels}
    assert by_name["expert"]["default_budget_ms"] == DEFAULT_BUDGET_MS
    assert by_name["expert"]["max_budget_ms"] == app.config["BOT_SERVICE_MAX_BUDGET_MS"]
    # Levels that do not search take no think time at all.
    assert by_name["random"]["default_budget_ms"] is None
    assert by_name["random"]["max_budget_ms"] is None


def test_strength_is_the_readmes_measured_figures(api):
    readme = (REPO / "README.md").read_text()
    by_name = {level["name"]: level for level in ok(api.get("/v1/bot/levels"))["levels"]}
    assert by_name["random"]["strength"] is None and by_name["random"]["strength_note"]
    for name in ("heuristic", "expert"):
        strength = by_name[name]["strength"]
        assert strength["opponent"] in LEVELS and strength["games"] == 400
        won = strength["games_won"]
        assert f"{won} : {strength['games'] - won}" in readme, strength
        assert f"{strength['net_game_points_per_deal']:+.3f} for {name}" in readme, strength


def test_every_listed_level_can_be_played(api):
    for level in ok(api.get("/v1/bot/levels"))["levels"]:
        create(api, {"opponent": {"type": "bot", "level": level["name"]}})


def test_levels_is_read_only(api):
    problem(api.post("/v1/bot/levels", json_body={}), 405, "method_not_allowed")

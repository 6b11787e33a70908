"""`GET /v1/bot/levels`: the levels a client may choose, with their budgets and strength.

The strength figures are the measured ones (benchmarks/ladder.py), never made up:
a test reads them back from the ladder table of docs/performance.md.
"""

from __future__ import annotations

from service.bots import LEVELS
from service.bots.expert import DEFAULT_BUDGET_MS
from tests.support.games import create
from tests.support.http import ok, problem
from tests.support.paths import REPO


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


def test_strength_is_the_ladders_measured_figures(api):
    """Each level above ``random`` shows its ladder Elo and its games against the next
    weaker level, as the ladder table of docs/performance.md prints them."""
    performance = (REPO / "docs" / "performance.md").read_text()
    levels = ok(api.get("/v1/bot/levels"))["levels"]
    assert levels[0]["name"] == "random"
    assert levels[0]["strength"] is None and levels[0]["strength_note"]
    for weaker, level in zip(levels, levels[1:], strict=False):
        strength = level["strength"]
        assert strength is not None, level["name"]
        assert strength["opponent"] == weaker["name"]
        assert "benchmarks/ladder.py" in strength["measured_by"]
        won = strength["games_won"]
        low, high = strength["elo_interval_95"]
        assert low < strength["elo"] < high
        row = (
            f"| {level['name']} | {strength['elo']:.0f} | {low:.0f} .. {high:.0f} | "
            f"{won} : {strength['games'] - won} vs {weaker['name']} "
        )
        assert row in performance, row


def test_every_listed_level_can_be_played(api):
    for level in ok(api.get("/v1/bot/levels"))["levels"]:
        create(api, {"opponent": {"type": "bot", "level": level["name"]}})


def test_levels_is_read_only(api):
    problem(api.post("/v1/bot/levels", json_body={}), 405, "method_not_allowed")

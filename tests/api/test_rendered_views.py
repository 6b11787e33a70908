"""A game view asked again is answered from the text rendered the first time: the same
bytes, each viewer its own (R11), and rendered anew whenever the game held is another."""

from __future__ import annotations

from typing import Any

import pytest

from service.engine.observation import observe
from service.game.seats import Seats
from service.game.values import Current
from service.web import game_answers
from service.web.rendered_views import RenderedViews
from tests.support.games import act, new_game
from tests.support.http import Api


def _rendered(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int | None]]:
    """The views rendered from here on, as (game, seat)."""
    seen: list[tuple[str, int | None]] = []
    render = game_answers.game_view

    def counted(current: Current, seat: int | None, **rest: Any) -> dict[str, Any]:
        seen.append((current.game_id, seat))
        return render(current, seat, **rest)

    monkeypatch.setattr(game_answers, "game_view", counted)
    return seen


def test_a_view_asked_again_is_the_same_answer_rendered_once(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = new_game(api, seed=11, first_dealer=0)
    rendered = _rendered(monkeypatch)
    answers = [api.get(game.path, token=game.tokens[1]) for _ in range(3)]
    assert [reply.status for reply in answers] == [200, 200, 200]
    assert answers[0].text == answers[1].text == answers[2].text
    assert answers[0].content_type == "application/json"
    assert rendered == [(game.game_id, 1)]


def test_an_actions_answer_is_the_view_the_same_seat_is_shown_next(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = new_game(api, seed=12, first_dealer=0)
    legal = api.get(game.path, token=game.tokens[1]).json()["deal"]["legal_actions"]
    rendered = _rendered(monkeypatch)
    answer = act(api, game, 1, legal[0])
    again = api.get(game.path, token=game.tokens[1])
    assert again.json() == answer
    assert rendered == [(game.game_id, 1)]


def test_each_seat_and_a_spectator_are_shown_their_own_view_of_one_version(
    api: Api, app: Any
) -> None:
    game = new_game(api, seed=13, first_dealer=0)
    state = app.extensions["schnapsen"].games.current(game.game_id).state
    for _ in range(2):  # rendered, then kept: each viewer's own both times
        for seat in (0, 1, None):
            token = None if seat is None else game.tokens[seat]
            shown = api.get(game.path, token=token).json()
            assert shown["seat"] == seat
            assert shown["deal"] == observe(state, seat)["deal"]
            if seat is None:
                assert shown["deal"]["hand"] == []


def _current(game_id: str, version: int) -> Current:
    from service.engine import GameCreated, Variant, replay
    from service.engine.state import Dealing

    state = replay([GameCreated(Variant.HEAD, 0, Dealing.SEEDED)])
    return Current(game_id, version, state, Seats())


def test_another_game_held_at_the_same_version_or_another_invite_is_rendered_anew() -> None:
    views = RenderedViews(size=4)
    first, other = _current("g", 3), _current("g", 3)
    made: list[str] = []

    def render(text: str):
        return lambda: made.append(text) or text

    assert views.text(first, 0, None, render("first")) == "first"
    assert views.text(first, 0, None, render("again")) == "first"
    assert views.text(other, 0, None, render("other")) == "other"  # seats changed, say
    assert views.text(other, 0, "invite", render("invited")) == "invited"
    assert views.text(other, 1, "invite", render("seat 1")) == "seat 1"
    assert made == ["first", "other", "invited", "seat 1"]


def test_a_view_not_rendered_as_text_is_not_kept() -> None:
    views = RenderedViews()
    current = _current("g", 1)
    assert views.text(current, None, None, lambda: None) is None
    assert views.text(current, None, None, lambda: "now") == "now"

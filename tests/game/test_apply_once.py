"""An action is folded once: the engine's decision gives the events and the state they
lead to, and nothing applies the action again on its way to the log.

The engine's two state changes of a running game are ``apply`` (an action, R2-R9)
and ``start_deal`` (the next deal, R10b); each request's calls of them are counted
while the in-process app plays whole games over HTTP, and must equal the events the
request appended: one change per event.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import CodeType

from service.engine import game as engine_game
from tests.support.games import new_game, play_random_game, to_move_view
from tests.support.http import Api

STATE_CHANGES: frozenset[CodeType] = frozenset(
    {engine_game.apply.__code__, engine_game.start_deal.__code__}
)


class Folds:
    """Calls of the engine's state changes on this thread while counting."""

    def __init__(self) -> None:
        self.calls = 0

    @contextmanager
    def counting(self) -> Iterator[None]:
        def profile(frame, event, _arg):
            if event == "call" and frame.f_code in STATE_CHANGES:
                self.calls += 1

        before = sys.getprofile()
        sys.setprofile(profile)
        try:
            yield
        finally:
            sys.setprofile(before)


def test_each_action_request_changes_the_state_once_per_event_it_appends(api: Api):
    folds = Folds()
    game = new_game(api)
    counted: list[tuple[int, int]] = []  # (events appended, state changes) per request

    original_post = api.post

    def counted_post(path, **kwargs):
        if not path.endswith("/actions"):
            return original_post(path, **kwargs)
        before = game.version
        folds.calls = 0
        with folds.counting():
            reply = original_post(path, **kwargs)
        counted.append((reply.json()["version"] - before, folds.calls))
        return reply

    api.post = counted_post  # type: ignore[method-assign]
    play_random_game(api, game, random.Random(43))

    assert to_move_view(api, game) is None  # played to the end
    assert any(appended > 1 for appended, _ in counted)  # some actions dealt the next deal
    assert all(changes == appended for appended, changes in counted), counted

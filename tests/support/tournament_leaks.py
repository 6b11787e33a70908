"""What a tournament's reads and notices may show while its games run, for tests over
HTTP: a Swiss and an arena are read through the same paths and told through the same
notices, so one check serves both (R11: no card a reader may not know, and a seat's
token on nobody's board but its player's own)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import requests
from redis import Redis

from service.engine import replay
from tests.support.hidden import assert_hides, cards_in, hands_in, hidden_cards
from tests.support.http import auth
from tests.support.log import log_events
from tests.support.players import AppKey


def assert_reads_hide_cards(
    url: str,
    redis: Redis,
    app: AppKey,
    tournament_id: str,
    tokens: dict[str, str],
    boards: dict[str, Any],
) -> None:
    """For each of ``boards`` (the round in play, as the app read it; every game made):
    each seat's view hides what R11 hides from it, a spectator's hides every hidden card
    and every hand, only a player's own board carries its seat and token, and the
    tournament's reads (by the app and by the board's dealer: the tournament, its
    standings, its boards, the dealer's tournaments) hold no card at all."""
    path = f"{url}/v1/tournaments/{tournament_id}"
    assert all("token" not in b and "seat" not in b for b in boards["boards"])
    for board in boards["boards"]:
        state = replay(log_events(redis, board["game_id"]))
        everything = hidden_cards(state, None)
        assert everything, "a deal runs: cards are hidden"
        spectator = requests.get(f"{url}/v1/games/{board['game_id']}", timeout=30)
        assert_hides(spectator.json(), everything, "a spectator's view")
        assert all(hand == [] for hand in hands_in(spectator.json()))
        for seat, player in enumerate((board["dealer"], board["forehand"])):
            own = requests.get(f"{path}/boards", headers=auth(tokens[player]), timeout=30).json()
            mine = [b for b in own["boards"] if "token" in b]
            assert [(b["game_id"], b["seat"]) for b in mine] == [(board["game_id"], seat)]
            view = requests.get(f"{url}/v1/games/{board['game_id']}",
                                headers=auth(mine[0]["token"]), timeout=30).json()  # fmt: skip
            assert view["seat"] == seat
            assert_hides(view, hidden_cards(state, seat), f"seat {seat}'s view")
        for read in ("", "/standings", "/boards"):
            for headers in (app.headers, auth(tokens[board["dealer"]])):
                answer = requests.get(f"{path}{read}", headers=headers, timeout=30).json()
                assert cards_in(answer) == set(), f"{read or 'the tournament'} shows cards"
        listed = requests.get(f"{url}/v1/players/me/tournaments",
                              headers=auth(tokens[board["dealer"]]), timeout=30)  # fmt: skip
        assert listed.status_code == 200, listed.text
        assert [t["tournament_id"] for t in listed.json()["tournaments"]] == [tournament_id]
        assert cards_in(listed.json()) == set() and "token" not in listed.text


def assert_notices_hide_cards(notices: Iterable[tuple[str, Any]]) -> None:
    """Each notice, ``(kind, body)`` with its body as JSON data, holds no card and no
    token: a notice goes to an app's backend, which sits at no seat."""
    for kind, body in notices:
        text = json.dumps(body)
        assert cards_in(text) == set() and "token" not in text, kind


__all__ = ["assert_notices_hide_cards", "assert_reads_hide_cards"]

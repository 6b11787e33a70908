"""A tournament's page (/tournament/?id=) on a phone, in Debian's Chromium, against gunicorn
and a real RQ worker that pairs the rounds.

A running Swiss of 22 players: once the app's key is typed in, the page shows the
standings a page of 20 at a time, with each player's name, and the 11 boards of round 1
being played, each linking to its live board; it reads both again on its own, so a board
that ends leaves the list and its winner's point shows. A tap on a board opens its live
board (/watch/?game=), a spectator's view. The page speaks German with ?lang=de. At each
step nothing scrolls sideways and every control is at least 44 px each way. Screenshots
go to test-artifacts/ui/tournament-390x844-*.png.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests

from tests.support.arenas import entered_arena
from tests.support.browser import PageWatch, check_layout, phone_page, screenshot
from tests.support.http import auth
from tests.support.players import new_app
from tests.support.tournaments import (
    TournamentService,
    entered_swiss,
    round_in_play,
    seat_token,
)
from tests.support.tournaments import tournament_service as started_service
from tests.support.waiting import wait_until

pytestmark = pytest.mark.timeout(300)

#: Bounds the wait for the page's next reading (every 5 s), never a speed.
REFRESH_TIMEOUT = 60


@pytest.fixture(scope="module")
def tournament_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TournamentService]:
    with started_service(tmp_path_factory.mktemp("tournament-page")) as service:
        yield service


def rows(page) -> list[list[str]]:
    return page.eval_on_selector_all(
        "#standings tr", "trs => trs.map(tr => [...tr.cells].map(td => td.textContent))"
    )


def board_links(page) -> dict[str, str]:
    return dict(
        page.eval_on_selector_all(
            "#tournament-boards li",
            "lis => lis.map(li => [li.dataset.game, li.querySelector('a').getAttribute('href')])",
        )
    )


def test_a_running_swiss_shows_its_standings_and_opens_one_of_its_boards(tournament_service):
    service = tournament_service
    swiss = entered_swiss(service, players=22, rounds=2, name="Sunday Swiss")
    boards = round_in_play(service, swiss, 1)["boards"]
    assert len(boards) == 11
    tid = swiss.tournament_id

    with phone_page() as page:
        watch = PageWatch(page)

        # The key typed in once: the tournament, its first 20 lines, its boards.
        page.goto(f"{service.url}/tournament/?id={tid}&lang=en")
        assert page.input_value("#tournament-id") == tid
        page.fill("#tournament-key", swiss.app.key)
        page.tap("#tournament-show")
        page.wait_for_selector('body[data-state="shown"]')
        assert page.inner_text("#tournament-name") == "Sunday Swiss"
        assert "round 1 of 2" in page.inner_text("#tournament-facts")
        assert "22 players" in page.inner_text("#tournament-facts")
        first = rows(page)
        assert len(first) == 20
        assert [line[0] for line in first] == [str(n) for n in range(1, 21)]
        assert all(line[1].startswith("Player ") for line in first), first
        assert page.inner_text("#standings-where") == "1\u201320 of 22"
        assert board_links(page) == {b["game_id"]: f"/watch/?game={b['game_id']}" for b in boards}
        check_layout(page, "a running Swiss's standings")
        screenshot(page, "tournament-390x844-01-standings")

        # The next page of the standings: the last two lines.
        page.tap("#standings-next")
        wait_until(lambda: len(rows(page)) == 2, REFRESH_TIMEOUT, "the standings' second page")
        assert [line[0] for line in rows(page)] == ["21", "22"]
        assert page.inner_text("#standings-where") == "21\u201322 of 22"
        every = {line[1] for line in first + rows(page)}
        assert len(every) == 22  # each player once
        check_layout(page, "the standings' second page")
        page.tap("#standings-prev")
        wait_until(lambda: len(rows(page)) == 20, REFRESH_TIMEOUT, "the standings' first page")

        # A board ends over HTTP: read again, the page drops it and shows its winner's point.
        ended = boards[0]
        token = seat_token(service, swiss, ended["forehand"], ended["game_id"])
        resigned = requests.post(
            f"{service.url}/v1/games/{ended['game_id']}/resign", headers=auth(token), timeout=30
        )
        assert resigned.status_code == 200, resigned.text
        wait_until(
            lambda: ended["game_id"] not in board_links(page) and rows(page)[0][2] == "1",
            REFRESH_TIMEOUT,
            "the page to drop the ended board and count its point",
        )
        assert len(board_links(page)) == 10
        check_layout(page, "the standings after a board ended")
        screenshot(page, "tournament-390x844-02-refreshed")

        # A tap on a board opens its live board: a spectator's view, both hands face down.
        game_id = boards[1]["game_id"]
        page.tap(f'#tournament-boards li[data-game="{game_id}"] a')
        page.wait_for_url(f"**/watch/?game={game_id}")
        version = requests.get(f"{service.url}/v1/games/{game_id}", timeout=30).json()["version"]
        page.wait_for_selector(f'body[data-version="{version}"]')
        assert page.locator("#bottom-hand .card.back").count() == 5
        assert page.locator("#top-hand .card.back").count() == 5
        check_layout(page, "a tournament board's live board")
        screenshot(page, "tournament-390x844-03-board")

        # In German: the key is kept in the tab, so the page reads at once.
        page.goto(f"{service.url}/tournament/?id={tid}&lang=de")
        page.wait_for_selector('body[data-state="shown"]')
        assert page.evaluate("document.documentElement.lang") == "de"
        assert "Runde 1 von 2" in page.inner_text("#tournament-facts")
        headings = page.eval_on_selector_all(
            "#tournament-panel h3", "hs => hs.map(h => h.textContent)"
        )
        assert headings == ["Tabelle", "Tische im Spiel"]
        check_layout(page, "the standings in German")
        screenshot(page, "tournament-390x844-04-german")
        assert watch.errors == []


def test_a_running_arena_shows_its_standings_without_tiebreaks(tournament_service):
    """An arena's page: its end time and pairings among the facts, its table by points and
    games (no Buchholz or Sonneborn-Berger: an arena has none), and its boards being
    played; a board that ends leaves the list and its winner's two points show."""
    service = tournament_service
    app = new_app(service.redis)
    arena = entered_arena(service.url, app, players=6, duration=120, starts_in=1)
    tid = arena.tournament_id

    def in_play() -> list[dict] | None:
        boards = requests.get(f"{service.url}/v1/tournaments/{tid}/boards",
                              headers=app.headers, timeout=30).json()["boards"]  # fmt: skip
        made = all(requests.get(f"{service.url}/v1/games/{b['game_id']}", timeout=30).ok
                   for b in boards)  # fmt: skip
        return boards if len(boards) == 3 and made else None

    boards = wait_until(in_play, REFRESH_TIMEOUT, "the arena's first boards")
    with phone_page() as page:
        watch = PageWatch(page)
        page.goto(f"{service.url}/tournament/?id={tid}&lang=en")
        page.fill("#tournament-key", app.key)
        page.tap("#tournament-show")
        page.wait_for_selector('body[data-state="shown"]')
        facts = page.inner_text("#tournament-facts")
        assert "arena until" in facts and "1 pairing" in facts and "6 players" in facts, facts
        assert [len(line) for line in rows(page)] == [4] * 6
        hidden = page.eval_on_selector_all("th.tiebreak", "ths => ths.map(th => th.hidden)")
        assert hidden == [True, True]
        assert set(board_links(page)) == {b["game_id"] for b in boards}
        check_layout(page, "a running arena's standings")
        screenshot(page, "tournament-390x844-05-arena")

        ended = boards[0]
        own = requests.get(f"{service.url}/v1/tournaments/{tid}/boards",
                           headers=auth(arena.tokens[ended["dealer"]]), timeout=30).json()  # fmt: skip
        [mine] = [b["token"] for b in own["boards"] if b["game_id"] == ended["game_id"]]
        resigned = requests.post(f"{service.url}/v1/games/{ended['game_id']}/resign",
                                 headers=auth(mine), timeout=30)  # fmt: skip
        assert resigned.status_code == 200, resigned.text
        wait_until(
            lambda: ended["game_id"] not in board_links(page) and rows(page)[0][2] == "2",
            REFRESH_TIMEOUT,
            "the page to drop the ended board and count its winner's points",
        )
        check_layout(page, "an arena's standings after a board ended")
        assert watch.errors == []

"""Hidden information on every read path (docs/rules.md, R11).

While a deal runs, no answer to a seat holds a card that seat cannot know:
the opponent's hand (less what R11a made public) and the face-down talon.
Spectators know less still: no hand at all. The hidden cards are computed
from the true engine state, rebuilt from the Redis log, and searched for in
the raw text of every answer. Cards of deals already over may be shown to
the players (R11d), so the search covers the running deal's part of a feed;
the older part is checked for decks shown too early instead.

Elsewhere, the same search covers the reads and notices of other parts: a player's
reads and exports (tests/players/test_player_leaks.py), webhook deliveries
(tests/webhooks/test_deliveries.py), and a tournament's reads, boards and notices
(``test_tournament_reads_and_notices_leak_no_hidden_card`` in
tests/tournaments/test_swiss_over_http.py; an arena's, with its pairings' notices, in
``test_an_arenas_reads_show_no_hidden_card_and_only_a_players_own_seat`` and
``test_an_arena_pairs_each_player_again_once_through_a_kill_and_counts_every_game`` in
tests/tournaments/test_arena_over_http.py), and the live listing of a tournament's
boards (``GET /v1/games/live?tournament=``:
``test_the_tournament_listing_shows_no_hidden_card_while_its_boards_are_played`` in
tests/tournaments/test_live_tournament_games.py).
"""

from __future__ import annotations

import random
import threading
from typing import Any

import pytest
import requests

from service.engine import GameState, replay
from service.web.app import create_app
from service.web.services import services
from tests.support.games import Game, create, join, new_game, play_random_game, to_move_view, view
from tests.support.hidden import assert_hides, cards_in, hands_in, hidden_cards
from tests.support.http import Api, ok, parse_sse
from tests.support.log import deal_start_version, log_decks, log_events
from tests.support.paths import SECRET
from tests.support.players import new_app
from tests.support.waiting import wait_until

VIEWERS = (0, 1, None)


def token_of(game: Game, viewer: int | None) -> str | None:
    return None if viewer is None else game.tokens.get(viewer)


def check_feed(
    events: list[dict[str, Any]],
    viewer: int | None,
    state: GameState,
    deal_start: int,
    hidden: set[str],
    where: str,
) -> None:
    """A feed of visible events: the running deal's part hides ``hidden``; no deck too early."""
    for event in events:
        if viewer is None:
            assert all(hand == [] for hand in hands_in(event)), (where, event)
        if event["version"] >= deal_start:
            assert_hides(event, hidden, f"{where} event {event['version']}")
        if state.winner is None:
            # No deck (nor its nonce) leaves the server before the game is over.
            assert "deck" not in event and "nonce" not in event, (where, event)


def check_replay_deals(deals: list[dict[str, Any]], viewer: int | None, state: GameState) -> None:
    for deal in deals:
        if state.winner is None:
            assert deal["deck"] is None and deal["nonce"] is None, (viewer, deal)


def check_every_read_path(api: Api, game: Game, redis_client, rng: random.Random) -> None:
    """View (and the view asked again, as kept), events, replay and replay?at, for both
    seats and a spectator."""
    events = log_events(redis_client, game.game_id)
    state = replay(events)
    start = deal_start_version(events)
    for viewer in VIEWERS:
        if viewer is not None and viewer not in game.tokens:
            continue
        token = token_of(game, viewer)
        hidden = hidden_cards(state, viewer)

        seen = view(api, game.game_id, token)
        assert seen["version"] == len(events)
        assert_hides(seen, hidden, f"view of {viewer}")
        kept = view(api, game.game_id, token)  # answered as kept (service/web/rendered_views)
        assert kept == seen
        assert_hides(kept, hidden, f"kept view of {viewer}")
        if viewer is None:
            assert all(hand == [] for hand in hands_in(seen))
        else:
            assert sorted(seen["deal"]["hand"]) == sorted(c.value for c in state.deal.hands[viewer])

        feed = ok(api.get(f"{game.path}/events?after=0", token=token))
        assert [e["version"] for e in feed["events"]] == list(range(1, len(events) + 1))
        check_feed(feed["events"], viewer, state, start, hidden, f"events of {viewer}")
        tail = ok(api.get(f"{game.path}/events?after={start - 1}", token=token))
        assert_hides(tail, hidden, f"events after {start - 1} of {viewer}")

        record = ok(api.get(f"{game.path}/replay", token=token))
        assert record["version"] == len(events) and record["complete"] is False
        assert_hides(record["state"], hidden, f"replay state of {viewer}")
        check_feed(record["events"], viewer, state, start, hidden, f"replay of {viewer}")
        check_replay_deals(record["deals"], viewer, state)

        # The past, as it was: the state at a version of the running deal.
        at = rng.randint(start, len(events))
        past = replay(events[:at])
        hidden_then = hidden_cards(past, viewer)
        record = ok(api.get(f"{game.path}/replay?at={at}", token=token))
        assert record["version"] == at and len(record["events"]) == at
        assert_hides(record["state"], hidden_then, f"replay at {at} of {viewer}")
        check_feed(record["events"], viewer, past, start, hidden_then, f"replay at {at}")
        check_replay_deals(record["deals"], viewer, past)
        if viewer is None and start > 3:  # a version of an earlier deal, for a spectator
            earlier = rng.randint(3, start - 1)
            record = ok(api.get(f"{game.path}/replay?at={earlier}"))
            check_replay_deals(record["deals"], None, state)
            assert all("deck" not in event for event in record["events"])
            assert all(hand == [] for hand in hands_in(record))


def check_finished_game_reveals_every_deck(api: Api, game: Game, redis_client) -> None:
    """R11d: once the game is over, the replay holds every deal's deck, for everyone."""
    events = log_events(redis_client, game.game_id)
    decks = log_decks(events)
    assert len(decks) >= 2
    for viewer in VIEWERS:
        record = ok(api.get(f"{game.path}/replay", token=token_of(game, viewer)))
        assert record["complete"] is True
        assert [deal["deck"] for deal in record["deals"]] == decks
        for deal in record["deals"]:
            assert len(deal["deck"]) == 20 and len(set(deal["deck"])) == 20
            assert deal["result"] is not None
        shown = [e["deck"] for e in record["events"] if e["type"] == "deal_started"]
        assert shown == decks
        feed = ok(api.get(f"{game.path}/events", token=token_of(game, viewer)))
        assert [e["deck"] for e in feed["events"] if e["type"] == "deal_started"] == decks


@pytest.mark.parametrize("variant", ["head", "tracked"])
def test_no_read_path_shows_hidden_cards_while_a_deal_runs(client, redis_client, variant):
    api = Api(client)
    rng = random.Random(f"leaks-{variant}")
    created = create(api, {"variant": variant, "seed": rng.randrange(2**32)})
    game = Game(created["game_id"], {0: created["token"]}, created["invite"], created["version"])
    check_every_read_path(api, game, redis_client, rng)  # waiting for seat 1
    game.tokens[1] = join(api, game.game_id, game.invite)["token"]
    check_every_read_path(api, game, redis_client, rng)

    def after_each(game: Game, answer: dict[str, Any]) -> None:
        if answer["status"] != "finished":
            check_every_read_path(api, game, redis_client, rng)

    final = play_random_game(api, game, rng, after_each=after_each)
    assert final["status"] == "finished"
    check_finished_game_reveals_every_deck(api, game, redis_client)


def test_the_live_games_and_the_featured_game_show_no_card(client, redis_client):
    """The live listing and the featured game (any caller of the app reads them, as a
    spectator would) hold no card at all while the game runs: no hand, no talon, no trick."""
    api = Api(client)
    app = new_app(redis_client)
    rng = random.Random("live-leaks")
    created = ok(api.post("/v1/games", json_body={"seed": 4242}, headers=app.headers), 201)
    game = Game(created["game_id"], {0: created["token"]}, created["invite"])
    game.tokens[1] = join(api, game.game_id, game.invite)["token"]
    reads = 0

    def check_live_reads(game: Game, answer: dict[str, Any]) -> None:
        nonlocal reads
        state = replay(log_events(redis_client, game.game_id))
        hidden = hidden_cards(state, None)
        for path in ("/v1/games/live", "/v1/games/featured", "/v1/games/live?pool=head-untimed"):
            reply = api.get(path, headers=app.headers)
            if answer["status"] == "finished":
                assert game.game_id not in reply.text, (path, reply)
                continue
            assert game.game_id in reply.text, (path, reply)
            assert_hides(reply.text, hidden, f"{path} at {answer['version']}")
            assert cards_in(reply.text) == set(), (path, reply)
            assert hands_in(ok(reply)) == []
            reads += 1

    check_live_reads(game, view(api, game.game_id))
    play_random_game(api, game, rng, after_each=check_live_reads)
    assert reads > 30


def finished(api: Api, game: Game) -> bool:
    return view(api, game.game_id)["status"] == "finished"


def test_no_deck_leaves_the_server_before_the_game_ends(client, redis_client):
    """R11d with the fair-deal promise: a finished deal's deck stays hidden, for the
    players too, until the game is over; its commitment is public from the start."""
    api = Api(client)
    rng = random.Random("r11d")
    game = new_game(api, variant="head", seed=1234)
    while len(log_decks(log_events(redis_client, game.game_id))) < 2:
        mover = to_move_view(api, game)
        assert mover is not None
        api_answer = api.post(
            f"{game.path}/actions",
            json_body=rng.choice(mover["deal"]["legal_actions"]),
            token=game.tokens[mover["seat"]],
        )
        ok(api_answer)
    if finished(api, game):
        pytest.fail("the game ended in one deal")
    for viewer in (0, 1, None):
        token = None if viewer is None else game.tokens[viewer]
        record = ok(api.get(f"{game.path}/replay", token=token))
        assert [deal["deck"] for deal in record["deals"]] == [None, None]
        assert [deal["nonce"] for deal in record["deals"]] == [None, None]
        assert all(len(deal["commitment"]) == 64 for deal in record["deals"])


# -- long-poll --------------------------------------------------------------


#: The longest long-poll (the schema's cap, 30 s): a long-poll the new event does not
#: wake answers no events when it ends, and the events are asserted.
NEVER_ENDING_WAIT = 30


def test_long_polls_answer_new_events_without_hidden_cards(redis_url, redis_client):
    app = create_app(
        {"REDIS_URL": redis_url, "SECRET_KEY": SECRET, "LONG_POLL_MAX_SECONDS": NEVER_ENDING_WAIT}
    )
    watcher = services(app).watcher
    api = Api(app.test_client())
    rng = random.Random("long-poll")
    game = new_game(api, variant="tracked", seed=555)
    for _step in range(12):
        mover = to_move_view(api, game)
        assert mover is not None
        version = mover["version"]
        answers: dict[Any, Any] = {}

        def poll(viewer: int | None, after: int = version, answers: dict = answers) -> None:
            answers[viewer] = Api(app.test_client()).get(
                f"{game.path}/events?after={after}&wait={NEVER_ENDING_WAIT}",
                token=token_of(game, viewer),
            )

        threads = [threading.Thread(target=poll, args=(viewer,), daemon=True) for viewer in VIEWERS]
        for thread in threads:
            thread.start()
        wait_until(lambda: watcher.waiting == len(VIEWERS), 30, "the long-polls to wait")
        ok(
            api.post(
                f"{game.path}/actions",
                json_body=rng.choice(mover["deal"]["legal_actions"]),
                token=game.tokens[mover["seat"]],
            )
        )
        # Only the new event can end a wait this long: the timeout bounds a missed wake.
        wait_until(
            lambda answers=answers: len(answers) == len(VIEWERS), 45, "the long-polls to wake"
        )
        events = log_events(redis_client, game.game_id)
        state = replay(events)
        start = deal_start_version(events)
        for viewer in VIEWERS:
            feed = ok(answers[viewer])
            assert [e["version"] for e in feed["events"]] == list(
                range(version + 1, len(events) + 1)
            )
            hidden = hidden_cards(state, viewer)
            check_feed(feed["events"], viewer, state, start, hidden, f"long-poll of {viewer}")


def test_an_empty_long_poll_waits_and_answers_no_events(app):
    api = Api(app.test_client())
    watcher = services(app).watcher
    game = new_game(api)
    answers: list[Any] = []

    def poll() -> None:
        answers.append(
            api.get(f"{game.path}/events?after={game.version}&wait=3", token=game.tokens[0])
        )

    waiting_before = watcher.waiting
    thread = threading.Thread(target=poll, daemon=True)
    thread.start()
    # It waits: it is one of the watcher's waiters while its wait lasts ...
    wait_until(lambda: watcher.waiting > waiting_before or answers, 30, "the long-poll to wait")
    assert not answers, "the long-poll answered without waiting"
    # ... and when the wait ends with nothing new, it answers no events.
    wait_until(lambda: answers, 60, "the long-poll's answer")
    feed = ok(answers[0])
    assert feed["events"] == [] and feed["version"] == game.version


# -- Server-Sent Events ------------------------------------------------------


def read_stream(client, path: str, until: int, **kwargs: Any) -> str:
    """The text of an SSE stream, read until the event with id ``until`` (or its end)."""
    reply = client.get(path, **kwargs)
    assert reply.status_code == 200, reply.get_data(as_text=True)
    assert reply.mimetype == "text/event-stream"
    text = ""
    try:
        for chunk in reply.response:
            text += chunk.decode() if isinstance(chunk, bytes) else chunk
            events = parse_sse(text)
            if events and (events[-1]["event"] == "end" or int(events[-1]["id"]) >= until):
                break
    finally:
        reply.close()
    return text


def without_end(streamed: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], bool]:
    """The stream's events, and whether it closed with the final ``end`` event."""
    ended = bool(streamed) and streamed[-1]["event"] == "end"
    if ended:
        assert streamed[-1]["id"] is None and streamed[-1]["data"]["status"] == "finished"
    return (streamed[:-1] if ended else streamed), ended


def test_sse_streams_hide_what_the_viewer_may_not_know(sse_app, redis_client):
    client = sse_app.test_client()
    api = Api(client)
    rng = random.Random("sse")
    game = new_game(api, variant="head", seed=777)
    steps = 0

    def check_streams(game: Game, _answer: Any) -> None:
        nonlocal steps
        steps += 1
        if steps % 3 and not finished(api, game):
            return
        events = log_events(redis_client, game.game_id)
        state = replay(events)
        start = deal_start_version(events)
        for viewer in VIEWERS:
            hidden = hidden_cards(state, viewer)
            headers = {}
            query = ""
            token = token_of(game, viewer)
            if viewer == 1:
                query = f"?access_token={token}"  # EventSource clients cannot send headers
            elif token:
                headers["Authorization"] = f"Bearer {token}"
            text = read_stream(client, f"{game.path}/stream{query}", len(events), headers=headers)
            streamed, ended = without_end(parse_sse(text))
            assert ended == (state.winner is not None), "a finished game's stream ends"
            assert [int(e["id"]) for e in streamed] == list(range(1, len(events) + 1))
            for item in streamed:
                assert item["event"] == item["data"]["type"]
                assert item["data"]["version"] == int(item["id"])
            feed = [item["data"] for item in streamed]
            check_feed(feed, viewer, state, start, hidden, f"stream of {viewer}")
            running = [item for item in streamed if int(item["id"]) >= start]
            assert_hides("".join(str(item["data"]) for item in running), hidden, "stream")
            # Resuming with Last-Event-ID sends only what came after it.
            headers["Last-Event-ID"] = str(start - 1)
            text = read_stream(client, f"{game.path}/stream{query}", len(events), headers=headers)
            resumed, _ended = without_end(parse_sse(text))
            assert [int(e["id"]) for e in resumed] == list(range(start, len(events) + 1))
            assert_hides(text, hidden, f"resumed stream of {viewer}")

    check_streams(game, None)
    play_random_game(api, game, rng, after_each=check_streams)
    assert steps > 10


@pytest.mark.timeout(60)  # bounds a stream that never ends; it asserts no duration
def test_an_sse_stream_keeps_alive_and_ends_after_its_time(sse_app):
    client = sse_app.test_client()
    api = Api(client)
    game = new_game(api)
    reply = client.get(f"{game.path}/stream", headers={"Authorization": f"Bearer {game.tokens[0]}"})
    assert reply.headers["Cache-Control"] == "no-cache"
    text = reply.get_data(as_text=True)  # the whole stream, to its end
    assert text.startswith("retry:")
    # Heartbeats came while it waited (every 0.2 s of its 1 s), and it ended without the
    # game's end event: its time ran out, the only other way a stream ends.
    assert text.count(": keep-alive") >= 2
    streamed = parse_sse(text)
    assert all(e["event"] != "end" for e in streamed)
    assert [int(e["id"]) for e in streamed] == list(range(1, game.version + 1))


def test_sse_over_real_http_hides_the_opponents_hand(sse_live_server, redis_client):
    live_server = sse_live_server
    api = Api.live(live_server.url)
    game = new_game(api, variant="tracked", seed=4040)
    mover = to_move_view(api, game)
    ok(
        api.post(
            f"{game.path}/actions",
            json_body=mover["deal"]["legal_actions"][0],
            token=game.tokens[mover["seat"]],
        )
    )
    events = log_events(redis_client, game.game_id)
    state = replay(events)
    for viewer in VIEWERS:
        headers = {"Accept": "text/event-stream"}
        if viewer is not None:
            headers["Authorization"] = f"Bearer {game.tokens[viewer]}"
        text = ""
        with requests.get(
            f"{live_server.url}{game.path}/stream", headers=headers, stream=True, timeout=10
        ) as reply:
            assert reply.status_code == 200
            assert reply.headers["Content-Type"].startswith("text/event-stream")
            for chunk in reply.iter_content(chunk_size=None, decode_unicode=True):
                text += chunk
                streamed = parse_sse(text)
                if streamed and int(streamed[-1]["id"]) >= len(events):
                    break
        assert_hides(text, hidden_cards(state, viewer), f"live stream of {viewer}")
        assert len(parse_sse(text)) == len(events)

"""`GET /v1/games/export`: a client app's archived games as NDJSON, newest first.

Every archived game of the client (in its grace period or in the archive
alone) is one line, and none that is not archived; each line's replay is
the body `GET /v1/games/{id}/replay` answers a spectator, byte for byte
once parsed; `since`, `until`, `variant`, `status` and `max` choose the
games; the archive is read page by page, so an export longer than a page
holds every game once. Bad parameters are 4xx problems, never a 5xx. On
SQLite and on PostgreSQL.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from urllib.parse import quote

import pytest

from service.store import archive_postgres, archive_sqlite
from service.store.clients import ClientRegistry
from tests.support.archive_records import played_record
from tests.support.archived_games import Place, PlacedGame, newest_first
from tests.support.http import ok, problem

#: More rows than one page of either back end's ``scan``.
SCAN_PAGE = max(archive_sqlite.SCAN_PAGE, archive_postgres.SCAN_PAGE)
#: The places of the client's games, interleaved in time; the variant of each.
PLACES = [
    (Place.ARCHIVED, "head"),
    (Place.GRACE, "tracked"),
    (Place.ENDED, "head"),
    (Place.ARCHIVED, "tracked"),
    (Place.ACTIVE, "tracked"),
    (Place.GRACE, "head"),
    (Place.ARCHIVED, "head"),
    (Place.WAITING, "head"),
    (Place.ARCHIVED, "tracked"),
    (Place.GRACE, "head"),
]


def rfc3339(ms: float, offset_hours: int = 0) -> str:
    """A time in ms since the epoch as RFC 3339, in a zone ``offset_hours`` east of UTC."""
    moment = datetime.fromtimestamp(0, UTC) + timedelta(milliseconds=ms)
    zone = timezone(timedelta(hours=offset_hours))
    return moment.astimezone(zone).isoformat().replace("+00:00", "Z")


@pytest.fixture(scope="module")
def exported(archiving):
    """A client's games in every place, two of them played out to the end."""
    client = archiving.new_client("Exporting")
    games = [
        archiving.place(client, place, variant=variant, played_out=number in (0, 3))
        for number, (place, variant) in enumerate(PLACES)
    ]
    return client, games


def archived(games: list[PlacedGame]) -> list[PlacedGame]:
    return [game for game in games if game.place.archived]


def ids(lines: Iterable[dict]) -> list[str]:
    return [line["game_id"] for line in lines]


def test_the_export_holds_every_archived_game_of_the_client_newest_first(archiving, exported):
    client, games = exported
    assert ids(archiving.export(client)) == newest_first(archived(games))


def test_each_line_holds_the_replay_a_spectator_reads_and_the_listings_facts(archiving, exported):
    client, games = exported
    summaries = {g["game_id"]: g for g in archiving.listing(client, "&limit=100")["games"]}
    for line in archiving.export(client):
        game_id = line["game_id"]
        assert set(line) == {"game_id", "created_at", "ended_at", "variant", "status", "replay"}
        assert line["replay"] == ok(archiving.api.get(f"/v1/games/{game_id}/replay"))
        assert line["replay"]["complete"] is True
        assert line["created_at"] == summaries[game_id]["created_at"]
        assert line["variant"] == summaries[game_id]["variant"]
        assert line["status"] == summaries[game_id]["status"] == "finished"
        assert line["created_at"] <= line["ended_at"] and line["ended_at"].endswith("Z")


@pytest.mark.parametrize("variant", ["head", "tracked"])
def test_the_variant_filter_exports_the_games_of_that_variant(archiving, exported, variant):
    client, games = exported
    wanted = [game for game in archived(games) if game.variant == variant]
    assert wanted
    assert ids(archiving.export(client, f"&variant={variant}")) == newest_first(wanted)


def test_the_status_filter_finished_exports_every_archived_game(archiving, exported):
    client, games = exported
    assert ids(archiving.export(client, "&status=finished")) == newest_first(archived(games))


@pytest.mark.parametrize("offset_hours", [0, 1, -5])
def test_since_is_inclusive_and_until_exclusive_on_creation_times(
    archiving, exported, offset_hours
):
    client, games = exported
    ordered = sorted(archived(games), key=lambda g: (g.created_ms, g.game_id))
    first, last = ordered[1], ordered[-2]
    since = quote(rfc3339(first.created_ms, offset_hours))
    until = quote(rfc3339(last.created_ms, offset_hours))
    wanted = [g for g in ordered if first.created_ms <= g.created_ms < last.created_ms]
    assert first.game_id in newest_first(wanted) and last.game_id not in newest_first(wanted)
    assert ids(archiving.export(client, f"&since={since}&until={until}")) == newest_first(wanted)
    only_since = [g for g in ordered if g.created_ms >= first.created_ms]
    assert ids(archiving.export(client, f"&since={since}")) == newest_first(only_since)
    only_until = [g for g in ordered if g.created_ms < last.created_ms]
    assert ids(archiving.export(client, f"&until={until}")) == newest_first(only_until)


def test_a_since_within_a_games_millisecond_leaves_that_game_out(archiving, exported):
    client, games = exported
    game = max(archived(games), key=lambda g: g.created_ms)
    since = quote(rfc3339(game.created_ms + 0.5))
    assert game.game_id not in ids(archiving.export(client, f"&since={since}"))
    until = quote(rfc3339(game.created_ms + 0.5))
    assert game.game_id in ids(archiving.export(client, f"&until={until}"))


@pytest.mark.parametrize("days", [0, -1])
def test_an_until_not_later_than_since_exports_no_games(archiving, exported, days):
    """Games created at or after ``since`` and before an ``until`` not later than it: none,
    the way any filter that matches nothing answers (the spec's parameters are free of
    each other, and so is the server)."""
    client, games = exported
    newest = max(archived(games), key=lambda g: g.created_ms)
    since = quote(rfc3339(newest.created_ms))
    until = quote(rfc3339(newest.created_ms + days * 86_400_000))
    assert newest.game_id in ids(archiving.export(client, f"&since={since}"))
    assert ids(archiving.export(client, f"&since={since}&until={until}")) == []


@pytest.mark.parametrize("most", [1, 2, 5])
def test_max_exports_only_the_newest_games(archiving, exported, most):
    client, games = exported
    lines = archiving.export(client, f"&max={most}&variant=head")
    wanted = [game for game in archived(games) if game.variant == "head"]
    assert ids(lines) == newest_first(wanted)[:most]


def test_an_export_longer_than_a_page_of_the_archive_holds_every_game_once(archiving):
    """The same real game kept under many ids, some created in the same ms: paging by
    keyset must neither repeat nor skip a game at a page's edge."""
    source = archiving.new_client("Source")
    played = archiving.place(source, Place.GRACE)
    game = archiving.archiver.read(played.game_id)
    assert game is not None
    client = archiving.new_client("Many")
    start = played.created_ms - 10_000_000
    copies = []
    for number in range(2 * SCAN_PAGE + 3):
        game_id = f"{0xA0000000 + number * 7919:016x}"
        created_ms = start + (number // 3) * 1000  # three games a ms: ties at page edges
        row = played_record(replace(game, game_id=game_id), created_ms, client.id)
        assert archiving.archive.put(row)
        copies.append(PlacedGame(game_id, created_ms, Place.ARCHIVED, "head"))
    lines = archiving.export(client)
    assert ids(lines) == newest_first(copies)
    sample = lines[SCAN_PAGE]
    assert sample["replay"] == ok(archiving.api.get(f"/v1/games/{sample['game_id']}/replay"))
    assert (
        ids(archiving.export(client, f"&max={SCAN_PAGE + 1}"))
        == newest_first(copies)[: SCAN_PAGE + 1]
    )


def test_a_client_without_archived_games_gets_an_empty_export(archiving):
    client = archiving.new_client("Nothing yet")
    archiving.place(client, Place.ENDED)
    assert archiving.export(client) == []


def test_the_export_needs_a_client_key_as_the_listing_does(archiving, exported):
    client, games = exported
    api = archiving.api
    problem(api.get("/v1/games/export?client=me"), 401, "client_key_required")
    reply = api.get("/v1/games/export?client=me", headers={"X-Client-Key": "sck_nope"})
    problem(reply, 401, "invalid_client_key")
    made_up = api.get("/v1/games/export?client=me", headers={"Authorization": "Bearer made-up"})
    problem(made_up, 401, "client_key_required")
    bearer = api.get(
        "/v1/games/export?client=me", headers={"Authorization": f"Bearer {client.key}"}
    )
    assert ids(archiving.export(client)) == ids(map(json.loads, bearer.text.splitlines()))


def test_the_export_route_leaves_the_games_routes_alone(archiving, exported):
    client, games = exported
    game = games[0]
    assert ok(archiving.api.get(f"/v1/games/{game.game_id}"))["game_id"] == game.game_id
    problem(archiving.api.get("/v1/games/exports"), 404, "game_not_found")
    reply = archiving.api.post("/v1/games/export", json_body={}, headers=client.headers)
    problem(reply, 405)


def test_a_server_without_an_archive_answers_archive_unavailable(api, redis_client):
    key = ClientRegistry(redis_client).create("No archive")[1]
    reply = api.get("/v1/games/export?client=me", headers={"X-Client-Key": key})
    problem(reply, 503, "archive_unavailable")


@pytest.mark.parametrize(
    "query",
    [
        "",
        "?client=you",
        "?client=me&since=yesterday",
        "?client=me&since=2026-12-01",
        "?client=me&since=2026-12-01T12:00:00",
        "?client=me&since=2026-13-01T00:00:00Z",
        "?client=me&until=2026-12-01T25:00:00Z",
        "?client=me&since=2026-12-01T12:00:00+01:00",  # an unencoded + is a space
        "?client=me&max=0",
        "?client=me&max=100001",
        "?client=me&max=-1",
        "?client=me&max=ten",
        "?client=me&max=99999999999999999999999",
        "?client=me&variant=blitz",
        "?client=me&status=active",
        "?client=me&status=waiting",
        "?client=me&varaint=tracked",
        "?client=me&cursor=abc",
        "?client=me&limit=5",
        "?client=me&since=%00",
    ],
)
def test_bad_export_parameters_are_4xx_problems(archiving, exported, query):
    client, _ = exported
    reply = archiving.api.get(f"/v1/games/export{query}", headers=client.headers)
    assert 400 <= reply.status < 500, reply
    problem(reply, reply.status)

"""Raw requests to every GET and POST: never a 5xx, and every /v1 answer is JSON.

The live schemathesis run (tests/benchmarks/test_schemathesis_live_benchmark.py) sends
what openapi.yaml describes; this sends what no schema describes. hypothesis builds
requests from raw parts: body bytes (JSON nested thousands deep, numbers of thousands of
digits, invalid UTF-8, real bodies with one member replaced), any Unicode category in
path ids, query values and the headers clients send (Authorization, Idempotency-Key,
If-Match, If-None-Match, Last-Event-ID, Content-Type, X-Request-ID). Real games, their
seats' tokens, an invite and job ids are among the values, so requests get past the 404s
and 401s to the code behind them.

Two parts: in-process (Flask's test client: raw bytes, arbitrary headers;
most of the examples), and raw sockets to gunicorn (chunked bodies whose
framing is valid, broken or truncated, and header bytes no client library
sends). Each answer must be below 500, an error must be a complete RFC 9457
problem, and a refusal changes nothing (no event appended, no game created).
Event streams are read to their first bytes only; their 200 is
text/event-stream.
"""

from __future__ import annotations

import hashlib
import json
import random
import string
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.game.replay_export import CONTENT_TYPES, build
from service.store.events import EventStore, keys
from service.store.exports import ExportStore, StoredExport
from service.store.stats import GameStats
from tests.support.games import new_game, play_random_game, to_move_view
from tests.support.http import Api
from tests.support.paths import SECRET
from tests.support.rawhttp import NoAnswer, RawReply, exchange, request_bytes
from tests.support.servers import LiveServer

JSON_TYPES = ("application/json", "application/problem+json")
PROBLEM_MEMBERS = ("type", "title", "status", "detail", "code")
#: 5xx answers that are not errors: readiness without a worker is "not ready".
DOCUMENTED_5XX = {("/readyz", 503, "not_ready")}

OPERATIONS = [
    ("POST", "/v1/games"),
    ("POST", "/v1/games/{game}/join"),
    ("POST", "/v1/games/{game}/actions"),
    ("POST", "/v1/games/{game}/hint"),
    ("POST", "/v1/games/{game}/exports"),
    ("POST", "/v1/bot/moves"),
    ("GET", "/v1/games/{game}"),
    ("GET", "/v1/games/{game}/events"),
    ("GET", "/v1/games/{game}/stream"),
    ("GET", "/v1/games/{game}/replay"),
    ("GET", "/v1/jobs/{job}"),
    ("GET", "/v1/exports/{export}"),
    ("GET", "/openapi.yaml"),
    ("GET", "/healthz"),
    ("GET", "/readyz"),
    ("GET", "/metrics"),
    ("GET", "/docs"),
    ("GET", "/play/"),
    ("GET", "/replay/"),
    ("GET", "/v1/{game}"),
    ("POST", "/v1/{game}"),
]
HEADER_NAMES = ["Authorization", "Idempotency-Key", "If-Match", "If-None-Match",
                "Last-Event-ID", "Content-Type", "X-Request-ID", "Range", "If-Unmodified-Since",
                "Transfer-Encoding"]  # fmt: skip
G = "/v1/games/{game}"
POSITION = {
    "seat": 0, "dealer": 1, "hand": ["AS", "TS", "KH", "QH", "JD"], "trump_card": "QC",
    "talon_size": 9, "tricks": [], "current_trick": [],
}  # fmt: skip


@dataclass
class World:
    """The real things the generated requests may name."""

    games: list[str]
    #: Games only their players move: a worker may play the bot's moves meanwhile.
    human_games: list[str]
    tokens: list[str]
    invites: list[str]
    jobs: list[str]
    exports: list[str]
    bodies: list[dict[str, Any]] = field(default_factory=list)
    #: Requests that succeed as they are: (method, operation, path, token, body).
    exact: list[tuple[str, str, str, str | None, Any]] = field(default_factory=list)

    def snapshot(self, client: redis.Redis) -> tuple[Any, ...]:
        """What a refusal must leave as it was: the known logs and the games created."""
        with client.pipeline(transaction=False) as pipe:
            for game in self.human_games:
                pipe.xlen(keys(game)["log"])
            pipe.get(GameStats.CREATED)
            return tuple(pipe.execute())


def stored_export(client: redis.Redis, game_id: str, viewer: int | None, kind: str) -> str:
    """An export built here as the worker builds it (no worker runs in these tests)."""
    body = build(EventStore(client).events(game_id), game_id, viewer, kind)
    export_id = uuid.uuid4().hex
    ExportStore(client).save(StoredExport(
        export_id, game_id, viewer, kind, CONTENT_TYPES[kind], hashlib.sha256(body).hexdigest(),
        body,
    ))  # fmt: skip
    return export_id


def build_world(api: Api, client: redis.Redis) -> World:
    """Games in every state, their tokens, an invite, a job of each kind, exports."""
    active = new_game(api, seed=4711, first_dealer=1)
    finished = new_game(api, variant="tracked", seed=12)
    play_random_game(api, finished, random.Random(12))
    waiting = api.post("/v1/games", json_body={}).json()
    bot = api.post("/v1/games", json_body={"opponent": {"type": "bot", "level": "random"}}).json()
    mover = to_move_view(api, active)
    seat, legal = active.tokens[mover["seat"]], mover["deal"]["legal_actions"]
    on, over, open_ = active.path, finished.path, f"/v1/games/{waiting['game_id']}"
    hint = api.post(f"{on}/hint", token=seat).json()
    export = api.post(f"{finished.path}/exports", json_body={"format": "ndjson"}).json()
    move = {"position": POSITION}  # the random level: jobs a worker may run later cost nothing
    job = api.post("/v1/bot/moves", json_body={"level": "random", **move}).json()
    return World(
        games=[active.game_id, finished.game_id, waiting["game_id"], bot["game_id"]],
        human_games=[active.game_id, finished.game_id, waiting["game_id"]],
        tokens=[*active.tokens.values(), *finished.tokens.values(), waiting["token"]],
        invites=[waiting["invite"], active.invite],
        jobs=[hint["id"], export["id"], job["id"]],
        exports=[
            export["export_id"],  # not built: no worker runs
            stored_export(client, finished.game_id, None, "ndjson"),
            stored_export(client, finished.game_id, 0, "text"),
        ],
        bodies=[
            *legal,
            {"invite": waiting["invite"]},
            {"variant": "tracked", "opponent": {"type": "bot", "level": "random"}, "seed": 5},
            {"level": "random", "position": POSITION, "seed": 1, "budget_ms": 5},
            {"format": "text"},
            {"level": "random"},
        ],
        exact=[
            *[("POST", f"{G}/actions", f"{on}/actions", seat, act) for act in legal],
            ("POST", f"{G}/join", f"{open_}/join", None, {"invite": waiting["invite"]}),
            ("POST", f"{G}/hint", f"{on}/hint", seat, {"level": "random"}),
            ("POST", f"{G}/exports", f"{over}/exports", finished.tokens[0], {"format": "text"}),
            ("POST", "/v1/bot/moves", "/v1/bot/moves", None, {"level": "random", **move}),
            ("POST", "/v1/games", "/v1/games", None, {"opponent": {"type": "human"}}),
            ("GET", G, on, seat, None),
            ("GET", f"{G}/events", f"{on}/events?after=3", seat, None),
            ("GET", f"{G}/replay", f"{over}/replay?at=5", finished.tokens[1], None),
            ("GET", f"{G}/stream", f"{over}/stream?after=2", finished.tokens[0], None),
            ("GET", "/v1/jobs/{job}", f"/v1/jobs/{hint['id']}", None, None),
        ],
    )  # fmt: skip


# -- strategies ---------------------------------------------------------------

# Every Unicode category, surrogates (Cs) included: they reach the server as bytes.
any_text = st.text(st.characters(codec=None, categories=None), max_size=40)
odd_text = st.sampled_from([
    "", " ", "%", "%00", "..", "a/b", "a.b", "a:b", "\x00", "\xb2", "٣", "²", "-1", "+1", "1e3",
    "NaN", "Infinity", "0x10", "9" * 5000, "-" + "9" * 5000, "1" * 19, "\ufeff", "\u202e",
    "\ud800", "W/", '"', '"5', 'W/"5"', "*", "Bearer", "Bearer ", "bearer  x",
])  # fmt: skip


#: Ids of the public job kinds with anything after the dash (RQ refuses most of them).
job_ids = st.tuples(
    st.sampled_from(["hint-", "move-", "export-", "bot-"]), any_text | odd_text
).map("".join)


def world_values(world: World) -> st.SearchStrategy[str]:
    real = [*world.games, *world.tokens, *world.invites, *world.jobs, *world.exports]
    return st.sampled_from(real)


def values(world: World) -> st.SearchStrategy[str]:
    """A string a client might send anywhere: real, odd, numeric or anything."""
    numbers = st.one_of(
        st.integers(-(10**30), 10**30).map(str),
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
        st.integers(0, 12).map(str),
    )
    return st.one_of(world_values(world), odd_text, numbers, any_text)


def header_values(world: World) -> st.SearchStrategy[str]:
    tags = st.one_of(
        st.integers(0, 400).map(lambda v: f'"{v}"'),
        st.integers(0, 400).map(lambda v: f'W/"{v}"'),
        st.lists(st.integers(0, 40).map(lambda v: f'"{v}"'), min_size=1, max_size=4).map(", ".join),
    )
    return st.one_of(
        values(world),
        world_values(world).map(lambda token: f"Bearer {token}"),
        values(world).map(lambda token: f"Bearer {token}"),
        tags,
        st.sampled_from(["application/json", "application/json; charset=utf-8", "text/plain",
                         "application/problem+json", "multipart/form-data; boundary=x",
                         "application/x-www-form-urlencoded", "chunked", "gzip, chunked",
                         "bytes=0-10", "bytes=99999-", "bytes=5-1", "bytes=-3, 0-1",
                         "Sat, 01 Jan 2000 00:00:00 GMT"]),
    )  # fmt: skip


def json_values() -> st.SearchStrategy[Any]:
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**25), 10**25),
        st.floats(allow_nan=False),
        any_text,
        st.sampled_from(["AS", "QH", "play", "close_talon", "H", "human", "bot", "expert"]),
    )
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(any_text, inner, max_size=4),
        max_leaves=12,
    )


def deep(depth: int, kind: str) -> bytes:
    if kind == "lists":
        return b"[" * depth + b"]" * depth
    if kind == "objects":
        return b'{"":' * depth + b"0" + b"}" * depth
    return b'{"position":' * depth + b"{}" + b"}" * depth


def bodies(world: World) -> st.SearchStrategy[bytes]:
    """Body bytes: real bodies with one member replaced, JSON, deep JSON, huge numbers, junk."""
    weird = st.one_of(
        json_values(),
        st.integers(1, 5000).map(lambda n: int("9" * n) if n < 4000 else 10**40),
    )
    mutated = st.tuples(st.sampled_from(world.bodies), any_text | st.sampled_from(
        ["type", "card", "suit", "expected_version", "seed", "budget_ms", "position", "level",
         "invite", "variant", "opponent", "deck", "first_dealer", "format", "hand", "seat"]
    ), weird).map(lambda t: json.dumps({**t[0], t[1]: t[2]}).encode())  # fmt: skip
    huge = st.tuples(
        st.sampled_from(["seed", "expected_version", "budget_ms", "talon_size", "first_dealer"]),
        st.integers(4300, 9000),
        st.booleans(),
    ).map(lambda t: b'{"type": "close_talon", "%s": %s%s}' % (
        t[0].encode(), b"-" if t[2] else b"", b"7" * t[1]))  # fmt: skip
    return st.one_of(
        st.sampled_from(world.bodies).map(lambda body: json.dumps(body).encode()),
        mutated,
        json_values().map(lambda value: json.dumps(value).encode()),
        st.tuples(st.integers(30, 6000), st.sampled_from(["lists", "objects", "named"])).map(
            lambda t: deep(*t)
        ),
        huge,
        st.binary(max_size=200),
        st.sampled_from([b"", b" ", b"\xef\xbb\xbf{}", b'{"a": NaN}', b"[Infinity]", b"\xff",
                         b'{"seed": 1e999}', b'"\\ud800"', b'{"a": "\\u0000"}', b"{" * 20000]),
    )  # fmt: skip


def path_piece(text: str) -> str:
    """A path segment as a client would send ``text``: its UTF-8, percent-encoded."""
    return quote(text.encode("utf-8", "surrogatepass"), safe="")


def mostly(real: st.SearchStrategy[Any], other: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``real`` about three times in four: requests must get past the 404s and 401s."""
    return st.integers(0, 3).flatmap(lambda pick: real if pick else other)


@st.composite
def targets(draw: st.DrawFn, world: World) -> tuple[str, str, str]:
    """(method, operation, path with a query): real ids mostly, any text otherwise."""
    method, template = draw(st.sampled_from(OPERATIONS))
    ids = st.one_of(odd_text, any_text, world_values(world))
    path = template.format(
        game=path_piece(draw(mostly(st.sampled_from(world.games), ids))),
        job=path_piece(draw(mostly(st.sampled_from(world.jobs), ids | job_ids))),
        export=path_piece(draw(mostly(st.sampled_from(world.exports), ids))),
    )
    names = mostly(st.sampled_from(["after", "wait", "at", "access_token", "level"]), any_text)
    small = st.integers(0, 40).map(str)
    query = draw(st.lists(st.tuples(names, st.one_of(small, small, values(world))), max_size=3))
    if query:
        path += "?" + "&".join(f"{path_piece(name)}={path_piece(value)}" for name, value in query)
    return method, template, path


@st.composite
def header_sets(draw: st.DrawFn, world: World, method: str) -> dict[str, str]:
    """A seat's token and a JSON content type mostly, then up to three headers of any value."""
    headers = {}
    if draw(st.integers(0, 3)):
        bearer = st.sampled_from(world.tokens).map("Bearer {}".format)
        headers["Authorization"] = draw(mostly(bearer, header_values(world)))
    if method == "POST":
        headers["Content-Type"] = draw(mostly(st.just("application/json"), header_values(world)))
    headers.update(
        draw(st.dictionaries(st.sampled_from(HEADER_NAMES), header_values(world), max_size=3))
    )
    return headers


@st.composite
def requests(draw: st.DrawFn, world: World) -> dict[str, Any]:
    """Mostly a request from raw parts; sometimes a good request with a header or its
    body replaced, which reaches the engine, the idempotency records and the jobs."""
    if draw(st.integers(0, 3)) == 0:
        return draw(near_exact(world))
    method, template, path = draw(targets(world))
    headers = draw(header_sets(world, method))
    body = draw(bodies(world)) if method == "POST" or not draw(st.integers(0, 4)) else b""
    return {"method": method, "template": template, "path": path, "headers": headers,
            "body": body}  # fmt: skip


@st.composite
def near_exact(draw: st.DrawFn, world: World) -> dict[str, Any]:
    method, template, path, token, body = draw(st.sampled_from(world.exact))
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    headers.update(
        draw(st.dictionaries(st.sampled_from(HEADER_NAMES), header_values(world), max_size=2))
    )
    data = json.dumps(body).encode() if body is not None else b""
    if draw(st.booleans()):
        data = draw(bodies(world))
    return {"method": method, "template": template, "path": path, "headers": headers,
            "body": data}  # fmt: skip


# -- judging answers ------------------------------------------------------------


def judge(method: str, path: str, status: int, content_type: str, body: bytes) -> None:
    """The rules every answer keeps: no 5xx, JSON on /v1, a whole problem for errors."""
    route = path.split("?", 1)[0]
    mime = content_type.split(";")[0].strip().lower()
    where = f"{method} {path[:200]} -> {status} {content_type} {body[:300]!r}"
    if status >= 500:
        code = json.loads(body).get("code") if mime in JSON_TYPES else None
        assert (route, status, code) in DOCUMENTED_5XX, where
    if status >= 400:
        assert mime == "application/problem+json", where
        problem = json.loads(body)
        assert all(member in problem for member in PROBLEM_MEMBERS), where
        assert problem["status"] == status and problem["code"], where
        return
    if not route.startswith("/v1/") or status == 304:
        return
    if route.endswith("/stream") and status == 200:
        assert mime == "text/event-stream", where
    elif route.startswith("/v1/exports/") and status == 200:
        assert body, where  # an export's own format
    else:
        assert mime in JSON_TYPES, where
        json.loads(body)


def reached_games(seen: Counter[tuple[str, str, int]], *, at_least: int) -> None:
    """The fuzz got past the 404s and 401s: requests on real games succeeded too."""
    succeeded = sum(n for (_, operation, status), n in seen.items()
                    if status < 300 and "{game}" in operation)  # fmt: skip
    assert succeeded >= at_least, "\n".join(map(str, sorted(seen.items())))


@contextmanager
def refusals_change_nothing(world: World, client: redis.Redis) -> Iterator[dict[str, int]]:
    """Yield a dict to put the answer's status in; a 4xx must leave the store as it was."""
    before = world.snapshot(client)
    answer: dict[str, int] = {}
    yield answer
    if 400 <= answer.get("status", 0) < 500:
        assert world.snapshot(client) == before, answer


# -- in process -------------------------------------------------------------------


@pytest.fixture(scope="module")
def fuzz_app(redis_url):
    """The app with short waits (long-polls, jobs, streams), so examples do not wait."""
    from service.web.app import create_app

    return create_app({
        "REDIS_URL": redis_url, "SECRET_KEY": SECRET, "LONG_POLL_MAX_SECONDS": 0.05,
        "JOB_WAIT_MAX_SECONDS": 0, "SSE_MAX_SECONDS": 0.3, "SSE_HEARTBEAT_SECONDS": 0.1,
    })  # fmt: skip


@pytest.fixture(scope="module")
def world(fuzz_app, redis_client) -> World:
    return build_world(Api(fuzz_app.test_client()), redis_client)


@pytest.mark.heavy  # 400 generated requests through the app: the redis lane's costliest
def test_raw_requests_in_process_never_5xx_and_always_json(fuzz_app, world, redis_client):
    client = fuzz_app.test_client()
    seen: Counter[tuple[str, str, int]] = Counter()

    @given(request=requests(world))
    @settings(max_examples=400, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    def check(request: dict[str, Any]) -> None:
        # WSGI header values are latin-1 text: what the server decoded from the bytes.
        headers = {
            name: value.encode("utf-8", "surrogatepass").decode("latin-1")
            for name, value in request["headers"].items()
            if "\r" not in value and "\n" not in value
        }
        with refusals_change_nothing(world, redis_client) as answer:
            response = client.open(
                request["path"],
                method=request["method"],
                data=request["body"],
                headers=headers,
                buffered=False,
            )
            try:
                if response.mimetype == "text/event-stream":
                    body = next(response.iter_encoded(), b"")  # the head of a stream
                else:
                    body = response.get_data()
            finally:
                response.close()
            answer["status"] = response.status_code
        seen[(request["method"], request["template"], response.status_code)] += 1
        judge(request["method"], request["path"], response.status_code,
              response.headers.get("Content-Type", ""), body)  # fmt: skip

    check()
    reached_games(seen, at_least=10)


# -- raw sockets to gunicorn ------------------------------------------------------


def chunked(body: bytes, sizes: list[int]) -> bytes:
    """``body`` in chunks of the given sizes (the rest in one), then the last chunk."""
    out, at = b"", 0
    for size in sizes:
        if at >= len(body):
            break
        out += b"%x\r\n%s\r\n" % (len(body[at : at + size]), body[at : at + size])
        at += size
    if at < len(body):
        out += b"%x\r\n%s\r\n" % (len(body) - at, body[at:])
    return out + b"0\r\n\r\n"


token_bytes = st.binary(min_size=1, max_size=20).filter(lambda b: not {13, 10} & set(b))
#: Header bytes gunicorn takes: visible ASCII, space, tab and obs-text (0x80-0xff).
field_bytes = st.lists(
    st.sampled_from([9, *range(0x20, 0x7F), *range(0x80, 0x100)]), min_size=1, max_size=30
).map(bytes)
size_lines = st.one_of(
    st.integers(0, 70000).map(lambda n: b"%x" % n),
    st.sampled_from([b"", b"zz", b"-1", b"0x10", b"1 ", b" 1", b"1;ext=1", b"1;", b"f" * 17,
                     b"1" * 40, b"\xff", b"\x00", b"+5", b"5\t"]),
    token_bytes,
)  # fmt: skip


@st.composite
def framed(draw: st.DrawFn, body: bytes) -> tuple[str, list[tuple[bytes, bytes]], bytes]:
    """(kind, framing headers, bytes) of ``body``: valid chunks, broken chunk lines,
    a truncation, a Content-Length that is right or more than is sent."""
    kind = draw(mostly(st.sampled_from(["chunked", "length"]),
                       st.sampled_from(["broken", "truncated", "short"])))  # fmt: skip
    if kind == "chunked":
        sizes = draw(st.lists(st.integers(1, 9000), max_size=5))
        return kind, [(b"Transfer-Encoding", b"chunked")], chunked(body, sizes)
    if kind == "broken":
        lines = draw(
            st.lists(st.tuples(size_lines, st.binary(max_size=40)), min_size=1, max_size=4)
        )
        raw = b"".join(size + b"\r\n" + data + b"\r\n" for size, data in lines)
        end = draw(st.sampled_from([b"", b"0\r\n\r\n"]))
        return kind, [(b"Transfer-Encoding", b"chunked")], raw + end
    if kind == "truncated":
        whole = chunked(body, draw(st.lists(st.integers(1, 500), max_size=3)))
        cut = draw(st.integers(0, max(len(whole) - 1, 0)))
        return kind, [(b"Transfer-Encoding", b"chunked")], whole[:cut]
    if kind == "length":
        return kind, [(b"Content-Length", b"%d" % len(body))], body
    declared = draw(st.integers(len(body) + 1, len(body) + 100))  # more than is sent
    return kind, [(b"Content-Length", b"%d" % declared)], body


@st.composite
def raw_requests(draw: st.DrawFn, world: World) -> tuple[str, str, str, bytes, str]:
    """(method, operation, path, the request's bytes, how its body is framed)."""
    request = draw(requests(world))
    method, path = request["method"], request["path"]
    headers: list[tuple[bytes, bytes]] = [
        (name.encode(), value.encode("utf-8", "surrogatepass"))
        for name, value in request["headers"].items()
        if name != "Transfer-Encoding"  # the framing below says how the body is sent
    ]
    # Raw header bytes: obs-text mostly, controls sometimes, odd names.
    names = [b"X-Request-ID", b"If-Match", b"Authorization", b"X-Odd", b"Last-Event-ID"]
    headers += draw(st.lists(st.tuples(
        st.sampled_from(names)
        | st.text(string.ascii_letters + "-_.!#", min_size=1, max_size=12).map(str.encode),
        mostly(field_bytes, token_bytes),
    ), max_size=3))  # fmt: skip
    kind, body = "none", b""
    if request["body"] or method == "POST":
        kind, framing, body = draw(framed(request["body"]))
        headers += framing
    return method, request["template"], path, request_bytes(method, path, headers, body), kind


@pytest.fixture(scope="module")
def fuzz_server(redis_url) -> Iterator[LiveServer]:
    """gunicorn with the same short waits, and streams that end 50 ms after their
    client went (the next keep-alive fails), so no example waits on another."""
    server = LiveServer(redis_url, workers=1, env={
        "SCHNAPSEN_LONG_POLL_MAX_SECONDS": "0.05", "SCHNAPSEN_JOB_WAIT_MAX_SECONDS": "0",
        "SCHNAPSEN_SSE_MAX_SECONDS": "0.3", "SCHNAPSEN_SSE_HEARTBEAT_SECONDS": "0.05",
        "SCHNAPSEN_MAX_WAITING": "100", "SCHNAPSEN_LOG_LEVEL": "WARNING",
    })  # fmt: skip
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def live_world(fuzz_server, redis_client) -> World:
    return build_world(Api.live(fuzz_server.url), redis_client)


def test_raw_bytes_to_gunicorn_never_5xx_and_always_json(fuzz_server, live_world, redis_client):
    seen: Counter[tuple[str, str, int]] = Counter()

    @given(request=raw_requests(live_world))
    @settings(max_examples=250, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    def check(request: tuple[str, str, str, bytes, str]) -> None:
        method, template, path, data, framing = request
        with refusals_change_nothing(live_world, redis_client) as answer:
            try:
                reply: RawReply = exchange(fuzz_server.port, data, head_only=True, timeout=30)
            except NoAnswer:
                raise AssertionError(f"no answer to {framing} {data[:300]!r}") from None
            answer["status"] = reply.status
        seen[(method, template, reply.status)] += 1
        if reply.content_type.startswith("text/event-stream"):
            assert reply.status == 200 and path.split("?")[0].endswith("/stream"), reply
            return
        judge(method, path, reply.status, reply.content_type, reply.body)

    check()
    reached_games(seen, at_least=3)

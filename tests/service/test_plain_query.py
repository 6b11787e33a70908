"""The event feed's plain query strings read without webargs, exactly as the schema reads them."""

from __future__ import annotations

import random

import pytest
from marshmallow import ValidationError
from werkzeug.datastructures import MultiDict

from schemas.games import EventsQuerySchema
from service.web.plain_query import plain_events_query

VALUES = {
    "after": ["0", "7", "007", "12", "1000000000", "1000000001", "-1", "+3", " 4", "1_0", "1.0",
              "x", "", "٣", "99999999999"],
    "wait": ["0", "25", "25.5", "30", "30.0", "30.000001", "31", "1e1", "nan", "inf", "-1",
             ".5", "5.", "", "x", "0.0000001"],
    "include": ["view", "views", "", "VIEW"],
    "other": ["1"],
}  # fmt: skip


def schema_load(args: MultiDict) -> dict | str:
    try:
        return EventsQuerySchema().load(args)
    except ValidationError as error:
        return f"refused {error.messages}"


def random_query(rng: random.Random) -> MultiDict:
    pairs = []
    for name in rng.sample(list(VALUES), rng.randint(0, len(VALUES))):
        for _ in range(1 if rng.random() < 0.9 else 2):
            pairs.append((name, rng.choice(VALUES[name])))
    return MultiDict(pairs)


def test_a_plain_query_loads_as_the_schema_loads_it():
    rng, plain_seen = random.Random(11), 0
    for _ in range(5_000):
        args = random_query(rng)
        plain = plain_events_query(args)
        if plain is None:
            continue  # webargs reads it, as before
        plain_seen += 1
        # webargs hands the schema the first value of a name (its MultiDictProxy).
        loaded = schema_load({name: args[name] for name in args})
        assert plain == loaded and list(plain) == list(loaded), args
        assert [type(v) for v in plain.values()] == [type(v) for v in loaded.values()], args
    assert plain_seen > 1_000


@pytest.mark.parametrize(
    "query",
    ["after=-1", "after=1000000001", "wait=31", "wait=nan", "include=views", "after=1&after=2",
     "after=%2B3", "x=1"],
)  # fmt: skip
def test_anything_else_is_left_to_the_schema(query):
    args = MultiDict(pair.split("=") for pair in query.replace("%2B", "+").split("&"))
    assert plain_events_query(args) is None

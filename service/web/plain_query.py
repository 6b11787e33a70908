"""The event feed's query string, read without webargs when it is plain.

``GET /v1/games/{id}/events`` is the hottest request of all: every delivery
to a long-poll client is one. webargs' parse (the location loader, a proxy
over the query's MultiDict, the schema's load with its validators) costs
more than the rest of the view's own work before the wait, so the blueprint's
parser reads a query that holds only plain values itself (``after`` as
digits, ``wait`` as a decimal, ``include=view``, each once) and gives it the
same dict ``EventsQuerySchema().load`` would. Anything else, an error, a
sign, an exponent, an unknown or repeated name, goes to webargs as before,
so every refusal (422 and its messages) stays the schema's.
"""

from __future__ import annotations

import re
from typing import Any

from flask import request
from werkzeug.datastructures import MultiDict

from schemas.components import MAX_VERSION
from schemas.games import ActionSchema, EventsQuerySchema
from service.ops.settings import DEFAULTS
from service.web.bodies import GatedBodyParser, gated_json
from service.web.plain_action import plain_action

_DIGITS = re.compile(r"[0-9]{1,10}")
_DECIMAL = re.compile(r"[0-9]{1,6}(?:\.[0-9]{1,6})?")
#: EventsQuerySchema's bound on ``wait`` (its Range validator).
_MAX_WAIT = DEFAULTS["LONG_POLL_MAX_SECONDS"]


def plain_events_query(args: MultiDict[str, str]) -> dict[str, Any] | None:
    """What ``EventsQuerySchema().load`` gives for ``args`` when they are plain; None:
    not plain, let the schema read them (and refuse them if it does)."""
    query: dict[str, Any] = {"after": 0, "wait": 0}  # the schema's load_default values
    for name, values in args.lists():
        if len(values) != 1:
            return None
        value = values[0]
        if name == "after" and _DIGITS.fullmatch(value) and int(value) <= MAX_VERSION:
            query["after"] = int(value)
        elif name == "wait" and _DECIMAL.fullmatch(value) and float(value) <= _MAX_WAIT:
            query["wait"] = float(value)
        elif name == "include" and value == "view":
            query["include"] = value
        else:
            return None
    return query


class FeedParser(GatedBodyParser):
    """flask-smorest's webargs parser (``ArgumentsMixin.ARGUMENTS_PARSER``), reading a plain
    event-feed query and a plain action itself (``service.web.plain_action``), and taking
    the body the gate parsed (``service.web.bodies``)."""

    def parse(self, argmap: Any, req: Any = None, *, location: str | None = None, **options):
        plain = None
        if location == "query" and isinstance(argmap, EventsQuerySchema):
            plain = plain_events_query(request.args)
        elif location == "json" and isinstance(argmap, ActionSchema):
            plain = plain_action(gated_json())
        if plain is not None:
            return plain
        return super().parse(argmap, req, location=location, **options)

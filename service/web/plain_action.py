"""An action's body, read without webargs when it is plain.

``POST /v1/games/{id}/actions`` is the hottest write: webargs' location
loader and ``ActionSchema``'s load (its validators, the check that the fields
fit the type) cost as much as deciding the action in the engine. A body that
is plainly valid (a known type with exactly the fields it takes, a card or
suit of the contract's codes, a version in range) is what ``ActionSchema().load``
would give back unchanged, so it is taken as it is; anything else goes to
the schema as before, so every refusal (422 and its messages) stays the schema's.
"""

from __future__ import annotations

from typing import Any

from schemas.components import ACTION_TYPES, CARD_CODES, MAX_VERSION, SUIT_CODES

_TYPES = frozenset(ACTION_TYPES)
_CARDS = frozenset(CARD_CODES)
_SUITS = frozenset(SUIT_CODES)
#: The one field beside ``type`` each type takes, and the codes it may hold.
_FIELD = {"play": ("card", _CARDS), "declare_marriage": ("suit", _SUITS)}


def plain_action(body: Any) -> dict[str, Any] | None:
    """What ``ActionSchema().load(body)`` gives when ``body`` is plainly valid; None:
    not plain, let the schema read it (and refuse it if it does)."""
    if type(body) is not dict:
        return None
    kind = body.get("type")
    if type(kind) is not str or kind not in _TYPES:
        return None
    fields = 1
    needed = _FIELD.get(kind)
    if needed is not None:
        name, codes = needed
        value = body.get(name)
        if type(value) is not str or value not in codes:
            return None
        fields += 1
    if "expected_version" in body:
        version = body["expected_version"]
        if type(version) is not int or not 0 <= version <= MAX_VERSION:
            return None
        fields += 1
    return dict(body) if len(body) == fields else None

"""What every real deal's position holds across its fields, in JSON Schema a generator reads.

``service.engine.position`` checks a bot move's position and answers 422
`impossible_position` for one no deal reaches; the document states the part of
that check JSON Schema can say, so that a position made from the schema is
mostly one the server takes. Each rule is an ``anyOf`` of the shapes a position
has, inside one ``allOf`` beside the fields:

- no ``if``/``then``/``else`` and no ``not``: a generator draws values from a
  schema by spelling out each branch, and cannot spell the complement of an
  ``if`` that ties several fields together (schemathesis declines such a
  schema as unsupported);
- no ``anyOf`` at the object's top: a generated client makes a union of an
  ``anyOf``'s branches, while it reads an ``allOf`` member's properties alone,
  so the branches (which name no new property) leave the client's one type of
  ``Position`` as it is.

What stays the server's alone: each card in one place (but the face-up card
under the talon, which is nowhere else), a trick's winner and the next trick's
leader (they follow from the cards' ranks), the hand's size after a close, a
marriage's cards and an exchange's card.
"""

from __future__ import annotations

from typing import Any

from schemas.components import CARD_CODES

#: Tricks in a deal, and the tricks after which a talon still open is drawn to its end.
TRICKS = 10
DRAWING_TRICKS = 5
#: The talon after the deal: nine cards face down (R1b).
FULL_TALON = 9

Shape = dict[str, Any]


def _count(items: int) -> Shape:
    return {"minItems": items, "maxItems": items}


def _first_leads() -> list[tuple[int, Shape, list[str]]]:
    """R1c: with no trick played, the non-dealer is to move, or the dealer once the
    non-dealer's card is out: that card is in the dealer's hand no more, and the
    dealer declares no marriage while answering (R6c). Each case: its dealer, its
    properties and the names it requires; one case per led card, as JSON Schema
    says "not in the hand" of one card at a time."""
    led_by = [
        (dealer, {"seat": {"const": 1 - dealer}, "dealer": {"const": dealer},
                  "current_trick": {"maxItems": 0}}, [])
        for dealer in (0, 1)
    ]  # fmt: skip
    answered_by = [
        (dealer,
         {"seat": {"const": dealer}, "dealer": {"const": dealer},
          "current_trick": {"minItems": 1, "items": {"properties": {
              "seat": {"const": 1 - dealer}, "card": {"const": card}}}},
          "hand": {"items": {"enum": [code for code in CARD_CODES if code != card]}},
          "declared_marriage": {"type": "null"}},
         ["current_trick"])
        for dealer in (0, 1)
        for card in CARD_CODES
    ]  # fmt: skip
    return led_by + answered_by


def _stages() -> list[Shape]:
    """The talon, the face-up card and the hand after the tricks played (R2, R6b).

    Open, the talon holds 9 - 2n after n tricks, none from the fifth on, when the
    trump card is drawn too, and the hand five cards, one fewer for each trick
    played without a draw after it. Closed, the talon keeps the odd size it had
    (closed after 0 to 4 tricks), after as many tricks at least and five more at
    most, and its trump card stays; the hand's size after a close is the server's
    to check (one shape per size, not per trick: a generator picks among shapes,
    so that a position with no trick played is drawn often enough). With no trick
    played, the seat to move is the first lead's (``_first_leads``).
    """
    stages: list[tuple[Shape, list[str], bool]] = []
    for tricks in range(TRICKS + 1):
        drawing = tricks < DRAWING_TRICKS
        stages.append((
            {"closed_by": {"type": "null"}, "tricks": _count(tricks),
             "talon_size": {"const": max(0, FULL_TALON - 2 * tricks)},
             "trump_card": {"type": "string"} if drawing else {"type": "null"},
             "hand": _count(5 + min(tricks, DRAWING_TRICKS) - tricks)},
            ["trump_card"] if drawing else [], tricks == 0,
        ))  # fmt: skip
    for size in range(1, FULL_TALON + 1, 2):
        closed_after = (FULL_TALON - size) // 2
        closed = {"closed_by": {"type": "integer"}, "talon_size": {"const": size},
                  "trump_card": {"type": "string"}}  # fmt: skip
        if not closed_after:
            stages.append(({**closed, "tricks": _count(0), "hand": _count(5)},
                           ["closed_by", "trump_card"], True))  # fmt: skip
        fewest = max(closed_after, 1)
        stages.append((
            {**closed, "tricks": {"minItems": fewest, "maxItems": min(TRICKS, 5 + closed_after)},
             "hand": {"maxItems": 5 + closed_after - fewest}},
            ["closed_by", "trump_card"], False,
        ))  # fmt: skip
    shapes = []
    for properties, required, first_lead in stages:
        if not first_lead:
            shapes.append({"properties": properties, "required": [*required, "tricks"]})
            continue
        for dealer, lead, lead_required in _first_leads():
            if "closed_by" in required:  # closed before the first trick: by its leader
                lead = {**lead, "closed_by": {"const": 1 - dealer}}
            merged = {name: {**properties.get(name, {}), **rule} for name, rule in lead.items()}
            shapes.append({"properties": {**properties, **merged},
                           "required": [*required, *lead_required]})  # fmt: skip
    return shapes


def _elsewhere(card: str) -> Shape:
    """The face-up card under the talon is in no hand and was not played; an exchange
    left the trump jack there, having taken another trump (R6a)."""
    other = {"enum": [code for code in CARD_CODES if code != card]}
    rank, suit = card[0], card[1]
    exchange = (
        {"properties": {"took": {"enum": [r + suit for r in "ATKQ"]}}}
        if rank == "J"
        else {"type": "null"}
    )
    return {
        "hand": {"items": other},
        "tricks": {"items": {"properties": {"cards": {"items": {"properties": {"card": other}}}}}},
        "current_trick": {"items": {"properties": {"card": other}}},
        "exchange": exchange,
    }


def _face_up_card() -> list[Shape]:
    """The face-up card is named: ``trump_card`` while it lies under the talon (and then
    nowhere else), ``turn_up`` once drawn, the same card when both are given."""
    return [
        {"properties": {"trump_card": {"const": card}, "turn_up": {"type": "null"},
                        **_elsewhere(card)},
         "required": ["trump_card"]}
        for card in CARD_CODES
    ] + [
        {"properties": {"trump_card": {"type": "null"}, "turn_up": {"type": "string"}},
         "required": ["turn_up"]},
    ] + [
        {"properties": {"trump_card": {"const": card}, "turn_up": {"const": card},
                        **_elsewhere(card)},
         "required": ["trump_card", "turn_up"]}
        for card in CARD_CODES
    ]  # fmt: skip


def position_rules() -> Shape:
    """The rules a position keeps across its fields, for ``PositionSchema``'s document."""
    return {"allOf": [{"anyOf": _face_up_card()}, {"anyOf": _stages()}]}

"""Players of a client app: who they are to the service, and the one rule for their names.

A client app registers the people who play through it: its own id for each
(``app_player_id``, whatever its backend uses, kept only to find the player
again) and a display name, which is the only personal data kept. The service
gives each player an id of its own (``pl_`` and 16 hex digits) and a player
token (``spt_``) the app hands to the player's devices.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

#: How long a display name may be, in characters (after Unicode NFC normalisation).
NAME_MIN, NAME_MAX = 1, 32
#: An app's own id for a player: ASCII letters, digits and ``._:-`` (no "@": an opaque id,
#: never an e-mail address, which would be personal data the service does not keep).
APP_PLAYER_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
#: Unicode categories a name may hold: letters, marks, numbers, punctuation of words,
#: symbols other than the markup-prone ones below, and the plain space.
_ALLOWED_CATEGORIES = (
    "L",
    "M",
    "N",
    "Pc",
    "Pd",
    "Ps",
    "Pe",
    "Pi",
    "Pf",
    "Po",
    "Sm",
    "Sc",
    "Sk",
    "So",
)
#: Characters that make markup in the places names are shown (HTML, Markdown links).
_MARKUP = frozenset('<>&"`[]{}\\')
#: Categories of a character that shows: a letter, number, punctuation or symbol. A mark
#: shows only on something else, a space is nothing to see.
_VISIBLE_CATEGORIES = ("L", "N", "P", "S")
#: Characters of those categories that render as nothing: the Hangul fillers (Unicode's
#: default-ignorable letters) and the braille blank, a symbol with no dot.
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800")


#: What a rating history entry names as its opponent once that player was erased
#: (``DELETE /v1/players/{id}``): the entry's numbers stay, the player is not named.
ERASED_OPPONENT = "erased"


def erased_opponent_texts(player_id: str) -> tuple[str, str]:
    """The text of a history entry (compact JSON) that names ``player_id`` as its
    opponent, and the text that replaces it once the player is erased."""
    return f'"opponent":"{player_id}"', f'"opponent":"{ERASED_OPPONENT}"'


class InvalidName(ValueError):
    """A display name the service does not keep; the message says which rule it breaks."""


@dataclass(frozen=True, slots=True)
class Rated:
    """A player's Glicko-2 rating as the service shows it, and the rated games behind it."""

    rating: float
    deviation: float
    volatility: float
    games: int


@dataclass(frozen=True, slots=True)
class Player:
    """A player of a client app (never its token)."""

    id: str
    app: str
    app_player_id: str
    name: str
    created: float
    rated: Rated


def display_name(text: str) -> str:
    """The name as kept (NFC, no leading or trailing space); ``InvalidName`` if it breaks a
    rule: 1-32 characters, single spaces between words, no control or format characters
    (no bidirectional overrides, no zero-width joiners), no markup characters, and at least
    one character to see (not only Hangul fillers, braille blanks or combining marks: a
    name that renders as nothing would let a player pass for nobody)."""
    if not isinstance(text, str):
        raise InvalidName("a display name is a string")
    name = unicodedata.normalize("NFC", text).strip(" ")
    if not NAME_MIN <= len(name) <= NAME_MAX:
        raise InvalidName(f"a display name has {NAME_MIN} to {NAME_MAX} characters")
    if "  " in name:
        raise InvalidName("a display name has single spaces between its words")
    for char in name:
        if char in _MARKUP:
            raise InvalidName(f"a display name may not hold {char!r} (markup)")
        if char != " " and not unicodedata.category(char).startswith(_ALLOWED_CATEGORIES):
            raise InvalidName(
                f"a display name may not hold U+{ord(char):04X} "
                f"({unicodedata.category(char)}: no control, format or separator characters)"
            )
    if not any(_visible(char) for char in name):
        raise InvalidName(
            "a display name has a character to see: a letter, number, punctuation or symbol "
            "(fillers, blanks and marks alone show nothing)"
        )
    return name


def _visible(char: str) -> bool:
    """Whether ``char`` shows on its own, so a name holding it is not blank where shown."""
    return char not in _BLANK and unicodedata.category(char).startswith(_VISIBLE_CATEGORIES)

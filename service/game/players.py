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
from collections.abc import Mapping
from dataclasses import dataclass, field

from service.game.pools import DEFAULT_POOL, POOLS, Pool

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
#: Where Unicode assigns characters: planes 0 to 3, and plane 14 past its tags. Planes 4
#: to 13 hold none yet, 15 and 16 are private use.
_CHARACTER_PLANES = ((0x0000, 0x3FFFF), (0xE0080, 0xEFFFF))


def _noncharacter(code: int) -> bool:
    """Unicode's noncharacters (U+FDD0-FDEF and the last two code points of each plane):
    never to be characters."""
    return 0xFDD0 <= code <= 0xFDEF or code & 0xFFFE == 0xFFFE


def _character_to_come(char: str) -> bool:
    """A code point this server's Unicode (``unicodedata.unidata_version``) has not
    assigned yet, where characters are assigned: a newer character (an emoji of a later
    Unicode than the server's Python knows) that a player's device may well send. Kept
    as sent, and taken to show."""
    code = ord(char)
    return (
        unicodedata.category(char) == "Cn"
        and not _noncharacter(code)
        and any(low <= code <= high for low, high in _CHARACTER_PLANES)
    )


def name_character(char: str) -> bool:
    """Whether a display name may hold ``char`` (after NFC; the plain space aside)."""
    if char in _MARKUP:
        return False
    return unicodedata.category(char).startswith(_ALLOWED_CATEGORIES) or _character_to_come(char)


def shows(char: str) -> bool:
    """Whether ``char`` shows on its own, so a name starting with it is not blank where
    shown: not a mark (which needs something to sit on), a filler or a blank."""
    if char in _BLANK:
        return False
    return unicodedata.category(char).startswith(_VISIBLE_CATEGORIES) or _character_to_come(char)


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
    """A player's Glicko-2 rating in one pool as the service shows it, and the rated games
    behind it."""

    rating: float
    deviation: float
    volatility: float
    games: int


#: The rating of a player in a pool it has no rated game in: Glicko-2's start.
UNRATED = Rated(1500.0, 350.0, 0.06, 0)


@dataclass(frozen=True, slots=True)
class Player:
    """A player of a client app (never its token), with its rating in each pool it has
    played rated games in (``ratings``, by pool name; the others are ``UNRATED``)."""

    id: str
    app: str
    app_player_id: str
    name: str
    created: float
    ratings: Mapping[str, Rated] = field(default_factory=dict)

    def rating_in(self, pool: Pool) -> Rated:
        """The player's rating in ``pool`` (``UNRATED`` before its first rated game there)."""
        return self.ratings.get(pool.name, UNRATED)

    @property
    def rated(self) -> Rated:
        """The rating of the default pool: what a call that names no pool reads, as
        before pools."""
        return self.rating_in(DEFAULT_POOL)

    def every_pool(self) -> list[tuple[Pool, Rated]]:
        """The player's rating in every pool, in ``POOLS`` order."""
        return [(pool, self.rating_in(pool)) for pool in POOLS]


def display_name(text: str) -> str:
    """The name as kept (NFC, no leading or trailing space); ``InvalidName`` if it breaks a
    rule: 1-32 characters, single spaces between words, no control or format characters
    (no bidirectional overrides, no zero-width joiners), no markup characters, and a first
    character to see (not a combining mark, a Hangul filler or a braille blank: a name
    that renders as nothing, or starts with nothing, would let a player pass for nobody).
    A code point Unicode assigns after the server's Python is a character to come, kept."""
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
        if char != " " and not name_character(char):
            raise InvalidName(
                f"a display name may not hold U+{ord(char):04X} "
                f"({unicodedata.category(char)}: no control, format or separator characters)"
            )
    if not shows(name[0]):
        raise InvalidName(
            "a display name starts with a character to see: a letter, number, punctuation or "
            "symbol (not a combining mark, a filler or a blank)"
        )
    return name

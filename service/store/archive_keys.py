"""How the archive's columns keep a game's id, variant and status: as numbers, not words.

A row's keys are a good share of what it takes once indexes repeat them: a
game id as text is 17 bytes in a row and again in each index, where the 16
hex digits it always is (``secrets.token_hex(8)``) fit a 64-bit integer. So
both back ends keep ``game_id`` as that integer with its top bit flipped:
signed integers then sort as the ids' hex digits do, and the listing's order
and its cursors are the ones the text gave. A variant and a status are a
small number each, from fixed tables that only ever grow. A client app's id
(``cl_`` and 12 hex digits, ``clients.py``) is its 6 bytes after a 0 byte,
any other id its UTF-8 after a 1 byte: 7 bytes where the text took 15, in
the row and in the listing's index.

Keys the tables cannot hold are refused before anything is written
(``ArchiveKeyError``): the game stays where it is, as a game the codec
cannot encode does.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

#: Hex digits of a game id: 8 random bytes.
GAME_ID_DIGITS = 16
_FLIP = 1 << 63

#: The numbers of the variants and statuses a row holds; a number once given is kept.
VARIANT_CODES: Mapping[str, int] = MappingProxyType({"head": 0, "tracked": 1})
STATUS_CODES: Mapping[str, int] = MappingProxyType(
    {"finished": 0, "aborted": 1, "waiting": 2, "active": 3}
)
_VARIANTS = {code: word for word, code in VARIANT_CODES.items()}
_STATUSES = {code: word for word, code in STATUS_CODES.items()}


class ArchiveKeyError(ValueError):
    """A game id, variant or status the archive's columns cannot hold."""


def game_key(game_id: str) -> int:
    """The column value of ``game_id``: its 64 bits as a signed integer, top bit flipped."""
    if (
        not isinstance(game_id, str)
        or len(game_id) != GAME_ID_DIGITS
        or game_id.strip("0123456789abcdef")
    ):
        raise ArchiveKeyError(f"a game id is {GAME_ID_DIGITS} lowercase hex digits: {game_id!r}")
    return int(game_id, 16) - _FLIP


def cursor_key(game_id: str) -> int:
    """Where a listing's cursor falls among the column's values. Every id a row gives
    is hex; a cursor that is not (no row gave it) is placed by its text: before the
    first id or after the last, as it sorts before or after the hex ids."""
    try:
        return game_key(game_id)
    except ArchiveKeyError:
        return -_FLIP if str(game_id) < "0" * GAME_ID_DIGITS else _FLIP - 1


#: A client app's id as its store makes it: the prefix and 6 random bytes in hex.
_CLIENT_PREFIX = "cl_"
_CLIENT_DIGITS = 12
_CLIENT_HEX, _CLIENT_TEXT = b"\x00", b"\x01"


def client_key(client_id: str | None) -> bytes | None:
    """The column value of a client app's id (None: a game of no client app)."""
    if client_id is None:
        return None
    digits = client_id.removeprefix(_CLIENT_PREFIX)
    if (
        len(client_id) == len(_CLIENT_PREFIX) + _CLIENT_DIGITS
        and client_id.startswith(_CLIENT_PREFIX)
        and not digits.strip("0123456789abcdef")
    ):
        return _CLIENT_HEX + bytes.fromhex(digits)
    return _CLIENT_TEXT + client_id.encode()


def client_id_of(key: bytes | str | None) -> str | None:
    """The client app's id a column value stands for (an old SQLite row may hold the
    text)."""
    if key is None or isinstance(key, str):
        return key
    key = bytes(key)
    if key[:1] == _CLIENT_HEX:
        return _CLIENT_PREFIX + key[1:].hex()
    return key[1:].decode()


def game_id_of(key: int | bytes | str) -> str:
    """The game id a column value stands for. SQLite may hold an id of an old row that
    was not hex as its UTF-8 bytes (the migration keeps such a row as it was)."""
    if isinstance(key, int):
        return f"{key + _FLIP:016x}"
    return key.decode() if isinstance(key, bytes) else key


def variant_code(variant: str) -> int:
    try:
        return VARIANT_CODES[variant]
    except KeyError:
        raise ArchiveKeyError(f"not a variant the archive keeps: {variant!r}") from None


def status_code(status: str) -> int:
    try:
        return STATUS_CODES[status]
    except KeyError:
        raise ArchiveKeyError(f"not a status the archive keeps: {status!r}") from None


def variant_of(code: int | str) -> str:
    """The variant of a column value (an old SQLite row may hold the word)."""
    return code if isinstance(code, str) else _VARIANTS[code]


def status_of(code: int | str) -> str:
    """The status of a column value (an old SQLite row may hold the word)."""
    return code if isinstance(code, str) else _STATUSES[code]

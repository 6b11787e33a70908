"""The pattern of a listing's cursor, made from the server's own encoding of it.

A cursor (``service.game.log.Listed``) is base64url, unpadded, of
``<ms>:<game id>``: digits, a colon, letters and digits. The server refuses
any other text as not one it handed out (400 ``invalid_cursor``); without a
pattern the spec admitted every string of up to 200 characters, so a client's
validator and a test generator took forged cursors for well-formed ones. A
cursor stays opaque to a client (it passes ``next_cursor`` on as it came), but
its form is now the spec's: this pattern holds every cursor the server hands
out and no text it refuses.

The pattern is computed, not written by hand: base64 turns three bytes into four
characters, each of which carries bits of two neighbouring bytes, so which
characters may follow which depends on the byte classes beneath. ``group``
writes the characters a group of one to three bytes, each from its class, can
become; the whole pattern chains the groups of a cursor (the colon may fall at
any place in a group). It holds only character classes, groups and counted
repeats, read alike by ECMA-262 validators and Python's ``re`` (hypothesis).
Times of up to 15 digits are admitted (every ms until the year 33658); the
server's limit is 2**53 - 1, whose 16 digits no cursor of ours reaches.
"""

from __future__ import annotations

import string
from collections.abc import Iterable
from functools import cache

_ALPHABET = string.ascii_uppercase + string.ascii_lowercase + string.digits + "-_"
DIGITS = frozenset(string.digits.encode())
COLON = frozenset(b":")
ALNUM = frozenset((string.ascii_letters + string.digits).encode())
#: The most digits of a cursor's time this pattern admits.
TIME_DIGITS = 15


def _chars(indexes: Iterable[int]) -> str:
    """A class of base64url characters, by their 6-bit values (a lone one as itself)."""
    chars = sorted({_ALPHABET[i] for i in indexes})
    if len(chars) == 1:
        return chars[0]
    runs: list[list[str]] = []
    for char in chars:
        if runs and ord(runs[-1][-1]) + 1 == ord(char):
            runs[-1].append(char)
        else:
            runs.append([char])
    parts = ["".join(run) if len(run) < 3 else f"{run[0]}-{run[-1]}" for run in runs]
    return "[" + "".join(part if part != "-" else "\\-" for part in parts) + "]"


def _either(ways: dict[str, set[int]]) -> str:
    """Alternatives, each a character class and what may follow it: the characters that
    share what follows them are one class."""
    parts = [_chars(indexes) + rest for rest, indexes in sorted(ways.items())]
    return parts[0] if len(parts) == 1 else f"(?:{'|'.join(parts)})"


def group(*classes: frozenset[int]) -> str:
    """The base64url text of one to three bytes, the n-th byte from ``classes[n]``
    (unpadded: one byte is two characters, two bytes three, three bytes four)."""
    first = classes[0]
    second = classes[1] if len(classes) > 1 else None
    third = classes[2] if len(classes) > 2 else None

    @cache
    def after_second(low4: int) -> str:
        if third is None:
            return _chars([low4 << 2])
        lasts: dict[int, set[int]] = {}
        for c in third:
            lasts.setdefault(c >> 6, set()).add(c & 63)
        ways: dict[str, set[int]] = {}
        for high2, last in lasts.items():
            ways.setdefault(_chars(last), set()).add((low4 << 2) | high2)
        return _either(ways)

    @cache
    def after_first(low2: int) -> str:
        if second is None:
            return _chars([low2 << 4])
        ways: dict[str, set[int]] = {}
        for b in second:
            ways.setdefault(after_second(b & 15), set()).add((low2 << 4) | (b >> 4))
        return _either(ways)

    ways: dict[str, set[int]] = {}
    for a in first:
        ways.setdefault(after_first(a & 3), set()).add(a >> 2)
    return _either(ways)


def cursor_pattern() -> str:
    """The anchored pattern of a cursor: base64url of ``<1 to 15 digits>:<letters and
    digits>``."""
    digits = f"(?:{group(DIGITS, DIGITS, DIGITS)})"
    alnum3, alnum2, alnum1 = group(ALNUM, ALNUM, ALNUM), group(ALNUM, ALNUM), group(ALNUM)
    whole, left_over = TIME_DIGITS // 3, (TIME_DIGITS - 1) // 3
    # Where the colon falls in its group of three bytes: first (after whole groups of
    # digits), second (after one digit more) or third (after two).
    first = f"{digits}{{1,{whole}}}"
    second = f"{digits}{{0,{left_over}}}{group(DIGITS, COLON, ALNUM)}"
    third = f"{digits}{{0,{(TIME_DIGITS - 2) // 3}}}{group(DIGITS, DIGITS, COLON)}"
    # The id goes on in whole groups, then ends in one of one or two bytes or none; after
    # a colon that closed its group, the id has at least one byte more.
    goes_on = f"(?:{first}{group(COLON, ALNUM, ALNUM)}|{second}|{third}{alnum3})"
    ends_soon = f"(?:{first}{group(COLON, ALNUM)}|{third}(?:{alnum2}|{alnum1}))"
    return f"^(?:{goes_on}(?:{alnum3})*(?:{alnum2}|{alnum1})?|{ends_soon})$"


CURSOR_PATTERN = cursor_pattern()

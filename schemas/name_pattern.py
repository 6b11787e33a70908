"""The display name's pattern for the spec, made from the server's own rule.

    python -m schemas.name_pattern [--check]

writes ``schemas/name_characters.py`` (``--check``: says whether it is current).

``service.game.players.display_name`` is the rule; this writes it as one
regular expression a client's validator (ECMA-262) and a test generator
(Python's ``re``, hypothesis, schemathesis) read alike, so that what the spec
admits the server keeps and what it refuses the server refuses: spaces around
the name, single spaces between its words, only the characters a name may
hold (each taken as NFC makes it, so U+1FEF, a grave accent once normalised,
is markup), and a first character that shows. The classes are computed from
this server's Unicode tables, the ones the rule reads; computing them takes
seconds, so they are written once into ``schemas/name_characters.py``, which
a test holds to this computation (as openapi.yaml is held to the code).
"""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path

from service.game.players import name_character, shows


def _kept(char: str, rule: Callable[[str], bool]) -> bool:
    """Whether ``char`` passes ``rule`` once normalised, as the server reads it."""
    normal = unicodedata.normalize("NFC", char) if unicodedata.decomposition(char) else char
    return all(name_character(c) for c in normal) and rule(normal[0])


#: Surrogates are no characters of a text: no UTF-8 holds them, and a pattern naming them
#: is one Rust's and other validators' regular expressions refuse whole.
_SURROGATES = range(0xD800, 0xE000)


def _kept_ranges(rule: Callable[[str], bool]) -> Iterator[tuple[int, int]]:
    """The code points a name's character class holds (never the space)."""
    start = None
    for code in range(sys.maxunicode + 1):
        kept = code != 0x20 and code not in _SURROGATES and _kept(chr(code), rule)
        if kept and start is None:
            start = code
        elif not kept and start is not None:
            yield start, code - 1
            start = None
    if start is not None:
        yield start, sys.maxunicode


def _write(code: int) -> str:
    """One code point inside a class: an escape in the Basic Multilingual Plane, the
    character itself beyond it (ECMA-262 has no escape for it that Python's ``re`` reads)."""
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else chr(code)


def _class_of(rule: Callable[[str], bool]) -> str:
    """The class of what a name holds, listed (not the negation of what it does not: a
    generator such as hypothesis lists a class's every code point, and those refused
    outnumber those kept, planes 4 to 13 and 15 to 16 above all)."""
    parts = [
        _write(low) if low == high else f"{_write(low)}-{_write(high)}"
        for low, high in _kept_ranges(rule)
    ]
    return f"[{''.join(parts)}]"


def _literal(text: str) -> str:
    """A Python string literal of ``text`` in ASCII, double-quoted (the classes hold no
    quote: those are written as escapes)."""
    return f'"{ascii(text)[1:-1]}"'


MODULE = Path(__file__).with_name("name_characters.py")


def module_text() -> str:
    """``schemas/name_characters.py`` as this server's Unicode makes it."""
    word, first = _class_of(lambda char: True), _class_of(shows)
    return (
        '"""The display name\'s character classes, written by ``python -m schemas.name_pattern``\n'
        'from ``service.game.players``\' rule; do not edit."""\n\n'
        f'UNICODE_VERSION = "{unicodedata.unidata_version}"\n'
        "#: A character a display name may hold (not the space).\n"
        f"WORD = {_literal(word)}\n"
        "#: A character a display name may start with: one that shows.\n"
        f"FIRST = {_literal(first)}\n"
        "#: Spaces around, a first character that shows, and each next one after one space\n"
        "#: at most (single spaces between words).\n"
        'NAME_PATTERN = f"^ *{FIRST}(?: ?{WORD})* *$"\n'
    )


def main(argv: list[str]) -> int:
    text = module_text()
    if "--check" in argv:
        current = MODULE.exists() and MODULE.read_text() == text
        print(f"{MODULE.name} is {'current' if current else 'stale'}")
        return 0 if current else 1
    MODULE.write_text(text)
    print(f"wrote {MODULE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

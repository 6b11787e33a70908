"""JSON text parsed within bounds, so hostile input is a refusal and never a crash.

Python's ``json`` turns deep nesting into ``RecursionError`` and integers of
more than 4,300 digits into ``ValueError`` (the int max-str-digits limit);
neither is a ``JSONDecodeError``, so a caller that catches only that lets them
through as 500s. It also accepts ``NaN`` and ``Infinity``, which are not JSON
(RFC 8259). ``loads`` measures the nesting before parsing and bounds every
number's length while parsing; each refusal is a ``JsonRefused`` with a
stable code.

No body of this service nests deeper than 6 or needs a number longer than 19
digits (a 63-bit seed), so the bounds leave room without being reachable by
anything but an attack.
"""

from __future__ import annotations

import json
import re
from typing import Any

from service.game.problem_codes import ProblemCode

#: Arrays and objects inside one another, at most.
MAX_DEPTH = 32
#: Characters of one number (sign, digits, fraction and exponent), at most.
MAX_NUMBER_CHARS = 64

_STRUCTURAL = re.compile(r'[\[\]{}"\\]')


class JsonRefused(ValueError):
    """Text that is not JSON this service parses: ``code`` says why."""

    def __init__(self, code: ProblemCode, detail: str):
        super().__init__(detail)
        self.code = code
        self.detail = detail


def loads(data: bytes | str) -> Any:
    """The JSON value of ``data`` (UTF-8), or ``JsonRefused``.

    Codes: ``malformed_json`` (not JSON, not UTF-8, or NaN/Infinity),
    ``json_too_deep`` (nested more than ``MAX_DEPTH``), ``number_too_large``
    (a number of more than ``MAX_NUMBER_CHARS`` characters).
    """
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError as error:
        raise JsonRefused(
            ProblemCode.MALFORMED_JSON, f"the body is not UTF-8: {error.reason}"
        ) from None
    if nesting_depth(text, stop_after=MAX_DEPTH) > MAX_DEPTH:
        raise JsonRefused(
            ProblemCode.JSON_TOO_DEEP,
            f"the JSON nests arrays and objects more than {MAX_DEPTH} deep",
        )
    try:
        if text.startswith("\ufeff"):  # as json.loads refuses it
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        return _DECODER.decode(text)
    except json.JSONDecodeError as error:
        raise JsonRefused(
            ProblemCode.MALFORMED_JSON, f"the body is not valid JSON: {error}"
        ) from None


def nesting_depth(text: str, *, stop_after: int | None = None) -> int:
    """How deep arrays and objects nest in ``text``, brackets inside strings not counted.

    One pass over the structural characters only (linear in the text, even
    for text that is not JSON); stops counting once deeper than ``stop_after``.
    """
    depth = deepest = 0
    in_string = False
    escaped_until = -1
    for match in _STRUCTURAL.finditer(text):
        at = match.start()
        if at < escaped_until:
            continue
        char = match.group()
        if in_string:
            if char == "\\":
                escaped_until = at + 2
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if stop_after is not None and deepest > stop_after:
                    break
        elif char in "]}":
            depth -= 1
    return deepest


def _bounded(text: str) -> str:
    if len(text) > MAX_NUMBER_CHARS:
        raise JsonRefused(
            ProblemCode.NUMBER_TOO_LARGE,
            f"a number in the JSON has {len(text)} characters; at most {MAX_NUMBER_CHARS}",
        )
    return text


def _integer(text: str) -> int:
    return int(_bounded(text))


def _fraction(text: str) -> float:
    return float(_bounded(text))


def _not_a_number(text: str) -> Any:
    raise JsonRefused(
        ProblemCode.MALFORMED_JSON, f"{text} is not JSON (RFC 8259 has no such number)"
    )


#: ``json.loads`` with these hooks makes a decoder per call: one, made once.
_DECODER = json.JSONDecoder(parse_int=_integer, parse_float=_fraction, parse_constant=_not_a_number)

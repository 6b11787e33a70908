"""The two fields every keyset-paged listing has: the ``cursor`` a request sends and the
``next_cursor`` an answer gives, both of the server's one cursor pattern.

A listing's cursor is opaque to a client (it passes ``next_cursor`` on as it came) but
its form is the spec's (``schemas.cursor_pattern``), so a client's validator and a test
generator know forged text from a cursor. Each listing says in its own words where the
next page starts; the field is the same.
"""

from __future__ import annotations

from marshmallow import fields, validate

from schemas.cursor_pattern import CURSOR_PATTERN

#: The longest cursor a request may send (every cursor the server hands out is shorter).
CURSOR_MAX_LENGTH = 200


def cursor_parameter(description: str) -> fields.String:
    """A listing's ``cursor`` query parameter: a page's ``next_cursor``, as it came."""
    return fields.String(
        validate=validate.Length(min=1, max=CURSOR_MAX_LENGTH),
        metadata={"description": description, "pattern": CURSOR_PATTERN},
    )


def next_cursor_field(description: str) -> fields.String:
    """A page's ``next_cursor``: where the next page starts; null on the last page."""
    return fields.String(
        allow_none=True, metadata={"description": description, "pattern": CURSOR_PATTERN}
    )


__all__ = ["CURSOR_MAX_LENGTH", "cursor_parameter", "next_cursor_field"]

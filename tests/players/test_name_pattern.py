"""The display name's pattern in the spec says the server's rule: a name the pattern admits
``display_name`` keeps, one it refuses ``display_name`` refuses, over names generated from
the pattern (as schemathesis makes them) and over any text; and the committed classes are
the ones this server's Unicode makes (``python -m schemas.name_pattern``)."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemas import name_pattern
from schemas.name_characters import NAME_PATTERN
from service.game.players import NAME_MAX, InvalidName, display_name

#: The pattern as JSON Schema reads it (ECMA-262): its ``$`` is the end of the text. In
#: Python ``$`` also matches before a last newline, so "0\n" looked admitted.
PATTERN = re.compile(NAME_PATTERN.removesuffix("$") + r"\Z")
SETTINGS = settings(max_examples=200, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))  # fmt: skip


def kept(name: str) -> bool:
    try:
        display_name(name)
    except InvalidName:
        return False
    return True


@pytest.mark.heavy  # every code point of this server's Unicode, classified again
def test_the_committed_name_classes_are_the_ones_this_servers_unicode_makes():
    assert name_pattern.MODULE.read_text() == name_pattern.module_text()


@SETTINGS
@given(st.from_regex(PATTERN, fullmatch=True).filter(lambda name: len(name) <= NAME_MAX))
def test_a_name_the_pattern_admits_is_kept(name):
    assert kept(name), ascii(name)


@SETTINGS
@given(st.text(st.sampled_from(" A\u0301\u3164\u2800\u200b\ufdd0<\u1fef\U0001fa77é"), max_size=6)
       | st.text(max_size=NAME_MAX))  # fmt: skip
def test_a_name_is_kept_exactly_when_the_pattern_admits_it(name):
    assert bool(PATTERN.search(name)) is kept(name), ascii(name)

"""Every language of the terminal client says everything the English one says."""

from __future__ import annotations

from string import Formatter

import pytest

from service.client.words import ENGLISH, VOCABULARIES, Language, UnknownLanguage, language


def blanks(template: str) -> set[str]:
    return {field for _, field, _, _ in Formatter().parse(template) if field}


@pytest.mark.parametrize("code", [code for code in VOCABULARIES if code is not Language.ENGLISH])
def test_a_language_has_every_word_and_sentence_of_english_and_fills_only_its_blanks(code):
    """A sentence may leave out a blank ("von dir zugedreht" names nobody), never add one."""
    words = VOCABULARIES[code]
    assert words.text.keys() == ENGLISH.text.keys()
    for name, template in ENGLISH.text.items():
        assert blanks(words.text[name]) <= blanks(template), name
    assert words.actions.keys() == ENGLISH.actions.keys()
    for kind, (*_, thing) in ENGLISH.actions.items():
        assert blanks(words.actions[kind][3]) <= blanks(thing), kind
    for table in ("verbs", "nouns", "ranks", "suit_names", "reasons"):
        assert getattr(words, table).keys() == getattr(ENGLISH, table).keys(), table


@pytest.mark.parametrize(
    ("asked", "meant"),
    [("de", Language.GERMAN), ("de-AT", Language.GERMAN), ("de_AT.UTF-8", Language.GERMAN),
     ("DE", Language.GERMAN), ("en", Language.ENGLISH), ("en_GB.UTF-8", Language.ENGLISH)],
)  # fmt: skip
def test_a_language_setting_is_read_by_its_primary_tag(asked, meant):
    assert language(asked) is meant


@pytest.mark.parametrize("asked", ["xx", "", "deutsch", "C.UTF-8"])
def test_a_language_the_client_does_not_speak_is_refused_naming_those_it_does(asked):
    with pytest.raises(UnknownLanguage, match="en, de"):
        language(asked)

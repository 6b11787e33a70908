"""A display name shows its player: one made only of characters that render as nothing
(Hangul fillers, the braille blank, combining marks with nothing to sit on, variation
selectors), or starting with one, is refused, against gunicorn, over HTTP, and registers
nobody."""

from __future__ import annotations

import secrets
import unicodedata

import pytest
import requests

from tests.support.players import AppKey, new_app

#: Names that render as nothing, as a mark with no letter under it, or start with nothing.
INVISIBLE = {
    "hangul_filler": "\u3164",
    "halfwidth_hangul_filler": "\uffa0",
    "hangul_choseong_filler": "\u115f",
    "hangul_jungseong_filler": "\u1160",
    "braille_blank": "\u2800",
    "fillers_between_spaces": "\u3164 \u3164 \u2800",
    "combining_acute_alone": "\u0301",
    "combining_marks_alone": "\u0301\u0308\u20dd",
    "filler_with_a_mark": "\u3164\u0301",
    "combining_grapheme_joiner": "\u034f",
    "variation_selector": "\ufe0f",
    "khmer_inherent_vowels": "\u17b4\u17b5",
    "mongolian_free_variation_selector": "\u180b",
    "filler_before_a_letter": "\u3164A",
    "mark_before_a_letter": "\u0301A",
}
#: Names with something to see, fillers or marks beside it included.
VISIBLE = {
    "letters": "Anna",
    "letter_with_a_mark": "e\u0301",
    "digits": "42",
    "symbol": "\u2660",
    "punctuation": "?!",
    "filler_after_a_letter": "A\u3164",
    "braille_letter": "\u2801",
    "hangul_syllable": "\ud55c",
}


def register(url: str, app: AppKey, name: str) -> requests.Response:
    return requests.post(
        f"{url}/v1/players",
        json={"app_player_id": f"p-{secrets.token_hex(4)}", "name": name},
        headers=app.headers,
        timeout=10,
    )


@pytest.mark.parametrize("name", list(INVISIBLE.values()), ids=list(INVISIBLE))
def test_a_name_with_nothing_visible_is_refused_and_registers_nobody(
    live_server, redis_client, name
):
    app = new_app(redis_client)
    answer = register(live_server.url, app, name)
    assert answer.status_code == 422, (name, answer.status_code, answer.text)
    assert answer.headers["Content-Type"].startswith("application/problem+json")
    assert answer.json()["code"] == "invalid_name", answer.text
    assert redis_client.hlen(f"sch:{{client:{app.id}}}:players") == 0


@pytest.mark.parametrize("name", list(VISIBLE.values()), ids=list(VISIBLE))
def test_a_name_with_a_visible_character_is_kept(live_server, redis_client, name):
    answer = register(live_server.url, new_app(redis_client), name)
    assert answer.status_code == 201, (name, answer.text)
    assert answer.json()["player"]["name"] == unicodedata.normalize("NFC", name)

"""The terminal client's command line: what a person types is read as they meant it."""

from __future__ import annotations

import pytest

from service.client.cli import parse_arguments
from service.client.settings import ClientSettings


@pytest.mark.parametrize("token", ["-Xq2v9", "--Xq2v9", "-h", "plain"])
def test_a_seat_token_that_begins_with_a_dash_is_read_as_the_token(token):
    """Seat tokens are URL-safe base64, so one in 64 begins with "-": the person who
    pastes it after ``--token`` means the token, not another option."""
    settings = ClientSettings.from_env({})
    args = parse_arguments(["play", "--resume", "g1", "--token", token], settings)
    assert (args.command, args.resume, args.token) == ("play", "g1", token)
    args = parse_arguments(["replay", "g1", "--token", token, "--url", "http://x"], settings)
    assert (args.game_id, args.token, args.url) == ("g1", token, "http://x")


def test_the_equals_form_of_the_token_still_reads():
    args = parse_arguments(["analyse", "g2", "--token=-abc"], ClientSettings.from_env({}))
    assert (args.game_id, args.token) == ("g2", "-abc")

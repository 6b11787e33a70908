"""The terminal client reads its environment once, into ``ClientSettings``, and hands
the values down: where the service is, a seat's token, where the last game is kept,
and whether to colour."""

from __future__ import annotations

import io
from pathlib import Path

from service.client import last_game
from service.client.settings import ClientSettings
from service.client.terminal import Cards


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_settings_name_the_service_the_token_and_the_state_folder(tmp_path):
    settings = ClientSettings.from_env(
        {
            "SCHNAPSEN_HOST": "0.0.0.0",
            "SCHNAPSEN_PORT": "8123",
            "SCHNAPSEN_TOKEN": "t0k",
            "XDG_STATE_HOME": str(tmp_path),
        }
    )
    assert settings.url == "http://127.0.0.1:8123"
    assert settings.token == "t0k"
    assert settings.state_home == tmp_path
    assert settings.color


def test_schnapsen_url_wins_and_the_state_folder_falls_back_to_home(tmp_path):
    settings = ClientSettings.from_env(
        {"SCHNAPSEN_URL": "http://games.example:9000", "HOME": str(tmp_path), "NO_COLOR": ""}
    )
    assert settings.url == "http://games.example:9000"
    assert settings.token is None
    assert settings.state_home == tmp_path / ".local" / "state"
    assert not settings.color


def test_the_last_game_is_kept_below_the_settings_state_folder(tmp_path):
    state_home = ClientSettings.from_env({"XDG_STATE_HOME": str(tmp_path)}).state_home
    game = last_game.LastGame("http://127.0.0.1:8000", "g_1", "tok")
    last_game.save(game, state_home)
    assert (tmp_path / "schnapsen" / "last-game.json").exists()
    assert last_game.load(state_home) == game
    assert last_game.load(Path(tmp_path / "elsewhere")) is None


def test_no_color_keeps_the_suits_plain_on_a_terminal():
    assert Cards(_Terminal(), color=True).suit("H") != "H"
    assert Cards(_Terminal(), color=False).suit("H") == "H"
    assert Cards(io.StringIO(), color=True).suit("H") == "H"  # not a terminal

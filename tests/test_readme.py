"""README.md and the guides tell the truth: their commands and curl sessions work as shown,
and the README stays a short page for users."""

from __future__ import annotations

import os
import re
import subprocess

from service.bots import LEVELS
from tests.support.documents import block
from tests.support.paths import REPO

README = REPO / "README.md"
#: The README keeps to what a user needs first; the guides live in docs/.
README_MAX_BYTES = 15 * 1024


def test_readme_is_a_short_page_for_users():
    size = len(README.read_bytes())
    assert size <= README_MAX_BYTES, f"README.md is {size} bytes, more than {README_MAX_BYTES}"


def test_readme_makes_a_virtualenv_before_the_run_command():
    text = README.read_text()
    venv = text.find("python3 -m venv .venv && . .venv/bin/activate")
    assert venv != -1, "README.md shows no line that makes and activates a virtualenv"
    assert venv < text.find("<!-- run-command -->")


def test_readme_shows_the_two_commands_of_a_fresh_machine():
    assert block("run-command").strip() == "pip install -e . && schnapsen-serve"
    assert block("test-command").strip() == "bash scripts/test"
    ci = (REPO / ".ci" / "run").read_text()
    assert "test-command" in ci, ".ci/run must run the README's test command"
    assert "apt-get" not in ci, "the test command installs what it needs, not .ci/run"
    script = (REPO / "scripts" / "test").read_text()
    assert "apt-get install" in script and "chromium" in script
    assert "apt-get install -y -qq postgresql" in script
    assert "pip install --quiet -e '.[dev]'" in script and "-m pytest" in script


def test_the_curl_session_plays_a_whole_game_against_the_bot_then_analyses_it(live_server, worker):
    """The curl session, then the analysis session on its finished game."""
    session = block("curl-session") + block("analysis-session", "docs/analysis.md")
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", session],
        env=dict(os.environ, BASE=live_server.url),
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    analysis = lines[-2:]
    game = [line for line in lines[:-2] if not line.startswith("analysing: ")]
    assert re.fullmatch(r"winner: seat [01], game points \[\d, \d\]", game[-2]), game[-2:]
    assert "0" in game[-2].split("game points")[1]
    assert int(game[-1]) >= 1  # the replay shows the game's deals
    assert any(line.startswith("hand ") for line in game)
    # the analysis: accuracy per seat, and the first decision with its label and loss
    assert re.fullmatch(r"\[\(0, [\d.]+, \d+\), \(1, [\d.]+, \d+\)\]", analysis[0]), analysis
    assert re.match(r"\('(best|good|inaccuracy|mistake|blunder|forced)', \{'type'", analysis[1])


def test_the_lifecycle_session_resigns_aborts_and_lists(live_server, redis_client):
    from service.store.clients import ClientRegistry

    key = ClientRegistry(redis_client).create("Lifecycle guide")[1]
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block("lifecycle-session", "docs/api.md")],
        env=dict(os.environ, BASE=live_server.url, CLIENT_KEY=key),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines() == [
        "('turn_not_timed_out', True)",
        "(0, 'resigned')",
        "aborted",
        "['aborted', 'resigned']",
        str(list(LEVELS)),
        "The game cannot be aborted now",
    ], result.stdout

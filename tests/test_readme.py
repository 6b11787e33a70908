"""README.md tells the truth: its commands and its curl session work as shown."""

from __future__ import annotations

import os
import re
import subprocess

from tests.conftest import REPO

README = (REPO / "README.md").read_text()


def block(name: str) -> str:
    match = re.search(rf"<!-- {name} -->\s*```[a-z]*\n(.*?)```\s*<!-- /{name} -->", README, re.S)
    assert match, f"README.md has no {name} block"
    return match.group(1)


def test_readme_shows_the_two_commands_of_a_fresh_machine():
    assert block("run-command").strip() == "pip install -e . && schnapsen-serve"
    assert block("test-command").strip() == "bash scripts/test"
    ci = (REPO / ".ci" / "run").read_text()
    assert "test-command" in ci, ".ci/run must run the README's test command"
    assert "apt-get" not in ci, "the test command installs what it needs, not .ci/run"
    script = (REPO / "scripts" / "test").read_text()
    assert "apt-get install" in script and "chromium" in script
    assert "pip install --quiet -e '.[dev]'" in script and "-m pytest" in script


def test_the_curl_session_plays_a_whole_game_against_the_bot(live_server, worker):
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block("curl-session")],
        env=dict(os.environ, BASE=live_server.url),
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert re.fullmatch(r"winner: seat [01], game points \[\d, \d\]", lines[-2]), lines[-2:]
    assert "0" in lines[-2].split("game points")[1]
    assert int(lines[-1]) >= 1  # the replay shows the game's deals
    assert any(line.startswith("hand ") for line in lines)


def test_the_lifecycle_session_resigns_aborts_and_lists(live_server, redis_client):
    from service.clients import ClientRegistry

    key = ClientRegistry(redis_client).create("README lifecycle")[1]
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block("lifecycle-session")],
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
        "['random', 'heuristic', 'expert']",
        "The game cannot be aborted now",
    ], result.stdout

"""The terminal client in German: ``schnapsen play --lang de`` in tmux, ``SCHNAPSEN_LANG=de``.

A whole game against the random bot played in a real terminal (a tmux pane
on its own tmux server), answering each prompt only once it is on screen;
then the game's replay and analysis with the language from the environment.
Nothing the client writes may hold an English card or game word. What it
wrote goes to test-artifacts/ui/german-terminal-*.txt.
"""

from __future__ import annotations

import os
import random
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from tests.support.browser import ARTIFACTS
from tests.support.paths import REPO

pytestmark = pytest.mark.timeout(300)

#: Fails a game that hangs; it asserts no speed.
HANG_SECONDS = 200
PROMPT = re.compile(r"Dein Zug \[1-(\d+)\]: *$")

#: English card and game words; the German client writes none of them as a whole word
#: (the command name ``schnapsen replay`` in the closing hint is a command, not a word).
ENGLISH = re.compile(
    r"\b(aces?|tens?|kings?|queens?|jacks?|hearts?|diamonds?|spades?|clubs?|trumps?|talon|"
    r"marriages?|close|closed|tricks?|deals?|dealt|leads?|led|plays?|wins?|won|lost|"
    r"claims?|accepts?|exchanges?|you|your|game|points?|cards?|opponent|player|"
    r"thinking|analysis|accuracy|best|mistakes?|blunders?|draws?|exhausted|moves?|type)\b",
    re.IGNORECASE,
)


#: Where the clients run here remember their last game, instead of the home folder.
STATE_HOME = tempfile.mkdtemp(prefix="schnapsen-german-state-")


def schnapsen() -> str:
    script = Path(sys.executable).parent / "schnapsen"
    assert script.exists(), "the console script is missing: pip install -e '.[dev]'"
    return str(script)


def environment(**more: str) -> dict[str, str]:
    """The client's environment, its code this checkout's (the console script alone
    would import the installed one); UTF-8 out, no colour."""
    base = dict(os.environ, PYTHONIOENCODING="utf-8", NO_COLOR="1", XDG_STATE_HOME=STATE_HOME)
    return dict(base, PYTHONPATH=str(REPO), **more)


def english_words(text: str) -> list[str]:
    """English words in what the client wrote (addresses and tmux's own last line aside)."""
    text = re.sub(r"\S+://\S+", "", text.split("Pane is dead")[0])
    return [
        text[max(0, m.start() - 40) : m.end() + 40].replace("\n", " | ")
        for m in ENGLISH.finditer(text)
    ]


class Tmux:
    """One tmux server of this test's own (``-L``), one window running one command."""

    def __init__(self, command: list[str], env: dict[str, str]):
        assert shutil.which("tmux"), "the terminal tests need tmux: apt-get install -y tmux"
        self.socket = f"schnapsen-test-{uuid.uuid4().hex[:12]}"
        line = " ".join(shlex.quote(word) for word in command)
        # One call: the pane stays when the client ends, however soon that is.
        self.tmux("-f", "/dev/null", "start-server", ";", "set-option", "-g", "remain-on-exit", "on",
                  ";", "new-session", "-d", "-x", "120", "-y", "50", "-s", "game", line, env=env)  # fmt: skip

    def tmux(self, *args: str, env: dict[str, str] | None = None) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args],
            capture_output=True, text=True, env=env, timeout=30, check=True,
        )  # fmt: skip
        return done.stdout

    def screen(self) -> str:
        """All the pane has shown: its history and what is on screen now."""
        return self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "game")

    def ended(self) -> bool:
        return self.tmux("display-message", "-p", "-t", "game", "#{pane_dead}").strip() == "1"

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", "game", text, "Enter")

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=30)


def test_a_whole_game_in_german_in_a_terminal(live_server, worker):
    env = environment(LANG="C.UTF-8", TERM="xterm-256color")
    command = [schnapsen(), "play", "--lang", "de", "--level", "random", "--variant", "tracked",
               "--url", live_server.url]  # fmt: skip
    tmux = Tmux(command, env)
    rng = random.Random("terminal")
    try:
        deadline = time.monotonic() + HANG_SECONDS
        answered = 0
        while not tmux.ended():
            assert time.monotonic() < deadline, tmux.screen()[-3000:]
            text = tmux.screen().rstrip()
            prompts = text.count("Dein Zug [")  # each prompt is answered once
            match = PROMPT.search(text)
            if match and prompts > answered:
                tmux.type(str(rng.randint(1, int(match.group(1)))))
                answered = prompts
            time.sleep(0.05)
        text = tmux.screen()
    finally:
        tmux.close()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "german-terminal-game.txt").write_text(text, encoding="utf-8")
    assert "Partie aus" in text, text[-3000:]
    assert answered > 5, text[-3000:]
    assert "Trumpf" in text and "Stich" in text and "Spielpunkte übrig" in text, text[-3000:]
    assert english_words(text) == [], text[-2000:]
    game_id = re.search(r"Partie ([0-9a-f]+)", text).group(1)

    # the replay and the analysis of that game, the language from the environment
    german = environment(SCHNAPSEN_LANG="de")
    replay = subprocess.run(
        [schnapsen(), "replay", game_id, "--url", live_server.url],
        capture_output=True, text=True, env=german, timeout=120, check=True,
    )  # fmt: skip
    assert "Runde 1" in replay.stdout and "Stich 1" in replay.stdout, replay.stdout
    assert english_words(replay.stdout) == [], replay.stdout
    analysis = subprocess.run(
        [schnapsen(), "analyse", game_id, "--url", live_server.url],
        capture_output=True, text=True, env=german, timeout=180, check=True,
    )  # fmt: skip
    (ARTIFACTS / "german-terminal-replay.txt").write_text(replay.stdout, encoding="utf-8")
    (ARTIFACTS / "german-terminal-analysis.txt").write_text(analysis.stdout, encoding="utf-8")
    assert "Auswertung" in analysis.stdout, analysis.stdout
    assert english_words(analysis.stdout) == [], analysis.stdout


def test_the_command_line_language_wins_over_the_environment_and_an_unknown_one_is_refused(
    live_server, worker
):
    german = environment(SCHNAPSEN_LANG="de_AT.UTF-8")
    done = subprocess.run(
        [schnapsen(), "play", "--level", "random", "--url", live_server.url, "--lang", "en"],
        input="q\n", capture_output=True, text=True, env=german, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Your moves:" in done.stdout and "Dein Zug" not in done.stdout, done.stdout

    done = subprocess.run(
        [schnapsen(), "play", "--level", "random", "--url", live_server.url],
        input="q\n", capture_output=True, text=True, env=german, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Deine Züge:" in done.stdout, done.stdout

    unknown = environment(SCHNAPSEN_LANG="xx")
    done = subprocess.run(
        [schnapsen(), "replay", "any", "--url", live_server.url],
        capture_output=True, text=True, env=unknown, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, done
    assert "SCHNAPSEN_LANG" in done.stderr and "de" in done.stderr, done.stderr


def test_the_clients_own_refusals_are_said_in_german(tmp_path):
    with socket.socket() as probe:  # a loopback port where nothing listens
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    german = environment(SCHNAPSEN_LANG="de", XDG_STATE_HOME=str(tmp_path))
    done = subprocess.run(
        [schnapsen(), "replay", "any", "--url", closed],
        capture_output=True, text=True, env=german, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1 and "nicht erreichbar" in done.stderr, done.stderr
    done = subprocess.run(
        [schnapsen(), "play", "--resume"],
        capture_output=True, text=True, env=german, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1 and "keine Partie zum Fortsetzen" in done.stderr, done.stderr
    assert english_words(done.stderr.replace("GAME_ID", "").replace("TOKEN", "")) == []

"""The terminal client: ``schnapsen play`` driven by a script, ``schnapsen replay``.

The console script runs as its own process against gunicorn and a real RQ
worker; the script answers each "Your move" prompt as a person would, only
after the prompt appears.
"""

from __future__ import annotations

import os
import random
import re
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import requests

from tests.support.paths import REPO

pytestmark = pytest.mark.timeout(240)

PROMPT = re.compile(r"Your move \[1-(\d+)\]: $")
SUITS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}


def label(code: str) -> str:
    return ("10" if code[0] == "T" else code[0]) + SUITS[code[1]]


def schnapsen() -> str:
    script = Path(sys.executable).parent / "schnapsen"
    assert script.exists(), "the console script is missing: pip install -e '.[dev]'"
    return str(script)


#: Where the clients run here remember their last game (``schnapsen play --resume``),
#: instead of the home folder of whoever runs the tests.
STATE_HOME = tempfile.mkdtemp(prefix="schnapsen-cli-state-")


def environment() -> dict[str, str]:
    return dict(os.environ, PYTHONIOENCODING="utf-8", NO_COLOR="1", XDG_STATE_HOME=STATE_HOME)


def run_client(
    command: str, game_id: str, url: str, *, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """``schnapsen <command> <game_id> --url <url>``, its output captured."""
    return subprocess.run(
        [schnapsen(), command, game_id, "--url", url],
        capture_output=True,
        text=True,
        env=environment(),
        timeout=120,
        check=check,
    )


def drive(
    args: list[str], answers, seconds: float = 150, env: dict[str, str] | None = None
) -> tuple[int, str, list[str]]:
    """Run the client; whenever it waits at a prompt, type the next answer."""
    process = subprocess.Popen(
        [schnapsen(), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
        env=env or environment(),
    )
    output = b""
    sent: list[str] = []
    answered_at = -1
    deadline = time.monotonic() + seconds
    try:
        while True:
            assert time.monotonic() < deadline, (
                f"no end after {seconds} s:\n{output.decode()[-3000:]}"
            )
            ready, _, _ = select.select([process.stdout], [], [], 0.2)
            if ready:
                chunk = os.read(process.stdout.fileno(), 65536)
                if not chunk:
                    break  # the client closed its output: it has ended
                output += chunk
            text = output.decode("utf-8", errors="replace")
            match = PROMPT.search(text)
            if match and len(text) != answered_at:
                answer = answers(int(match.group(1)), len(sent), text)
                sent.append(answer)
                answered_at = len(text)
                process.stdin.write(f"{answer}\n".encode())
                process.stdin.flush()
        code = process.wait(timeout=30)
        errors = process.stderr.read().decode()
        assert not errors, errors
        return code, output.decode("utf-8"), sent
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def listed_move(action: dict) -> str:
    """How the client lists an action among the numbered moves (its start)."""
    kind = action["type"]
    if kind == "play":
        return f"play {label(action['card'])}"
    if kind == "declare_marriage":
        return f"declare the marriage in {SUITS[action['suit']]}"
    return {
        "exchange_trump_jack": "exchange the trump jack for",
        "close_talon": "close the talon",
        "claim": "claim 66",
        "accept_last_trick": "accept the last trick",
    }[kind]


def test_schnapsen_play_and_replay_a_whole_game_against_the_random_bot(live_server, worker):
    pick = random.Random(7)
    chosen: list[str] = []

    def answers(count: int, index: int, text: str) -> str:
        if index < 3:  # a person mistyping first: the client must ask again, not act
            return ["no", str(count + 1), "0"][index]
        listing = text[text.rindex("Your moves:") :]
        moves = dict(re.findall(r"^  (\d+)\) (.*)$", listing, re.M))
        assert len(moves) == count
        number = pick.randint(1, count)
        chosen.append(moves[str(number)])
        return str(number)

    code, out, sent = drive(["play", "--level", "random", "--url", live_server.url], answers)
    assert code == 0, out[-2000:]
    game_id = re.search(r"^Game ([0-9a-f]+): you against the random bot", out, re.M).group(1)
    assert out.count("Type a number from 1 to") == 3
    assert re.search(r"^Game over: (you win the game!|Bot \(random\) wins the game\.)$", out, re.M)
    assert re.search(r"^Game points left: You \d, Bot \(random\) \d after \d+ deals?\.$", out, re.M)
    assert any(symbol in out for symbol in "\u2663\u2666\u2665\u2660")  # suits as symbols

    replay = requests.get(f"{live_server.url}/v1/games/{game_id}/replay", timeout=15).json()
    assert replay["complete"]
    # every valid answer is exactly one action of seat 0, and nothing else acted for it
    own = [e for e in replay["events"] if e["type"] == "action_taken" and e["seat"] == 0]
    assert len(own) == len(sent) - 3 == len(chosen)
    for move, event in zip(chosen, own, strict=True):
        assert move.startswith(listed_move(event["action"])), (move, event["action"])
    # the table and moves were shown before each of those answers
    assert out.count("Your moves:") == len(own)
    results = [d["result"] for d in replay["deals"]]
    shown = re.findall(
        r"^\*\*\* Deal (\d+): (You|Bot \(random\)) wins? (\d) game points?", out, re.M
    )
    assert [(int(n), 0 if who == "You" else 1, int(p)) for n, who, p in shown] == [
        (r["number"], r["winner"], r["game_points"]) for r in results
    ]
    winner = replay["state"]["winner"]
    assert ("you win the game!" in out) == (winner == 0)

    # schnapsen replay: one line per trick, in order, and the game's result
    printed = run_client("replay", game_id, live_server.url).stdout
    tricks = re.findall(r"^  trick \d+: (.*) -> (.*)$", printed, re.M)
    expected = [e["trick"] for e in replay["events"] if "trick" in e]
    assert len(tricks) == len(expected) > 0
    names = {0: "Player 1", 1: "Bot (random)"}
    for (cards, who), trick in zip(tricks, expected, strict=True):
        assert who == names[trick["winner"]]
        assert cards == ", ".join(f"{names[c['seat']]} {label(c['card'])}" for c in trick["cards"])
    assert printed.count("\n  => ") == len(results)
    assert printed.rstrip().splitlines()[-1].startswith(f"Game over: {names[winner]} wins")

    # schnapsen analyse: the job's progress, then a line per player and per decision
    analysed = run_client("analyse", game_id, live_server.url)
    assert analysed.stderr.rstrip().endswith("analysing: 100%")
    # piped (no terminal): a line per step of progress, no carriage returns (text mode
    # reads a carriage return as a line end: a blank line here)
    assert all(line.startswith("analysing: ") for line in analysed.stderr.splitlines()), (
        analysed.stderr
    )
    analysis = requests.get(f"{live_server.url}/v1/games/{game_id}/analysis", timeout=15).json()
    lines = analysed.stdout.splitlines()
    decisions = [line for line in lines if re.match(r"^  trick \d+: ", line)]
    assert (
        len(decisions)
        == len(analysis["decisions"])
        == len(replay["events"]) - sum(1 for e in replay["events"] if e["type"] != "action_taken")
    )
    for line, record in zip(decisions, analysis["decisions"], strict=True):
        assert line.startswith(f"  trick {record['trick']}: {names[record['seat']]} ")
        assert line.endswith(f"[{record['label']}]")
        assert ("; best: " in line) == (record["best"] != record["chosen"])
    for player in analysis["players"]:
        accuracy = f"{player['accuracy']}%" if player["accuracy"] is not None else "-"
        assert f"{names[player['seat']]}: accuracy {accuracy} over " in analysed.stdout


def test_schnapsen_tells_what_the_server_refused(live_server):
    result = subprocess.run(
        [schnapsen(), "play", "--level", "grandmaster", "--url", live_server.url],
        capture_output=True,
        text=True,
        env=environment(),
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 1
    assert "unknown_bot_level" in result.stderr and "grandmaster" in result.stderr
    for command in ("replay", "analyse"):
        missing = run_client(command, "no-such-game", live_server.url, check=False)
        assert missing.returncode == 1, command
        assert "404" in missing.stderr and "game_not_found" in missing.stderr, missing.stderr


def test_schnapsen_leaves_a_game_when_the_player_types_q(live_server, worker):
    code, out, sent = drive(
        ["play", "--level", "random", "--url", live_server.url], lambda *_: "q", seconds=60
    )
    assert code == 0
    assert len(sent) == 1 and "it stays on the server" in out


def _own_moves(url: str, game_id: str) -> int:
    replay = requests.get(f"{url}/v1/games/{game_id}/replay", timeout=15).json()
    return sum(1 for e in replay["events"] if e["type"] == "action_taken" and e["seat"] == 0)


def test_schnapsen_play_finds_the_service_on_schnapsen_host_and_port(live_server, worker):
    """As the run command listens where SCHNAPSEN_HOST/SCHNAPSEN_PORT say, the client looks
    there when no --url (nor SCHNAPSEN_URL) is given."""
    env = {k: v for k, v in environment().items() if k != "SCHNAPSEN_URL"}
    env.update(SCHNAPSEN_HOST="127.0.0.1", SCHNAPSEN_PORT=str(live_server.port))
    code, out, sent = drive(["play", "--level", "random"], lambda *_: "q", seconds=60, env=env)
    assert code == 0, out
    assert re.search(r"^Game [0-9a-f]+: you against the random bot", out, re.M), out
    assert len(sent) == 1


def test_schnapsen_play_resumes_a_game_it_left_with_its_id_and_token(live_server, worker):
    seated = requests.post(
        f"{live_server.url}/v1/games",
        json={"opponent": {"type": "bot", "level": "random"}, "seed": 11},
        timeout=15,
    ).json()
    game_id, token = seated["game_id"], seated["token"]
    answers = iter(["1", "q"])
    code, out, sent = drive(
        ["play", "--url", live_server.url, "--resume", game_id, "--token", token],
        lambda *_: next(answers),
        seconds=90,
    )
    assert code == 0, out
    assert sent == ["1", "q"]
    assert f"Game {game_id}" in out and "resumed" in out, out
    assert _own_moves(live_server.url, game_id) == 1  # the move went to that very game


def test_schnapsen_play_resume_picks_up_the_last_game_left(live_server, worker, tmp_path):
    env = dict(environment(), XDG_STATE_HOME=str(tmp_path / "state"))
    first = iter(["1", "q"])
    code, out, _ = drive(
        ["play", "--level", "random", "--url", live_server.url, "--seed", "5"],
        lambda *_: next(first),
        seconds=90,
        env=env,
    )
    assert code == 0, out
    game_id = re.search(r"^Game ([0-9a-f]+): ", out, re.M).group(1)
    assert "schnapsen play --resume" in out  # the way back is told

    second = iter(["1", "q"])
    code, again, sent = drive(
        ["play", "--url", live_server.url, "--resume"], lambda *_: next(second), 90, env
    )
    assert code == 0, again
    assert sent == ["1", "q"]
    assert f"Game {game_id}" in again and "resumed" in again, again
    assert _own_moves(live_server.url, game_id) == 2


def test_schnapsen_play_resume_without_a_game_left_says_so(tmp_path):
    env = dict(environment(), XDG_STATE_HOME=str(tmp_path / "state"))
    result = subprocess.run(
        [schnapsen(), "play", "--url", "http://127.0.0.1:9", "--resume"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 1
    assert "no game to resume" in result.stderr, result.stderr

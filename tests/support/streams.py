"""Reading a game's event stream (SSE) from a thread, as a waiting client does."""

from __future__ import annotations

import json
import threading
import time

import requests

from tests.support.cluster_games import HumanGame, view
from tests.support.http import auth


def watch_stream(url: str, game: HumanGame, seat: int, after: int, seen: dict,
                 timeout: float) -> None:  # fmt: skip
    """Read the game's event stream from ``after`` until its first event (into ``seen``).

    How the stream ended goes into ``seen`` too (its lines, an error, after how long), so
    a stream that ends without the event says why."""
    began = time.monotonic()
    seen["lines"] = []
    try:
        with requests.get(f"{url}/v1/games/{game.game_id}/stream", params={"after": after},
                          headers=auth(game.tokens[seat]), stream=True,
                          timeout=timeout) as answer:  # fmt: skip
            seen["status"] = answer.status_code
            for line in answer.iter_lines(decode_unicode=True):
                if line:
                    seen["lines"].append(line[:80])
                if line.startswith("data:"):
                    seen["event"] = json.loads(line.removeprefix("data:"))
                    return
    except requests.RequestException as error:
        seen["error"] = repr(error)
    finally:
        seen["seconds"] = round(time.monotonic() - began, 1)


def start_watching(
    url: str, session: requests.Session, game: HumanGame, timeout: float
) -> tuple[threading.Thread, dict]:
    """An event stream of the seat not to move, waiting for the game's next action."""
    now = view(lambda: url, session, game, 0)
    seen: dict = {}
    watcher = threading.Thread(target=watch_stream, args=(url, game, 1 - now["to_move"],
                                                          now["version"], seen, timeout))  # fmt: skip
    watcher.start()
    return watcher, seen


def woke_with_an_action(watcher: threading.Thread, seen: dict, game: HumanGame,
                        timeout: float) -> None:  # fmt: skip
    """The stream ended with the game's last acknowledged action as its first event."""
    watcher.join(timeout)
    assert seen.get("status") == 200, seen
    assert "event" in seen, f"the stream ended without the action: {seen}"
    assert seen["event"]["action"] == game.acknowledged[-1][1]

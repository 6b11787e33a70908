"""The terminal client's memory of the last game it played: ``schnapsen play --resume``.

A player who leaves a game (``q``, Ctrl-C, a closed terminal) can take it up
again: the client keeps the game's id, its seat's token and the service's
address in ``$XDG_STATE_HOME/schnapsen/last-game.json`` (else
``~/.local/state/schnapsen/``), readable by its owner only, since the token
lets anyone who holds it play that seat.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class LastGame:
    """A seat at a game: where the game is, which game, and the seat's token."""

    url: str
    game_id: str
    token: str


def path(state_home: Path) -> Path:
    """Where the last game is kept, below the XDG base directory for state."""
    return state_home / "schnapsen" / "last-game.json"


def save(game: LastGame, state_home: Path) -> None:
    """Remember ``game``; a home without room for it only costs the resume."""
    target = path(state_home)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as file:
            json.dump(asdict(game), file)
    except OSError:
        return


def load(state_home: Path) -> LastGame | None:
    """The last game remembered, or None when there is none (or it is unreadable)."""
    try:
        record = json.loads(path(state_home).read_text())
        return LastGame(str(record["url"]), str(record["game_id"]), str(record["token"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None

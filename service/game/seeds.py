"""The seed of a bot's search for one position: the same on every process, secret to players."""

from __future__ import annotations

import hashlib
import hmac


def bot_seed(game_id: str, version: int, secret: bytes) -> int:
    """A bot's seed for one position of one game, keyed with the server's secret.

    The same game and version give the same seed on every process of a server
    (they share ``SCHNAPSEN_SECRET_KEY``), so a bot's decision, a hint and an
    analysis of that position search alike. Without the secret nobody can
    compute it: an opponent who could would replay the bot's very search with
    the bot-move service (any position, any seed) before the bot moves.
    """
    digest = hmac.new(secret, f"bot-seed|{game_id}|{version}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1

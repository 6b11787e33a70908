"""Keyset paging down a sorted set whose ties are ordered by member, descending.

Two listings keep one sorted set per client app and page it highest score first:
an app's games by creation time (``service.store.client_games``) and its games in
play by rating (``service.store.live_games``). A page's cursor is the last entry
shown, ``(score, member)``: the next page starts at that score and skips the tied
members at or above the cursor's, which earlier pages showed. This is the one loop
that does it.
"""

from __future__ import annotations

import redis

from service.game.log import Listed


def page_down(
    client: redis.Redis,
    key: str,
    *,
    after: Listed | None,
    count: int,
    bottom: int | None = None,
) -> list[Listed]:
    """Up to ``count`` entries of ``key`` after the cursor ``after`` (default: from the
    highest score), highest score first, ties by member descending; only scores of at
    least ``bottom`` when given. Each entry is a ``Listed`` of member and score."""
    top: str | int = "+inf" if after is None else after.created_ms
    low: str | int = "-inf" if bottom is None else bottom
    found: list[Listed] = []
    offset = 0
    while len(found) < count:
        batch = client.zrevrangebyscore(key, top, low, start=offset, num=count, withscores=True)
        if not batch:
            break
        offset += len(batch)
        for member, score in batch:
            member_id = member.decode()
            tied = after is not None and int(score) == after.created_ms
            if tied and member_id >= after.game_id:
                continue  # shown on an earlier page
            found.append(Listed(member_id, int(score)))
    return found[:count]


__all__ = ["page_down"]

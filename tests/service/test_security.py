"""Tokens: long, random, stored only as hashes, acting only for their own seat and game."""

from __future__ import annotations

import base64
import random

from tests.support.http import auth


def new_game(client, **body):
    created = client.post("/v1/games", json=body).json
    joined = client.post(f"/v1/games/{created['game_id']}/join", json={"invite": created["invite"]})
    return created["game_id"], {0: created["token"], 1: joined.json["token"]}, created["invite"]


def all_redis_bytes(redis_client, game_id: str) -> bytes:
    """Every byte Redis holds for one game (every key of its hash tag)."""
    dump = b""
    for key in redis_client.scan_iter(match=f"sch:{{{game_id}}}:*"):
        kind = redis_client.type(key)
        if kind == b"hash":
            dump += b"".join(k + v for k, v in redis_client.hgetall(key).items())
        elif kind == b"stream":
            dump += b"".join(str(e).encode() for e in redis_client.xrange(key))
        elif kind == b"string":
            dump += redis_client.get(key)
        elif kind == b"zset":
            dump += b"".join(redis_client.zrange(key, 0, -1))
    return dump


def test_tokens_carry_at_least_128_random_bits(client):
    tokens = set()
    for _ in range(20):
        _game, seats, invite = new_game(client)
        for secret in (*seats.values(), invite):
            raw = base64.urlsafe_b64decode(secret + "=" * (-len(secret) % 4))
            assert len(raw) * 8 >= 128
            tokens.add(secret)
    assert len(tokens) == 60, "no token or invite repeats"


def test_tokens_and_invites_are_stored_only_as_hashes(client, redis_client):
    game, seats, invite = new_game(client, seed=3)
    stored = all_redis_bytes(redis_client, game)
    assert stored, "the game is in Redis"
    for secret in (*seats.values(), invite):
        assert secret.encode() not in stored


def test_a_token_acts_only_for_its_own_seat_of_its_own_game(client):
    game_a, seats_a, _ = new_game(client, seed=5, first_dealer=1)  # seat 0 leads
    game_b, seats_b, _ = new_game(client, seed=5, first_dealer=1)
    view = client.get(f"/v1/games/{game_a}", headers=auth(seats_a[0])).json
    action = view["deal"]["legal_actions"][0]
    # another game's token, even for the same seat, is no token here
    refused = client.post(f"/v1/games/{game_a}/actions", json=action, headers=auth(seats_b[0]))
    assert refused.status_code == 401 and refused.json["code"] == "invalid_token"
    # seat 1's token cannot play seat 0's turn
    refused = client.post(f"/v1/games/{game_a}/actions", json=action, headers=auth(seats_a[1]))
    assert refused.status_code == 409 and refused.json["code"] == "not_your_turn"
    # and reading with another game's token is refused, not downgraded to a spectator
    assert client.get(f"/v1/games/{game_a}", headers=auth(seats_b[1])).status_code == 401
    assert client.post(f"/v1/games/{game_a}/actions", json=action,
                       headers=auth(seats_a[0])).status_code == 200  # fmt: skip


def test_no_answer_carries_the_other_seats_token(client):
    game, seats, invite = new_game(client, seed=8)
    rng = random.Random(8)
    texts = {0: [], 1: []}
    for _ in range(40):
        for seat in (0, 1):
            for path in ("", "/events", "/replay"):
                texts[seat].append(client.get(f"/v1/games/{game}{path}", headers=auth(seats[seat]))
                                   .get_data(as_text=True))  # fmt: skip
        view = client.get(f"/v1/games/{game}", headers=auth(seats[0])).json
        if view["status"] == "finished":
            break
        mover = view["to_move"]
        legal = client.get(f"/v1/games/{game}", headers=auth(seats[mover])).json
        answer = client.post(f"/v1/games/{game}/actions", headers=auth(seats[mover]),
                             json=rng.choice(legal["deal"]["legal_actions"]))  # fmt: skip
        texts[mover].append(answer.get_data(as_text=True))
        wrong = client.post(f"/v1/games/{game}/actions", headers=auth(seats[1 - mover]),
                            json={"type": "claim"})  # fmt: skip
        texts[1 - mover].append(wrong.get_data(as_text=True))
    for seat in (0, 1):
        for text in texts[seat]:
            assert seats[1 - seat] not in text
            assert invite not in text

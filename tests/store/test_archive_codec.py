"""The archive's encoding of a whole game: every game comes back as it went in, damaged
bytes are refused with one typed error, old archives decode for ever, and a game is small.
"""

from __future__ import annotations

import base64
import hashlib
import random
import statistics
import zlib
from collections import Counter

import pytest

from service.engine import (
    Aborted,
    ActionTaken,
    ClockMoved,
    DealStarted,
    Event,
    GameCreated,
    GameState,
    Resigned,
    SeatTaken,
    TimeoutClaimed,
    Variant,
    apply_event,
    replay,
)
from service.engine.actions import CLOSE_TALON, PLAY
from service.engine.cards import Card
from service.store.archive_codec import (
    ARCHIVE_VERSION,
    ArchiveDecodeError,
    ArchivedGame,
    ArchiveEncodeError,
    decode,
    encode,
)
from tests.data.corpus import read_deals
from tests.store.whole_games import (
    ARCHIVED_GAMES,
    PLAYED,
    game_digest,
    random_game,
    random_games,
    unusual_games,
)

#: The most the median whole game of random play, to its end, may take (bytes).
MEDIAN_LIMIT = 600


def corpus_game(number: int, deal) -> ArchivedGame:
    """A recorded deal as the log of a game: created, both seats taken, dealt, played."""
    events: list[Event] = [
        GameCreated(deal.variant, deal.dealer),
        SeatTaken(0, "human"),
        SeatTaken(1, "human"),
    ]
    order = "".join(card.value for card in deal.deck)
    nonce = hashlib.sha256(order.encode()).hexdigest() if number % 2 else None
    events.append(DealStarted(1, deal.dealer, deal.deck, nonce))
    state: GameState = replay(events)
    for action in deal.actions:
        event = ActionTaken(state.to_move, action)  # type: ignore[arg-type]
        state = apply_event(state, event)
        events.append(event)
    times = [1_780_000_000_000 + 1_000 * place for place in range(len(events))]
    token = hashlib.sha256(f"{number}:seat:0".encode()).hexdigest()
    seats = {"player:0": "human", "player:1": "human", "token:0": token}
    return ArchivedGame.of(f"{number:016x}", events, times, seats)


@pytest.mark.parametrize(
    "deals",
    [
        pytest.param(1_000, id="sample"),
        pytest.param(10_000, id="all", marks=pytest.mark.heavy),
    ],
)
def test_every_recorded_deal_decodes_to_the_game_it_was_encoded_from(deals: int):
    """The fast lanes check the corpus's first thousand deals, the heavy lane all ten
    thousand (CONTRIBUTING.md)."""
    checked = 0
    for number, deal in zip(range(deals), read_deals(), strict=False):
        game = corpus_game(number, deal)
        assert decode(encode(game)) == game, f"recorded deal {number}"
        checked += 1
    assert checked == deals


def test_random_whole_games_of_every_kind_and_ending_come_back_as_they_went_in():
    seen: Counter[str] = Counter()
    for game in random_games(seed=20261203, count=600):
        assert decode(encode(game)) == game
        final = replay(game.events)
        assert final.over
        seen[final.variant.value] += 1
        seen[final.ending.reason.value if final.ending else "won by its deals"] += 1
        seen.update(result.reason.value for result in final.results)
        seen.update(type(event).type for event in game.events)
        seen["bot" if "bot:" in game.seat_fields["player:1"] else "person"] += 1
        known = sum(time is not None for time in game.times)
        seen[{0: "no times", len(game.times): "all times"}.get(known, "some times")] += 1
        nonces = {event.nonce is None for event in game.events if isinstance(event, DealStarted)}
        seen.update("deal without nonce" if missing else "deal with nonce" for missing in nonces)
    every_kind = {
        *(variant.value for variant in Variant),
        *("resigned", "aborted", "timed_out", "won by its deals"),
        *("went_out", "false_claim", "last_trick", "closer_went_out"),
        *("closer_false_claim", "closer_ran_out", "closer_opponent_went_out"),
        *(kind.type for kind in (GameCreated, SeatTaken, DealStarted, ActionTaken)),
        *(kind.type for kind in (Resigned, Aborted, TimeoutClaimed)),
        *("bot", "person", "no times", "all times", "some times"),
        *("deal without nonce", "deal with nonce"),
    }
    assert every_kind - set(seen) == set(), "the random games miss some kinds"


def test_clocked_games_with_moves_a_bot_played_on_time_come_back_as_they_went_in():
    seen: Counter[str] = Counter()
    for game in random_games(seed=20260501, count=300, clocked=True):
        again = decode(encode(game))
        assert again == game
        assert again.seat_fields["clock"] == game.seat_fields["clock"]
        seen.update(type(event).type for event in game.events)
        seen[final_ending(game)] += 1
    assert seen[ClockMoved.type] > 0 and seen[ActionTaken.type] > 0
    assert {"resigned", "timed_out", "won by its deals"} <= set(seen)


def test_a_clocks_move_is_told_from_the_persons_own_in_the_archive():
    game = next(random_games(seed=3, count=1, clocked=True, ending=PLAYED))
    played = [i for i, event in enumerate(game.events) if type(event) is ActionTaken]
    assert played
    events = list(game.events)
    own = events[played[0]]
    events[played[0]] = ClockMoved(own.seat, own.action, "expert")  # type: ignore[attr-defined]
    clocked = ArchivedGame.of(game.game_id, events, game.times, game.seat_fields)
    assert decode(encode(clocked)) == clocked
    assert decode(encode(clocked)) != game
    assert replay(clocked.events) == replay(game.events)  # folded exactly as the action


def final_ending(game: ArchivedGame) -> str:
    ending = replay(game.events).ending
    return ending.reason.value if ending else "won by its deals"


def test_values_only_text_keeps_come_back_as_they_were():
    for game in unusual_games():
        again = decode(encode(game))
        assert again == game
        assert again.seat_fields == game.seat_fields


def _sample_encodings() -> list[bytes]:
    rng = random.Random(5)
    games = [random_game(rng) for _ in range(6)] + unusual_games()
    return [encode(game) for game in games]


def test_every_cut_of_an_archived_game_is_refused_with_the_archive_error():
    for data in _sample_encodings():
        for end in range(len(data)):
            with pytest.raises(ArchiveDecodeError):
                decode(data[:end])
        with pytest.raises(ArchiveDecodeError):
            decode(data + b"\x00")


def test_every_changed_byte_is_refused_with_the_archive_error():
    rng = random.Random(11)
    for data in _sample_encodings():
        for place in range(len(data)):
            damaged = bytearray(data)
            damaged[place] ^= rng.randrange(1, 256)
            with pytest.raises(ArchiveDecodeError):
                decode(bytes(damaged))


def _with_crc(body: bytes) -> bytes:
    return body + zlib.crc32(body).to_bytes(4, "little")


def test_bytes_that_pass_the_crc_decode_to_a_game_that_encodes_to_them_or_are_refused():
    """Past the CRC, the reader meets any bytes at all: it refuses them with the archive's
    error, or they are a game's one encoding."""
    rng = random.Random(13)
    outcomes: Counter[str] = Counter()
    for data in _sample_encodings():
        body = data[:-4]
        for _ in range(300):
            damaged = bytearray(body)
            for _change in range(rng.choice((1, 1, 2, 3))):
                place = rng.randrange(1, len(damaged))
                damaged[place] = rng.randrange(256)
            if rng.random() < 0.2:
                del damaged[rng.randrange(1, len(damaged)) :]
            candidate = _with_crc(bytes(damaged))
            try:
                game = decode(candidate)
            except ArchiveDecodeError:
                outcomes["refused"] += 1
                continue
            assert encode(game) == candidate
            outcomes["decoded"] += 1
    for _ in range(1_000):
        noise = bytes([ARCHIVE_VERSION]) + rng.randbytes(rng.randrange(0, 80))
        try:
            game = decode(_with_crc(noise))
        except ArchiveDecodeError:
            outcomes["refused"] += 1
        else:
            assert encode(game) == _with_crc(noise)
    print(f"damaged bytes with a good CRC: {dict(outcomes)}")
    assert outcomes["refused"] > 0


@pytest.mark.parametrize(
    "data",
    [b"", b"\x00", b"\x03" + bytes(40), b"\x01", b"\x02", b"\x02\x00\x00\x00\x00"],
    ids=["empty", "format 0", "format 3", "version 1 alone", "version 2 alone", "no game"],
)
def test_bytes_of_no_known_format_are_refused_with_the_archive_error(data):
    with pytest.raises(ArchiveDecodeError):
        decode(data)


def test_what_is_not_bytes_is_refused_with_the_archive_error():
    with pytest.raises(ArchiveDecodeError):
        decode("01ab")  # type: ignore[arg-type]


def test_a_log_that_does_not_replay_is_not_archived():
    game = random_game(random.Random(3), ending=PLAYED)
    first_action = next(i for i, e in enumerate(game.events) if isinstance(e, ActionTaken))
    played = game.events[first_action]
    assert isinstance(played, ActionTaken)
    wrong_seat = ActionTaken(1 - played.seat, played.action)
    hand = replay(game.events[:first_action]).deal.hands[played.seat]
    not_held = ActionTaken(played.seat, PLAY[next(card for card in Card if card not in hand)])
    broken = [
        game.events[1:],  # no game_created first
        (*game.events[:first_action], wrong_seat, *game.events[first_action + 1 :]),
        (*game.events[:first_action], not_held),
        (*game.events, ActionTaken(0, CLOSE_TALON)),  # after the end
        (*game.events[:2], game.events[0], *game.events[2:]),  # created twice
    ]
    for events in broken:
        with pytest.raises(ArchiveEncodeError):
            encode(ArchivedGame.of(game.game_id, events, [None] * len(events), {}))


def test_values_out_of_the_formats_range_are_not_archived():
    game = random_game(random.Random(4), ending=PLAYED)
    far = [2**80] + [None] * (game.version - 1)
    with pytest.raises(ArchiveEncodeError):
        encode(ArchivedGame.of(game.game_id, game.events, far, game.seat_fields))
    deal = next(e for e in game.events if isinstance(e, DealStarted))
    place = game.events.index(deal)
    short = DealStarted(deal.number, deal.dealer, deal.deck, "abc")
    events = (*game.events[:place], short, *game.events[place + 1 :])
    with pytest.raises(ArchiveEncodeError):
        encode(ArchivedGame.of(game.game_id, events, game.times, game.seat_fields))


@pytest.mark.parametrize("version", sorted(ARCHIVED_GAMES))
def test_archived_games_of_every_format_decode_to_the_same_games_for_ever(version: int):
    lines = [
        line.split()
        for line in ARCHIVED_GAMES[version].read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert len(lines) >= 20
    for encoded, digest in lines:
        data = base64.b64decode(encoded)
        assert data[0] == version
        game = decode(data)
        assert game_digest(game) == digest
        if version == ARCHIVE_VERSION:
            assert encode(game) == data


def test_every_format_kept_for_ever_holds_the_same_games():
    """Each version's file holds the same games: one encoding of a game reads back as
    the game any other encoding of it does."""
    digests = {
        version: [line.split()[1] for line in path.read_text().splitlines() if line[:1] != "#"]
        for version, path in ARCHIVED_GAMES.items()
    }
    assert len(set(map(tuple, digests.values()))) == 1, digests


def test_the_times_of_a_move_take_fewer_bytes_than_in_format_1():
    """The games kept in version 1, encoded now: the times' differences in bits take a
    game about a twentieth less, the rest of the game the same."""
    old, new = 0, 0
    for line in ARCHIVED_GAMES[1].read_text().splitlines():
        if line[:1] != "#":
            data = base64.b64decode(line.split()[0])
            old += len(data)
            new += len(encode(decode(data)))
    assert new < old * 0.95, (old, new)


def test_the_median_whole_game_of_random_play_takes_at_most_600_bytes():
    """Random play to the game's end, people against each other and against a bot.

    Careful play (claims and closes rare) runs to about seven deals of long
    tricks, and its median is larger: printed, not bounded. Each deal costs
    42 bytes (its 32-byte nonce, 8 of deck, 2 of framing), each move about two
    (its time to the ms); those are the bulk of a long game.
    """
    sizes: dict[str, list[int]] = {}
    for bot in (False, True):
        for patient in (False, True):
            games = random_games(seed=66, count=200, ending=PLAYED, bot=bot, patient=patient)
            name = f"{'against a bot' if bot else 'two people'}, {'careful' if patient else 'any'}"
            sizes[name] = sorted(len(encode(game)) for game in games)
    for name, found in sizes.items():
        deciles = [found[len(found) * tenth // 10] for tenth in range(1, 10)]
        print(f"{name}: median {statistics.median(found)} B, deciles {deciles}, max {found[-1]}")
    random_play = sizes["two people, any"] + sizes["against a bot, any"]
    print(f"random play, both kinds of opponent: median {statistics.median(random_play)} B")
    assert statistics.median(random_play) <= MEDIAN_LIMIT


def test_times_of_every_bit_length_and_sign_come_back_as_they_went_in():
    """Every prefix of the times' bits, at both ends of its lengths, and the escape: the
    first time is ms since the epoch, then differences of each length, zero and negative."""
    game = next(random_games(seed=31, count=1, ending=PLAYED, bot=False))
    edges = [0, 1, 2, 31, 32, 63, 64, 511, 512, 8191, 8192, 131_071, 131_072]
    edges += [(1 << 25) - 1, 1 << 25, (1 << 69) + 5, -1, -7_000, -(1 << 40)]
    times: list[int | None] = []
    now = 1_780_000_000_000
    for place in range(game.version):
        step = edges[place % len(edges)]
        now = now + step if abs(step) < 1 << 60 else step
        times.append(now)
    tested = ArchivedGame.of(game.game_id, game.events, times, game.seat_fields)
    data = encode(tested)
    assert decode(data) == tested
    too_long = [*times[:-1], 1 << 71]
    with pytest.raises(ArchiveEncodeError):
        encode(ArchivedGame.of(game.game_id, game.events, too_long, game.seat_fields))

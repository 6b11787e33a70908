"""One whole game as a few hundred bytes, for the archive of finished games.

Redis keeps a game as JSON events in a stream plus a seats hash (about 10-16
KiB for a finished game). The archive keeps the same facts as compact bytes:
``encode(game)`` and ``decode(data)``, where ``ArchivedGame`` holds exactly
what every read path of a finished game reads, so a game decoded from the
archive answers what it answered from Redis:

- the events, in order (the view, the replay at any ``?at=V``, the event
  feed, the exports and the analysis are all folds over them; a version is
  an event's place in the log, so the order is the whole of it);
- each event's append time ``t`` in ms, or None for an entry written before
  entries carried one. Only the turn clock reads ``t``, and of a finished
  game only whether the last entry has one (a timeout claim without it is
  refused as ``turn_not_timed_out`` before the engine says ``game_over``);
  the times are kept whole all the same, for the record of how a game went;
- every field of the seats hash, as Redis holds it (token and invite hashes
  for the token checks, the players, the nonces, the seed).

Left out, and why:

- the snapshots: a cache of folds over the events;
- the idempotency hash (``sch:{id}:idem``): it expires ``IDEMPOTENCY_TTL``
  after the game's last keyed append, and until then a retried request is
  answered from it. Redis keeps it when it forgets the game's log, until it
  expires; from then on Redis, too, answers every request without it;
- the analysis parts: a cache with its own TTL, and the same when analysed
  again (the search counts work, not time, and its seed comes from the game
  and the server's secret);
- a client app's index of its games: it belongs to the client, not the game;
- the fairness commitments: each is ``SHA-256(nonce || deck)`` of its deal,
  and both are kept.

The format, version 1 (every integer a LEB128 varint unless said otherwise;
"text" is a varint byte length and UTF-8)::

    1 byte      the format's version: 1
    1 byte      the game: bit 0 variant (tracked), bit 1 first dealer,
                bits 2-3 dealing (random, seeded, fixed), bit 4 the id as text
    id          16 lowercase hex digits as 8 bytes, or text
    seats       3 bytes: a 2-bit form for each field of SEAT_FIELDS, in order
                (0 absent, 1 compact, 2 text), then each present field's value
                (compact: a hash as 32 bytes, a nonce as 16, a seed as a varint,
                a player "human" as nothing), then a count of other fields and
                each one's name and value as text
    events      a count of events that are not player actions (after the
                first, game_created, which the game byte holds), each as: the
                player actions before it, a kind byte, its details; then the
                player actions after the last one
    actions     a length and the bytes (little-endian) of one integer holding
                every player action, see below
    times       1 byte: 0 no event has a time, 1 all have, 2 a bitmap follows
                (a bit per event, LSB first); then each time as the zigzag
                varint of its difference from the time before (from 0)
    4 bytes     CRC-32 of everything before it, little-endian

Version 2, the one written now, is version 1 with the times' differences as
bits, not varints: a varint spends whole bytes and a sign bit on a person's
few seconds to think (700-30,000 ms: two or three bytes), where their bit
length is most of what varies. Each difference ``d`` is a prefix telling its
bit length ``L``, then its ``L - 1`` bits below the leading one, most
significant first; all of them end in zero bits to the byte. The prefixes::

    0   + 2 bits   L 10-13        110    + 2 bits   L 6-9
    10  + 2 bits   L 14-17        1110              d = 0
    11110  + 3 bits   L 1-5       111110 + 3 bits   L 18-25
    111111 + a sign bit + 7 bits L: any other L (26-70), or a negative d (L of -d)

which takes a move's time in about 14 bits where version 1 took 18 (29
bytes of a median game of random play); a general compressor (zstd, with a
dictionary trained on games) gains 1% over version 1: the rest of a game is
hashes, nonces, decks and an entropy-coded integer, random bytes all.

A kind byte: bits 0-2 the event (seat taken, deal started, resigned,
aborted, timeout claimed, a clock's move), bit 3 its seat, bits 4-5 a form: for a seat
taken 0 a person, 1 a bot (then its level), 2 a player (text), 3 a player
and a level; for a deal started 0 no nonce, 1 the nonce as 32 bytes, 2 as
text. A deal's number and dealer are not written: they follow from the game
(R1c, R10c), as the fold checks. A clock's move (``clock_moved``: a bot
played a person's move when the clock ran out) is a mark, its bot's level
as text, that makes the next player action, written as any other, the
clock's; its seat is not written either (the seat to move). Its deck is its permutation index among the
20! orders of the canonical pack, in 8 bytes big-endian.

Player actions are written relative to the rules, and that is the one
choice here that needs the engine to decode: each action is its index among
the legal actions of the position, ordered by this codec's own table
(``ACTION_ORDER``: plays in the pack's order, marriages by suit, then
exchanging the trump jack, closing the talon, claiming, accepting the last
trick), and all of a game's indexes make one mixed-radix integer, the first
action's index its lowest digit. A forced move costs nothing, a typical one
under two bits: about 30 bytes for a whole game, where a byte per action
(or a card and kind in six bits) would be 60 to 130. Both ends fold the
events through the engine, which costs a few milliseconds a game and ties
the format to nothing the log is not tied to already: a stored log replays
only under the rules that accepted its actions, and the order of the
candidates is this module's, not the engine's. The fold also means a
decoded game always replays, and what does not is refused.

Every value has exactly one encoding (canonical varints and forms, a
bitmap only when some events have a time and some not): bytes that decode
encode back to themselves, and a CRC-32 turns away damaged bytes before they
are read. Whatever is wrong with the bytes, ``decode`` raises
``ArchiveDecodeError`` and nothing else.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from service.engine.actions import (
    ACCEPT_LAST_TRICK,
    CLAIM,
    CLOSE_TALON,
    DECLARE_MARRIAGE,
    EXCHANGE_TRUMP_JACK,
    PLAY,
    Action,
)
from service.engine.cards import DECK, SUITS, Card
from service.engine.errors import EngineError
from service.engine.events import (
    Aborted,
    ActionTaken,
    ClockMoved,
    DealStarted,
    Event,
    GameCreated,
    Resigned,
    SeatTaken,
    TimeoutClaimed,
    apply_event,
    event_to_dict,
)
from service.engine.game import legal_actions
from service.engine.state import Dealing, GameState, Variant

#: The format this module writes; ``decode`` reads every version listed in ``_READERS``.
ARCHIVE_VERSION = 2

#: Decoded games ``decode`` keeps, the newest: the same bytes are decoded twice in a
#: row (``_decode``), so a few are enough, and each is tens of KiB of Python objects.
DECODED_GAMES = 32

#: The fields of the seats hash with a compact form, in the order of their 2-bit forms.
SEAT_FIELDS: tuple[str, ...] = (
    "token:0",
    "nonce:0",
    "player:0",
    "token:1",
    "nonce:1",
    "player:1",
    "invite",
    "invite_nonce",
    "seed",
)
#: The bytes of a compact hash (SHA-256) and nonce (``auth.new_nonce``) of the seats.
_HASH_BYTES = 32
_NONCE_BYTES = 16
_COMPACT_BYTES = {
    "token:0": _HASH_BYTES,
    "token:1": _HASH_BYTES,
    "invite": _HASH_BYTES,
    "nonce:0": _NONCE_BYTES,
    "nonce:1": _NONCE_BYTES,
    "invite_nonce": _NONCE_BYTES,
}
#: A deal's fairness nonce (``fairness.NONCE_BYTES``) and a game id's raw bytes.
_DEAL_NONCE_BYTES = 32
_GAME_ID_BYTES = 8

#: The candidates' order for an action's index: this format's own, for ever.
ACTION_ORDER: tuple[Action, ...] = (
    *(PLAY[card] for card in DECK),
    *(DECLARE_MARRIAGE[suit] for suit in SUITS),
    EXCHANGE_TRUMP_JACK,
    CLOSE_TALON,
    CLAIM,
    ACCEPT_LAST_TRICK,
)
_ACTION_RANK = {action: rank for rank, action in enumerate(ACTION_ORDER)}

_VARIANTS = (Variant.HEAD, Variant.TRACKED)
_DEALINGS = (Dealing.RANDOM, Dealing.SEEDED, Dealing.FIXED)
_ORDERS = math.factorial(len(DECK))
_DECK_BYTES = 8

# Kinds of the events other than player actions (bits 0-2 of their kind byte).
_SEAT_TAKEN, _DEAL_STARTED, _RESIGNED, _ABORTED, _TIMEOUT_CLAIMED, _CLOCK_MOVED = range(6)
# Forms of a seat taken and of a deal's nonce (bits 4-5).
_PERSON, _BOT, _PLAYER, _PLAYER_AND_LEVEL = range(4)
_NO_NONCE, _NONCE_HEX, _NONCE_TEXT = range(3)
# Forms of a seats field, and of the times.
_ABSENT, _COMPACT, _TEXT = range(3)
_NO_TIMES, _ALL_TIMES, _SOME_TIMES = range(3)

#: The longest varint read (70 bits): longer is damage, not a game.
_VARINT_LIMIT = 10
_SEED = re.compile(r"0|[1-9][0-9]{0,19}")


class ArchiveDecodeError(ValueError):
    """The bytes are not an archived game this module can read (damaged, or another format)."""


class ArchiveEncodeError(ValueError):
    """The game cannot be archived as given: its log does not replay, or a value is out of
    the format's range. Such a game stays where it is."""


@dataclass(frozen=True, slots=True)
class ArchivedGame:
    """A whole game as the archive keeps it: what every read of a finished game needs.

    ``times[i]`` is the Redis server's time (ms) when ``events[i]`` was appended,
    None for an entry written before entries carried one. ``seats`` holds the
    seats hash's fields as (name, value) pairs sorted by name: a frozen value
    compares whole, and ``seat_fields`` gives the hash back as Redis held it.
    """

    game_id: str
    events: tuple[Event, ...]
    times: tuple[int | None, ...]
    seats: tuple[tuple[str, str], ...]

    def __post_init__(self) -> None:
        if len(self.times) != len(self.events):
            raise ValueError(f"{len(self.events)} events but {len(self.times)} times")
        names = [name for name, _value in self.seats]
        if names != sorted(set(names)):
            raise ValueError("the seats' fields come sorted by name, each once")

    @classmethod
    def of(
        cls,
        game_id: str,
        events: Iterable[Event],
        times: Iterable[int | None],
        seats: Mapping[str, str],
    ) -> ArchivedGame:
        """The game from the store's shapes: the log's events and times, the seats hash."""
        return cls(game_id, tuple(events), tuple(times), tuple(sorted(seats.items())))

    @property
    def seat_fields(self) -> dict[str, str]:
        """The seats hash, as ``EventStore.load`` reads it."""
        return dict(self.seats)

    @property
    def version(self) -> int:
        """The log's head: its number of events."""
        return len(self.events)


# -- encoding --------------------------------------------------------------------------


def digest(game: ArchivedGame) -> bytes:
    """SHA-256 of the game as the log holds it: its id, each event's JSON and time, the seats.

    The archive keeps the digest of the game read from Redis; Redis lets the
    game go only once the archived bytes decode to a game with the same one.
    """
    h = hashlib.sha256()
    h.update(game.game_id.encode())
    for event, time in zip(game.events, game.times, strict=True):
        h.update(b"\x00e")
        h.update(json.dumps(event_to_dict(event), sort_keys=True, separators=(",", ":")).encode())
        h.update(b"\x00t" + ("" if time is None else str(time)).encode())
    for name, value in game.seats:
        h.update(b"\x00s" + name.encode() + b"\x00" + value.encode())
    return h.digest()


def encode(game: ArchivedGame) -> bytes:
    """The game as bytes of the current format; raises ``ArchiveEncodeError`` for a game
    whose log does not replay or whose values the format cannot hold."""
    out = _Writer()
    out.byte(ARCHIVE_VERSION)
    if not game.events or not isinstance(game.events[0], GameCreated):
        raise ArchiveEncodeError("a game's log starts with game_created")
    created = game.events[0]
    if (
        created.variant not in _VARIANTS
        or created.first_dealer not in (0, 1)
        or created.dealing not in _DEALINGS
    ):
        raise ArchiveEncodeError(f"not a game the archive keeps: {created!r}")
    id_bytes = _hex_bytes(game.game_id, _GAME_ID_BYTES)
    out.byte(
        _VARIANTS.index(created.variant)
        | created.first_dealer << 1
        | _DEALINGS.index(created.dealing) << 2
        | (id_bytes is None) << 4
    )
    if id_bytes is None:
        out.text(game.game_id)
    else:
        out.raw(id_bytes)
    _write_seats(out, game.seats)
    _write_events(out, game.events)
    _write_times(out, game.times, bit_times=True)
    body = out.bytes()
    return body + zlib.crc32(body).to_bytes(4, "little")


def _write_seats(out: _Writer, seats: Sequence[tuple[str, str]]) -> None:
    if not all(isinstance(text, str) for pair in seats for text in pair):
        raise ArchiveEncodeError("the seats' fields and values are texts")
    fields = dict(seats)
    forms = 0
    values = _Writer()
    for place, name in enumerate(SEAT_FIELDS):
        value = fields.get(name)
        if value is None:
            continue
        compact = _compact_seat_field(name, value)
        forms |= (_TEXT if compact is None else _COMPACT) << (2 * place)
        if compact is None:
            values.text(value)
        else:
            values.raw(compact)
    out.raw(forms.to_bytes(3, "little"))
    out.raw(values.bytes())
    others = [(name, value) for name, value in seats if name not in SEAT_FIELDS]
    out.varint(len(others))
    for name, value in others:
        out.text(name)
        out.text(value)


def _compact_seat_field(name: str, value: str) -> bytes | None:
    """A seats field's compact bytes, or None when only its text keeps it exactly."""
    if name in _COMPACT_BYTES:
        return _hex_bytes(value, _COMPACT_BYTES[name])
    if name == "seed":
        return _varint(int(value)) if _SEED.fullmatch(value) else None
    return b"" if value == "human" else None  # player:<seat>


def _write_events(out: _Writer, events: Sequence[Event]) -> None:
    state = _fold(None, events[0], ArchiveEncodeError)
    others = _Writer()
    count = 0
    actions_before = 0
    digits = 0
    radix = 1
    for event in events[1:]:
        before, state = state, _fold(state, event, ArchiveEncodeError)
        if isinstance(event, ActionTaken):
            candidates = _candidates(before)
            if event.action not in candidates or event.seat != before.to_move:
                raise ArchiveEncodeError(f"{event!r} is not a legal action of its position")
            digits += candidates.index(event.action) * radix
            radix *= len(candidates)
            if isinstance(event, ClockMoved):  # its mark, then its action's digit as any
                others.varint(actions_before)
                others.byte(_CLOCK_MOVED)
                others.text(event.level)
                count += 1
                actions_before = 0
            else:
                actions_before += 1
        else:
            others.varint(actions_before)
            _write_other(others, event)
            count += 1
            actions_before = 0
    out.varint(count)
    out.raw(others.bytes())
    out.varint(actions_before)
    packed = digits.to_bytes((digits.bit_length() + 7) // 8, "little")
    out.varint(len(packed))
    out.raw(packed)


def _write_other(out: _Writer, event: Event) -> None:
    """An event that is not a player action: its kind byte and its details."""
    if isinstance(event, SeatTaken):
        if event.player == "human" and event.level is None:
            form, texts = _PERSON, []
        elif event.player == "bot" and event.level is not None:
            form, texts = _BOT, [event.level]
        elif event.level is None:
            form, texts = _PLAYER, [event.player]
        else:
            form, texts = _PLAYER_AND_LEVEL, [event.player, event.level]
        out.byte(_SEAT_TAKEN | event.seat << 3 | form << 4)
        for text in texts:
            out.text(text)
    elif isinstance(event, DealStarted):
        if event.nonce is not None and (
            not isinstance(event.nonce, str) or len(event.nonce) != 2 * _DEAL_NONCE_BYTES
        ):
            raise ArchiveEncodeError(f"not a deal's nonce: {event.nonce!r}")
        nonce = None if event.nonce is None else _hex_bytes(event.nonce, _DEAL_NONCE_BYTES)
        form = (
            _NONCE_HEX if nonce is not None else _NO_NONCE if event.nonce is None else _NONCE_TEXT
        )
        out.byte(_DEAL_STARTED | form << 4)
        out.raw(_deck_index(event.deck).to_bytes(_DECK_BYTES, "big"))
        if form == _NONCE_HEX:
            out.raw(nonce or b"")
        elif form == _NONCE_TEXT:
            out.text(event.nonce or "")
    elif isinstance(event, Resigned):
        out.byte(_RESIGNED | event.seat << 3)
    elif isinstance(event, Aborted):
        out.byte(_ABORTED | event.seat << 3)
    elif isinstance(event, TimeoutClaimed):
        out.byte(_TIMEOUT_CLAIMED | event.seat << 3)
        out.varint(event.waited_ms)
    else:
        raise ArchiveEncodeError(f"not an event the archive keeps: {event!r}")


def _write_times(out: _Writer, times: Sequence[int | None], *, bit_times: bool) -> None:
    known = [time for time in times if time is not None]
    if not known:
        out.byte(_NO_TIMES)
        return
    if len(known) == len(times):
        out.byte(_ALL_TIMES)
    else:
        out.byte(_SOME_TIMES)
        bits = sum(1 << place for place, time in enumerate(times) if time is not None)
        out.raw(bits.to_bytes((len(times) + 7) // 8, "little"))
    before = 0
    bits = _BitWriter()
    for time in known:
        if type(time) is not int:
            raise ArchiveEncodeError(f"not a time in ms: {time!r}")
        if bit_times:
            bits.difference(time - before)
        else:
            out.varint(_zigzag(time - before))
        before = time
    out.raw(bits.bytes())


# -- decoding --------------------------------------------------------------------------


def decode(data: bytes) -> ArchivedGame:
    """The game the bytes hold; raises ``ArchiveDecodeError`` (only) for anything else."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise ArchiveDecodeError(f"an archived game is bytes, not {type(data).__name__}")
    return _decode(bytes(data))


@functools.lru_cache(maxsize=DECODED_GAMES)
def _decode(data: bytes) -> ArchivedGame:
    """``decode``, kept for the last few games: the archive's ``put`` decodes a game to
    see whether its row needs its digest (``archive_rows``), and the archiving job decodes
    the row it reads back right after; a record's digest asked for (``StoredRecord``) and
    its game read are the same. An ``ArchivedGame`` is a frozen value, shared safely."""
    if not data:
        raise ArchiveDecodeError("no bytes: an archived game starts with its format's version")
    reader = _READERS.get(data[0])
    if reader is None:
        raise ArchiveDecodeError(f"unknown archive format {data[0]} (known: {sorted(_READERS)})")
    return reader(data)


def _decode_v1(data: bytes) -> ArchivedGame:
    return _decode_body(data, bit_times=False)


def _decode_v2(data: bytes) -> ArchivedGame:
    return _decode_body(data, bit_times=True)


def _decode_body(data: bytes, *, bit_times: bool) -> ArchivedGame:
    """Versions 1 and 2: the same but for how the times' differences are written."""
    if len(data) < 6:
        raise ArchiveDecodeError(f"{len(data)} bytes are too few for an archived game")
    body, check = data[:-4], int.from_bytes(data[-4:], "little")
    if zlib.crc32(body) != check:
        raise ArchiveDecodeError("the bytes are damaged: their CRC-32 does not match")
    read = _Reader(body, 1)
    game = read.byte()
    if game >> 5 or (game >> 2) & 3 == 3:
        raise ArchiveDecodeError(f"unknown bits in the game byte {game:#04x}")
    created = GameCreated(_VARIANTS[game & 1], (game >> 1) & 1, _DEALINGS[(game >> 2) & 3])
    if game >> 4 & 1:
        game_id = read.text()
        if _hex_bytes(game_id, _GAME_ID_BYTES) is not None:
            raise ArchiveDecodeError("a hex game id is written as bytes, not text")
    else:
        game_id = read.raw(_GAME_ID_BYTES).hex()
    seats = _read_seats(read)
    events = _read_events(read, created)
    times = _read_times(read, len(events), bit_times=bit_times)
    if not read.done:
        raise ArchiveDecodeError(f"{read.left} bytes after the game")
    return ArchivedGame(game_id, tuple(events), tuple(times), tuple(sorted(seats.items())))


def _read_seats(read: _Reader) -> dict[str, str]:
    forms = int.from_bytes(read.raw(3), "little")
    if forms >> (2 * len(SEAT_FIELDS)):
        raise ArchiveDecodeError("unknown bits in the seats' forms")
    seats: dict[str, str] = {}
    for place, name in enumerate(SEAT_FIELDS):
        form = (forms >> (2 * place)) & 3
        if form == _TEXT:
            value = read.text()
            if _compact_seat_field(name, value) is not None:
                raise ArchiveDecodeError(f"seats field {name!r} is written as text, not compact")
            seats[name] = value
        elif form == _COMPACT:
            seats[name] = _read_compact_seat_field(read, name)
        elif form != _ABSENT:
            raise ArchiveDecodeError(f"unknown form {form} of seats field {name!r}")
    names: list[str] = []
    for _ in range(read.count()):
        name, value = read.text(), read.text()
        if name in SEAT_FIELDS or (names and name <= names[-1]):
            raise ArchiveDecodeError(f"seats field {name!r} out of place")
        names.append(name)
        seats[name] = value
    return seats


def _read_compact_seat_field(read: _Reader, name: str) -> str:
    if name in _COMPACT_BYTES:
        return read.raw(_COMPACT_BYTES[name]).hex()
    if name == "seed":
        seed = str(read.varint())
        if not _SEED.fullmatch(seed):
            raise ArchiveDecodeError(f"seed {seed} is out of range")
        return seed
    return "human"


def _read_events(read: _Reader, created: GameCreated) -> list[Event]:
    """The events, folded through the engine as they are read: each must fit its game."""
    others = []
    for _ in range(read.count()):
        before = read.varint()
        others.append((before, _read_other(read, read.byte())))
    trailing = read.varint()
    packed = read.raw(read.count())
    if packed and packed[-1] == 0:
        raise ArchiveDecodeError("the actions' integer has a trailing zero byte")
    digits = int.from_bytes(packed, "little")
    state = _fold(None, created, ArchiveDecodeError)
    events: list[Event] = [created]

    def actions(count: int, played_by: str | None = None) -> None:
        nonlocal digits, state
        for _ in range(count):
            candidates = _candidates(state)
            if not candidates:
                raise ArchiveDecodeError(f"an action at version {len(events) + 1}, where none is")
            digits, index = divmod(digits, len(candidates))
            seat = state.to_move
            event = (
                ActionTaken(seat, candidates[index])  # type: ignore[arg-type]
                if played_by is None
                else ClockMoved(seat, candidates[index], played_by)  # type: ignore[arg-type]
            )
            state = _fold(state, event, ArchiveDecodeError)
            events.append(event)

    for before, other in others:
        actions(before)
        if isinstance(other, _ClockMark):
            actions(1, played_by=other.level)
            continue
        event = other.started(state) if isinstance(other, _Deal) else other
        state = _fold(state, event, ArchiveDecodeError)
        events.append(event)
    actions(trailing)
    if digits:
        raise ArchiveDecodeError("the actions' integer holds more than the game's actions")
    return events


@dataclass(frozen=True, slots=True)
class _Deal:
    """A deal as read: its deck and nonce; its number and dealer follow from the game."""

    deck: tuple[Card, ...]
    nonce: str | None

    def started(self, state: GameState) -> DealStarted:
        return DealStarted(len(state.results) + 1, state.next_dealer, self.deck, self.nonce)


@dataclass(frozen=True, slots=True)
class _ClockMark:
    """A clock's move as read: the next action is the one a bot of ``level`` played."""

    level: str


def _read_other(read: _Reader, kind: int) -> Event | _Deal | _ClockMark:
    """An event that is not a player action, from its kind byte and details."""
    event, seat, form = kind & 7, (kind >> 3) & 1, (kind >> 4) & 3
    if kind >> 6:
        raise ArchiveDecodeError(f"unknown bits in the kind byte {kind:#04x}")
    if event == _SEAT_TAKEN:
        if form == _PERSON:
            return SeatTaken(seat, "human", None)
        if form == _BOT:
            return SeatTaken(seat, "bot", read.text())
        player = read.text()
        level = read.text() if form == _PLAYER_AND_LEVEL else None
        if (player, level is None) in (("human", True), ("bot", False)):
            raise ArchiveDecodeError("a person or a bot is written in its short form")
        return SeatTaken(seat, player, level)
    if event == _DEAL_STARTED:
        if seat:
            raise ArchiveDecodeError("a deal's dealer is not written: it follows from the game")
        index = int.from_bytes(read.raw(_DECK_BYTES), "big")
        if index >= _ORDERS:
            raise ArchiveDecodeError(f"deck index {index} is not an order of 20 cards")
        if form == _NO_NONCE:
            return _Deal(_deck_of(index), None)
        if form == _NONCE_HEX:
            return _Deal(_deck_of(index), read.raw(_DEAL_NONCE_BYTES).hex())
        if form == _NONCE_TEXT:
            nonce = read.text()
            if len(nonce) != 2 * _DEAL_NONCE_BYTES or _hex_bytes(nonce, _DEAL_NONCE_BYTES):
                raise ArchiveDecodeError(f"not a deal's nonce as text: {nonce!r}")
            return _Deal(_deck_of(index), nonce)
        raise ArchiveDecodeError(f"unknown nonce form {form}")
    if form:
        raise ArchiveDecodeError(f"no form {form} for event kind {event}")
    if event == _CLOCK_MOVED:
        if seat:
            raise ArchiveDecodeError("a clock's move's seat is not written: it is the one to move")
        return _ClockMark(read.text())
    if event == _RESIGNED:
        return Resigned(seat)
    if event == _ABORTED:
        return Aborted(seat)
    if event == _TIMEOUT_CLAIMED:
        return TimeoutClaimed(seat, read.varint())
    raise ArchiveDecodeError(f"unknown event kind {event}")


def _read_times(read: _Reader, count: int, *, bit_times: bool) -> list[int | None]:
    form = read.byte()
    if form == _NO_TIMES:
        return [None] * count
    if form == _ALL_TIMES:
        present = [True] * count
    elif form == _SOME_TIMES:
        size = (count + 7) // 8
        bits = int.from_bytes(read.raw(size), "little")
        present = [bool(bits >> place & 1) for place in range(count)]
        if bits >> count or all(present) or not any(present):
            raise ArchiveDecodeError("the times' bitmap says what its form should")
    else:
        raise ArchiveDecodeError(f"unknown form {form} of the times")
    times: list[int | None] = []
    before = 0
    bits = _BitReader(read.raw(read.left)) if bit_times else None
    for known in present:
        if known:
            before += bits.difference() if bits else _unzigzag(read.varint())
            times.append(before)
        else:
            times.append(None)
    if bits:
        bits.end()
    return times


_READERS = {1: _decode_v1, 2: _decode_v2}


# -- the fold, the actions' candidates, the deck's index ---------------------------------


def _fold(state: GameState | None, event: Event, error: type[ValueError]) -> GameState:
    """The engine's state after ``event``, or ``error`` saying why it does not fit."""
    try:
        return apply_event(state, event)
    except (EngineError, ValueError) as refusal:
        raise error(f"the log does not replay: {refusal}") from None


def _candidates(state: GameState) -> list[Action]:
    """The legal actions of the position in this format's order (``ACTION_ORDER``)."""
    return sorted(legal_actions(state), key=_ACTION_RANK.__getitem__)


def _deck_index(deck: Sequence[Card]) -> int:
    """The deck's place among the 20! orders of the pack (its Lehmer code)."""
    left = list(DECK)
    index = 0
    for card in deck:
        place = left.index(card)
        index = index * len(left) + place
        del left[place]
    return index


def _deck_of(index: int) -> tuple[Card, ...]:
    places = []
    for size in range(1, len(DECK) + 1):
        index, place = divmod(index, size)
        places.append(place)
    left = list(DECK)
    return tuple(left.pop(place) for place in reversed(places))


# -- bytes -----------------------------------------------------------------------------


def _hex_bytes(text: str, size: int) -> bytes | None:
    """``text`` as ``size`` raw bytes when it is exactly their lowercase hex, else None."""
    if not isinstance(text, str) or len(text) != 2 * size:
        return None
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        return None
    return raw if raw.hex() == text else None


def _zigzag(value: int) -> int:
    return value * 2 if value >= 0 else -value * 2 - 1


def _unzigzag(value: int) -> int:
    return value // 2 if value % 2 == 0 else -(value + 1) // 2


def _varint(value: int) -> bytes:
    if value < 0 or value.bit_length() > 7 * _VARINT_LIMIT:
        raise ArchiveEncodeError(f"{value} is out of the format's range")
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        if not value:
            out.append(low)
            return bytes(out)
        out.append(low | 0x80)


class _Writer:
    """Bytes appended in order."""

    def __init__(self) -> None:
        self._out = bytearray()

    def byte(self, value: int) -> None:
        self._out.append(value)

    def raw(self, data: bytes) -> None:
        self._out += data

    def varint(self, value: int) -> None:
        self._out += _varint(value)

    def text(self, value: str) -> None:
        if not isinstance(value, str):
            raise ArchiveEncodeError(f"not a text: {value!r}")
        try:
            data = value.encode("utf-8")
        except UnicodeEncodeError as error:
            raise ArchiveEncodeError(f"not a text the archive keeps: {error}") from None
        self.varint(len(data))
        self._out += data

    def bytes(self) -> bytes:
        return bytes(self._out)


#: The times' bit lengths (version 2): each group's prefix, its count of bits that
#: pick a length in it, and its first length. The escape (``_ESCAPE``) follows.
_LENGTH_GROUPS: tuple[tuple[int, int, int, int], ...] = (
    # (prefix, prefix bits, length bits, first length)
    (0b0, 1, 2, 10),
    (0b10, 2, 2, 14),
    (0b110, 3, 2, 6),
    (0b1110, 4, 0, 0),
    (0b11110, 5, 3, 1),
    (0b111110, 6, 3, 18),
)
_ESCAPE, _ESCAPE_BITS, _ESCAPE_LENGTH_BITS = 0b111111, 6, 7
#: The lengths each group holds (the one of 1-5 uses five of its eight).
_GROUP_OF = {
    first + step: group
    for group, (_p, _b, size, first) in enumerate(_LENGTH_GROUPS)
    for step in range(1 if size == 0 else 5 if first == 1 else 1 << size)
}
#: The longest difference kept: as a varint's 70 bits.
_LONGEST = 7 * _VARINT_LIMIT


class _BitWriter:
    """Bits appended most significant first, ended with zero bits to the byte."""

    def __init__(self) -> None:
        self._value = 0
        self._count = 0

    def put(self, value: int, count: int) -> None:
        self._value = (self._value << count) | value
        self._count += count

    def difference(self, d: int) -> None:
        """A time's difference from the one before: its length's prefix, then its bits."""
        length = abs(d).bit_length()
        if length > _LONGEST:
            raise ArchiveEncodeError(f"{d} is out of the format's range")
        group = _GROUP_OF.get(length) if d >= 0 else None
        if group is None:
            self.put(_ESCAPE, _ESCAPE_BITS)
            self.put(int(d < 0), 1)
            self.put(length, _ESCAPE_LENGTH_BITS)
        else:
            prefix, prefix_bits, size, first = _LENGTH_GROUPS[group]
            self.put(prefix, prefix_bits)
            self.put(length - first, size)
        if length > 1:
            self.put(abs(d) - (1 << (length - 1)), length - 1)

    def bytes(self) -> bytes:
        if not self._count:
            return b""
        size = (self._count + 7) // 8
        return (self._value << (8 * size - self._count)).to_bytes(size, "big")


class _BitReader:
    """Bits read most significant first; what is left at the end is zero and under a byte.

    The bits are a text of 0s and 1s: slicing it costs a few characters where shifting
    the bytes as one integer costs the whole of them, at every read."""

    def __init__(self, data: bytes) -> None:
        self._bits = "".join(f"{byte:08b}" for byte in data)
        self._at = 0

    def take(self, count: int) -> int:
        end = self._at + count
        if end > len(self._bits):
            raise ArchiveDecodeError("the bytes end in the middle of the times")
        chunk = self._bits[self._at : end]
        self._at = end
        return int(chunk, 2) if chunk else 0

    def difference(self) -> int:
        window = self._bits[self._at : self._at + _ESCAPE_BITS]
        ones = window.find("0")
        if ones < 0:
            if len(window) < _ESCAPE_BITS:
                raise ArchiveDecodeError("the bytes end in the middle of the times")
            ones = _ESCAPE_BITS
            self._at += _ESCAPE_BITS
        else:
            self._at += ones + 1
        if ones == _ESCAPE_BITS:
            negative = self.take(1)
            length = self.take(_ESCAPE_LENGTH_BITS)
            if length > _LONGEST or (negative and not length):
                raise ArchiveDecodeError(f"a time's difference of {length} bits")
            if not negative and length in _GROUP_OF:
                raise ArchiveDecodeError("a time's difference is escaped where a prefix holds it")
        else:
            _prefix, _bits, size, first = _LENGTH_GROUPS[ones]
            length = first + self.take(size)
            if _GROUP_OF.get(length) != ones:
                raise ArchiveDecodeError(f"no bit length {length} in its prefix's group")
            negative = 0
        magnitude = 0 if length == 0 else (1 << (length - 1)) | self.take(length - 1)
        return -magnitude if negative else magnitude

    def end(self) -> None:
        rest = self._bits[self._at :]
        if len(rest) >= 8 or "1" in rest:
            raise ArchiveDecodeError("the times end in bits that are not zero padding")


class _Reader:
    """Bytes read in order; running out, or an overlong varint, is damage."""

    def __init__(self, data: bytes, start: int = 0) -> None:
        self._data = data
        self._at = start

    @property
    def done(self) -> bool:
        return self._at == len(self._data)

    @property
    def left(self) -> int:
        return len(self._data) - self._at

    def byte(self) -> int:
        if self._at >= len(self._data):
            raise ArchiveDecodeError("the bytes end in the middle of the game")
        self._at += 1
        return self._data[self._at - 1]

    def raw(self, size: int) -> bytes:
        if size > self.left:
            raise ArchiveDecodeError("the bytes end in the middle of the game")
        self._at += size
        return self._data[self._at - size : self._at]

    def varint(self) -> int:
        value = 0
        for place in range(_VARINT_LIMIT):
            byte = self.byte()
            value |= (byte & 0x7F) << (7 * place)
            if not byte & 0x80:
                if byte == 0 and place:
                    raise ArchiveDecodeError("a varint with a trailing zero byte")
                return value
        raise ArchiveDecodeError(f"a varint longer than {_VARINT_LIMIT} bytes")

    def count(self) -> int:
        """A count of things that follow, each at least a byte: at most the bytes left."""
        value = self.varint()
        if value > self.left:
            raise ArchiveDecodeError(f"{value} things announced, {self.left} bytes left")
        return value

    def text(self) -> str:
        try:
            return self.raw(self.count()).decode("utf-8")
        except UnicodeDecodeError as error:
            raise ArchiveDecodeError(f"not UTF-8 text: {error}") from None

"""Create, join, act: load the log, decide with the engine, append. No Flask here.

Every command follows the same three steps. Load: the newest snapshot and the
events after it, folded by the engine. Decide: the engine accepts the action
and returns the next state, or refuses with a typed error (nothing is
written). Append: one atomic Lua call that succeeds only if the log is still
at the version that was loaded.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from service import auth, dealing
from service.engine import (
    Action,
    ActionTaken,
    Card,
    DealStarted,
    GameCreated,
    GameState,
    IllegalActionError,
    SeatTaken,
    Variant,
    apply,
    legal_actions,
    replay,
    start_deal,
    take_seat,
)
from service.engine.errors import ErrorCode
from service.engine.snapshot import StaleSnapshotError, state_from_dict, state_to_dict
from service.problems import (
    Conflict,
    GameNotFound,
    IllegalAction,
    InvalidRequest,
    Problem,
    Unauthorized,
    VersionConflict,
)
from service.store import Duplicate, EventStore, StaleVersionError

#: How often a command re-decides after another writer got in first.
APPEND_ATTEMPTS = 5

# Refusals that are about whose turn or which phase it is (409) rather than
# about the action itself being against the rules (422).
_STATE_CONFLICTS = {ErrorCode.NOT_YOUR_TURN, ErrorCode.GAME_OVER, ErrorCode.GAME_WAITING}


@dataclass(frozen=True, slots=True)
class Opponent:
    """Who sits at seat 1: a person who joins with the invite, or a bot of a level."""

    kind: str = "human"
    level: str | None = None


@dataclass(frozen=True, slots=True)
class NewGame:
    """The options of ``POST /v1/games``; all optional."""

    variant: Variant = Variant.HEAD
    opponent: Opponent = field(default_factory=Opponent)
    seed: int | None = None
    deck: tuple[Card, ...] | None = None
    first_dealer: int | None = None


@dataclass(frozen=True, slots=True)
class Current:
    """A game's state at a version, with who sits where."""

    game_id: str
    version: int
    state: GameState
    players: tuple[dict[str, Any], dict[str, Any] | None]


@dataclass(frozen=True, slots=True)
class Seated:
    """The answer to create and join: the seat, its token, and the game."""

    current: Current
    seat: int
    token: str
    invite: str | None
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class Acted:
    """The answer to an action: the acting seat and the game after it."""

    current: Current
    seat: int
    replayed: bool = False


AfterAppend = Callable[[Current], None]


class GameService:
    """The commands of the game service, over an ``EventStore``."""

    def __init__(
        self,
        store: EventStore,
        secret: bytes,
        *,
        bot_levels: Collection[str] = (),
        after_append: AfterAppend | None = None,
    ):
        self.store = store
        self.secret = secret
        self.bot_levels = frozenset(bot_levels)
        self.after_append = after_append

    # -- create and join ---------------------------------------------------
    def create(self, new: NewGame, *, idempotency_key: str | None = None) -> Seated:
        """Create a game with its creator at seat 0 and deal the first deal."""
        request_print = _fingerprint({"create": _new_game_json(new)})
        if new.opponent.kind == "bot" and new.opponent.level not in self.bot_levels:
            levels = ", ".join(sorted(self.bot_levels)) or "none yet"
            raise InvalidRequest(
                f"unknown bot level {new.opponent.level!r} (levels: {levels})",
                code="unknown_bot_level",
            )
        game_id = secrets.token_hex(8)
        if idempotency_key is not None:
            earlier = self.store.claim_create_key(idempotency_key, game_id)
            if earlier is not None:
                return self._replay_create(earlier, idempotency_key, request_print)
        first_dealer = (
            new.first_dealer if new.first_dealer is not None else dealing.first_dealer(new.seed)
        )
        bot = new.opponent.kind == "bot"
        events: list[Any] = [
            GameCreated(new.variant, first_dealer),
            SeatTaken(0, "human"),
        ]
        if bot:
            events.append(SeatTaken(1, "bot", new.opponent.level))
        state = replay(events)
        deck = new.deck if new.deck is not None else self._next_deck(new.seed, 1)
        state = start_deal(state, deck)
        events.append(DealStarted(1, state.deal.dealer, state.deal.deck))
        seats = {"nonce:0": auth.new_nonce(), "player:0": "human"}
        seats["token:0"] = auth.fingerprint(self._seat_token(game_id, 0, seats["nonce:0"]))
        seats["player:1"] = f"bot:{new.opponent.level}" if bot else "human"
        if not bot:
            seats["invite_nonce"] = auth.new_nonce()
            seats["invite"] = auth.fingerprint(self._invite(game_id, seats["invite_nonce"]))
        if new.seed is not None:
            seats["seed"] = str(new.seed)
        try:
            version = self.store.append(
                game_id,
                0,
                events,
                seats=seats,
                idempotency_key="create" if idempotency_key else None,
                fingerprint=request_print,
            )
        except Exception:
            if idempotency_key is not None:
                self.store.release_create_key(idempotency_key)
            raise
        assert isinstance(version, int)
        current = self._commit(game_id, version, state, seats, deal_started=True)
        invite = None if bot else self._invite(game_id, seats["invite_nonce"])
        return Seated(current, 0, self._seat_token(game_id, 0, seats["nonce:0"]), invite)

    def join(self, game_id: str, invite: str, *, idempotency_key: str | None = None) -> Seated:
        """Take seat 1 of a game with its invite; a second join is refused (409)."""
        seats = self._seats(game_id)
        if not auth.matches(invite, seats.get("invite")):
            raise Unauthorized(
                "this invite does not open seat 1 of this game", code="invalid_invite"
            )
        request_print = _fingerprint({"join": invite})
        idem_field = f"join:{idempotency_key}" if idempotency_key else None
        if idem_field:
            earlier = self.store.duplicate(game_id, idem_field)
            if earlier is not None:
                return self._replay_seat(game_id, 1, earlier, request_print)
        for _attempt in range(APPEND_ATTEMPTS):
            current = self.current(game_id, seats=seats)
            if "token:1" in seats or current.state.seated[1]:
                raise Conflict("seat 1 of this game is already taken", code="seat_taken")
            nonce = auth.new_nonce()
            token = self._seat_token(game_id, 1, nonce)
            new_fields = {"nonce:1": nonce, "token:1": auth.fingerprint(token)}
            state = take_seat(current.state, 1)
            try:
                result = self.store.append(
                    game_id,
                    current.version,
                    [SeatTaken(1, "human")],
                    seats=new_fields,
                    idempotency_key=idem_field,
                    fingerprint=request_print,
                )
            except StaleVersionError:
                seats = self._seats(game_id)
                continue
            if isinstance(result, Duplicate):
                return self._replay_seat(game_id, 1, result, request_print)
            committed = self._commit(game_id, result, state, {**seats, **new_fields})
            return Seated(committed, 1, token, None)
        raise Conflict("the game changed too often while joining; try again", code="busy")

    # -- acting ------------------------------------------------------------
    def act(
        self,
        game_id: str,
        token: str | None,
        action_data: Mapping[str, Any],
        *,
        expected_version: int | None = None,
        precondition: bool = False,
        idempotency_key: str | None = None,
    ) -> Acted:
        """Apply one player action for the seat the token belongs to."""
        seats = self._seats(game_id)
        seat = self.seat_for(game_id, token, seats=seats, required=True)
        assert seat is not None
        request_print = _fingerprint({"action": dict(action_data), "seat": seat})
        idem_field = f"{seat}:{idempotency_key}" if idempotency_key else None
        if idem_field:
            earlier = self.store.duplicate(game_id, idem_field)
            if earlier is not None:
                return self._replay_action(game_id, seat, earlier, request_print, seats)
        try:
            action = Action.from_dict(action_data)
        except ValueError as error:
            raise InvalidRequest(str(error), code="invalid_action") from None
        for _attempt in range(APPEND_ATTEMPTS):
            current = self.current(game_id, seats=seats)
            if expected_version is not None and expected_version != current.version:
                raise VersionConflict(expected_version, current.version, precondition=precondition)
            state, events = self._decide(current, seat, action, seats)
            try:
                result = self.store.append(
                    game_id,
                    current.version,
                    events,
                    idempotency_key=idem_field,
                    fingerprint=request_print,
                )
            except StaleVersionError as stale:
                if expected_version is not None:
                    raise VersionConflict(
                        expected_version, stale.actual, precondition=precondition
                    ) from None
                continue  # someone else got in first: decide again on the new state
            if isinstance(result, Duplicate):
                return self._replay_action(game_id, seat, result, request_print, seats)
            deal_started = isinstance(events[-1], DealStarted)
            return Acted(self._commit(game_id, result, state, seats, deal_started), seat)
        raise Conflict("the game changed too often while acting; try again", code="busy")

    def _decide(
        self, current: Current, seat: int, action: Action, seats: Mapping[str, str]
    ) -> tuple[GameState, list[Any]]:
        """The engine's verdict: the next state and the events to append, or a 4xx."""
        state = current.state
        try:
            state = apply(state, action, seat)
        except IllegalActionError as error:
            status = 409 if error.code in _STATE_CONFLICTS else 422
            allowed = legal_actions(current.state) if current.state.to_move == seat else []
            raise IllegalAction(
                error.message,
                status=status,
                code=error.code.value,
                extra={
                    "rule": error.rule,
                    "legal_actions": [a.to_dict() for a in allowed],
                    "to_move": current.state.to_move,
                },
            ) from None
        events: list[Any] = [ActionTaken(seat, action)]
        if state.awaiting_deal:
            seed = int(seats["seed"]) if "seed" in seats else None
            state = start_deal(state, self._next_deck(seed, len(state.results) + 1))
            events.append(DealStarted(state.deal.number, state.deal.dealer, state.deal.deck))
        return state, events

    # -- reading -----------------------------------------------------------
    def current(
        self, game_id: str, version: int | None = None, *, seats: Mapping[str, str] | None = None
    ) -> Current:
        """The game at ``version`` (default: now), from the newest snapshot plus newer events."""
        loaded = self.store.load(game_id, version)
        if loaded.head == 0:
            raise GameNotFound(f"there is no game {game_id!r}")
        start = None
        if loaded.snapshot is not None:
            try:
                start = state_from_dict(loaded.snapshot)
            except StaleSnapshotError:
                loaded = self.store.load(game_id, version, snapshots=False)
        state = replay(loaded.events, start)
        if seats is None:
            seats = self._seats(game_id)
        return Current(game_id, loaded.version, state, _players(seats))

    def seat_for(
        self,
        game_id: str,
        token: str | None,
        *,
        seats: Mapping[str, str] | None = None,
        required: bool = False,
    ) -> int | None:
        """The seat a bearer token acts for; ``None`` (a spectator) without a token."""
        if seats is None:
            seats = self._seats(game_id)
        if token is None:
            if required:
                raise Unauthorized(
                    "acting for a seat needs 'Authorization: Bearer <token>'", code="token_required"
                )
            return None
        for seat in (0, 1):
            if auth.matches(token, seats.get(f"token:{seat}")):
                return seat
        raise Unauthorized("this token belongs to no seat of this game")

    def players(self, game_id: str) -> list[dict[str, Any]]:
        """Who sits where: a person or a bot of some level, and whether seat 1 is taken."""
        return [player for player in _players(self._seats(game_id)) if player is not None]

    def events_after(self, game_id: str, after: int) -> tuple[GameState | None, list[Any], Current]:
        """The state at ``after`` and the events after it, for the event feed."""
        latest = self.current(game_id)
        if after >= latest.version:
            return None, [], latest
        start = self.current(game_id, after).state if after > 0 else None
        return start, self.store.events(game_id, after, latest.version), latest

    # -- helpers -----------------------------------------------------------
    def _seats(self, game_id: str) -> dict[str, str]:
        seats = self.store.seats(game_id)
        if not seats:
            raise GameNotFound(f"there is no game {game_id!r}")
        return seats

    def _commit(
        self,
        game_id: str,
        version: int,
        state: GameState,
        seats: Mapping[str, str],
        deal_started: bool = False,
    ) -> Current:
        """After a successful append: cache the snapshot and tell whoever listens."""
        self.store.save_snapshot(game_id, version, state_to_dict(state), deal_started)
        current = Current(game_id, version, state, _players(seats))
        if self.after_append is not None:
            self.after_append(current)
        return current

    def _next_deck(self, seed: int | None, deal_number: int) -> tuple[Card, ...]:
        if seed is None:
            return dealing.random_deck()
        return dealing.seeded_deck(seed, deal_number)

    def _seat_token(self, game_id: str, seat: int, nonce: str) -> str:
        return auth.derive_secret(self.secret, game_id, f"seat:{seat}", nonce)

    def _invite(self, game_id: str, nonce: str) -> str:
        return auth.derive_secret(self.secret, game_id, "invite", nonce)

    def _replay_create(self, game_id: str, key: str, request_print: str) -> Seated:
        earlier = self.store.duplicate(game_id, "create")
        if earlier is None:
            raise Conflict(
                "a request with this Idempotency-Key is still being processed",
                code="idempotency_in_progress",
                headers={"Retry-After": "1"},
            )
        seated = self._replay_seat(game_id, 0, earlier, request_print)
        seats = self._seats(game_id)
        invite = None
        if "invite_nonce" in seats:
            invite = self._invite(game_id, seats["invite_nonce"])
        return Seated(seated.current, 0, seated.token, invite, replayed=True)

    def _replay_seat(
        self, game_id: str, seat: int, earlier: Duplicate, request_print: str
    ) -> Seated:
        _same_request(earlier, request_print)
        seats = self._seats(game_id)
        current = self.current(game_id, earlier.version, seats=seats)
        token = self._seat_token(game_id, seat, seats[f"nonce:{seat}"])
        return Seated(current, seat, token, None, replayed=True)

    def _replay_action(
        self,
        game_id: str,
        seat: int,
        earlier: Duplicate,
        request_print: str,
        seats: Mapping[str, str],
    ) -> Acted:
        _same_request(earlier, request_print)
        return Acted(self.current(game_id, earlier.version, seats=seats), seat, replayed=True)


def _same_request(earlier: Duplicate, request_print: str) -> None:
    if earlier.fingerprint != request_print:
        raise Problem(
            "this Idempotency-Key was used with a different request",
            status=422,
            code="idempotency_key_reused",
            title="Idempotency key reused",
        )


def _players(seats: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    def player(seat: int) -> dict[str, Any] | None:
        kind = seats.get(f"player:{seat}", "human")
        joined = seat == 0 or kind.startswith("bot:") or f"token:{seat}" in seats
        if kind.startswith("bot:"):
            return {"seat": seat, "type": "bot", "level": kind[4:], "joined": True}
        return {"seat": seat, "type": "human", "joined": joined}

    first = player(0)
    assert first is not None
    return first, player(1)


def _new_game_json(new: NewGame) -> dict[str, Any]:
    return {
        "variant": new.variant.value,
        "opponent": {"type": new.opponent.kind, "level": new.opponent.level},
        "seed": new.seed,
        "deck": None if new.deck is None else [card.value for card in new.deck],
        "first_dealer": new.first_dealer,
    }


def _fingerprint(data: Any) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()

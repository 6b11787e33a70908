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
import logging
import secrets
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from service.engine import (
    Aborted,
    Action,
    Card,
    Dealing,
    DealStarted,
    Event,
    GameCreated,
    GameState,
    IllegalActionError,
    Resigned,
    SeatTaken,
    TimeoutClaimed,
    Variant,
    decide,
    legal_actions,
    replay,
    start_deal,
    take_seat,
)
from service.engine.endings import abort, claim_timeout, resign
from service.engine.errors import ErrorCode
from service.engine.fairness import NONCE_BYTES
from service.engine.knowledge import SeatView, seat_view
from service.engine.snapshot import StaleSnapshotError, state_from_dict, state_to_dict
from service.game import auth, dealing
from service.game.problems import (
    Conflict,
    GameNotFound,
    IdempotencyKeyReused,
    IllegalAction,
    InvalidRequest,
    Unauthorized,
    VersionConflict,
)
from service.store.client_games import LIST_SCAN_LIMIT, ClientGames, Listed
from service.store.events import Duplicate, EventStore, StaleVersionError

log = logging.getLogger(__name__)

#: How often a command re-decides after another writer got in first.
APPEND_ATTEMPTS = 5


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

    @property
    def dealing(self) -> Dealing:
        """Who chooses the decks: a given deck fixes deal 1, a seed every deal."""
        if self.deck is not None:
            return Dealing.FIXED
        return Dealing.SEEDED if self.seed is not None else Dealing.RANDOM


@dataclass(frozen=True, slots=True)
class Current:
    """A game's state at a version, with its seats record (token hashes, players)."""

    game_id: str
    version: int
    state: GameState
    seats: Mapping[str, str]

    @property
    def players(self) -> list[dict[str, Any]]:
        """Who sits where: a person or a bot of some level, and whether seat 1 is taken."""
        return _players(self.seats)


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


@dataclass(frozen=True, slots=True)
class GamePage:
    """One page of a client's games: each with its creation time, and where to go on."""

    games: list[tuple[Listed, Current]]
    #: The last game shown, where the next page starts (None: no more games).
    next_cursor: Listed | None


class AppendListener(Protocol):
    """Told of every append once it is done; never of an idempotent replay.

    The bot dispatcher and the counters of ``service.store.stats`` listen; the one
    composition root (``service.ops.composition``) lists them for the API and the
    workers alike.
    """

    def appended(self, current: Current, events: Sequence[Event]) -> None:
        """``current`` is the game after the append, ``events`` what it added."""


class GameService:
    """The commands of the game service, over an ``EventStore``.

    A command costs two Redis round trips: one ``load`` (snapshot, newer
    events, seats and idempotency record in one script) and one ``append``
    (events, seats, idempotency record and the new snapshot in one script).
    """

    def __init__(
        self,
        store: EventStore,
        secret: bytes,
        *,
        bot_levels: Collection[str] = (),
        listeners: Sequence[AppendListener] = (),
    ):
        self.store = store
        self.secret = secret
        self.bot_levels = frozenset(bot_levels)
        self.listeners = tuple(listeners)
        self.client_games = ClientGames(store.redis)

    # -- create and join ---------------------------------------------------
    def create(
        self,
        new: NewGame,
        *,
        idempotency_key: str | None = None,
        scope: str = "",
        owner: str | None = None,
    ) -> Seated:
        """Create a game with its creator at seat 0 and deal the first deal.

        ``scope`` names the caller (its client app, or its address): an
        Idempotency-Key is remembered per scope, so a retry answers the first
        answer only to the same caller, and another caller's same key is a
        new request that learns nothing about the first. ``owner``, the id of
        the calling client app, lists the game in that app's games.
        """
        request_print = _fingerprint({"create": _new_game_json(new)})
        if new.opponent.kind == "bot" and new.opponent.level not in self.bot_levels:
            levels = ", ".join(sorted(self.bot_levels)) or "none yet"
            raise InvalidRequest(
                f"unknown bot level {new.opponent.level!r} (levels: {levels})",
                code="unknown_bot_level",
            )
        # With a key, the game's id is the key's (see _game_id_for): the create's
        # first append is its claim, so a crash before it leaves nothing claimed.
        keyed = idempotency_key is not None
        game_id = (
            self._game_id_for(_scoped(scope, idempotency_key)) if keyed else secrets.token_hex(8)
        )
        # A retry whose create landed touches nothing (not even the client's listing).
        earlier = self.store.duplicate(game_id, "create") if keyed else None
        if earlier is not None:
            return self._replay_create(game_id, earlier, request_print)
        first_dealer = (
            new.first_dealer if new.first_dealer is not None else dealing.first_dealer(new.seed)
        )
        bot = new.opponent.kind == "bot"
        events: list[Event] = [
            GameCreated(new.variant, first_dealer, new.dealing),
            SeatTaken(0, "human"),
        ]
        if bot:
            events.append(SeatTaken(1, "bot", new.opponent.level))
        state = replay(events)
        state = start_deal(state, new.deck if new.deck is not None else self._deck(new.seed, 1))
        events.append(DealStarted(1, state.deal.dealer, state.deal.deck, _nonce()))
        seats = {"nonce:0": auth.new_nonce(), "player:0": "human"}
        token = self._seat_token(game_id, 0, seats["nonce:0"])
        seats["token:0"] = auth.fingerprint(token)
        seats["player:1"] = f"bot:{new.opponent.level}" if bot else "human"
        invite = None
        if not bot:
            seats["invite_nonce"] = auth.new_nonce()
            invite = self._invite(game_id, seats["invite_nonce"])
            seats["invite"] = auth.fingerprint(invite)
        if new.seed is not None:
            seats["seed"] = str(new.seed)
        if owner is not None:  # before the log: a game is never missing from the listing
            self.client_games.add(owner, game_id, int(time.time() * 1000))
        try:
            version = self.store.append(
                game_id,
                0,
                events,
                seats=seats,
                idempotency_key="create" if keyed else None,
                fingerprint=request_print,
                snapshot=state_to_dict(state),
                deal_start=True,
            )
        except StaleVersionError:
            if not keyed:
                raise
            # The key's game exists but has forgotten the key (IDEMPOTENCY_TTL has
            # passed): the key is new again, and so is its game.
            return self.create(new, scope=scope, owner=owner)
        if isinstance(version, Duplicate):  # the same key's create landed first
            return self._replay_create(game_id, version, request_print)
        return Seated(self._appended(game_id, version, state, seats, events), 0, token, invite)

    def join(
        self, game_id: str, invite: str, *, idempotency_key: str | None = None, scope: str = ""
    ) -> Seated:
        """Take seat 1 of a game with its invite; a second join is refused (``seat_taken``).

        Idempotency-Keys are per ``scope`` (the caller), as for ``create``: a
        stranger who saw the invite and guesses the joiner's key is refused.
        """
        request_print = _fingerprint({"join": invite})
        idem_field = f"join:{_scoped(scope, idempotency_key)}" if idempotency_key else None
        for _attempt in range(APPEND_ATTEMPTS):
            current, earlier = self._load(game_id, idempotency_key=idem_field)
            if not auth.matches(invite, current.seats.get("invite")):
                raise Unauthorized(
                    "this invite does not open seat 1 of this game", code="invalid_invite"
                )
            if earlier is not None:
                return self._replay_seat(game_id, 1, earlier, request_print)
            if current.state.over:
                raise Conflict("this game is over: nobody joins it now", code="game_over")
            if current.state.seated[1]:
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
                    snapshot=state_to_dict(state),
                )
            except StaleVersionError:
                continue
            if isinstance(result, Duplicate):
                return self._replay_seat(game_id, 1, result, request_print)
            seats = {**current.seats, **new_fields}
            appended = self._appended(game_id, result, state, seats, [SeatTaken(1, "human")])
            return Seated(appended, 1, token, None)
        raise Conflict("the game changed too often while joining; try again", code="busy")

    # -- acting ------------------------------------------------------------
    def act(
        self,
        game_id: str,
        token: str | None,
        action_data: Mapping[str, Any],
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> Acted:
        """Apply one player action for the seat the token belongs to."""
        if token is None:
            raise Unauthorized(
                "acting for a seat needs 'Authorization: Bearer <token>'", code="token_required"
            )
        # Keyed by the token's hash, so a key is private to its seat and
        # known before the seat is (one round trip loads everything).
        idem_field = (
            f"{auth.fingerprint(token)[:16]}:{idempotency_key}" if idempotency_key else None
        )
        for _attempt in range(APPEND_ATTEMPTS):
            current, earlier = self._load(game_id, idempotency_key=idem_field)
            seat = self.seat_for(current, token)
            assert seat is not None
            request_print = _fingerprint({"action": dict(action_data), "seat": seat})
            if earlier is not None:
                _same_request(earlier, request_print)
                return Acted(self.current(game_id, earlier.version), seat, replayed=True)
            try:
                action = Action.from_dict(action_data)
            except ValueError as error:
                raise InvalidRequest(str(error), code="invalid_action") from None
            if expected_version is not None and expected_version != current.version:
                raise VersionConflict(expected_version, current.version)
            state, events = self._decide(current, seat, action)
            try:
                result = self.store.append(
                    game_id,
                    current.version,
                    events,
                    idempotency_key=idem_field,
                    fingerprint=request_print,
                    snapshot=state_to_dict(state),
                    deal_start=isinstance(events[-1], DealStarted),
                )
            except StaleVersionError as stale:
                if expected_version is not None:
                    raise VersionConflict(expected_version, stale.actual) from None
                continue  # someone else got in first: decide again on the new state
            if isinstance(result, Duplicate):
                _same_request(result, request_print)
                return Acted(self.current(game_id, result.version), seat, replayed=True)
            return Acted(self._appended(game_id, result, state, current.seats, events), seat)
        raise Conflict("the game changed too often while acting; try again", code="busy")

    def _decide(self, current: Current, seat: int, action: Action) -> tuple[GameState, list[Event]]:
        """The engine's verdict: the next state and the events to append, or a refusal."""
        seed = int(current.seats["seed"]) if "seed" in current.seats else None
        try:
            decided = decide(
                current.state, seat, action, lambda number: self._deck(seed, number), _nonce
            )
        except IllegalActionError as error:
            before = current.state
            allowed = legal_actions(before) if before.to_move == seat else []
            raise IllegalAction(
                error.code,
                error.message,
                extra={
                    "rule": error.rule,
                    "legal_actions": [a.to_dict() for a in allowed],
                    "to_move": before.to_move,
                },
            ) from None
        return decided.state, list(decided.events)

    def play_bot(
        self, game_id: str, version: int, choose: Callable[[SeatView, str], Action]
    ) -> Acted | None:
        """Play the move of the bot seated to move at ``version``; ``None`` if stale.

        ``choose(view, level)`` sees the bot seat's view only. The append
        expects ``version``, so a repeated or late job never adds a move.
        """
        current = self.current(game_id)
        if current.version != version or current.state.status != "active":
            return None
        seat = current.state.to_move
        player = current.seats.get(f"player:{seat}", "")
        if seat is None or not player.startswith("bot:"):
            return None
        action = choose(seat_view(current.state, seat), player.removeprefix("bot:"))
        state, events = self._decide(current, seat, action)
        try:
            result = self.store.append(
                game_id,
                version,
                events,
                snapshot=state_to_dict(state),
                deal_start=isinstance(events[-1], DealStarted),
            )
        except StaleVersionError:
            return None
        assert isinstance(result, int)
        return Acted(self._appended(game_id, result, state, current.seats, events), seat)

    # -- ending a game (RX1-RX3, see service.engine.endings) ------------------
    def resign(
        self, game_id: str, token: str | None, *, idempotency_key: str | None = None
    ) -> Acted:
        """RX1: the token's seat gives up; its opponent wins the game."""
        return self._end(
            game_id,
            token,
            "resign",
            lambda current, seat: self._resigned(current, seat),
            idempotency_key=idempotency_key,
        )

    def abort(
        self, game_id: str, token: str | None, *, idempotency_key: str | None = None
    ) -> Acted:
        """RX2: call a human game off before its first action (or before seat 1 joined)."""
        return self._end(
            game_id,
            token,
            "abort",
            lambda current, seat: self._aborted(current, seat),
            idempotency_key=idempotency_key,
        )

    def claim_timeout(
        self,
        game_id: str,
        token: str | None,
        *,
        timeout_seconds: float,
        idempotency_key: str | None = None,
    ) -> Acted:
        """RX3: the waiting seat claims the game once the turn waited ``timeout_seconds``.

        The turn's start is the time of the log's last append, by the Redis
        server's clock (one clock for every API process); the append expects
        the version the clock was read at, so a move that lands in between
        wins and the claim is decided again on the new turn.
        """
        if timeout_seconds <= 0:
            raise Conflict(
                "this server has no turn timeout (SCHNAPSEN_TURN_TIMEOUT_SECONDS=0)",
                code="timeout_claims_off",
            )
        return self._end(
            game_id,
            token,
            "claim-timeout",
            lambda current, seat: self._timed_out(current, seat, timeout_seconds),
            idempotency_key=idempotency_key,
        )

    def _resigned(self, current: Current, seat: int) -> tuple[GameState, Event]:
        return self._engine(lambda: resign(current.state, seat)), Resigned(seat)

    def _aborted(self, current: Current, seat: int) -> tuple[GameState, Event]:
        if any(current.seats.get(f"player:{s}", "").startswith("bot:") for s in (0, 1)):
            raise Conflict(
                "a game against a bot is not aborted; resign instead", code="abort_not_allowed"
            )
        return self._engine(lambda: abort(current.state, seat)), Aborted(seat)

    def _timed_out(
        self, current: Current, seat: int, timeout_seconds: float
    ) -> tuple[GameState, Event]:
        if bot_to_move(current):
            # A bot's turn waits for a worker, not for a person: a slow or lost move is
            # the service's to recover (the read paths ask a worker again), never a
            # forfeit the waiting player may claim.
            raise Conflict(
                "the bot is to move, and a bot's turn is never claimed: its move comes "
                "from the service's workers; wait for it on the event feed",
                code="bot_turn_not_claimable",
            )
        clock = self.store.clock(current.game_id)
        if clock.head != current.version:
            raise StaleVersionError(current.version, clock.head)
        waited = clock.waited_ms
        if waited is None:  # the turn started before appends carried their time
            raise Conflict(
                "this turn started before the service recorded times; "
                "its clock starts with the next move",
                code="turn_not_timed_out",
            )
        try:
            state = claim_timeout(
                current.state,
                seat,
                waited_seconds=waited / 1000,
                timeout_seconds=timeout_seconds,
            )
        except IllegalActionError as error:
            extra = {"rule": error.rule}
            if error.code is ErrorCode.TURN_NOT_TIMED_OUT:
                left = max(0.001, timeout_seconds - waited / 1000)
                extra.update(
                    waited_seconds=waited / 1000,
                    timeout_seconds=timeout_seconds,
                    retry_after_seconds=round(left, 3),
                )
            raise IllegalAction(error.code, error.message, extra=extra) from None
        return state, TimeoutClaimed(seat, waited)

    def _engine(self, decide: Callable[[], GameState]) -> GameState:
        """The engine's verdict on ending the game, or its refusal."""
        try:
            return decide()
        except IllegalActionError as error:
            raise IllegalAction(error.code, error.message, extra={"rule": error.rule}) from None

    def _end(
        self,
        game_id: str,
        token: str | None,
        ending: str,
        decide: Callable[[Current, int], tuple[GameState, Event]],
        *,
        idempotency_key: str | None = None,
    ) -> Acted:
        """Load, let the engine end the game for the token's seat, append one event.

        An Idempotency-Key is the seat's, as for actions (one namespace: a key
        used for an action and then for a resign is refused): the append
        records it, so a retry answers the first answer even though the game
        is over by then.
        """
        if token is None:
            raise Unauthorized(
                "ending a game for a seat needs 'Authorization: Bearer <token>'",
                code="token_required",
            )
        idem_field = (
            f"{auth.fingerprint(token)[:16]}:{idempotency_key}" if idempotency_key else None
        )
        for _attempt in range(APPEND_ATTEMPTS):
            current, earlier = self._load(game_id, idempotency_key=idem_field)
            seat = self.seat_for(current, token)
            assert seat is not None
            request_print = _fingerprint({"end": ending, "seat": seat})
            if earlier is not None:
                _same_request(earlier, request_print)
                return Acted(self.current(game_id, earlier.version), seat, replayed=True)
            try:
                state, event = decide(current, seat)
                result = self.store.append(
                    game_id,
                    current.version,
                    [event],
                    idempotency_key=idem_field,
                    fingerprint=request_print,
                    snapshot=state_to_dict(state),
                )
            except StaleVersionError:
                continue  # a move got in first: decide again on the new state
            if isinstance(result, Duplicate):  # the same key's retry landed first
                _same_request(result, request_print)
                return Acted(self.current(game_id, result.version), seat, replayed=True)
            return Acted(self._appended(game_id, result, state, current.seats, [event]), seat)
        raise Conflict("the game changed too often; try again", code="busy")

    # -- reading -----------------------------------------------------------
    def current(self, game_id: str, version: int | None = None) -> Current:
        """The game at ``version`` (default: now), from the newest snapshot plus newer events."""
        return self._load(game_id, version)[0]

    def seat_for(self, current: Current, token: str | None) -> int | None:
        """The seat a bearer token acts for; ``None`` (a spectator) without a token."""
        if token is None:
            return None
        for seat in (0, 1):
            if auth.matches(token, current.seats.get(f"token:{seat}")):
                return seat
        raise Unauthorized("this token belongs to no seat of this game")

    def list_games(
        self, owner: str, *, status: str | None, after: Listed | None, limit: int
    ) -> GamePage:
        """The games ``owner`` created, newest first, with ``status`` if given.

        Status comes from each game's log (it is not indexed), so filtering
        reads at most ``LIST_SCAN_LIMIT`` index entries per page; a page may
        then hold fewer than ``limit`` games and still have a next cursor.
        """
        found: list[tuple[Listed, Current]] = []
        scanned = 0
        cursor = after
        while len(found) < limit and scanned < LIST_SCAN_LIMIT:
            batch = self.client_games.page(owner, cursor, min(limit, LIST_SCAN_LIMIT - scanned))
            if not batch:
                return GamePage(found, None)
            for listed in batch:
                scanned += 1
                cursor = listed
                try:
                    current = self.current(listed.game_id)
                except GameNotFound:  # a create that failed after indexing its id
                    continue
                if status is None or current.state.status == status:
                    found.append((listed, current))
                    if len(found) == limit:
                        break
        if cursor is None or not self.client_games.page(owner, cursor, 1):
            return GamePage(found, None)
        return GamePage(found, cursor)

    def invite_for(self, current: Current, seat: int | None) -> str | None:
        """The invite, for seat 0 only, while seat 1 of a game between people is empty.

        It is seat 0's secret to pass on (its view may show it, so an app that
        lost the create answer can still share it); nobody else ever sees it.
        """
        nonce = current.seats.get("invite_nonce")
        state = current.state
        if seat != 0 or nonce is None or state.seated[1] or state.over:
            return None
        return self._invite(current.game_id, nonce)

    def events_after(
        self, game_id: str, after: int
    ) -> tuple[GameState | None, list[Event], Current]:
        """The state at ``after`` and the events after it, for the event feed."""
        latest = self.current(game_id)
        if after >= latest.version:
            return None, [], latest
        start = self.current(game_id, after).state if after > 0 else None
        return start, self.store.events(game_id, after, latest.version), latest

    def events_since(
        self, known: Current, announced: Sequence[Event] | None = None
    ) -> tuple[list[Event], Current]:
        """The events after ``known`` and the game they lead to: one round trip, or none
        when the append's announcement brought them (``announced``).

        For waiters, who already hold the state they waited at: folding the
        new events onto it is cheaper than loading the game again.
        """
        if announced is not None:
            events = list(announced)
        else:
            events = self.store.events(known.game_id, known.version)
        if not events:
            return [], known
        if any(isinstance(event, SeatTaken) for event in events):  # the seats record changed
            return events, self.current(known.game_id, known.version + len(events))
        state = replay(events, known.state)
        return events, Current(known.game_id, known.version + len(events), state, known.seats)

    # -- helpers -----------------------------------------------------------
    def _load(
        self, game_id: str, version: int | None = None, *, idempotency_key: str | None = None
    ) -> tuple[Current, Duplicate | None]:
        loaded = self.store.load(game_id, version, idempotency_key=idempotency_key)
        if loaded.head == 0:
            raise GameNotFound(f"there is no game {game_id!r}")
        start = None
        if loaded.snapshot is not None:
            try:
                start = state_from_dict(loaded.snapshot)
            except StaleSnapshotError:  # written by another engine version: rebuild
                loaded = self.store.load(
                    game_id, version, snapshots=False, idempotency_key=idempotency_key
                )
        state = replay(loaded.events, start)
        return Current(game_id, loaded.version, state, loaded.seats), loaded.duplicate

    def _appended(
        self,
        game_id: str,
        version: int,
        state: GameState,
        seats: Mapping[str, str],
        events: Sequence[Event],
    ) -> Current:
        """After a successful append: tell every listener, each on its own.

        The append is done, so a failing listener must not fail the command
        nor keep the others from hearing of it; read paths ask the bot
        dispatcher again (see service.jobs.dispatch).
        """
        current = Current(game_id, version, state, seats)
        for listener in self.listeners:
            try:
                listener.appended(current, events)
            except Exception:
                log.exception("append listener failed for %s at version %s", game_id, version)
        return current

    def _deck(self, seed: int | None, deal_number: int) -> tuple[Card, ...]:
        if seed is None:
            return dealing.random_deck()
        return dealing.seeded_deck(seed, deal_number)

    def _seat_token(self, game_id: str, seat: int, nonce: str) -> str:
        return auth.derive_secret(self.secret, game_id, f"seat:{seat}", nonce)

    def _invite(self, game_id: str, nonce: str) -> str:
        return auth.derive_secret(self.secret, game_id, "invite", nonce)

    def _game_id_for(self, scoped_key: str) -> str:
        """The id of the game a create with this (scoped) Idempotency-Key makes.

        Every retry of the create names the same game, so the append that
        creates it (only onto an empty log, remembering the key) is the whole
        claim: two racing retries make one game, and a worker killed halfway
        has claimed nothing (``auth.derive_game_id``).
        """
        return auth.derive_game_id(self.secret, scoped_key)

    def _replay_create(self, game_id: str, earlier: Duplicate, request_print: str) -> Seated:
        seated = self._replay_seat(game_id, 0, earlier, request_print)
        seats = seated.current.seats
        invite = self._invite(game_id, seats["invite_nonce"]) if "invite_nonce" in seats else None
        return Seated(seated.current, 0, seated.token, invite, replayed=True)

    def _replay_seat(
        self, game_id: str, seat: int, earlier: Duplicate, request_print: str
    ) -> Seated:
        _same_request(earlier, request_print)
        current = self.current(game_id, earlier.version)
        token = self._seat_token(game_id, seat, current.seats[f"nonce:{seat}"])
        return Seated(current, seat, token, None, replayed=True)


def _scoped(scope: str, idempotency_key: str) -> str:
    """An Idempotency-Key within its caller's scope (hashed: a scope may hold an address)."""
    return f"{hashlib.sha256(scope.encode()).hexdigest()[:16]}:{idempotency_key}"


def bot_to_move(current: Current) -> bool:
    """A bot's seat is to move (while the game runs: a finished game has nobody to move)."""
    seat = current.state.to_move
    return seat is not None and current.seats.get(f"player:{seat}", "").startswith("bot:")


def _nonce() -> str:
    """256 random bits for a deal's fairness commitment (see service.engine.fairness)."""
    return secrets.token_hex(NONCE_BYTES)


def _same_request(earlier: Duplicate, request_print: str) -> None:
    if earlier.fingerprint != request_print:
        raise IdempotencyKeyReused("this Idempotency-Key was used with a different request")


def _players(seats: Mapping[str, str]) -> list[dict[str, Any]]:
    players = []
    for seat in (0, 1):
        kind = seats.get(f"player:{seat}", "human")
        if kind.startswith("bot:"):
            players.append({"seat": seat, "type": "bot", "level": kind[4:], "joined": True})
        else:
            joined = f"token:{seat}" in seats
            players.append({"seat": seat, "type": "human", "joined": joined})
    return players


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

"""Create, join, act, end: each a decision on the game as loaded. No Flask here.

Every command is one ``Transaction`` (``service.game.transaction``): load the
newest snapshot and the events after it; decide with the engine, which accepts
and names the events to append with the state they fold to, or refuses with a
typed error (nothing is written); append in one atomic step
that succeeds only if the log is still at the version that was loaded. What
is left here is who may ask, and what the engine decides.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Callable, Collection, Sequence
from typing import Any

from service.engine import (
    Aborted,
    Action,
    Card,
    Dealing,
    DealStarted,
    Decision,
    Event,
    GameCreated,
    GameState,
    GameStatus,
    IllegalActionError,
    Resigned,
    SeatTaken,
    TimeoutClaimed,
    Variant,
    decide,
    legal_actions,
    record,
)
from service.engine.decide import claim_timeout
from service.engine.endings import untouched
from service.engine.errors import ErrorCode
from service.engine.fairness import NONCE_BYTES
from service.engine.knowledge import SeatView, seat_view
from service.game import auth, dealing
from service.game import clock as clocks
from service.game.bot_levels import check_level
from service.game.log import GameListing, GameLog, RateCounts, TurnClock
from service.game.problem_codes import ProblemCode
from service.game.problems import (
    Conflict,
    Forbidden,
    IllegalAction,
    InvalidRequest,
    Unauthorized,
    VersionConflict,
)
from service.game.queries import GameQueries, bot_to_move
from service.game.seats import PlayerKind, Seat, Seats
from service.game.transaction import (
    Appended,
    AppendListener,
    Decided,
    KnownGames,
    Replayed,
    Transaction,
    Turn,
)
from service.game.values import Acted, Current, GamePage, NewGame, Opponent, Seated

__all__ = [
    "Acted",
    "AppendListener",
    "Current",
    "GamePage",
    "GameService",
    "NewGame",
    "Opponent",
    "Seated",
    "bot_to_move",
]

#: A seat's decision on the game as loaded (and, for a claim on time, its turn's clock):
#: one ending and the state it leads to, or a refusal.
Ending = Callable[[Current, int, Turn | None], Decision]


class NoBotMove(Exception):
    """The game as loaded has no bot to move: a late or repeated job plays nothing."""


class NoClockDue(Exception):
    """The game as loaded waits for no person's clock: a late or repeated job does nothing."""


class NotAbandoned(Exception):
    """The game as loaded is over, or has not stood still long enough to be ended."""


class GameService(GameQueries):
    """The commands of the game service, and its queries, over a game's log (``GameLog``).

    A command costs two round trips to the log: one ``load`` (snapshot, newer
    events, seats and idempotency record in one script) and one ``append``
    (events, seats, idempotency record and the new snapshot in one script); on a
    game this process holds at the log's head, the ``append`` alone.
    """

    def __init__(
        self,
        game_log: GameLog,
        secret: bytes,
        *,
        listing: GameListing,
        bot_levels: Collection[str] = (),
        listeners: Sequence[AppendListener] = (),
        known: KnownGames | None = None,
    ):
        self.bot_levels = frozenset(bot_levels)
        self.listeners = tuple(listeners)
        transaction = Transaction(game_log, self.listeners, known)
        super().__init__(game_log, secret, listing, transaction)

    # -- create and join ---------------------------------------------------
    def create(
        self,
        new: NewGame,
        *,
        idempotency_key: str | None = None,
        scope: str = "",
        owner: str | None = None,
        player: str | None = None,
    ) -> Seated:
        """Create a game with its creator at seat 0 and deal the first deal.

        ``player``: the creator is this player of the ``owner`` app, who sits at
        seat 0 (a rated game needs one: its end changes players' ratings).

        ``scope`` names the caller (its client app, or its address): an
        Idempotency-Key is remembered per scope, so a retry answers the first
        answer only to the same caller, and another caller's same key is a
        new request that learns nothing about the first. ``owner``, the id of
        the calling client app, lists the game in that app's games.
        """
        request_print = _fingerprint({"create": _new_game_json(new), "player": player})
        if new.rated and player is None:
            raise Forbidden(
                "a rated game is created by a player: send the player's token",
                code=ProblemCode.PLAYER_REQUIRED,
            )
        if new.rated:
            _check_dealt_by_the_server(new)
        if new.opponent.kind == "bot":
            self._known_level(new.opponent.level, "bot level")
        if new.clock is not None:
            self._known_level(new.clock.bot_level, "clock's bot level")
        # With a key, the game's id is the one kept with the key (see _game_id_for):
        # the create's first append is its claim, so a crash before it leaves
        # nothing claimed but the id.
        key = "create" if idempotency_key is not None else None
        game_id = (
            self._game_id_for(_scoped(scope, idempotency_key))
            if idempotency_key is not None
            else secrets.token_hex(8)
        )
        # A retry whose create landed touches nothing (not even the client's listing).
        if key is not None:
            earlier = self.transaction.earlier(game_id, key, request_print)
            if earlier is not None:
                return self._created_again(earlier)
        decided = self._new_game(game_id, new, owner, player)
        if owner is not None:  # before the log: a game is never missing from the listing
            self.client_games.add(owner, game_id, int(time.time() * 1000))
        outcome = self.transaction.begin(
            game_id, decided, idempotency_key=key, fingerprint=request_print
        )
        if outcome is None:
            # The id's log is taken: the key's game has forgotten the key
            # (IDEMPOTENCY_TTL has passed), so the key is new again, and so is its game.
            return self.create(new, scope=scope, owner=owner, player=player)
        if isinstance(outcome, Replayed):  # the same key's create landed first
            return self._created_again(outcome)
        token, invite = outcome.answer
        return Seated(outcome.current, 0, token, invite)

    def _known_level(self, level: str | None, what: str) -> None:
        check_level(level, what, self.bot_levels)

    def _new_game(
        self, game_id: str, new: NewGame, owner: str | None, player: str | None = None
    ) -> Decided[tuple[str, str | None]]:
        """The events of a new game (created, seated, dealt), its seats record (with
        the client app that owns it), and the creator's token and the invite (None
        against a bot)."""
        first_dealer = (
            new.first_dealer if new.first_dealer is not None else dealing.first_dealer(new.seed)
        )
        bot = new.opponent.kind == "bot"
        deck = new.deck if new.deck is not None else self._deck(new.seed, 1)
        events: list[Event] = [
            GameCreated(new.variant, first_dealer, new.dealing),
            SeatTaken(0, PlayerKind.HUMAN.value),
        ]
        if bot:
            events.append(SeatTaken(1, PlayerKind.BOT.value, new.opponent.level))
        # R1c: the first deal's dealer is the first dealer.
        events.append(DealStarted(1, first_dealer, tuple(deck), _nonce()))
        nonce = auth.new_nonce()
        token = self._seat_token(game_id, 0, nonce)
        creator = Seat(
            PlayerKind.HUMAN, token_hash=auth.fingerprint(token), nonce=nonce, player=player
        )
        if bot:
            seats = Seats(
                (creator, Seat(PlayerKind.BOT, new.opponent.level)),
                seed=new.seed,
                owner=owner,
                rated=new.rated,
                clock=new.clock,
            )
            return Decided(record(None, events), (token, None), seats)
        invite_nonce = auth.new_nonce()
        invite = self._invite(game_id, invite_nonce)
        seats = Seats(
            (creator, Seat()),
            invite_hash=auth.fingerprint(invite),
            invite_nonce=invite_nonce,
            seed=new.seed,
            owner=owner,
            rated=new.rated,
            clock=new.clock,
        )
        return Decided(record(None, events), (token, invite), seats)

    def create_paired(
        self,
        game_id: str,
        owner: str,
        players: tuple[str, str],
        variant: Variant,
        rated: bool,
        clock: clocks.TimeControl | None = None,
        via: str = "seek",
        *,
        nonces: tuple[str, str],
        first_dealer: int | None = None,
        tournament: str | None = None,
    ) -> Current:
        """The game of a pairing or an accepted challenge, made once whoever asks first
        (both players' reads may): its random id and its seats' random ``nonces`` were
        drawn when the pairing was made and kept with it, so whoever makes it, each
        player learns its own seat's token (``paired_token``). ``first_dealer``: the
        seat a tournament's pairing gives the first deal (balanced over a player's
        games); else chance's. ``tournament``: the tournament whose round it is a board of."""
        if first_dealer is None:
            first_dealer = dealing.first_dealer(None)
        events: tuple[Event, ...] = (
            GameCreated(variant, first_dealer, Dealing.RANDOM),
            SeatTaken(0, PlayerKind.HUMAN.value),
            SeatTaken(1, PlayerKind.HUMAN.value),
            DealStarted(1, first_dealer, tuple(self._deck(None, 1)), _nonce()),
        )
        seats = []
        for seat, (player, nonce) in enumerate(zip(players, nonces, strict=True)):
            token = self._seat_token(game_id, seat, nonce)
            seats.append(Seat(PlayerKind.HUMAN, None, auth.fingerprint(token), nonce, player))
        owners = Seats(
            (seats[0], seats[1]),
            owner=owner,
            rated=rated,
            clock=clock,
            via=via,
            tournament=tournament,
        )
        self.client_games.add(owner, game_id, int(time.time() * 1000))
        outcome = self.transaction.begin(game_id, Decided(record(None, events), None, owners))
        if outcome is None:  # made already, by the other player's read
            return self.current(game_id)
        return outcome.current

    def paired_token(self, current: Current, seat: int) -> str:
        """A seat's token in a paired game, from the nonce its seats record keeps."""
        nonce = current.seats[seat].nonce
        assert nonce is not None  # a paired game's seats keep what their tokens came from
        return self._seat_token(current.game_id, seat, nonce)

    def join(
        self,
        game_id: str,
        invite: str,
        *,
        idempotency_key: str | None = None,
        scope: str = "",
        player: tuple[str, str] | None = None,
    ) -> Seated:
        """Take seat 1 of a game with its invite; a second join is refused (``seat_taken``).

        Idempotency-Keys are per ``scope`` (the caller), as for ``create``: a
        stranger who saw the invite and guesses the joiner's key is refused.
        """
        request_print = _fingerprint({"join": invite, "player": player})

        def admit(current: Current) -> str:
            if not auth.matches(invite, current.seats.invite_hash):
                raise Unauthorized(
                    "this invite does not open seat 1 of this game", code=ProblemCode.INVALID_INVITE
                )
            _admit_player(current.seats, player)
            return request_print

        def take_seat_1(current: Current) -> Decided[str]:
            if current.state.over:
                raise Conflict("this game is over: nobody joins it now", code=ProblemCode.GAME_OVER)
            if current.state.seated[1]:
                raise Conflict("seat 1 of this game is already taken", code=ProblemCode.SEAT_TAKEN)
            nonce = auth.new_nonce()
            token = self._seat_token(game_id, 1, nonce)
            joiner = Seat(
                PlayerKind.HUMAN,
                token_hash=auth.fingerprint(token),
                nonce=nonce,
                player=None if player is None else player[1],
            )
            seats = current.seats.with_seat(1, joiner)
            taken = record(current.state, (SeatTaken(1, PlayerKind.HUMAN.value),))
            return Decided(taken, token, seats)

        outcome = self.transaction.run(
            game_id,
            take_seat_1,
            admit=admit,
            idempotency_key=(
                f"join:{_scoped(scope, idempotency_key)}" if idempotency_key else None
            ),
        )
        if isinstance(outcome, Replayed):
            return self._seated_again(outcome, 1)
        return Seated(outcome.current, 1, outcome.answer, None)

    # -- acting ------------------------------------------------------------
    def act(
        self,
        game_id: str,
        token: str | None,
        action: Action,
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
        counts: RateCounts | None = None,
    ) -> Acted:
        """Apply one player action for the seat the token belongs to; ``counts``, the
        request's rate limits, are counted by the append that records it."""
        token = _required(token, "acting for a seat")

        admitted: dict[int, int] = {}  # the seat of the token, by the version it was found at

        def admit(current: Current) -> str:
            seat = admitted[current.version] = self._seat_of(current, token)
            # Only a keyed request is matched against its retries.
            return (
                ""
                if idempotency_key is None
                else _fingerprint({"action": action.to_dict(), "seat": seat})
            )

        def act_for_seat(current: Current) -> Decided[int]:
            seat = admitted[current.version]
            return Decided(self._decide(current, seat, action), seat)

        outcome = self.transaction.run(
            game_id,
            act_for_seat,
            admit=admit,
            idempotency_key=_seat_key(token, idempotency_key),
            expected_version=expected_version,
            counts=counts,
        )
        return self._acted(outcome, token)

    def _decide(
        self, current: Current, seat: int, action: Action, clock_level: str | None = None
    ) -> Decision:
        """The engine's verdict: the events to append and the state they lead to, or a
        refusal. With ``clock_level``, the clock plays the seat's action."""
        seed = current.seats.seed
        try:
            return decide(
                current.state,
                seat,
                action,
                lambda number: self._deck(seed, number),
                _nonce,
                clock_level=clock_level,
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

    def play_bot(
        self, game_id: str, version: int, choose: Callable[[SeatView, str], Action]
    ) -> Acted | None:
        """Play the move of the bot seated to move at ``version``; ``None`` if stale.

        ``choose(view, level)`` sees the bot seat's view only. The move is
        decided on ``version`` only, so a repeated or late job never adds a move.
        """

        def bot_move(current: Current) -> Decided[int]:
            seat = current.state.to_move
            level = current.seats.bot_level(seat)
            if current.state.status is not GameStatus.ACTIVE or seat is None or level is None:
                raise NoBotMove()
            action = choose(seat_view(current.state, seat), level)
            return Decided(self._decide(current, seat, action), seat)

        try:
            outcome = self.transaction.run(
                game_id, bot_move, admit=lambda _current: "", expected_version=version
            )
        except (VersionConflict, NoBotMove):
            return None
        assert isinstance(outcome, Appended)  # no key: nothing to replay
        return Acted(outcome.current, outcome.answer)

    # -- the clock (service.game.clock) ------------------------------------
    def clock_ran_out(
        self, game_id: str, version: int, choose: Callable[[SeatView, str], Action]
    ) -> Acted | None:
        """The clock's decision on the turn that started at ``version``; ``None`` if stale.

        A bot of the clock's level plays the seat's move (``ClockMoved``; it
        sees that seat's view only, as a bot opponent does), or the seat loses
        on time (``TimeoutClaimed`` by the seat that waited, RX3's scoring).
        Decided on ``version`` only: a move that landed in time, or a repeated
        job, makes the append refuse, and nothing is added.
        """

        def ran_out(current: Current, turn: Turn) -> Decided[int]:
            control = current.seats.clock
            if control is None:
                raise NoClockDue()
            due = clocks.verdict(turn.events, control, rated=current.seats.rated)
            if isinstance(due, clocks.LosesOnTime):
                waited = turn.clock.waited_ms or control.ms_per_move
                return Decided(
                    record(current.state, (TimeoutClaimed(due.winner, waited),)), due.seat
                )
            if due is None:
                raise NoClockDue()
            action = choose(seat_view(current.state, due.seat), due.level)
            return Decided(self._decide(current, due.seat, action, due.level), due.seat)

        try:
            outcome = self.transaction.run_timed(
                game_id,
                ran_out,
                admit=lambda _current: "",
                with_events=True,
                expected_version=version,
            )
        except (VersionConflict, NoClockDue):
            return None
        assert isinstance(outcome, Appended)  # no key: nothing to replay
        return Acted(outcome.current, outcome.answer)

    def clock_reading(self, current: Current) -> clocks.ClockReading | None:
        """A clocked game's clock now (None without one): two reads of the log, so only
        a clocked game's view pays for them."""
        control = current.seats.clock
        if control is None:
            return None
        events = self.store.events(current.game_id, until=current.version)
        started = None
        if not current.state.over:
            turn = self.store.clock(current.game_id)
            started = turn.last_ms if turn.head == current.version else None
        return clocks.reading(control, events, started, rated=current.seats.rated)

    # -- ending a game (RX1-RX3, see service.engine.endings) ------------------
    def resign(
        self, game_id: str, token: str | None, *, idempotency_key: str | None = None
    ) -> Acted:
        """RX1: the token's seat gives up; its opponent wins the game."""
        return self._end(game_id, token, "resign", self._resigned, idempotency_key)

    def abort(
        self, game_id: str, token: str | None, *, idempotency_key: str | None = None
    ) -> Acted:
        """RX2: call a human game off before its first action (or before seat 1 joined)."""
        return self._end(game_id, token, "abort", self._aborted, idempotency_key)

    def claim_timeout(
        self,
        game_id: str,
        token: str | None,
        *,
        timeout_seconds: float,
        idempotency_key: str | None = None,
    ) -> Acted:
        """RX3: the waiting seat claims the game once the turn waited ``timeout_seconds``.

        The turn's start is the time of the log's last append, by the log's
        clock (one clock for every API process); the append expects the
        version the clock was read at, so a move that lands in between wins
        and the claim is decided again on the new turn.
        """
        if timeout_seconds <= 0:
            raise Conflict(
                "this server has no turn timeout (SCHNAPSEN_TURN_TIMEOUT_SECONDS=0)",
                code=ProblemCode.TIMEOUT_CLAIMS_OFF,
            )

        def timed_out(current: Current, seat: int, turn: Turn | None) -> Decision:
            assert turn is not None  # a claim is decided on the clock
            return self._timed_out(current, seat, timeout_seconds, turn.clock)

        return self._end(
            game_id, token, "claim-timeout", timed_out, idempotency_key, on_the_clock=True
        )

    def _end(
        self,
        game_id: str,
        token: str | None,
        ending: str,
        decide_ending: Ending,
        idempotency_key: str | None,
        *,
        on_the_clock: bool = False,
    ) -> Acted:
        """Let the engine end the game for the token's seat: one event.

        An Idempotency-Key is the seat's, as for actions (one namespace: a key
        used for an action and then for a resign is refused): the append
        records it, so a retry answers the first answer even though the game
        is over by then.
        """
        token = _required(token, "ending a game for a seat")

        def admit(current: Current) -> str:
            return _fingerprint({"end": ending, "seat": self._seat_of(current, token)})

        def end_for_seat(current: Current, turn: Turn | None = None) -> Decided[int]:
            seat = self._seat_of(current, token)
            return Decided(decide_ending(current, seat, turn), seat)

        key = _seat_key(token, idempotency_key)
        if on_the_clock:
            outcome = self.transaction.run_timed(
                game_id, end_for_seat, admit=admit, idempotency_key=key
            )
        else:
            outcome = self.transaction.run(game_id, end_for_seat, admit=admit, idempotency_key=key)
        return self._acted(outcome, token)

    def _resigned(self, current: Current, seat: int, _turn: Turn | None) -> Decision:
        return _ending(current.state, Resigned(seat))

    def _aborted(self, current: Current, seat: int, _turn: Turn | None) -> Decision:
        if current.seats.against_bot:
            raise Conflict(
                "a game against a bot is not aborted; resign instead",
                code=ProblemCode.ABORT_NOT_ALLOWED,
            )
        if current.seats.rated and all(current.state.seated):
            # RX6: both seats have been dealt their hands; calling the game off now
            # would let a seat leave every poor hand unscored.
            raise Conflict(
                "a rated game is not aborted once both seats have their hands; resign instead",
                code=ProblemCode.ABORT_NOT_ALLOWED,
                extra={"rule": "RX6"},
            )
        return _ending(current.state, Aborted(seat))

    def _timed_out(
        self, current: Current, seat: int, timeout_seconds: float, clock: TurnClock
    ) -> Decision:
        if bot_to_move(current):
            # A bot's turn waits for a worker, not for a person: a slow or lost move is
            # the service's to recover (the read paths ask a worker again), never a
            # forfeit the waiting player may claim.
            raise Conflict(
                "the bot is to move, and a bot's turn is never claimed: its move comes "
                "from the service's workers; wait for it on the event feed",
                code=ProblemCode.BOT_TURN_NOT_CLAIMABLE,
            )
        waited = clock.waited_ms
        if waited is None:  # the turn started before appends carried their time
            raise Conflict(
                "this turn started before the service recorded times; "
                "its clock starts with the next move",
                code=ProblemCode.TURN_NOT_TIMED_OUT,
            )
        try:
            return claim_timeout(
                current.state, seat, waited_ms=waited, timeout_seconds=timeout_seconds
            )
        except IllegalActionError as error:
            extra: dict[str, Any] = {"rule": error.rule}
            if error.code is ErrorCode.TURN_NOT_TIMED_OUT:
                left = max(0.001, timeout_seconds - waited / 1000)
                extra.update(
                    waited_seconds=waited / 1000,
                    timeout_seconds=timeout_seconds,
                    retry_after_seconds=round(left, 3),
                )
            raise IllegalAction(error.code, error.message, extra=extra) from None

    def abandon(self, game_id: str, *, idle_seconds: float) -> Acted | None:
        """End a game that has stood still for ``idle_seconds``, so that it can be archived.

        The service's own policy for games walked away from (docs/deployment.md,
        The archive), by the rules a player could have invoked: a game with an
        empty seat, or with no action yet, is aborted for seat 0 (RX2); a running
        game (and a rated game both seats have joined, RX6) is won by the seat
        waiting for the other (RX3), as if it had claimed the timeout. None when the game is over, or moved meanwhile.
        """

        def ended(current: Current, turn: Turn) -> Decided[int]:
            state = current.state
            if state.over:
                raise NotAbandoned()
            waited = turn.clock.waited_ms
            if waited is None or waited < idle_seconds * 1000:
                raise NotAbandoned()
            both_seated = state.seated[0] and state.seated[1]
            # RX6: a rated game whose seats both have their hands is never called off.
            if not both_seated or (untouched(state) and not current.seats.rated):
                return Decided(record(state, (Aborted(0),)), 0)
            if state.to_move is None:
                raise NotAbandoned()
            waiting = 1 - state.to_move
            return Decided(record(state, (TimeoutClaimed(waiting, waited),)), waiting)

        try:
            outcome = self.transaction.run_timed(game_id, ended, admit=lambda _current: "")
        except NotAbandoned:
            return None
        assert isinstance(outcome, Appended)  # no key: nothing to replay
        return Acted(outcome.current, outcome.answer)

    # -- answers, decks and ids --------------------------------------------
    def _acted(self, outcome: Appended[int] | Replayed, token: str) -> Acted:
        if isinstance(outcome, Replayed):
            return Acted(outcome.current, self._seat_of(outcome.current, token), replayed=True)
        return Acted(outcome.current, outcome.answer)

    def _deck(self, seed: int | None, deal_number: int) -> tuple[Card, ...]:
        if seed is None:
            return dealing.random_deck()
        return dealing.seeded_deck(seed, deal_number)

    def _game_id_for(self, scoped_key: str) -> str:
        """The id of the game a create with this (scoped) Idempotency-Key makes.

        Drawn at random by the first create and kept with the key
        (``GameLog.keyed_game_id``), so every retry of the create names the same
        game, and the append that creates it (only onto an empty log, remembering
        the key) is the whole claim: two racing retries make one game, and a
        worker killed halfway has claimed nothing but the id.
        """
        return self.store.keyed_game_id(scoped_key)

    def _created_again(self, replayed: Replayed) -> Seated:
        seated = self._seated_again(replayed, 0)
        nonce = seated.current.seats.invite_nonce
        invite = None if nonce is None else self._invite(seated.current.game_id, nonce)
        return Seated(seated.current, 0, seated.token, invite, replayed=True)

    def _seated_again(self, replayed: Replayed, seat: int) -> Seated:
        current = replayed.current
        nonce = current.seats[seat].nonce
        assert nonce is not None  # a seat that was taken keeps what its token came from
        token = self._seat_token(current.game_id, seat, nonce)
        return Seated(current, seat, token, None, replayed=True)


def _admit_player(seats: Seats, player: tuple[str, str] | None) -> None:
    """A player (app, player id) may join only a game of its own app, and not against
    itself; a rated game seats players only."""
    if player is None:
        if seats.rated:
            raise Forbidden(
                "a rated game seats players only: join with your player token",
                code=ProblemCode.PLAYER_REQUIRED,
            )
        return
    app, player_id = player
    if seats.owner != app:
        raise Forbidden(
            "this invite is not for a game of your app", code=ProblemCode.GAME_OF_ANOTHER_APP
        )
    if seats[0].player == player_id:
        raise Conflict("you sit at seat 0 of this game already", code=ProblemCode.SEAT_TAKEN)


def _ending(state: GameState, ending: Event) -> Decision:
    """The engine's decision on an ending (the state it leads to), or its refusal."""
    try:
        return record(state, (ending,))
    except IllegalActionError as error:
        raise IllegalAction(error.code, error.message, extra={"rule": error.rule}) from None


def _required(token: str | None, doing: str) -> str:
    if token is None:
        raise Unauthorized(
            f"{doing} needs 'Authorization: Bearer <token>'", code=ProblemCode.TOKEN_REQUIRED
        )
    return token


def _seat_key(token: str, idempotency_key: str | None) -> str | None:
    """A seat's Idempotency-Key, keyed by its token's hash: private to the seat, and
    known before the seat is (one round trip loads everything)."""
    return f"{auth.fingerprint(token)[:16]}:{idempotency_key}" if idempotency_key else None


def _scoped(scope: str, idempotency_key: str) -> str:
    """An Idempotency-Key within its caller's scope (hashed: a scope may hold an address)."""
    return f"{hashlib.sha256(scope.encode()).hexdigest()[:16]}:{idempotency_key}"


def _nonce() -> str:
    """256 random bits for a deal's fairness commitment (see service.engine.fairness)."""
    return secrets.token_hex(NONCE_BYTES)


def _check_dealt_by_the_server(new: NewGame) -> None:
    """RX4: a rated game's decks and first dealer are chance's, so no player knows a hand
    before it is dealt; a seed, a deck or a first dealer is a practice game's."""
    chosen = [
        name
        for name, value in (
            ("seed", new.seed),
            ("deck", new.deck),
            ("first_dealer", new.first_dealer),
        )
        if value is not None
    ]
    if chosen:
        raise InvalidRequest(
            f"a rated game is dealt by the server: leave out {', '.join(chosen)} (RX4)",
            code=ProblemCode.RATED_DEALING,
            extra={"rule": "RX4", "fields": chosen},
        )


def _new_game_json(new: NewGame) -> dict[str, Any]:
    """What a create asks for, as its Idempotency-Key's fingerprint holds it: every field
    that changes what the game is (a casual, unclocked create keeps its older form)."""
    return {
        **({"rated": True} if new.rated else {}),
        "variant": new.variant.value,
        "opponent": {"type": new.opponent.kind, "level": new.opponent.level},
        "seed": new.seed,
        "deck": None if new.deck is None else [card.value for card in new.deck],
        "first_dealer": new.first_dealer,
        # Only a clocked game names its clock: an unclocked create keeps its fingerprint.
        **({} if new.clock is None else {"clock": new.clock.encode()}),
    }


def _fingerprint(data: Any) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()

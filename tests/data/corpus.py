"""Recorded random deals and expert decisions: the safety net of the rules core.

The corpus pins behaviour, not design: every recorded deal must end exactly as
it did when it was recorded (winner, game points, reason, card points), through
the engine's public face and through the bots' search core alike, and the
expert must choose what it chose then. A refactoring of the rules that changes
any of them changes the game, so the tests fail.

Regenerate (only when the rules really change, and say why in the commit)::

    python -m tests.data.corpus

A deal is one line of ``random_deals.txt.gz``::

    <h|t> <dealer> <deck as 40 chars> <actions> <winner> <game points> <reason> <cp0> <cp1>

with the actions joined by ``,``: a card code plays it, ``M<suit>`` declares a
marriage, ``X`` exchanges the trump jack, ``Z`` closes the talon, ``!``
claims, ``=`` accepts the last trick. ``expert_decisions.txt.gz`` holds a
position the same way (a deal's first actions) and the expert's action.
"""

from __future__ import annotations

import gzip
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from service.engine import (
    DECK,
    Action,
    ActionType,
    Card,
    DealEndReason,
    GameState,
    Suit,
    Variant,
    apply,
    legal_actions,
    new_game,
    start_deal,
    take_seat,
)
from service.engine import actions as engine_actions

HERE = Path(__file__).resolve().parent
DEALS_FILE = HERE / "random_deals.txt.gz"
DECISIONS_FILE = HERE / "expert_decisions.txt.gz"
DEALS = 10_000
DECISIONS = 500
#: The expert's seed and budget for the recorded decisions (small, so the test is quick;
#: the search is the same at any budget).
EXPERT_SEED = 12
EXPERT_BUDGET_MS = 6

_SIMPLE = {
    "X": engine_actions.EXCHANGE_TRUMP_JACK,
    "Z": engine_actions.CLOSE_TALON,
    "!": engine_actions.CLAIM,
    "=": engine_actions.ACCEPT_LAST_TRICK,
}
_SIMPLE_CODE = {action: code for code, action in _SIMPLE.items()}


def action_code(action: Action) -> str:
    """The corpus notation of an action."""
    if action.type is ActionType.PLAY:
        return action.card.value
    if action.type is ActionType.DECLARE_MARRIAGE:
        return "M" + action.suit.value
    return _SIMPLE_CODE[action]


def parse_action(code: str) -> Action:
    """The action of a corpus code."""
    if code in _SIMPLE:
        return _SIMPLE[code]
    if code[0] == "M" and len(code) == 2:
        return engine_actions.DECLARE_MARRIAGE[Suit(code[1])]
    return engine_actions.PLAY[Card(code)]


@dataclass(frozen=True, slots=True)
class RecordedDeal:
    """One recorded deal: its facts (variant, dealer, deck, actions) and its result."""

    variant: Variant
    dealer: int
    deck: tuple[Card, ...]
    actions: tuple[Action, ...]
    #: (winner, game points, reason, card points of seat 0, of seat 1); None for a position.
    result: tuple[int, int, DealEndReason, int, int] | None = None

    def line(self, tail: str) -> str:
        return " ".join(
            (
                self.variant.value[0],
                str(self.dealer),
                "".join(card.value for card in self.deck),
                ",".join(action_code(a) for a in self.actions) or "-",
                tail,
            )
        )

    def start(self) -> GameState:
        """The game state at the deal's first action."""
        state = take_seat(take_seat(new_game(self.variant, self.dealer), 0), 1)
        return start_deal(state, self.deck)


def parse_line(line: str) -> tuple[RecordedDeal, list[str]]:
    """A recorded deal (without result) and the remaining fields of its line."""
    variant, dealer, deck, actions, *tail = line.split()
    return (
        RecordedDeal(
            variant=Variant.HEAD if variant == "h" else Variant.TRACKED,
            dealer=int(dealer),
            deck=tuple(Card(deck[i : i + 2]) for i in range(0, 40, 2)),
            actions=() if actions == "-" else tuple(parse_action(a) for a in actions.split(",")),
        ),
        tail,
    )


def read_deals() -> Iterator[RecordedDeal]:
    with gzip.open(DEALS_FILE, "rt") as handle:
        for line in handle:
            deal, (winner, points, reason, cp0, cp1) = parse_line(line)
            yield RecordedDeal(
                deal.variant,
                deal.dealer,
                deal.deck,
                deal.actions,
                (int(winner), int(points), DealEndReason(reason), int(cp0), int(cp1)),
            )


def read_decisions() -> Iterator[tuple[RecordedDeal, Action]]:
    with gzip.open(DECISIONS_FILE, "rt") as handle:
        for line in handle:
            deal, (choice,) = parse_line(line)
            yield deal, parse_action(choice)


def _choose(rng: random.Random, legal: list[Action], patient: bool) -> Action:
    """Uniform, or (patient) claiming and closing rarely so deals run long."""
    if patient and rng.random() < 0.9:
        calm = [a for a in legal if a.type not in (ActionType.CLAIM, ActionType.CLOSE_TALON)]
        if calm:
            return rng.choice(calm)
    return rng.choice(legal)


def random_deal(rng: random.Random) -> tuple[RecordedDeal, list[GameState]]:
    """A random deal played to its end, and the states on the way (for positions)."""
    variant = Variant.HEAD if rng.random() < 0.6 else Variant.TRACKED
    deck = list(DECK)
    rng.shuffle(deck)
    record = RecordedDeal(variant, rng.randrange(2), tuple(deck), ())
    state = record.start()
    states, actions = [], []
    patient = rng.random() < 0.5
    while state.deal.result is None:
        states.append(state)
        action = _choose(rng, legal_actions(state), patient)
        actions.append(action)
        state = apply(state, action)
    r = state.deal.result
    result = (r.winner, r.game_points, r.reason, *r.card_points)
    return RecordedDeal(variant, record.dealer, record.deck, tuple(actions), result), states


def generate() -> None:
    from service.bots.expert import ExpertBot
    from service.engine.knowledge import seat_view

    rng = random.Random(20261201)
    with gzip.open(DEALS_FILE, "wt", compresslevel=9) as handle:
        for _ in range(DEALS):
            deal, _ = random_deal(rng)
            winner, points, reason, cp0, cp1 = deal.result
            handle.write(deal.line(f"{winner} {points} {reason.value} {cp0} {cp1}") + "\n")
    bot = ExpertBot(wall_clock_guard=False)
    written = 0
    with gzip.open(DECISIONS_FILE, "wt", compresslevel=9) as handle:
        while written < DECISIONS:
            deal, states = random_deal(rng)
            index = rng.randrange(len(states))
            state = states[index]
            if len(legal_actions(state)) < 2:
                continue
            view = seat_view(state, state.deal.to_move)
            choice = bot.choose(view, seed=EXPERT_SEED, budget_ms=EXPERT_BUDGET_MS).action
            position = RecordedDeal(deal.variant, deal.dealer, deal.deck, deal.actions[:index])
            handle.write(position.line(action_code(choice)) + "\n")
            written += 1


if __name__ == "__main__":
    generate()

"""How the terminal client writes a game for people: cards, names, events, the table, replays.

Pure functions (and one small class that numbers a deal's tricks) of what
the HTTP API sends; ``service.client.cli`` runs the loop that fetches it and prints
their lines. Tricks are numbered and written as the text export writes them
(``service.game.replay_export``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TextIO

from service.client.words import (
    ACTION_EVENTS,
    ACTION_WORDS,
    action_phrase,
    numbered_tricks,
    trick_cards,
)

SUIT_SYMBOLS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
RANKS = {"A": "A", "T": "10", "K": "K", "Q": "Q", "J": "J"}
RANK_ORDER = "ATKQJ"
SUIT_ORDER = "SHCD"
REASONS = {
    "went_out": "went out with 66",
    "false_claim": "false claim by the opponent",
    "last_trick": "won the last trick",
    "closer_went_out": "closed the talon and went out",
    "closer_false_claim": "the closer claimed without 66",
    "closer_ran_out": "the closer did not reach 66",
    "closer_opponent_went_out": "went out before the closer",
}


class Cards:
    """Card codes for people: ``KH`` -> ``K♥``, red suits coloured on a terminal."""

    def __init__(self, out: TextIO, *, color: bool = True):
        encoding = (getattr(out, "encoding", None) or "").lower()
        self.unicode = "utf" in encoding
        # ``color``: the client's setting (no NO_COLOR); and only on a terminal.
        self.color = color and out.isatty()

    def suit(self, suit: str) -> str:
        text = SUIT_SYMBOLS[suit] if self.unicode else suit
        return f"\033[31m{text}\033[0m" if self.color and suit in "DH" else text

    def card(self, code: str) -> str:
        return RANKS[code[0]] + self.suit(code[1])

    def cards(self, codes: Iterable[str]) -> str:
        return " ".join(self.card(code) for code in codes)


def sort_hand(cards: Iterable[str], trump: str) -> list[str]:
    def key(code: str) -> tuple[int, int]:
        suit = -1 if code[1] == trump else SUIT_ORDER.index(code[1])
        return suit, RANK_ORDER.index(code[0])

    return sorted(cards, key=key)


def seat_names(players: list[dict[str, Any]], viewer: int | None) -> list[str]:
    names = []
    for seat in (0, 1):
        player = next((p for p in players if p.get("seat") == seat), {})
        if viewer is not None and seat == viewer:
            names.append("You")
        elif player.get("type") == "bot":
            names.append(f"Bot ({player.get('level')})")
        else:
            names.append(f"Player {seat + 1}")
    return names


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


class Narrator:
    """Tells a player the events of a game's feed, one event at a time.

    It keeps the number of tricks played in the running deal, since the feed
    arrives in pieces.
    """

    def __init__(self, names: Sequence[str], show: Cards):
        self.names = list(names)
        self.show = show
        self.tricks_in_deal = 0

    def verb(self, seat: int, third: str, second: str) -> str:
        return second if self.names[seat] == "You" else third

    def lines(self, event: dict[str, Any]) -> list[str]:
        """What a player is told of one event of the feed."""
        show, names = self.show, self.names
        lines: list[str] = []
        kind = event["type"]
        if kind == "deal_started":
            self.tricks_in_deal = 0
            dealer = event["dealer"]
            lines.append("")
            lines.append(
                f"=== Deal {event['number']}: {names[dealer]} {self.verb(dealer, 'deals', 'deal')}, "
                f"trump card {show.card(event['trump_card'])} ==="
            )
            return lines
        if kind not in ACTION_EVENTS:
            return lines
        seat, action = event["seat"], event["action"]
        if "trick" in event:
            self.tricks_in_deal += 1
            trick = event["trick"]
            cards = trick_cards(trick, names.__getitem__, show.card)
            winner = trick["winner"]
            lines.append(
                f"Trick {self.tricks_in_deal}: {cards} -> {names[winner]} "
                f"{self.verb(winner, 'wins', 'win')}"
            )
        elif action["type"] == "play":
            lines.append(
                f"{names[seat]} {self.verb(seat, 'leads', 'lead')} {show.card(action['card'])}"
            )
        else:
            lines.append(f"{names[seat]} {self.action_text(action, seat)}")
            if event.get("took"):
                lines.append(
                    f"  ... and {self.verb(seat, 'takes', 'take')} {show.card(event['took'])}"
                )
        # The turned-up trump card, when we take it, is among the cards we drew: it has
        # a line of its own, so the draw line names the others only.
        drawn = event.get("turn_up_drawn")
        drew = [card for card in event.get("drew", []) if not drawn or card != drawn["card"]]
        if drew:
            lines.append(f"You draw {show.cards(drew)}")
        if drawn:
            lines.append(
                f"{names[drawn['seat']]} {self.verb(drawn['seat'], 'takes', 'take')} "
                f"the trump card {show.card(drawn['card'])}"
            )
        if event.get("deal_result"):
            result = event["deal_result"]
            winner = result["winner"]
            lines.append(
                f"*** Deal {result['number']}: {names[winner]} {self.verb(winner, 'wins', 'win')} "
                f"{plural(result['game_points'], 'game point')} "
                f"({REASONS.get(result['reason'], result['reason'])}); "
                f"card points {names[0]} {result['card_points'][0]}, "
                f"{names[1]} {result['card_points'][1]} ***"
            )

        return lines

    def action_text(self, action: dict[str, Any], seat: int) -> str:
        you = self.names[seat] == "You"
        return action_phrase(action, you=you, card=self.show.card, suit=self.show.suit)


def table_lines(view: dict[str, Any], names: Sequence[str], show: Cards) -> list[str]:
    """The table on the player's turn: points, talon, tricks, the opponent, marriages, the hand."""
    deal = view["deal"]
    lines: list[str] = []
    me, opp = view["seat"], 1 - view["seat"]
    trump = deal["trump_suit"]
    lines.append("")
    lines.append(
        f"Game points: {names[me]} {view['game_points'][me]}, "
        f"{names[opp]} {view['game_points'][opp]}   "
        f"Deal {deal['number']}, trumps {show.suit(trump)} {SUIT_NAMES[trump]}"
    )
    if deal["closed_by"] is not None:
        talon = f"closed by {names[deal['closed_by']]}"
    elif deal["talon_size"]:
        talon = f"{plural(deal['talon_size'], 'card')}"
    else:
        talon = "exhausted"
    trump_card = (
        f", trump card {show.card(deal['trump_card'])} face up" if deal["trump_card"] else ""
    )
    lines.append(f"Talon: {talon}{trump_card}")
    tricks = f"Tricks: {names[me]} {deal['tricks_won'][me]}, {names[opp]} {deal['tricks_won'][opp]}"
    if deal.get("card_points"):
        tricks += f"   Card points: {deal['card_points'][me]} to {deal['card_points'][opp]}"
    lines.append(tricks)
    shown = deal["revealed_cards"][opp]
    seen = f" (seen: {show.cards(shown)})" if shown else ""
    lines.append(f"{names[opp]}: {plural(deal['opponent_hand_size'], 'card')} in hand{seen}")
    for marriage in deal.get("marriages", []):
        lines.append(
            f"Marriage: {names[marriage['seat']]} {marriage['points']} "
            f"in {show.suit(marriage['suit'])}"
        )
    if deal["current_trick"]:
        lead = deal["current_trick"][0]
        lines.append(f"Trick: {names[lead['seat']]} led {show.card(lead['card'])}")
    lines.append(f"Your hand: {show.cards(sort_hand(deal['hand'], trump)) or '(empty)'}")
    return lines


def move_text(action: dict[str, Any], deal: dict[str, Any], show: Cards) -> str:
    """One numbered move of the player's menu."""
    kind = action["type"]
    text = action_phrase(action, you=True, card=show.card, suit=show.suit)
    if kind == "exchange_trump_jack":
        return f"{text} for {show.card(deal['trump_card'])}"
    if kind == "declare_marriage":
        return f"{text} ({deal['marriage_points'][action['suit']]})"
    if kind == "claim":
        return f"{text} (go out)"
    return text


def finish_lines(view: dict[str, Any], names: Sequence[str], game_id: str, url: str) -> list[str]:
    """The end of a game, and where to watch its replay."""
    me = view["seat"]
    lines: list[str] = []
    winner = view["winner"]
    points = view["game_points"]
    lines.append("")
    headline = "you win the game!" if winner == me else f"{names[winner]} wins the game."
    lines.append(f"Game over: {headline}")
    lines.append(
        f"Game points left: {names[me]} {points[me]}, {names[1 - me]} {points[1 - me]} "
        f"after {plural(len(view['deals']), 'deal')}."
    )
    lines.append(
        f"Replay: schnapsen replay {game_id} --url {url}  (or open {url}/replay/?game={game_id})"
    )
    return lines


def replay_lines(record: dict[str, Any], show: Cards) -> Iterable[str]:
    """A game's replay for people: one line per trick, per other action, per deal result."""
    state = record["state"]
    viewer = state.get("seat")
    names = seat_names(state.get("players") or [], viewer)
    players = ", ".join(f"seat {seat}: {names[seat]}" for seat in (0, 1))
    yield f"Game {record['game_id']} ({state['variant']} counting; {players})"
    if not record["complete"]:
        yield "The game is still running: hands and talons stay hidden until it is over."
    for event, trick_number in numbered_tricks(record["events"]):
        kind = event["type"]
        if kind == "deal_started":
            dealer = event["dealer"]
            yield ""
            yield (f"Deal {event['number']}: {names[dealer]} deals, "
                   f"trump card {show.card(event['trump_card'])}")  # fmt: skip
            deck = event.get("deck")
            if deck:
                leader = 1 - dealer
                yield f"  {names[leader]}: {show.cards(deck[0:5])}"
                yield f"  {names[dealer]}: {show.cards(deck[5:10])}"
                yield f"  talon: {show.cards(deck[11:])}"
            elif event.get("hand"):
                yield f"  {names[viewer]}: {show.cards(event['hand'])}"
        elif kind in ACTION_EVENTS:
            seat, action = event["seat"], event["action"]
            if kind == "clock_moved":
                yield f"  {names[seat]}'s time ran out: a {event['level']} bot moves"
            if trick_number:
                trick = event["trick"]
                cards = trick_cards(trick, names.__getitem__, show.card)
                yield f"  trick {trick_number}: {cards} -> {names[trick['winner']]}"
            elif action["type"] in ACTION_WORDS and action["type"] != "play":
                line = f"  {names[seat]} {action_phrase(action, suit=show.suit)}"
                if action["type"] == "exchange_trump_jack":
                    line += f" for {show.card(event['took'])}"
                yield line
            result = event.get("deal_result")
            if result:
                yield (
                    f"  => {names[result['winner']]} wins {plural(result['game_points'], 'game point')} "
                    f"({REASONS.get(result['reason'], result['reason'])}); "
                    f"card points {result['card_points'][0]}:{result['card_points'][1]}"
                )
    yield ""
    points = state["game_points"]
    if state.get("winner") is not None:
        yield (f"Game over: {names[state['winner']]} wins "
               f"(game points left {points[0]}:{points[1]})")  # fmt: skip
    else:
        yield f"Game running: game points {points[0]}:{points[1]}"

"""How the terminal client writes a game for people: cards, names, events, the table, replays.

Pure functions (and one small class that numbers a deal's tricks) of what
the HTTP API sends; ``service.client.cli`` runs the loop that fetches it and prints
their lines. Tricks are numbered and written as the text export writes them
(``service.game.replay_export``). Every word comes from a ``Vocabulary``
(``service.client.words``): English unless the caller passes another.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TextIO

from service.client.words import (
    ACTION_EVENTS,
    ENGLISH,
    Vocabulary,
    action_phrase,
    numbered_tricks,
    trick_cards,
)

SUIT_SYMBOLS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
RANK_ORDER = "ATKQJ"
SUIT_ORDER = "SHCD"


class Cards:
    """Card codes for people: ``KH`` -> ``K♥``, red suits coloured on a terminal."""

    def __init__(self, out: TextIO, *, color: bool = True, words: Vocabulary = ENGLISH):
        encoding = (getattr(out, "encoding", None) or "").lower()
        self.unicode = "utf" in encoding
        # ``color``: the client's setting (no NO_COLOR); and only on a terminal.
        self.color = color and out.isatty()
        self.words = words

    def suit(self, suit: str) -> str:
        text = SUIT_SYMBOLS[suit] if self.unicode else suit
        return f"\033[31m{text}\033[0m" if self.color and suit in "DH" else text

    def card(self, code: str) -> str:
        return self.words.ranks[code[0]] + self.suit(code[1])

    def cards(self, codes: Iterable[str]) -> str:
        return " ".join(self.card(code) for code in codes)


def sort_hand(cards: Iterable[str], trump: str) -> list[str]:
    def key(code: str) -> tuple[int, int]:
        suit = -1 if code[1] == trump else SUIT_ORDER.index(code[1])
        return suit, RANK_ORDER.index(code[0])

    return sorted(cards, key=key)


def seat_names(
    players: list[dict[str, Any]], viewer: int | None, words: Vocabulary = ENGLISH
) -> list[str]:
    names = []
    for seat in (0, 1):
        player = next((p for p in players if p.get("seat") == seat), {})
        if viewer is not None and seat == viewer:
            names.append(words.you)
        elif player.get("type") == "bot":
            names.append(words.say("bot", level=words.level(player.get("level"))))
        else:
            names.append(words.say("player", number=seat + 1))
    return names


def plural(count: int, word: str, words: Vocabulary = ENGLISH) -> str:
    return words.count(count, word)


def reason(code: str, words: Vocabulary) -> str:
    return words.reasons.get(code, code)


class Narrator:
    """Tells a player the events of a game's feed, one event at a time.

    It keeps the number of tricks played in the running deal, since the feed
    arrives in pieces.
    """

    def __init__(self, names: Sequence[str], show: Cards):
        self.names = list(names)
        self.show = show
        self.words = show.words
        self.tricks_in_deal = 0

    def verb(self, seat: int, name: str) -> str:
        return self.words.verb(name, self.names[seat] == self.words.you)

    def lines(self, event: dict[str, Any]) -> list[str]:
        """What a player is told of one event of the feed."""
        show, names, say = self.show, self.names, self.words.say
        lines: list[str] = []
        kind = event["type"]
        if kind == "deal_started":
            self.tricks_in_deal = 0
            dealer = event["dealer"]
            lines.append("")
            lines.append(
                say("deal started", number=event["number"], name=names[dealer],
                    deals=self.verb(dealer, "deal"), card=show.card(event["trump_card"]))
            )  # fmt: skip
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
                say("trick won", number=self.tricks_in_deal, cards=cards, name=names[winner],
                    wins=self.verb(winner, "win"))
            )  # fmt: skip
        elif action["type"] == "play":
            lines.append(
                say("lead", name=names[seat], leads=self.verb(seat, "lead"),
                    card=show.card(action["card"]))
            )  # fmt: skip
        else:
            lines.append(f"{names[seat]} {self.action_text(action, seat)}")
            if event.get("took"):
                lines.append(
                    say("took", takes=self.verb(seat, "take"), card=show.card(event["took"]))
                )
        # The turned-up trump card, when we take it, is among the cards we drew: it has
        # a line of its own, so the draw line names the others only.
        drawn = event.get("turn_up_drawn")
        drew = [card for card in event.get("drew", []) if not drawn or card != drawn["card"]]
        if drew:
            lines.append(say("you draw", cards=show.cards(drew)))
        if drawn:
            lines.append(
                say("takes trump card", name=names[drawn["seat"]],
                    takes=self.verb(drawn["seat"], "take"), card=show.card(drawn["card"]))
            )  # fmt: skip
        if event.get("deal_result"):
            result = event["deal_result"]
            winner = result["winner"]
            lines.append(
                say("deal won", number=result["number"], name=names[winner],
                    wins=self.verb(winner, "win"),
                    points=self.words.count(result["game_points"], "game point"),
                    reason=reason(result["reason"], self.words),
                    first=names[0], first_points=result["card_points"][0],
                    second=names[1], second_points=result["card_points"][1])
            )  # fmt: skip

        return lines

    def action_text(self, action: dict[str, Any], seat: int) -> str:
        you = self.names[seat] == self.words.you
        return action_phrase(
            action, you=you, card=self.show.card, suit=self.show.suit, words=self.words
        )


def table_lines(view: dict[str, Any], names: Sequence[str], show: Cards) -> list[str]:
    """The table on the player's turn: points, talon, tricks, the opponent, marriages, the hand."""
    words = show.words
    say = words.say
    deal = view["deal"]
    lines: list[str] = []
    me, opp = view["seat"], 1 - view["seat"]
    trump = deal["trump_suit"]
    lines.append("")
    lines.append(
        say("table points", me=names[me], my_points=view["game_points"][me], opp=names[opp],
            opp_points=view["game_points"][opp], number=deal["number"], suit=show.suit(trump),
            suit_name=words.suit_names[trump])
    )  # fmt: skip
    if deal["closed_by"] is not None:
        closer = "talon closed by you" if deal["closed_by"] == me else "talon closed"
        talon = say(closer, name=names[deal["closed_by"]])
    elif deal["talon_size"]:
        talon = words.count(deal["talon_size"], "card")
    else:
        talon = say("talon exhausted")
    trump_card = (
        say("trump card face up", card=show.card(deal["trump_card"])) if deal["trump_card"] else ""
    )
    lines.append(say("talon", talon=talon, trump_card=trump_card))
    tricks = say("tricks", me=names[me], my_tricks=deal["tricks_won"][me], opp=names[opp],
                 opp_tricks=deal["tricks_won"][opp])  # fmt: skip
    if deal.get("card_points"):
        tricks += say("card points", mine=deal["card_points"][me], theirs=deal["card_points"][opp])
    lines.append(tricks)
    shown = deal["revealed_cards"][opp]
    seen = say("seen", cards=show.cards(shown)) if shown else ""
    lines.append(
        say("opponent hand", name=names[opp],
            cards=words.count(deal["opponent_hand_size"], "card"), seen=seen)
    )  # fmt: skip
    for marriage in deal.get("marriages", []):
        lines.append(
            say("marriage", name=names[marriage["seat"]], points=marriage["points"],
                suit=show.suit(marriage["suit"]))
        )  # fmt: skip
    if deal["current_trick"]:
        lead = deal["current_trick"][0]
        lines.append(say("trick led", name=names[lead["seat"]], card=show.card(lead["card"])))
    hand = show.cards(sort_hand(deal["hand"], trump)) or say("empty")
    lines.append(say("your hand", cards=hand))
    return lines


def move_text(action: dict[str, Any], deal: dict[str, Any], show: Cards) -> str:
    """One numbered move of the player's menu."""
    words = show.words
    kind = action["type"]
    text = action_phrase(action, command=True, card=show.card, suit=show.suit, words=words)
    if kind == "exchange_trump_jack":
        return words.say("exchange for", text=text, card=show.card(deal["trump_card"]))
    if kind == "declare_marriage":
        return words.say("marriage move", text=text, points=deal["marriage_points"][action["suit"]])
    if kind == "claim":
        return words.say("claim move", text=text)
    return text


def finish_lines(
    view: dict[str, Any], names: Sequence[str], game_id: str, url: str, words: Vocabulary = ENGLISH
) -> list[str]:
    """The end of a game, and where to watch its replay (in the same language)."""
    say = words.say
    me = view["seat"]
    lines: list[str] = []
    winner = view["winner"]
    points = view["game_points"]
    lines.append("")
    headline = say("you win") if winner == me else say("wins game", name=names[winner])
    lines.append(say("game over", headline=headline))
    lines.append(
        say("points left", me=names[me], my_points=points[me], opp=names[1 - me],
            opp_points=points[1 - me], deals=words.count(len(view["deals"]), "deal"))
    )  # fmt: skip
    english = words.language == ENGLISH.language
    lines.append(
        say("replay hint", game_id=game_id, url=url,
            lang="" if english else f" --lang {words.language.value}",
            page_lang="" if english else f"&lang={words.language.value}")
    )  # fmt: skip
    return lines


def replay_lines(record: dict[str, Any], show: Cards) -> Iterable[str]:
    """A game's replay for people: one line per trick, per other action, per deal result."""
    words = show.words
    say = words.say
    state = record["state"]
    viewer = state.get("seat")
    names = seat_names(state.get("players") or [], viewer, words)
    players = ", ".join(f"{say('seat', seat=seat)}: {names[seat]}" for seat in (0, 1))
    variant = words.text.get(f"variant {state['variant']}", state["variant"])
    yield say("replay title", game_id=record["game_id"], variant=variant, players=players)
    if not record["complete"]:
        yield say("still running")
    for event, trick_number in numbered_tricks(record["events"]):
        kind = event["type"]
        if kind == "deal_started":
            dealer = event["dealer"]
            yield ""
            yield say("replay deal", number=event["number"], name=names[dealer],
                      card=show.card(event["trump_card"]))  # fmt: skip
            deck = event.get("deck")
            if deck:
                leader = 1 - dealer
                yield f"  {names[leader]}: {show.cards(deck[0:5])}"
                yield f"  {names[dealer]}: {show.cards(deck[5:10])}"
                yield say("replay talon", cards=show.cards(deck[11:]))
            elif event.get("hand"):
                yield f"  {names[viewer]}: {show.cards(event['hand'])}"
        elif kind in ACTION_EVENTS:
            seat, action = event["seat"], event["action"]
            if kind == "clock_moved":
                yield say("time ran out", name=names[seat], level=words.level(event["level"]))
            if trick_number:
                trick = event["trick"]
                cards = trick_cards(trick, names.__getitem__, show.card)
                yield say("replay trick", number=trick_number, cards=cards,
                          name=names[trick["winner"]])  # fmt: skip
            elif action["type"] in words.actions and action["type"] != "play":
                phrase = action_phrase(action, suit=show.suit, words=words)
                line = f"  {names[seat]} {phrase}"
                if action["type"] == "exchange_trump_jack":
                    line = "  " + say("exchange for", text=f"{names[seat]} {phrase}",
                                      card=show.card(event["took"]))  # fmt: skip
                yield line
            result = event.get("deal_result")
            if result:
                yield say("replay deal won", name=names[result["winner"]],
                          points=words.count(result["game_points"], "game point"),
                          reason=reason(result["reason"], words),
                          first=result["card_points"][0], second=result["card_points"][1])  # fmt: skip
    yield ""
    points = state["game_points"]
    if state.get("winner") is not None:
        yield say("replay over", name=names[state["winner"]], first=points[0], second=points[1])
    else:
        yield say("replay running", first=points[0], second=points[1])

"""The terminal client: ``schnapsen play`` against a bot, ``schnapsen replay`` of a game.

It speaks only the public HTTP API (the README's endpoints), with
``requests``: create a game, show the table on your turn with numbered legal
moves, post the chosen one, and long-poll the event feed while the bot
thinks. ``replay`` prints a finished (or running) game one line per trick
from ``GET /v1/games/{id}/replay``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable
from typing import Any, TextIO

import requests

DEFAULT_URL = "http://127.0.0.1:8000"
POLL_SECONDS = 10

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


class CliError(Exception):
    """A failure to tell the user in one line; exits with status 1."""


class ApiError(CliError):
    def __init__(self, status: int, problem: dict[str, Any]):
        self.status = status
        self.problem = problem
        code = f" [{problem['code']}]" if problem.get("code") else ""
        detail = problem.get("detail") or problem.get("title") or ""
        super().__init__(f"{problem.get('title', 'Refused')} ({status}){code}: {detail}")


class Client:
    """The HTTP API, one JSON call at a time; refusals raise ``ApiError``."""

    def __init__(self, url: str, token: str | None = None):
        self.url = url.rstrip("/")
        self.token = token
        self.session = requests.Session()

    def call(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: dict[str, Any] | None = None,
        timeout: float = 15,
    ) -> Any:
        headers = {"Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        try:
            response = self.session.request(
                method, self.url + path, json=body, params=params, headers=headers, timeout=timeout
            )
        except requests.RequestException as error:
            raise CliError(
                f"cannot reach the service at {self.url} ({type(error).__name__}); "
                "is it running? Start it with: schnapsen-serve"
            ) from error
        if response.status_code >= 400:
            try:
                problem = response.json()
            except ValueError:
                problem = {"detail": response.text[:200]}
            raise ApiError(response.status_code, problem if isinstance(problem, dict) else {})
        return response.json()


class Cards:
    """Card codes for people: ``KH`` -> ``K♥``, red suits coloured on a terminal."""

    def __init__(self, out: TextIO):
        encoding = (getattr(out, "encoding", None) or "").lower()
        self.unicode = "utf" in encoding
        self.color = out.isatty() and "NO_COLOR" not in os.environ

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


# -- play -----------------------------------------------------------------------


class Game:
    """One game against a bot in the terminal."""

    def __init__(self, client: Client, out: TextIO, inp: TextIO):
        self.client = client
        self.out = out
        self.inp = inp
        self.show = Cards(out)
        self.names = ["You", "Bot"]
        self.game_id = ""
        self.log_version = 0
        self.tricks_in_deal = 0
        self.waiting = False

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def verb(self, seat: int, third: str, second: str) -> str:
        return second if self.names[seat] == "You" else third

    # -- the loop ---------------------------------------------------------

    def start(self, level: str, variant: str, seed: int | None) -> None:
        body: dict[str, Any] = {"variant": variant, "opponent": {"type": "bot", "level": level}}
        if seed is not None:
            body["seed"] = seed
        seated = self.client.call("POST", "/v1/games", body=body)
        self.game_id = seated["game_id"]
        self.client.token = seated["token"]
        self.names = seat_names(seated["game"]["players"], seated["seat"])
        counting = "count in your head and claim 66" if variant == "head" else "points tracked"
        self.say(f"Game {self.game_id}: you against the {level} bot ({variant}: {counting}).")
        self.say("Type the number of a move; q leaves the game.")

    def run(self) -> int:
        while True:
            view = self.client.call("GET", f"/v1/games/{self.game_id}")
            self.pull(0)
            if view["status"] == "finished":
                self.finish(view)
                return 0
            deal = view["deal"]
            if view["to_move"] == view["seat"] and deal and deal["legal_actions"]:
                self.waiting = False
                self.table(view)
                action = self.ask(deal["legal_actions"], deal)
                if action is None:
                    self.say(f"You left game {self.game_id}; it stays on the server.")
                    return 0
                try:
                    body = {**action, "expected_version": view["version"]}
                    self.client.call("POST", f"/v1/games/{self.game_id}/actions", body=body)
                except ApiError as error:
                    self.say(f"Refused: {error}")
            else:
                if not self.waiting:
                    self.say(f"{self.names[1 - view['seat']]} is thinking...")
                self.waiting = True
                self.pull(POLL_SECONDS)

    def pull(self, wait: float) -> None:
        """Print the events after the last one shown; with ``wait``, long-poll."""
        feed = self.client.call(
            "GET",
            f"/v1/games/{self.game_id}/events",
            params={"after": self.log_version, "wait": wait},
            timeout=wait + 15,
        )
        for event in feed["events"]:
            self.log_version = max(self.log_version, event["version"])
            self.event(event)

    # -- what happened --------------------------------------------------------

    def event(self, event: dict[str, Any]) -> None:
        show, names = self.show, self.names
        kind = event["type"]
        if kind == "deal_started":
            self.tricks_in_deal = 0
            dealer = event["dealer"]
            self.say()
            self.say(
                f"=== Deal {event['number']}: {names[dealer]} {self.verb(dealer, 'deals', 'deal')}, "
                f"trump card {show.card(event['trump_card'])} ==="
            )
            return
        if kind != "action_taken":
            return
        seat, action = event["seat"], event["action"]
        if "trick" in event:
            self.tricks_in_deal += 1
            trick = event["trick"]
            cards = ", ".join(f"{names[c['seat']]} {show.card(c['card'])}" for c in trick["cards"])
            winner = trick["winner"]
            self.say(
                f"Trick {self.tricks_in_deal}: {cards} -> {names[winner]} "
                f"{self.verb(winner, 'wins', 'win')}"
            )
        elif action["type"] == "play":
            self.say(
                f"{names[seat]} {self.verb(seat, 'leads', 'lead')} {show.card(action['card'])}"
            )
        else:
            self.say(f"{names[seat]} {self.action_text(action, seat)}")
            if event.get("took"):
                self.say(f"  ... and {self.verb(seat, 'takes', 'take')} {show.card(event['took'])}")
        if event.get("drew"):
            self.say(f"You draw {show.cards(event['drew'])}")
        if event.get("turn_up_drawn"):
            drawn = event["turn_up_drawn"]
            self.say(
                f"{names[drawn['seat']]} {self.verb(drawn['seat'], 'takes', 'take')} "
                f"the trump card {show.card(drawn['card'])}"
            )
        if event.get("deal_result"):
            result = event["deal_result"]
            winner = result["winner"]
            self.say(
                f"*** Deal {result['number']}: {names[winner]} {self.verb(winner, 'wins', 'win')} "
                f"{plural(result['game_points'], 'game point')} "
                f"({REASONS.get(result['reason'], result['reason'])}); "
                f"card points {names[0]} {result['card_points'][0]}, "
                f"{names[1]} {result['card_points'][1]} ***"
            )

    def action_text(self, action: dict[str, Any], seat: int) -> str:
        kind = action["type"]
        if kind == "play":
            return f"{self.verb(seat, 'plays', 'play')} {self.show.card(action['card'])}"
        if kind == "exchange_trump_jack":
            return f"{self.verb(seat, 'exchanges', 'exchange')} the trump jack"
        if kind == "close_talon":
            return f"{self.verb(seat, 'closes', 'close')} the talon"
        if kind == "declare_marriage":
            return f"{self.verb(seat, 'declares', 'declare')} the marriage in {self.show.suit(action['suit'])}"
        if kind == "claim":
            return f"{self.verb(seat, 'claims', 'claim')} 66"
        if kind == "accept_last_trick":
            return f"{self.verb(seat, 'accepts', 'accept')} the last trick"
        return kind

    # -- your turn ----------------------------------------------------------

    def table(self, view: dict[str, Any]) -> None:
        deal, show, names = view["deal"], self.show, self.names
        me, opp = view["seat"], 1 - view["seat"]
        trump = deal["trump_suit"]
        self.say()
        self.say(
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
        self.say(f"Talon: {talon}{trump_card}")
        tricks = (
            f"Tricks: {names[me]} {deal['tricks_won'][me]}, {names[opp]} {deal['tricks_won'][opp]}"
        )
        if deal.get("card_points"):
            tricks += f"   Card points: {deal['card_points'][me]} to {deal['card_points'][opp]}"
        self.say(tricks)
        shown = deal["revealed_cards"][opp]
        seen = f" (seen: {show.cards(shown)})" if shown else ""
        self.say(f"{names[opp]}: {plural(deal['opponent_hand_size'], 'card')} in hand{seen}")
        for marriage in deal.get("marriages", []):
            self.say(
                f"Marriage: {names[marriage['seat']]} {marriage['points']} "
                f"in {show.suit(marriage['suit'])}"
            )
        if deal["current_trick"]:
            lead = deal["current_trick"][0]
            self.say(f"Trick: {names[lead['seat']]} led {show.card(lead['card'])}")
        self.say(f"Your hand: {show.cards(sort_hand(deal['hand'], trump)) or '(empty)'}")

    def move_text(self, action: dict[str, Any], deal: dict[str, Any]) -> str:
        kind = action["type"]
        if kind == "play":
            return f"play {self.show.card(action['card'])}"
        if kind == "exchange_trump_jack":
            return f"exchange the trump jack for {self.show.card(deal['trump_card'])}"
        if kind == "close_talon":
            return "close the talon"
        if kind == "declare_marriage":
            worth = deal["marriage_points"][action["suit"]]
            return f"declare the marriage in {self.show.suit(action['suit'])} ({worth})"
        if kind == "claim":
            return "claim 66 (go out)"
        if kind == "accept_last_trick":
            return "accept the last trick"
        return kind

    def ask(self, legal: list[dict[str, Any]], deal: dict[str, Any]) -> dict[str, Any] | None:
        plays = [a for a in legal if a["type"] == "play"]
        order = sort_hand([a["card"] for a in plays], deal["trump_suit"])
        plays.sort(key=lambda a: order.index(a["card"]))
        moves = plays + [a for a in legal if a["type"] != "play"]
        self.say("Your moves:")
        for number, action in enumerate(moves, start=1):
            self.say(f"  {number}) {self.move_text(action, deal)}")
        while True:
            self.out.write(f"Your move [1-{len(moves)}]: ")
            self.out.flush()
            line = self.inp.readline()
            if not line:  # end of input
                self.say()
                return None
            if not self.inp.isatty():  # echo what a script typed, as a terminal would
                self.say(line.rstrip("\n"))
            answer = line.strip().lower()
            if answer in {"q", "quit", "exit"}:
                return None
            if answer.isdigit() and 1 <= int(answer) <= len(moves):
                return moves[int(answer) - 1]
            self.say(f"Type a number from 1 to {len(moves)} (or q to leave).")

    def finish(self, view: dict[str, Any]) -> None:
        names, me = self.names, view["seat"]
        winner = view["winner"]
        points = view["game_points"]
        self.say()
        headline = "you win the game!" if winner == me else f"{names[winner]} wins the game."
        self.say(f"Game over: {headline}")
        self.say(
            f"Game points left: {names[me]} {points[me]}, {names[1 - me]} {points[1 - me]} "
            f"after {plural(len(view['deals']), 'deal')}."
        )
        self.say(
            f"Replay: schnapsen replay {self.game_id} --url {self.client.url}  "
            f"(or open {self.client.url}/replay/?game={self.game_id})"
        )


# -- replay ------------------------------------------------------------------------


def replay_lines(record: dict[str, Any], show: Cards) -> Iterable[str]:
    """A game's replay for people: one line per trick, per other action, per deal result."""
    state = record["state"]
    viewer = state.get("seat")
    names = seat_names(state.get("players") or [], viewer)
    players = ", ".join(f"seat {seat}: {names[seat]}" for seat in (0, 1))
    yield f"Game {record['game_id']} ({state['variant']} counting; {players})"
    if not record["complete"]:
        yield "The game is still running: hands and talons stay hidden until it is over."
    trick_number = 0
    for event in record["events"]:
        kind = event["type"]
        if kind == "deal_started":
            trick_number = 0
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
        elif kind == "action_taken":
            seat, action = event["seat"], event["action"]
            if "trick" in event:
                trick_number += 1
                trick = event["trick"]
                cards = ", ".join(
                    f"{names[c['seat']]} {show.card(c['card'])}" for c in trick["cards"]
                )
                yield f"  trick {trick_number}: {cards} -> {names[trick['winner']]}"
            elif action["type"] == "exchange_trump_jack":
                yield f"  {names[seat]} exchanges the trump jack for {show.card(event['took'])}"
            elif action["type"] == "close_talon":
                yield f"  {names[seat]} closes the talon"
            elif action["type"] == "declare_marriage":
                yield f"  {names[seat]} declares the marriage in {show.suit(action['suit'])}"
            elif action["type"] == "claim":
                yield f"  {names[seat]} claims 66"
            elif action["type"] == "accept_last_trick":
                yield f"  {names[seat]} accepts the last trick"
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


def print_replay(client: Client, game_id: str, out: TextIO) -> int:
    record = client.call("GET", f"/v1/games/{game_id}/replay")
    for line in replay_lines(record, Cards(out)):
        out.write(line + "\n")
    out.flush()
    return 0


# -- entry point -----------------------------------------------------------------


def parser() -> argparse.ArgumentParser:
    url_default = os.environ.get("SCHNAPSEN_URL", DEFAULT_URL)
    main_parser = argparse.ArgumentParser(
        prog="schnapsen",
        description="Play Schnapsen against a bot in the terminal, or print a replay.",
    )
    commands = main_parser.add_subparsers(dest="command", required=True)
    play = commands.add_parser("play", help="play a game against a bot")
    play.add_argument("--level", default="heuristic", help="the bot's level (default: heuristic)")
    play.add_argument("--url", default=url_default, help=f"the service (default: {url_default})")
    play.add_argument("--variant", choices=["head", "tracked"], default="head",
                      help="head: count in your head and claim 66 (default); tracked: points shown")  # fmt: skip
    play.add_argument("--seed", type=int, help="a seed for reproducible shuffles")
    replay = commands.add_parser("replay", help="print a game's replay, one line per trick")
    replay.add_argument("game_id")
    replay.add_argument("--url", default=url_default, help=f"the service (default: {url_default})")
    replay.add_argument("--token", default=os.environ.get("SCHNAPSEN_TOKEN"),
                        help="a seat's token, to see that seat's cards of a running game")  # fmt: skip
    return main_parser


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    out, inp = sys.stdout, sys.stdin
    try:
        if args.command == "play":
            game = Game(Client(args.url), out, inp)
            game.start(args.level, args.variant, args.seed)
            return game.run()
        return print_replay(Client(args.url, token=args.token), args.game_id, out)
    except CliError as error:
        print(f"schnapsen: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

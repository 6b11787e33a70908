"""The terminal client: ``schnapsen play`` against a bot, ``replay`` and ``analyse`` of a game.

It speaks only the public HTTP API (docs/api.md), with ``requests``: create a
game (or take up one left before: ``--resume``), show the table on your turn
with numbered legal moves, post the chosen one, and long-poll the event feed
while the bot thinks. ``replay`` prints a finished (or running) game one line per trick
from ``GET /v1/games/{id}/replay``; ``analyse`` asks for the game's analysis,
shows the job's progress, and prints it. What the lines say is written by
``service.client.terminal`` and ``service.client.analysis_words``, in the language
``--lang`` or ``SCHNAPSEN_LANG`` chooses (``service.client.words``); this module only
fetches, asks and prints.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterable
from typing import Any, TextIO

import requests

from service.client import last_game
from service.client.analysis_words import analysis_lines
from service.client.settings import ClientSettings
from service.client.terminal import (
    Cards,
    Narrator,
    finish_lines,
    move_text,
    replay_lines,
    seat_names,
    sort_hand,
    table_lines,
)
from service.client.words import VOCABULARIES, Language, UnknownLanguage, Vocabulary

POLL_SECONDS = 10


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

    def __init__(
        self,
        url: str,
        token: str | None = None,
        words: Vocabulary = VOCABULARIES[Language.ENGLISH],
    ):
        self.url = url.rstrip("/")
        self.token = token
        self.words = words
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
                self.words.say("unreachable", url=self.url, error=type(error).__name__)
            ) from error
        if response.status_code >= 400:
            try:
                problem = response.json()
            except ValueError:
                problem = {"detail": response.text[:200]}
            raise ApiError(response.status_code, problem if isinstance(problem, dict) else {})
        return response.json()


# -- play -----------------------------------------------------------------------


class Game:
    """One game against a bot in the terminal."""

    def __init__(
        self,
        client: Client,
        out: TextIO,
        inp: TextIO,
        settings: ClientSettings,
        words: Vocabulary = VOCABULARIES[Language.ENGLISH],
    ):
        self.client = client
        self.out = out
        self.inp = inp
        self.state_home = settings.state_home
        self.words = words
        self.show = Cards(out, color=settings.color, words=words)
        self.names = [words.you, "Bot"]
        self.narrator = Narrator(self.names, self.show)
        self.game_id = ""
        self.log_version = 0
        self.waiting = False

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def say_all(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.say(line)

    # -- the loop ---------------------------------------------------------

    def start(self, level: str, variant: str, seed: int | None) -> None:
        body: dict[str, Any] = {"variant": variant, "opponent": {"type": "bot", "level": level}}
        if seed is not None:
            body["seed"] = seed
        seated = self.client.call("POST", "/v1/games", body=body)
        self.game_id = seated["game_id"]
        self.client.token = seated["token"]
        last_game.save(
            last_game.LastGame(self.client.url, self.game_id, seated["token"]), self.state_home
        )
        self.names = seat_names(seated["game"]["players"], seated["seat"], self.words)
        self.narrator = Narrator(self.names, self.show)
        say = self.words.say
        self.say(
            say("started", game_id=self.game_id, level=self.words.level(level),
                variant=say(f"variant {variant}"), counting=say(f"counting {variant}"))
        )  # fmt: skip
        self.say(say("how to move"))

    def resume(self, game_id: str, token: str) -> None:
        """Take up a game left before, at the seat ``token`` holds; its events so far are
        told again, so the tricks of the running deal are numbered as they were."""
        self.client.token = token
        view = self.client.call("GET", f"/v1/games/{game_id}")
        self.game_id = game_id
        last_game.save(last_game.LastGame(self.client.url, game_id, token), self.state_home)
        self.names = seat_names(view["players"], view["seat"], self.words)
        self.narrator = Narrator(self.names, self.show)
        self.say(self.words.say("resumed", game_id=game_id, name=self.names[1 - view["seat"]]))
        self.say(self.words.say("how to move"))

    def run(self) -> int:
        while True:
            view = self.client.call("GET", f"/v1/games/{self.game_id}")
            self.pull(0)
            if self.log_version > view["version"]:
                # The other side moved between the two reads: the view is stale, and
                # waiting for news after what was just told would wait for nothing.
                continue
            if view["status"] == "finished":
                self.say_all(
                    finish_lines(view, self.names, self.game_id, self.client.url, self.words)
                )
                return 0
            deal = view["deal"]
            if view["to_move"] == view["seat"] and deal and deal["legal_actions"]:
                self.waiting = False
                self.say_all(table_lines(view, self.names, self.show))
                action = self.ask(deal["legal_actions"], deal)
                if action is None:
                    self.say(self.words.say("left", game_id=self.game_id))
                    self.say(self.words.say("resume hint"))
                    return 0
                try:
                    body = {**action, "expected_version": view["version"]}
                    self.client.call("POST", f"/v1/games/{self.game_id}/actions", body=body)
                except ApiError as error:
                    self.say(self.words.say("refused", error=error))
            else:
                if not self.waiting:
                    self.say(self.words.say("thinking", name=self.names[1 - view["seat"]]))
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
            self.say_all(self.narrator.lines(event))

    # -- your turn ----------------------------------------------------------

    def ask(self, legal: list[dict[str, Any]], deal: dict[str, Any]) -> dict[str, Any] | None:
        plays = [a for a in legal if a["type"] == "play"]
        order = sort_hand([a["card"] for a in plays], deal["trump_suit"])
        plays.sort(key=lambda a: order.index(a["card"]))
        moves = plays + [a for a in legal if a["type"] != "play"]
        self.say(self.words.say("your moves"))
        for number, action in enumerate(moves, start=1):
            self.say(f"  {number}) {move_text(action, deal, self.show)}")
        while True:
            self.out.write(self.words.say("prompt", count=len(moves)))
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
            self.say(self.words.say("type a number", count=len(moves)))


# -- replay ------------------------------------------------------------------------


def print_replay(
    client: Client,
    game_id: str,
    out: TextIO,
    *,
    color: bool = True,
    words: Vocabulary = VOCABULARIES[Language.ENGLISH],
) -> int:
    record = client.call("GET", f"/v1/games/{game_id}/replay")
    for line in replay_lines(record, Cards(out, color=color, words=words)):
        out.write(line + "\n")
    out.flush()
    return 0


# -- analyse -----------------------------------------------------------------------

#: Seconds between two looks at a running analysis job.
ANALYSIS_POLL_SECONDS = 0.5


def print_analysis(
    client: Client,
    game_id: str,
    out: TextIO,
    err: TextIO,
    *,
    color: bool = True,
    words: Vocabulary = VOCABULARIES[Language.ENGLISH],
) -> int:
    """Ask for the analysis, show the job's progress on ``err``, print the analysis."""
    job = client.call("POST", f"/v1/games/{game_id}/analysis", body={})
    # On a terminal the progress line is rewritten in place; piped, each new figure
    # is a line of its own (a log has no use for carriage returns).
    terminal = err.isatty()
    shown: int | None = None
    analysing = words.say("analysing")
    while job["status"] not in ("finished", "failed"):
        progress = round(100 * job.get("progress", 0))
        if terminal:
            err.write(f"\r{analysing}: {progress:3d}%")
        elif progress != shown:
            err.write(f"{analysing}: {progress:3d}%\n")
        shown = progress
        err.flush()
        time.sleep(ANALYSIS_POLL_SECONDS)
        job = client.call("GET", f"/v1/jobs/{job['id']}")
    if job["status"] == "finished":
        err.write(f"\r{analysing}: 100%\n" if terminal else f"{analysing}: 100%\n")
    elif terminal:
        err.write("\n")
    if job["status"] == "failed":
        raise CliError(words.say("analysis failed", error=job.get("error", words.say("no reason"))))
    analysis = client.call("GET", job["result"]["url"])
    view = client.call("GET", f"/v1/games/{game_id}")
    names = seat_names(view["players"], view["seat"], words)
    for line in analysis_lines(analysis, names, Cards(out, color=color, words=words)):
        out.write(line + "\n")
    out.flush()
    return 0


# -- entry point -----------------------------------------------------------------


def parser(settings: ClientSettings) -> argparse.ArgumentParser:
    url_default = settings.url
    main_parser = argparse.ArgumentParser(
        prog="schnapsen",
        description="Play Schnapsen against a bot in the terminal, print a replay or an analysis.",
    )
    commands = main_parser.add_subparsers(dest="command", required=True)
    play = commands.add_parser("play", help="play a game against a bot")
    play.add_argument("--level", default="heuristic", help="the bot's level (default: heuristic)")
    play.add_argument("--url", default=None, help=f"the service (default: {url_default})")
    play.add_argument("--resume", nargs="?", const="", metavar="GAME_ID",
                      help="take up a game left before: the last one played here, or GAME_ID "
                      "with --token")  # fmt: skip
    play.add_argument("--token", default=settings.token,
                      help="with --resume GAME_ID: the token of your seat in that game")  # fmt: skip
    play.add_argument("--variant", choices=["head", "tracked"], default="head",
                      help="head: count in your head and claim 66 (default); tracked: points shown")  # fmt: skip
    play.add_argument("--seed", type=int, help="a seed for reproducible shuffles")
    language_argument(play, settings)
    replay = commands.add_parser("replay", help="print a game's replay, one line per trick")
    replay.add_argument("game_id")
    replay.add_argument("--url", default=url_default, help=f"the service (default: {url_default})")
    replay.add_argument("--token", default=settings.token,
                        help="a seat's token, to see that seat's cards of a running game")  # fmt: skip
    language_argument(replay, settings)
    analyse = commands.add_parser(
        "analyse", help="analyse a game's decisions: each one's cost against the best"
    )
    analyse.add_argument("game_id")
    analyse.add_argument("--url", default=url_default, help=f"the service (default: {url_default})")
    analyse.add_argument("--token", default=settings.token,
                         help="a seat's token: during a game, that seat's finished deals")  # fmt: skip
    language_argument(analyse, settings)
    return main_parser


def language_argument(command: argparse.ArgumentParser, settings: ClientSettings) -> None:
    command.add_argument(
        "--lang",
        choices=[code.value for code in Language],
        default=settings.language.value,
        help="the language of the cards and the game's words: en (English) or de (German, "
        f"Austria); default: SCHNAPSEN_LANG, else en (now: {settings.language.value})",
    )


def _tokens_taken_whole(argv: list[str]) -> list[str]:
    """``--token VALUE`` as ``--token=VALUE``: seat tokens are URL-safe base64, so one in
    64 begins with "-", and argparse would read such a token as another option."""
    joined: list[str] = []
    rest = iter(argv)
    for word in rest:
        if word == "--token":
            value = next(rest, None)
            joined.append(word if value is None else f"--token={value}")
        else:
            joined.append(word)
    return joined


def parse_arguments(argv: list[str], settings: ClientSettings) -> argparse.Namespace:
    """The command line as the person meant it (a token may begin with "-")."""
    return parser(settings).parse_args(_tokens_taken_whole(argv))


def resumed(
    args: argparse.Namespace,
    settings: ClientSettings,
    words: Vocabulary = VOCABULARIES[Language.ENGLISH],
) -> tuple[str, str, str]:
    """The service, game and token ``play --resume`` takes up: the ones given, else the
    last game played here (at the service it was played on, unless --url says)."""
    last = last_game.load(settings.state_home)
    if args.resume:
        token = args.token or (last.token if last and last.game_id == args.resume else None)
        if not token:
            raise CliError(words.say("resume needs token", game_id=args.resume))
        url = args.url or (last.url if last and last.game_id == args.resume else None)
        return url or settings.url, args.resume, token
    if last is None:
        raise CliError(words.say("nothing to resume"))
    return args.url or last.url, last.game_id, last.token


def main(argv: list[str] | None = None) -> int:
    try:
        settings = ClientSettings.from_env()  # the one read of the environment
    except UnknownLanguage as error:
        print(f"schnapsen: {error}", file=sys.stderr)
        return 2
    args = parse_arguments(sys.argv[1:] if argv is None else argv, settings)
    words = VOCABULARIES[Language(args.lang)]
    out, inp = sys.stdout, sys.stdin
    try:
        if args.command == "play":
            if args.resume is not None:
                url, game_id, token = resumed(args, settings, words)
                game = Game(Client(url, words=words), out, inp, settings, words)
                game.resume(game_id, token)
            else:
                game = Game(
                    Client(args.url or settings.url, words=words), out, inp, settings, words
                )
                game.start(args.level, args.variant, args.seed)
            return game.run()
        if args.command == "analyse":
            client = Client(args.url, token=args.token, words=words)
            return print_analysis(
                client, args.game_id, out, sys.stderr, color=settings.color, words=words
            )
        client = Client(args.url, token=args.token, words=words)
        return print_replay(client, args.game_id, out, color=settings.color, words=words)
    except CliError as error:
        print(f"schnapsen: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

"""The words the terminal client writes, in the languages it speaks.

The words a game is told in (tricks numbered within their deal, a trick's
cards after their seats' names, what each action is called) are the
engine's (``service.engine.vocabulary``), which the text export shares; the
client re-exports them with its own words around them.

The terminal speaks English or German (Austria): a ``Vocabulary`` per
language holds every word and sentence it writes, the API's codes
(``KH``, ``close_talon``, ``went_out``) as people say them. The text export
is English (``ENGLISH``, the default everywhere here).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from service.engine.vocabulary import (
    ACTION_EVENTS,
    ENGLISH_ACTIONS,
    GERMAN_ACTIONS,
    ActionWords,
    Words,
    as_is,
    numbered_tricks,
    trick_cards,
)
from service.engine.vocabulary import action_phrase as told


class Language(StrEnum):
    """The languages the client speaks, by their ISO 639-1 codes."""

    ENGLISH = "en"
    GERMAN = "de"


class UnknownLanguage(ValueError):
    """A language asked for that the client does not speak."""


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """One language's words: names, cards, verbs, counted nouns and sentence templates."""

    language: Language
    #: The viewer's own name at the table.
    you: str
    #: Per action type: its verb and its object (``service.engine.vocabulary``).
    actions: ActionWords
    #: Verbs after a seat's name: (third person, second person).
    verbs: Mapping[str, tuple[str, str]]
    #: Counted nouns: (one, more).
    nouns: Mapping[str, tuple[str, str]]
    #: Card ranks as written on a card (``Q`` is ``O``, Ober, in German).
    ranks: Mapping[str, str]
    suit_names: Mapping[str, str]
    #: How a deal was won, per the API's ``reason`` code.
    reasons: Mapping[str, str]
    #: The bots' levels as said (the API's level names stay codes).
    levels: Mapping[str, str]
    #: The analysis's labels (``mistake``, ``blunder``...) as said; a code not here is said as is.
    labels: Mapping[str, str]
    #: Every sentence, a ``str.format`` template per name.
    text: Mapping[str, str]

    def verb(self, name: str, you: bool) -> str:
        third, second = self.verbs[name]
        return second if you else third

    def count(self, number: int, noun: str) -> str:
        one, more = self.nouns[noun]
        return f"{number} {one if number == 1 else more}"

    def say(self, sentence: str, /, **values: Any) -> str:
        """The sentence named, its blanks filled from ``values``."""
        return self.text[sentence].format(**values)

    def level(self, code: str | None) -> str:
        return self.levels.get(code or "", code or "")


ENGLISH = Vocabulary(
    language=Language.ENGLISH,
    you="You",
    actions=ENGLISH_ACTIONS,
    verbs={
        "deal": ("deals", "deal"),
        "lead": ("leads", "lead"),
        "win": ("wins", "win"),
        "take": ("takes", "take"),
    },
    nouns={
        "trick": ("trick", "tricks"),
        "card": ("card", "cards"),
        "deal": ("deal", "deals"),
        "game point": ("game point", "game points"),
        "decision": ("decision", "decisions"),
        "inaccuracy": ("inaccuracy", "inaccuracies"),
        "mistake": ("mistake", "mistakes"),
        "blunder": ("blunder", "blunders"),
    },
    ranks={"A": "A", "T": "10", "K": "K", "Q": "Q", "J": "J"},
    suit_names={"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"},
    reasons={
        "went_out": "went out with 66",
        "false_claim": "false claim by the opponent",
        "last_trick": "won the last trick",
        "closer_went_out": "closed the talon and went out",
        "closer_false_claim": "the closer claimed without 66",
        "closer_ran_out": "the closer did not reach 66",
        "closer_opponent_went_out": "went out before the closer",
    },
    levels={},
    labels={},
    text={
        "player": "Player {number}",
        "bot": "Bot ({level})",
        "seat": "seat {seat}",
        "deal started": "=== Deal {number}: {name} {deals}, trump card {card} ===",
        "trick won": "Trick {number}: {cards} -> {name} {wins}",
        "lead": "{name} {leads} {card}",
        "took": "  ... and {takes} {card}",
        "you draw": "You draw {cards}",
        "takes trump card": "{name} {takes} the trump card {card}",
        "deal won": "*** Deal {number}: {name} {wins} {points} ({reason}); "
        "card points {first} {first_points}, {second} {second_points} ***",
        "table points": "Game points: {me} {my_points}, {opp} {opp_points}   "
        "Deal {number}, trumps {suit} {suit_name}",
        "talon closed": "closed by {name}",
        "talon closed by you": "closed by {name}",
        "talon exhausted": "exhausted",
        "talon": "Talon: {talon}{trump_card}",
        "trump card face up": ", trump card {card} face up",
        "tricks": "Tricks: {me} {my_tricks}, {opp} {opp_tricks}",
        "card points": "   Card points: {mine} to {theirs}",
        "seen": " (seen: {cards})",
        "opponent hand": "{name}: {cards} in hand{seen}",
        "marriage": "Marriage: {name} {points} in {suit}",
        "trick led": "Trick: {name} led {card}",
        "your hand": "Your hand: {cards}",
        "empty": "(empty)",
        "exchange for": "{text} for {card}",
        "marriage move": "{text} ({points})",
        "claim move": "{text} (go out)",
        "you win": "you win the game!",
        "wins game": "{name} wins the game.",
        "game over": "Game over: {headline}",
        "points left": "Game points left: {me} {my_points}, {opp} {opp_points} after {deals}.",
        "replay hint": "Replay: schnapsen replay {game_id} --url {url}{lang}  "
        "(or open {url}/replay/?game={game_id}{page_lang})",
        "replay title": "Game {game_id} ({variant} counting; {players})",
        "variant head": "head",
        "variant tracked": "tracked",
        "still running": "The game is still running: hands and talons stay hidden until it is over.",
        "replay deal": "Deal {number}: {name} deals, trump card {card}",
        "replay talon": "  talon: {cards}",
        "time ran out": "  {name}'s time ran out: a {level} bot moves",
        "replay trick": "  trick {number}: {cards} -> {name}",
        "replay deal won": "  => {name} wins {points} ({reason}); card points {first}:{second}",
        "replay over": "Game over: {name} wins (game points left {first}:{second})",
        "replay running": "Game running: game points {first}:{second}",
        "started": "Game {game_id}: you against the {level} bot ({variant}: {counting}).",
        "counting head": "count in your head and claim 66",
        "counting tracked": "points tracked",
        "how to move": "Type the number of a move; q leaves the game.",
        "resumed": "Game {game_id} resumed: you against {name}.",
        "left": "You left game {game_id}; it stays on the server.",
        "resume hint": "Take it up again with: schnapsen play --resume",
        "refused": "Refused: {error}",
        "thinking": "{name} is thinking...",
        "your moves": "Your moves:",
        "prompt": "Your move [1-{count}]: ",
        "type a number": "Type a number from 1 to {count} (or q to leave).",
        "analysing": "analysing",
        "analysis title": "Analysis of game {game_id} by the {level} bot ({budget_ms} ms per "
        "decision); values in game points for the deciding seat",
        "accuracy": "{name}: accuracy {accuracy} over {decisions}, {inaccuracies}, {mistakes}, "
        "{blunders}",
        "analysis deal": "Deal {number}",
        "analysis decision": "  trick {trick}: {name} {phrase} {value}",
        "analysis best": "; best: {phrase} {value}",
        "unreachable": "cannot reach the service at {url} ({error}); is it running? "
        "Start it with: schnapsen-serve",
        "analysis failed": "the analysis failed: {error}",
        "no reason": "no reason given",
        "resume needs token": "resuming game {game_id} needs your seat's --token",
        "nothing to resume": "no game to resume: play one first, or give --resume GAME_ID "
        "--token TOKEN",
    },
)

GERMAN = Vocabulary(
    language=Language.GERMAN,
    you="Du",
    actions=GERMAN_ACTIONS,
    verbs={
        "deal": ("gibt", "gibst"),
        "lead": ("spielt aus:", "spielst aus:"),
        "win": ("gewinnt", "gewinnst"),
        "take": ("nimmt", "nimmst"),
    },
    nouns={
        "trick": ("Stich", "Stiche"),
        "card": ("Karte", "Karten"),
        "deal": ("Runde", "Runden"),
        "game point": ("Spielpunkt", "Spielpunkte"),
        "decision": ("Entscheidung", "Entscheidungen"),
        "inaccuracy": ("Ungenauigkeit", "Ungenauigkeiten"),
        "mistake": ("Fehler", "Fehler"),
        "blunder": ("grober Fehler", "grobe Fehler"),
    },
    ranks={"A": "A", "T": "10", "K": "K", "Q": "O", "J": "U"},
    suit_names={"C": "Kreuz", "D": "Karo", "H": "Herz", "S": "Pik"},
    reasons={
        "went_out": "mit 66 hinaus",
        "false_claim": "falsch angesagt vom Gegner",
        "last_trick": "letzter Stich",
        "closer_went_out": "zugedreht und hinaus",
        "closer_false_claim": "zugedreht, ohne 66 angesagt",
        "closer_ran_out": "zugedreht, 66 nicht erreicht",
        "closer_opponent_went_out": "vor dem Zudrehenden hinaus",
    },
    levels={
        "random": "Zufall",
        "beginner": "Anfänger",
        "novice": "Neuling",
        "heuristic": "Heuristik",
        "expert": "Experte",
    },
    labels={
        "best": "bester Zug",
        "good": "gut",
        "inaccuracy": "Ungenauigkeit",
        "mistake": "Fehler",
        "blunder": "grober Fehler",
        "forced": "erzwungen",
    },
    text={
        "player": "Spieler {number}",
        "bot": "Bot ({level})",
        "seat": "Platz {seat}",
        "deal started": "=== Runde {number}: {name} {deals}, Trumpfkarte {card} ===",
        "trick won": "Stich {number}: {cards} -> {name} {wins}",
        "lead": "{name} {leads} {card}",
        "took": "  ... und {takes} {card}",
        "you draw": "Du ziehst {cards}",
        "takes trump card": "{name} {takes} die Trumpfkarte {card}",
        "deal won": "*** Runde {number}: {name} {wins} {points} ({reason}); "
        "Augen {first} {first_points}, {second} {second_points} ***",
        "table points": "Spielpunkte: {me} {my_points}, {opp} {opp_points}   "
        "Runde {number}, Trumpf {suit} {suit_name}",
        "talon closed": "zugedreht von {name}",
        "talon closed by you": "von dir zugedreht",
        "talon exhausted": "aufgebraucht",
        "talon": "Stock: {talon}{trump_card}",
        "trump card face up": ", Trumpfkarte {card} offen",
        "tricks": "Stiche: {me} {my_tricks}, {opp} {opp_tricks}",
        "card points": "   Augen: {mine} zu {theirs}",
        "seen": " (gesehen: {cards})",
        "opponent hand": "{name}: {cards} auf der Hand{seen}",
        "marriage": "Paar: {name} {points} in {suit}",
        "trick led": "Stich: {name} spielte {card} aus",
        "your hand": "Deine Hand: {cards}",
        "empty": "(leer)",
        "exchange for": "{text} gegen {card}",
        "marriage move": "{text} ({points})",
        "claim move": "{text} (hinaus)",
        "you win": "du gewinnst die Partie!",
        "wins game": "{name} gewinnt die Partie.",
        "game over": "Partie aus: {headline}",
        "points left": "Spielpunkte übrig: {me} {my_points}, {opp} {opp_points} nach {deals}.",
        "replay hint": "Wiederholung: schnapsen replay {game_id} --url {url}{lang}  "
        "(oder im Browser: {url}/replay/?game={game_id}{page_lang})",
        "replay title": "Partie {game_id} (Zählen: {variant}; {players})",
        "variant head": "im Kopf",
        "variant tracked": "mitgezählt",
        "still running": "Die Partie läuft noch: Hände und Stock bleiben verdeckt, bis sie aus ist.",
        "replay deal": "Runde {number}: {name} gibt, Trumpfkarte {card}",
        "replay talon": "  Stock: {cards}",
        "time ran out": "  {name}: die Zeit ist abgelaufen, ein Bot ({level}) zieht",
        "replay trick": "  Stich {number}: {cards} -> {name}",
        "replay deal won": "  => {name} gewinnt {points} ({reason}); Augen {first}:{second}",
        "replay over": "Partie aus: {name} gewinnt (Spielpunkte übrig {first}:{second})",
        "replay running": "Partie läuft: Spielpunkte {first}:{second}",
        "started": "Partie {game_id}: du gegen den Bot ({level}) ({variant}: {counting}).",
        "counting head": "zähl im Kopf und sag 66 an",
        "counting tracked": "Augen werden mitgezählt",
        "how to move": "Tipp die Nummer eines Zuges; q verlässt die Partie.",
        "resumed": "Partie {game_id} fortgesetzt: du gegen {name}.",
        "left": "Du hast die Partie {game_id} verlassen; sie bleibt am Server.",
        "resume hint": "Setz sie fort mit: schnapsen play --resume",
        "refused": "Abgelehnt: {error}",
        "thinking": "{name} denkt nach...",
        "your moves": "Deine Züge:",
        "prompt": "Dein Zug [1-{count}]: ",
        "type a number": "Tipp eine Zahl von 1 bis {count} (oder q zum Verlassen).",
        "analysing": "Auswertung",
        "analysis title": "Auswertung der Partie {game_id} durch den Bot ({level}) ({budget_ms} ms "
        "je Entscheidung); Werte in Spielpunkten für den, der entscheidet",
        "accuracy": "{name}: Genauigkeit {accuracy} bei {decisions}, {inaccuracies}, {mistakes}, "
        "{blunders}",
        "analysis deal": "Runde {number}",
        "analysis decision": "  Stich {trick}: {name} {phrase} {value}",
        "analysis best": "; am besten: {phrase} {value}",
        "unreachable": "der Dienst unter {url} ist nicht erreichbar ({error}); läuft er? "
        "Starte ihn mit: schnapsen-serve",
        "analysis failed": "die Auswertung ist fehlgeschlagen: {error}",
        "no reason": "ohne Angabe eines Grundes",
        "resume needs token": "um die Partie {game_id} fortzusetzen, braucht es das --token "
        "deines Platzes",
        "nothing to resume": "keine Partie zum Fortsetzen: spiel zuerst eine, oder gib "
        "--resume GAME_ID --token TOKEN an",
    },
)

VOCABULARIES: Mapping[Language, Vocabulary] = {ENGLISH.language: ENGLISH, GERMAN.language: GERMAN}

#: Per action type: its verb (third person, second person, imperative) and its object,
#: in English.
ACTION_WORDS = ENGLISH.actions


def action_phrase(
    action: dict[str, Any],
    *,
    you: bool = False,
    command: bool = False,
    card: Words = as_is,
    suit: Words = as_is,
    words: Vocabulary = ENGLISH,
) -> str:
    """What a seat does, in ``words``' language (``service.engine.vocabulary.action_phrase``):
    "closes the talon", "play K♥"; ``you``: said of the viewer ("Du spielst"); ``command``:
    a move to choose ("spiel")."""
    return told(action, you=you, command=command, card=card, suit=suit, actions=words.actions)


def language(asked: str) -> Language:
    """The language a setting names: ``de``, ``de-AT`` and ``de_AT.UTF-8`` are German."""
    primary = asked.strip().lower().replace("_", "-").split(".")[0].split("-")[0]
    try:
        return Language(primary)
    except ValueError:
        known = ", ".join(code.value for code in Language)
        raise UnknownLanguage(f"{asked!r} is no language of the client ({known})") from None


__all__ = [
    "ACTION_EVENTS",
    "ACTION_WORDS",
    "ENGLISH",
    "GERMAN",
    "Language",
    "UnknownLanguage",
    "VOCABULARIES",
    "Vocabulary",
    "action_phrase",
    "as_is",
    "language",
    "numbered_tricks",
    "trick_cards",
]

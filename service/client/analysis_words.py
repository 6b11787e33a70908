"""The analysis of a game as lines for a terminal (``schnapsen analyse``).

Only words: the lines say what ``GET /v1/games/{id}/analysis`` sent, the
accuracy per player, then one line per decision with the best action beside
the chosen one when they differ, its loss and its label. The words are the
``Cards``' vocabulary, the labels (``mistake``, ``blunder``...) too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from service.client.terminal import Cards
from service.client.words import action_phrase


def _value(value: float | None) -> str:
    return "" if value is None else f"{value:+.2f}"


def analysis_lines(analysis: dict[str, Any], names: Sequence[str], show: Cards) -> Iterable[str]:
    """The analysis, a line per player and per decision (values in game points)."""
    words = show.words
    say = words.say
    yield say("analysis title", game_id=analysis["game_id"], level=words.level(analysis["level"]),
              budget_ms=analysis["budget_ms"])  # fmt: skip
    for player in analysis["players"]:
        accuracy = "-" if player["accuracy"] is None else f"{player['accuracy']}%"
        yield say(
            "accuracy",
            name=names[player["seat"]],
            accuracy=accuracy,
            decisions=words.count(player["decisions"] - player["forced"], "decision"),
            inaccuracies=words.count(player["inaccuracies"], "inaccuracy"),
            mistakes=words.count(player["mistakes"], "mistake"),
            blunders=words.count(player["blunders"], "blunder"),
        )
    deal = None
    for record in analysis["decisions"]:
        if record["deal"] != deal:
            deal = record["deal"]
            yield say("analysis deal", number=deal)
        you = names[record["seat"]] == words.you

        def phrase(action: dict[str, Any], you: bool = you) -> str:
            return action_phrase(action, you=you, card=show.card, suit=show.suit, words=words)

        line = say("analysis decision", trick=record["trick"], name=names[record["seat"]],
                   phrase=phrase(record["chosen"]), value=_value(record["chosen_value"]))  # fmt: skip
        if record["best"] != record["chosen"]:
            line += say("analysis best", phrase=phrase(record["best"]),
                        value=_value(record["best_value"]))  # fmt: skip
        yield f"{line.rstrip()}  [{words.labels.get(record['label'], record['label'])}]"

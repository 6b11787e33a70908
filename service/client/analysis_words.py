"""The analysis of a game as lines for a terminal (``schnapsen analyse``).

Only words: the lines say what ``GET /v1/games/{id}/analysis`` sent, the
accuracy per player, then one line per decision with the best action beside
the chosen one when they differ, its loss and its label.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from service.client.terminal import Cards, plural
from service.client.words import action_phrase


def _value(value: float | None) -> str:
    return "" if value is None else f"{value:+.2f}"


def analysis_lines(analysis: dict[str, Any], names: Sequence[str], show: Cards) -> Iterable[str]:
    """The analysis, a line per player and per decision (values in game points)."""
    yield (
        f"Analysis of game {analysis['game_id']} by the {analysis['level']} bot "
        f"({analysis['budget_ms']} ms per decision); values in game points for the deciding seat"
    )
    for player in analysis["players"]:
        accuracy = "-" if player["accuracy"] is None else f"{player['accuracy']}%"
        yield (
            f"{names[player['seat']]}: accuracy {accuracy} over "
            f"{plural(player['decisions'] - player['forced'], 'decision')}, "
            f"{player['inaccuracies']} {'inaccuracy' if player['inaccuracies'] == 1 else 'inaccuracies'}, "
            f"{plural(player['mistakes'], 'mistake')}, {plural(player['blunders'], 'blunder')}"
        )
    deal = None
    for record in analysis["decisions"]:
        if record["deal"] != deal:
            deal = record["deal"]
            yield f"Deal {deal}"
        you = names[record["seat"]] == "You"
        phrase = action_phrase(record["chosen"], you=you, card=show.card, suit=show.suit)
        line = f"  trick {record['trick']}: {names[record['seat']]} {phrase} {_value(record['chosen_value'])}"
        if record["best"] != record["chosen"]:
            best = action_phrase(record["best"], you=you, card=show.card, suit=show.suit)
            line += f"; best: {best} {_value(record['best_value'])}"
        yield f"{line.rstrip()}  [{record['label']}]"

"""The opponent model: how likely each legal action is, from what the player to move knew.

A searching bot samples the deals its seat cannot tell apart; weighting them
by how likely the opponent's past actions were in each needs a policy that
says how a player plays from its own view. This one is learned from expert
self-play (benchmarks/decisions.py, tools/train_opponent.py): every legal
action gets a score from one small network fed the position as the mover
sees it and the action (``action_features``: the mover's view only, R11),
and a softmax over the legal actions turns the scores into probabilities.

The network: inputs ``decision_inputs`` then ``action_inputs`` (the manifest's
``layout`` and ``action_layout``), tanh hidden layers (none: a linear scorer,
where the position's part cancels in the softmax), one output, the action's
score.

- ``probabilities(view)``: ``(action, probability)`` for each legal action of
  the seat to move, in ``view.legal_actions()`` order, summing to 1;
- ``OpponentModel.distribution(position, actions)``: the same on encoded
  inputs (the trainer's yardstick runs through it).

The weights ship in the package (``opponent_model.npz`` beside its manifest
``opponent_model.json``) and load on first use, offline, checked as every
shipped model is (``model_files``): other inputs or damaged weights are refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from service.bots.action_features import (
    ACTION_LAYOUT,
    LED_LAYOUT,
    action_inputs,
    decision_inputs,
)
from service.bots.features import LAYOUT
from service.bots.model_files import Layers, read_layers, shipped
from service.engine.actions import Action
from service.engine.knowledge import SeatView

#: The files in ``service/bots`` (package data).
MODEL_FILE = "opponent_model.npz"
MANIFEST_FILE = "opponent_model.json"
#: The position's inputs: the learned value's, then the led card.
POSITION_LAYOUT: tuple[str, ...] = (*LAYOUT, *LED_LAYOUT)


def scores(layers: Layers, position: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """Each action's score: the network on the position's inputs beside each action's.

    The first layer is split in the position's rows and the action's, so the position's
    part is summed once for all its actions.
    """
    weight, bias = layers[0]
    width = position.shape[-1]
    return scores_of_first_layer(
        layers, actions @ weight[width:] + (position @ weight[:width] + bias)
    )


def scores_of_first_layer(layers: Any, first: np.ndarray) -> np.ndarray:
    """Each action's score from its first layer's sums (a row per action, bias included):
    the rest of the network. A caller that varies few inputs updates the sums itself."""
    if len(layers) == 1:
        return first[:, 0]
    h = np.tanh(first)
    for weight, bias in layers[1:-1]:
        h = np.tanh(h @ weight + bias)
    weight, bias = layers[-1]
    return (h @ weight + bias)[:, 0]


def softmax(values: np.ndarray) -> np.ndarray:
    shifted = np.exp(values - values.max())
    return shifted / shifted.sum()


@dataclass(frozen=True, slots=True)
class OpponentModel:
    """A scorer's layers, float32, and its manifest."""

    layers: Layers
    manifest: dict[str, Any]

    def distribution(self, position: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """The probability of each row of ``actions`` (one decision's legal actions)."""
        position = np.asarray(position, dtype=np.float32)
        actions = np.asarray(actions, dtype=np.float32)
        return softmax(scores(self.layers, position, actions).astype(np.float64))


def read_model(model: Any, manifest: dict[str, Any]) -> OpponentModel:
    """A model from an open ``.npz`` (path or binary file) and its manifest, checked."""
    layers = read_layers(
        model,
        manifest,
        name="opponent model",
        layouts={"layout": POSITION_LAYOUT, "action_layout": ACTION_LAYOUT},
        encoding="action_features'",
    )
    return OpponentModel(layers, manifest)


@cache
def shipped_model() -> OpponentModel:
    """The model in the package, loaded on first use (and once)."""
    return shipped(MODEL_FILE, MANIFEST_FILE, read_model)


def probabilities(view: SeatView) -> list[tuple[Action, float]]:
    """How likely the seat to move in ``view`` (which must be ``view.seat``) takes each of
    its legal actions, by the shipped model; empty when it is not to move."""
    legal = view.legal_actions()
    if not legal:
        return []
    position = np.array(decision_inputs(view))
    actions = np.array([action_inputs(view, action) for action in legal])
    odds = shipped_model().distribution(position, actions)
    return [(action, float(p)) for action, p in zip(legal, odds, strict=True)]

"""The opponent model's data (benchmarks/decisions.py) and trainer (tools/train_opponent.py):
reproducible byte for byte, each decision recorded as the mover saw it.

Tiny runs at a small budget (the expert searches the same way at any budget).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from service.bots import opponent_model
from service.bots.action_features import ACTION_LAYOUT
from tests.support.recorders import arrays_of, record, recorder
from tools import train_opponent

generator = recorder("decisions")


def run(out: Path, *args: str) -> bytes:
    return record(generator, out, *args)


@pytest.fixture(scope="module")
def ten_games_file(tmp_path_factory) -> Path:
    """Ten games (both variants) from two worker processes."""
    out = tmp_path_factory.mktemp("decisions") / "ten.npz"
    run(out, "--games", "10", "--seed", "5", "--processes", "2")
    return out


@pytest.fixture(scope="module")
def ten_games(ten_games_file) -> dict[str, np.ndarray]:
    return arrays_of(ten_games_file)


def test_the_same_arguments_give_the_same_file_whatever_the_processes(tmp_path, capsys):
    first = run(tmp_path / "a.npz", "--games", "2", "--seed", "3", "--first-game", "4")
    again = run(
        tmp_path / "b.npz", "--games", "2", "--seed", "3", "--first-game", "4", "--processes", "2"
    )
    other = run(tmp_path / "c.npz", "--games", "2", "--seed", "3")
    assert first == again
    assert first != other
    assert "decisions per hour" in capsys.readouterr().out


def test_each_decision_has_its_legal_actions_and_the_choices_among_them(ten_games):
    first, taken, heuristic = ten_games["first"], ten_games["taken"], ten_games["heuristic"]
    sizes = np.diff(first)
    assert len(taken) > 300 and first[0] == 0
    assert ten_games["actions"].shape == (first[-1], len(ACTION_LAYOUT))
    assert ten_games["position"].shape == (len(taken), len(opponent_model.POSITION_LAYOUT))
    assert np.all(sizes >= 2)  # forced moves are counted, not kept
    assert int(ten_games["forced"]) > 0
    assert np.all((taken >= 0) & (taken < sizes))
    assert np.all((heuristic >= 0) & (heuristic < sizes))
    assert 0.3 < np.mean(taken == heuristic) < 1.0  # alike, not the same player
    assert set(ten_games["game"]) == set(range(10))
    assert tuple(ten_games["action_layout"]) == ACTION_LAYOUT


def test_a_decisions_rows_describe_its_actions(ten_games):
    """Exactly one type per action; a card's row has one card and one rank; a follow's
    rows say whether it follows, and a lead's that it leads."""
    column = {name: i for i, name in enumerate(ACTION_LAYOUT)}
    actions = ten_games["actions"]
    owner = np.repeat(np.arange(len(ten_games["taken"])), np.diff(ten_games["first"]))
    types = actions[:, [column[n] for n in ACTION_LAYOUT if n.startswith("type.")]]
    assert np.all(types.sum(axis=1) == 1)
    plays = actions[:, column["type.play"]] == 1
    cards = actions[:, [column[n] for n in ACTION_LAYOUT if n.startswith("card.")]]
    assert np.all(cards[plays].sum(axis=1) == 1) and np.all(cards[~plays].sum(axis=1) == 0)
    follows = ten_games["follows"][owner] == 1
    assert np.all(actions[plays & ~follows, column["leads"]] == 1)
    assert np.all(actions[follows, column["leads"]] == 0)
    assert actions[follows, column["wins"]].any() and not actions[follows, column["wins"]].all()


def test_the_trainer_makes_the_same_model_byte_for_byte(tmp_path, ten_games_file, capsys):
    first, again = tmp_path / "a" / "model.npz", tmp_path / "b" / "model.npz"
    for out in (first, again):
        assert train_opponent.main(["--data", str(ten_games_file), "--out", str(out)]) == 0
    assert first.read_bytes() == again.read_bytes()
    named = json.loads(first.with_suffix(".json").read_text())
    assert named == json.loads(again.with_suffix(".json").read_text())
    model = opponent_model.read_model(first, named)
    assert named["data"]["games"] == 10 and named["training"]["decisions"]["test"] > 0
    test = named["training"]["test"]["all"]
    for who in ("model", "heuristic", "uniform"):
        assert 0.0 < test[who]["top1_accuracy"] <= 1.0 and test[who]["log_loss"] > 0.0
    assert model.layers[0][0].shape[1] == max(named["training"]["hidden"], default=1)
    assert "Test games" in capsys.readouterr().out

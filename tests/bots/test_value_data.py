"""The learned value's data (benchmarks/positions.py): reproducible, and labelled as documented.

Tiny runs at a small budget (the expert searches the same way at any budget).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from service.bots.features import LAYOUT
from tests.support.recorders import arrays_of, record, recorder

generator = recorder("positions")


def run(tmp_path, name: str, *args: str) -> bytes:
    return record(generator, tmp_path / name, *args)


@pytest.fixture(scope="module")
def two_games_file(tmp_path_factory) -> Path:
    """Two games (one head counting, one tracked) from two worker processes."""
    out = tmp_path_factory.mktemp("positions") / "two.npz"
    record(generator, out, "--games", "2", "--seed", "5", "--processes", "2")
    return out


@pytest.fixture(scope="module")
def two_games(two_games_file) -> dict[str, np.ndarray]:
    return arrays_of(two_games_file)


def test_the_same_seed_gives_the_same_file_byte_for_byte(tmp_path, capsys):
    first = run(tmp_path, "a.npz", "--games", "1", "--seed", "3")
    again = run(tmp_path, "b.npz", "--games", "1", "--seed", "3")
    other = run(tmp_path, "c.npz", "--games", "1", "--seed", "4")
    assert first == again
    assert first != other
    assert "positions per hour" in capsys.readouterr().out


def test_processes_do_not_change_the_file(tmp_path, two_games_file):
    assert run(tmp_path, "one.npz", "--games", "2", "--seed", "5") == two_games_file.read_bytes()


def test_the_file_records_its_run_and_layout(two_games):
    assert tuple(two_games["layout"]) == LAYOUT
    assert two_games["features"].shape == (len(two_games["outcome"]), len(LAYOUT))
    assert int(two_games["seed"]) == 5 and int(two_games["games"]) == 2
    assert int(two_games["version"]) == generator.GENERATOR_VERSION
    assert set(two_games["head"]) == {0, 1}  # one game in each variant


def test_each_position_is_recorded_from_both_sides_with_opposite_labels(two_games):
    """Rows come in pairs, the seat to move's and its opponent's: a deal won by one seat is
    lost by the other, and the expert's value changes sign."""
    outcome, search, seat, mover = (two_games[k] for k in ("outcome", "search", "seat", "mover"))
    assert len(outcome) > 20 and len(outcome) % 2 == 0
    assert np.array_equal(seat[0::2] + seat[1::2], np.ones(len(seat) // 2))
    assert np.array_equal(mover[0::2] + mover[1::2], np.ones(len(seat) // 2))
    assert np.array_equal(outcome[0::2], -outcome[1::2])
    assert np.allclose(search[0::2], -search[1::2], equal_nan=True)


def test_labels_are_game_points_capped_by_what_the_winner_needs(two_games):
    """R9, R10a: a deal wins 1-3 game points, counted at most up to the winner's need."""
    outcome, need = two_games["outcome"].astype(int), two_games["need"].astype(int)
    assert set(np.abs(outcome)) <= {1, 2, 3}
    won = outcome > 0
    assert np.all(outcome[won] <= need[won, 0])
    assert np.all(-outcome[~won] <= need[~won, 1])
    search = two_games["search"]
    assert np.all(np.abs(search[~np.isnan(search)]) <= 3)


def test_positions_are_trick_starts_with_the_talon_open_or_just_after_a_close(two_games):
    kind, trick, features = two_games["kind"], two_games["trick"], two_games["features"]
    column = {name: i for i, name in enumerate(LAYOUT)}
    closed = features[:, column["i_closed"]] + features[:, column["opponent_closed"]]
    assert set(kind) == {generator.TRICK_START, generator.AFTER_CLOSE}
    assert np.all(closed[kind == generator.TRICK_START] == 0)
    assert np.all(closed[kind == generator.AFTER_CLOSE] == 1)
    assert np.all((trick >= 0) & (trick < 5))
    assert np.all(features[:, column["talon_size"]] > 0)

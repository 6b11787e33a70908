"""The arena: simulated over many waves of players finishing games at random, nobody is
on two boards at once, nobody meets their last opponent again at once, boards join
players close in the standings, and the standings equal a recomputation from the games."""

from __future__ import annotations

import random

from service.competition import Result, Waiting, arena_pairings, arena_standings
from service.competition.arena import ARENA_WIN, STREAK


def run_arena(seed: int, players: int, games: int):
    """Players wait, are paired, finish in random order and wait again; a few pause."""
    rng = random.Random(seed)
    names = [f"p{i:03d}" for i in range(players)]
    waiting, playing, results, boards = list(names), [], [], []
    order = 0
    while len(results) < games:
        for board in arena_pairings([Waiting(p) for p in waiting], results):
            busy = {p for b in playing for p in (b.dealer, b.forehand)}
            assert not board.players & busy
            waiting = [p for p in waiting if p not in board.players]
            playing.append(board)
            boards.append((board, list(results)))
        if not playing:
            break
        board = playing.pop(rng.randrange(len(playing)))
        order += 1
        winner = rng.choice((board.dealer, board.forehand))
        results.append(Result(order, board.dealer, board.forehand, winner))
        waiting.extend(p for p in (board.dealer, board.forehand) if rng.random() > 0.05)
    return results, boards


def test_no_board_repeats_either_players_last_game():
    for seed, size, games in ((1, 3, 30), (2, 9, 60), (3, 40, 160), (4, 200, 400)):
        _, boards = run_arena(seed, size, games)
        for board, before in boards:
            last = {}
            for result in sorted(before, key=lambda r: r.round):
                last[result.dealer], last[result.forehand] = result.forehand, result.dealer
            assert last.get(board.dealer) != board.forehand
            assert last.get(board.forehand) != board.dealer


def test_boards_join_players_close_in_the_standings():
    waiting = [Waiting(p) for p in ("a", "b", "c", "d")]
    results = [Result(1, "a", "x", "a"), Result(2, "b", "y", "b"), Result(3, "c", "z", "z")]
    boards = arena_pairings(waiting, results)
    assert {b.players for b in boards} == {frozenset("ab"), frozenset("cd")}


def test_a_win_on_a_streak_counts_double_until_the_next_loss():
    games = [("a", "b"), ("a", "c"), ("a", "d"), ("a", "e"), ("f", "a"), ("a", "b")]
    results = [Result(i, a, b, winner) for i, (winner, b) in enumerate(games) for a in [winner]]
    table = {line.player: line for line in arena_standings(results)}
    assert table["a"].points == ARENA_WIN * (STREAK + 2 * 2 + 1)
    assert table["a"].wins == 5 and not table["a"].on_streak


def test_arena_standings_equal_a_recomputation_from_the_games():
    results, _ = run_arena(seed=6, players=120, games=500)
    points, run = {}, {}
    for result in sorted(results, key=lambda r: r.round):
        w, lost = result.winner, result.loser
        points[w] = points.get(w, 0) + (4 if run.get(w, 0) >= 2 else 2)
        points.setdefault(lost, 0)
        run[w], run[lost] = run.get(w, 0) + 1, 0
    table = arena_standings(reversed(results))
    assert {line.player: line.points for line in table} == points
    assert [line.points for line in table] == sorted(points.values(), reverse=True)

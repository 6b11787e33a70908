"""One observer: every view of a game is rendered from what ``observer.observe`` decides.

What a viewer (a seat, a bot in a seat, a spectator) may know of a state is
decided in one function, ``service.engine.observer.observe``; the HTTP view,
the bots' input, positions, replay frames, the event filter and webhook notices
are renderers of its ``Observation``. Over random games these tests show that
each view equals its renderer applied to the observation, that the renderers
take observations and no state, that states which differ only in cards hidden
from a viewer give that viewer the same observation, and (reading the source)
that the hidden parts of a state are read to decide visibility in one module.
"""

from __future__ import annotations

import random
import re
import typing
from pathlib import Path

import pytest
from hypothesis import given, settings

from service.engine import Event, GameState, Variant, apply_event
from service.engine.frames import render_frames, replay_frames
from service.engine.knowledge import seat_view, seat_view_of
from service.engine.observation import (
    _render_action,
    _render_deal,
    observe_event,
    render_event,
    render_view,
)
from service.engine.observation import observe as http_view
from service.engine.observer import (
    DealObservation,
    Observation,
    deck_revealed,
    hands_revealed,
    observe,
)
from service.engine.position import position_from_view
from service.engine.replays import replay_record, visible_events
from service.engine.state import DealState
from service.game.notices import Notice, NoticeKind, body
from service.game.seats import Seats
from service.game.values import Current
from tests.support.random_games import (
    game_settings,
    permute_hidden,
    play_game,
    policies,
    seeds,
    variants,
)

VIEWERS = (0, 1, None)
SERVICE = Path(__file__).resolve().parents[2] / "service"


def _logs(events: list[Event], rng: random.Random) -> list[list[Event]]:
    """The whole log and a random running prefix of it (a game still in play)."""
    return [events, events[: rng.randrange(4, len(events))]]


def _states(events: list[Event]) -> list[GameState]:
    states: list[GameState] = []
    state: GameState | None = None
    for event in events:
        state = apply_event(state, event)
        states.append(state)
    return states


@pytest.mark.heavy  # every kind of view at every step of 60 random games
@settings(game_settings, max_examples=60)
@given(seed=seeds, variant=variants, policy=policies)
def test_property_every_view_is_its_renderer_applied_to_the_observation(seed, variant, policy):
    """The view, a bot's input, a position, a notice, the event feed and the frames of a
    random game equal their renderers applied to ``observe(state, viewer)``."""
    game = play_game(seed, variant, policy)
    rng = random.Random(seed)
    for state in game.states:
        if rng.random() > 0.25:
            continue
        for viewer in VIEWERS:
            assert http_view(state, viewer) == render_view(observe(state, viewer))
        current = Current("g", 1, state, Seats())
        for seat in (0, 1):
            notice = Notice(NoticeKind.GAME_TURN, "g", 1, seat)
            assert body(current, notice, "app", 0)["data"]["game"] == render_view(
                observe(state, seat)
            )
            if state.deal is None or state.deal.result is not None:
                continue
            assert seat_view(state, seat) == seat_view_of(observe(state, seat))
            if state.to_move == seat:
                position = position_from_view(seat_view(state, seat))
                assert position == position_from_view(seat_view_of(observe(state, seat)))
    for log in _logs(game.events, rng):
        states = _states(log)
        latest = states[-1]
        for viewer in VIEWERS:
            decks = deck_revealed(latest)
            seen = [observe(state, viewer, revealed=decks) for state in states]
            feed = [
                {
                    "version": version,
                    **render_event(event, seen[version - 2] if version > 1 else None, now),
                    "to_move": now.to_move,
                }
                for version, (event, now) in enumerate(zip(log, seen, strict=True), start=1)
            ]
            assert list(visible_events(log, viewer)) == feed
            hands = hands_revealed(latest)
            shown = [observe(state, viewer, revealed=hands) for state in states]
            frames = render_frames(log, shown, observe(latest, viewer, revealed=hands))
            assert replay_frames(log, viewer, latest) == frames
            record = replay_record(log, viewer)
            assert record["events"] == feed
            assert record["steps"] == frames
            assert record["state"] == render_view(observe(latest, viewer))


@game_settings
@given(seed=seeds, variant=variants, policy=policies)
def test_property_cards_hidden_from_a_viewer_do_not_change_its_observation(seed, variant, policy):
    """R11: states that differ only in cards a viewer has not seen (the opponent's hand,
    the talon's order, the deck) give that viewer the same observation, so every view
    rendered from it is the same too."""
    game = play_game(seed, variant, policy)
    rng = random.Random(seed)
    for state in game.deal_states():
        if rng.random() > 0.3:
            continue
        deal = state.deal
        assert deal is not None
        for viewer in VIEWERS:
            hidden = (0, 1) if viewer is None else (1 - viewer,)
            other = state._replace(deal=permute_hidden(deal, hidden, rng))
            assert observe(other, viewer) == observe(state, viewer)
            assert http_view(other, viewer) == http_view(state, viewer)
            if viewer is not None:
                assert seat_view(other, viewer) == seat_view(state, viewer)


def test_a_finished_game_reveals_hands_and_decks_only_when_asked():
    """Every hand and the deck are in an observation only when the caller says the game
    is over; otherwise a seat sees its own hand and a spectator none."""
    game = play_game(7, Variant.HEAD)
    state = next(game.deal_states())
    assert observe(state, 0).deal.visible_hands == (state.deal.hands[0], None)
    assert observe(state, 1).deal.visible_hands == (None, state.deal.hands[1])
    assert observe(state, None).deal.visible_hands == (None, None)
    assert observe(state, None).deal.visible_deck is None
    shown = observe(state, None, revealed=True)
    assert shown.deal.visible_hands == state.deal.hands
    assert shown.deal.visible_deck == state.deal.deck


#: Each renderer and the observation it reads; none of them is given a state.
RENDERERS = (
    render_view,
    _render_deal,
    render_event,
    _render_action,
    render_frames,
    seat_view_of,
)


def test_renderers_take_observations_and_no_state():
    state_types = {GameState, DealState}
    for renderer in RENDERERS:
        hints = typing.get_type_hints(renderer)
        hints.pop("return", None)
        given_types = {t for hint in hints.values() for t in _types_in(hint)}
        assert not given_types & state_types, f"{renderer.__name__} is given a state"
        assert given_types & {Observation, DealObservation}, renderer.__name__


def _types_in(hint: object) -> set[object]:
    args = typing.get_args(hint)
    return {hint}.union(*(_types_in(arg) for arg in args)) if args else {hint}


def test_observe_event_is_render_event_of_the_two_observations():
    game = play_game(11, Variant.TRACKED)
    for before, after, event in zip(game.states, game.states[1:], game.events[1:], strict=False):
        for viewer in VIEWERS:
            assert observe_event(event, before, after, viewer) == render_event(
                event, observe(before, viewer), observe(after, viewer)
            )


#: Reading a hidden part of a state: the hands, the talon (its order), the deck.
HIDDEN = re.compile(r"\.(hands|talon|deck)\b|public_cards_in_hand\(|\.card_points\(")
#: Deciding for a viewer: the word the observer and every renderer use for who looks.
FOR_A_VIEWER = re.compile(r"\b[Vv]iewer\b")
#: The modules that render a view from an observation (and the service's callers of them).
RENDERING_MODULES = (
    "engine/observation.py",
    "engine/frames.py",
    "engine/replays.py",
    "engine/knowledge.py",
    "engine/position.py",
    "game/notices.py",
    "web/render.py",
    "web/views/bots.py",
)


#: Reads of a hidden part that decide nothing for a viewer, each with the module's line:
#: an export's check that its decks, revealed already, match the commitments published.
NOT_DECIDING = {
    "game/replay_export.py": [
        "        and fairness.verify(published[event.number], event.nonce, event.deck)"
    ],
}


def _code_lines(path: Path) -> list[str]:
    """The lines of a module that are code: comments and docstring lines dropped."""
    lines, in_doc = [], False
    for line in path.read_text().splitlines():
        text = line.strip()
        quotes = text.count('"""')
        if in_doc or text.startswith('"""'):
            in_doc = in_doc != (quotes % 2 == 1)
            continue
        if not text.startswith("#"):
            lines.append(line.split("  #")[0])
    return lines


def test_the_hiding_rule_is_written_once():
    """Of all the service's modules, the observer alone reads the hidden parts of a state
    where it decides for a viewer; no rendering module reads them at all."""
    deciding = []
    for path in sorted(SERVICE.rglob("*.py")):
        name, lines = str(path.relative_to(SERVICE)), _code_lines(path)
        reads = [line for line in lines if HIDDEN.search(line)]
        deciding_here = any(FOR_A_VIEWER.search(line) for line in lines)
        if reads and reads != NOT_DECIDING.get(name) and deciding_here:
            deciding.append(name)
    assert deciding == ["engine/observer.py"]
    for name in RENDERING_MODULES:
        found = [line for line in _code_lines(SERVICE / name) if HIDDEN.search(line)]
        assert found == [], f"{name} reads a hidden part of a state: {found}"


def test_only_the_observer_builds_an_observation():
    built = re.compile(r"\b(Deal)?Observation\(")
    builders = sorted(
        str(path.relative_to(SERVICE))
        for path in SERVICE.rglob("*.py")
        if any(built.search(line) for line in _code_lines(path))
    )
    assert builders == ["engine/observer.py"]

"""The jobs workers run. Plain functions of ids and small JSON (RQ's JSON serializer).

- ``bot_move(game_id, version)``: a bot opponent's move in a game;
- ``clock_ran_out(game_id, version)``: a person's clock ran out: a bot's move or a loss;
- ``bot_decision(position, level, seed, budget_ms)``: the bot-move service and hints;
- ``export_replay(game_id, viewer, format, export_id, version)``: a replay export;
- ``analyse_game(game_id, parts)``: the post-game analysis of (deal, seat) parts;
- ``webhook_turn(app)``: one attempt of an app's oldest webhook delivery waiting, its
  next turn queued behind every other app's (``service.jobs.webhook_outbox``);
- ``webhook_due(app, delivery_id, round)``: a failed delivery back in its app's outbox;
- ``rate_game(game_id)``: a rated game's new ratings (``service.store.ratings``);
- ``archive_game(game_id)``: an ended game to the archive (``service.store.archiving``);
- ``sweep()``: Redis forgets archived games past their grace, lost archiving is
  done again, and now and then stray and abandoned games are found.
"""

from __future__ import annotations

import hashlib
import logging
import time
from typing import Any

import redis
from rq import get_current_job

from service.analysis import review as analysis
from service.bots import get_bot
from service.engine.actions import Action
from service.engine.knowledge import SeatView
from service.engine.position import view_from_position
from service.game.problems import GameNotFound
from service.game.replay_export import CONTENT_TYPES, build
from service.game.seeds import bot_seed
from service.jobs.queues import BOT_MOVE_TIMEOUT
from service.jobs.webhook_outbox import TURN_SECONDS, TURN_TIMEOUT, Asked
from service.store.archive_codec import ArchiveEncodeError
from service.store.archiving import ArchiveMismatch
from service.store.exports import StoredExport
from service.store.full import refused_for_memory, room, when_there_is_room
from service.store.webhooks import UnknownDelivery
from workers.deliveries import attempt
from workers.runtime import runtime

log = logging.getLogger(__name__)

#: The key that spaces the sweep's scans for stray and abandoned games.
STRAY_SCAN_KEY = "sch:sweep:scanned"

#: How long a bot's move waits for room in a full store, from its job's start (seconds):
#: half its job's timeout, so that it fails by itself, never by the timeout's alarm.
ROOM_WAIT_SECONDS = BOT_MOVE_TIMEOUT / 2


def bot_move(game_id: str, version: int) -> dict[str, Any]:
    """Play the bot's move at ``version``; a stale job (the game moved on) does nothing.

    A full store (``service.store.full``) refuses the move's append, and writes
    nothing: the job tries it again for ``ROOM_WAIT_SECONDS`` (the bot does not
    think again), since no other move can be appended meanwhile either. Still
    full then, the job fails; RQ cannot record that on a full Redis, so the job
    stays started, and once there is room a worker finds it abandoned and runs
    it again (and a view of the game asks for the move again).
    """
    rt = runtime()
    started = time.monotonic()
    chosen: list[Action] = []

    def choose(view: SeatView, level: str) -> Action:
        if chosen:  # tried again at the same version: the same view, the same move
            return chosen[0]
        decision = get_bot(level).choose(
            view,
            seed=bot_seed(game_id, version, rt.games.secret),
            budget_ms=rt.settings.bot_budget_ms or None,
        )
        remaining = rt.settings.bot_delay_ms / 1000 - (time.monotonic() - started)
        if remaining > 0:
            time.sleep(remaining)
        chosen.append(decision.action)
        return decision.action

    acted = when_there_is_room(
        lambda: rt.games.play_bot(game_id, version, choose),
        within=ROOM_WAIT_SECONDS - (time.monotonic() - started),
        what=f"the bot's move in game {game_id} at version {version}",
    )
    if acted is None:
        return {"game_id": game_id, "version": version, "played": None}
    return {
        "game_id": game_id,
        "version": version,
        "played": chosen[0].to_dict(),
        "new_version": acted.current.version,
    }


def clock_ran_out(game_id: str, version: int) -> dict[str, Any]:
    """The clock of the turn at ``version`` ran out (``service.game.clock``): a bot of the
    clock's level plays the seat's move, or the seat loses on time. A stale job (the
    person moved in time, or the job ran already) does nothing.

    The bot thinks as a bot opponent does (the seat's view only, the same seed and
    budget), with no added delay: the person's time is up already. A full store is
    waited for as a bot move waits.
    """
    rt = runtime()
    started = time.monotonic()
    chosen: list[Action] = []

    def choose(view: SeatView, level: str) -> Action:
        if not chosen:  # tried again at the same version: the same view, the same move
            decision = get_bot(level).choose(
                view,
                seed=bot_seed(game_id, version, rt.games.secret),
                budget_ms=rt.settings.bot_budget_ms or None,
            )
            chosen.append(decision.action)
        return chosen[0]

    acted = when_there_is_room(
        lambda: rt.games.clock_ran_out(game_id, version, choose),
        within=ROOM_WAIT_SECONDS - (time.monotonic() - started),
        what=f"the clock's decision in game {game_id} at version {version}",
    )
    if acted is None:
        return {"game_id": game_id, "version": version, "played": None, "ended": False}
    return {
        "game_id": game_id,
        "version": version,
        "played": chosen[0].to_dict() if chosen else None,
        "ended": acted.current.state.over and not chosen,
        "new_version": acted.current.version,
    }


def bot_decision(
    position: dict[str, Any], level: str, seed: int, budget_ms: int | None
) -> dict[str, Any]:
    """A bot's choice (and evaluations, where the level has them) in a seat's position."""
    view = view_from_position(position)
    started = time.perf_counter()
    decision = get_bot(level).choose(view, seed=seed, budget_ms=budget_ms)
    elapsed_ms = (time.perf_counter() - started) * 1000
    result: dict[str, Any] = {
        "level": level,
        "action": decision.action.to_dict(),
        "elapsed_ms": round(elapsed_ms, 1),
        # The budget it was given, after the service's cap (None: the level's default).
        "budget_ms": budget_ms,
    }
    if decision.evaluations is not None:
        result["evaluations"] = [
            {"action": action.to_dict(), "value": round(value, 4)}
            for action, value in decision.evaluations
        ]
    return result


def export_replay(
    game_id: str,
    viewer: int | None,
    export_format: str,
    export_id: str,
    version: int | None = None,
) -> dict[str, Any]:
    """Build a replay export with the pure builder and store it with its SHA-256.

    The export is of the game at ``version``, the one its id names (the game may
    have moved on since it was asked for); None, from jobs queued before exports
    had versions: the whole log.
    """
    rt = runtime()
    body = build(rt.store.events(game_id, until=version), game_id, viewer, export_format)
    export = StoredExport(
        export_id=export_id,
        game_id=game_id,
        viewer=viewer,
        export_format=export_format,
        content_type=CONTENT_TYPES[export_format],
        sha256=hashlib.sha256(body).hexdigest(),
        body=body,
    )
    rt.exports.save(export)
    return export.meta()


def analyse_game(game_id: str, parts: list[list[int]]) -> dict[str, Any]:
    """Analyse the (deal, seat) parts not cached yet, storing each part as it is done.

    Progress (the fraction of the parts' decisions done) goes to the job's
    ``meta["progress"]``, which ``GET /v1/jobs/{id}`` reports.
    """
    rt = runtime()
    store = rt.analyses
    wanted = [(int(deal), int(seat)) for deal, seat in parts]
    missing = set(store.missing(game_id, wanted))
    selected = [
        m for m in analysis.moments(rt.store.events(game_id)) if (m.deal, m.seat) in missing
    ]
    job = get_current_job()
    total = len(selected)
    started = time.perf_counter()

    def progress(done: int) -> None:
        if job is not None:
            job.meta["progress"] = round(done / total, 4) if total else 1.0
            job.save_meta()

    progress(0)
    done = 0
    for part in sorted(missing):
        chosen = [m for m in selected if (m.deal, m.seat) == part]
        records = []
        for moment in chosen:
            records.append(analysis.analyse_moment(game_id, moment, secret=rt.games.secret))
            done += 1
            progress(done)
        store.save(game_id, part, records)
    progress(total)
    return {
        "game_id": game_id,
        "url": f"/v1/games/{game_id}/analysis",
        "decisions_analysed": total,
        "elapsed_ms": round((time.perf_counter() - started) * 1000, 1),
    }


def webhook_turn(app: str) -> dict[str, Any]:
    """One turn of an app's webhooks (``service.jobs.webhook_outbox``): one attempt of its
    oldest delivery waiting (``workers.deliveries``), then its next turn queued behind
    every other app's, if it has more; while no other job waits, the next attempt at once
    instead (for up to ``TURN_SECONDS``). A copy of a turn that is no longer the app's (a
    killed worker's job run again after a new turn was queued) sends nothing."""
    rt = runtime()
    outboxes = rt.webhook_events.outboxes
    job = get_current_job()
    turn_id = job.id if job is not None else ""
    started = time.monotonic()
    outcomes: list[dict[str, Any]] = []
    while True:
        head = outboxes.head(app, turn_id)
        if head is False:
            return {"app": app, "attempts": outcomes, "reason": "not this app's turn"}
        if head is None:
            outboxes.done(app, turn_id, None)
            return {"app": app, "attempts": outcomes}
        outcomes.append(attempt(rt, app, head))
        # another attempt only while nothing else waits, and only one that ends in time
        elapsed = time.monotonic() - started
        go_on = (
            elapsed < TURN_SECONDS
            and elapsed + rt.settings.webhook_timeout_seconds + 5 < TURN_TIMEOUT
            and not outboxes.others_waiting()
        )
        if not outboxes.done(app, turn_id, head.delivery_id, go_on=go_on) or not go_on:
            return {"app": app, "attempts": outcomes}


def webhook_due(app: str, delivery_id: str, round_: int) -> dict[str, Any]:
    """A failed delivery's retry is due: back in its app's outbox, unless it was delivered,
    failed for good or asked for again since (its round moved on)."""
    rt = runtime()
    try:
        delivery = rt.webhooks.delivery(app, delivery_id)
    except UnknownDelivery:
        return {"delivery": delivery_id, "queued": False, "reason": "forgotten"}
    if delivery.state != "pending" or delivery.round != round_:
        return {"delivery": delivery_id, "queued": False, "reason": "not due any more"}
    asked = rt.webhook_events.outboxes.add(app, delivery_id)
    if asked is Asked.OUTBOX_FULL:
        rt.webhooks.record_attempt(
            app,
            delivery,
            status=None,
            latency_ms=0.0,
            error="not sent: the app's outbox is full",
            state="failed",
        )
    return {"delivery": delivery_id, "queued": asked.value}


def deliver_webhook(app: str, delivery_id: str) -> dict[str, Any]:
    """A delivery job queued before apps took turns: its delivery joins its app's outbox."""
    asked = runtime().webhook_events.outboxes.add(app, delivery_id)
    return {"delivery": delivery_id, "queued": asked.value}


def rate_game(game_id: str) -> dict[str, Any]:
    """Write a rated game's new ratings (``service.store.ratings``): once a game, however
    often this runs."""
    rt = runtime()
    try:
        current = rt.games.current(game_id)
    except GameNotFound:
        return {"game_id": game_id, "rated": None, "reason": "no such game"}
    return {"game_id": game_id, "rated": rt.ratings.rate(current)}


def archive_game(game_id: str) -> dict[str, Any]:
    """Move an ended game to the archive: write its row, check it, mark it for Redis
    to forget after its grace period. Safe to run again at any point.

    A rated game is rated first (written once a game), so a lost rating job is
    made good by the archiving the sweep never lets a game miss."""
    rate_game(game_id)
    archiver = runtime().archiver
    if archiver is None:
        return {"game_id": game_id, "archived": False, "reason": "no archive is configured"}
    archived = archiver.archive_game(game_id)
    if archived is None:
        return {"game_id": game_id, "archived": False, "reason": "not in Redis"}
    return {
        "game_id": game_id,
        "archived": True,
        "written": archived.written,
        "bytes": archived.size,
    }


#: When this process last scanned for stray games on a full store (``time.monotonic``).
_scanned_while_full: list[float] = []


def _scan_due(client: Any, every_seconds: int, *, full: bool) -> bool:
    """Whether this sweep scans for stray games: the first in ``every_seconds`` to set the
    scan's key; on a full store, which refuses the key, the first in that time in this
    process."""
    if not full:
        try:
            return bool(client.set(STRAY_SCAN_KEY, 1, nx=True, ex=every_seconds))
        except redis.exceptions.ResponseError as error:
            if not refused_for_memory(error):
                raise
    now = time.monotonic()
    if _scanned_while_full and now - _scanned_while_full[-1] < every_seconds:
        return False
    _scanned_while_full[:] = [now]
    return True


def sweep() -> dict[str, Any]:
    """One pass of the games' lifecycle (``service.store.archiving``).

    Redis forgets the archived games whose grace is over; games noted as ended
    whose job was lost are archived here. Once per ``STRAY_SCAN_SECONDS``, a
    scan of every log finds ended games nobody noted (they are archived) and
    games that stood still past ``ABANDONED_AFTER_SECONDS`` (they are ended by
    the service's policy, ``GameService.abandon``, and so archived).

    On a full store (``service.store.full``) it makes room: archived games are
    forgotten before their grace is over, ended games archived and forgotten at
    once (``GameArchiver.sweep(full=True)``), and the scan, which cannot write its
    key, is spaced by this process's own clock. The workers run it in their own
    process then (``workers/room.py``): no job can be taken from a full Redis.
    """
    rt = runtime()
    archiver = rt.archiver
    if archiver is None:
        return {"swept": False}
    full = room(archiver.redis).full
    swept = archiver.sweep(full=full)
    report: dict[str, Any] = {"released": swept.released, "archived": swept.archived}
    if full:
        report["full"] = True
    if _scan_due(archiver.redis, max(int(rt.settings.stray_scan_seconds), 1), full=full):
        found = abandoned = 0
        for game_id in archiver.strays():
            try:
                if rt.games.current(game_id).state.over:
                    found += archiver.archive_game(game_id) is not None
                elif rt.games.abandon(game_id, idle_seconds=rt.settings.abandoned_after_seconds):
                    abandoned += 1  # its ending's append asks for its archiving
            except GameNotFound:  # forgotten meanwhile
                continue
            except (redis.RedisError, ArchiveMismatch, ArchiveEncodeError) as error:
                log.warning("sweep: game %s left for the next scan: %s", game_id, error)
        report.update(strays=found, abandoned=abandoned)
    return report

"""The RQ queues, in the order every general worker serves them.

Bot opponents' moves come first, so a player never waits behind the
bot-move service; the service and hints come next; replay exports, the
archive's jobs, then webhook deliveries, last: an app's receiver is slow or
not, and a game's archiving or rating never waits behind it.
Here in ``service`` (names only, no RQ), so the run command and readiness
can name queues without importing the workers.
"""

from __future__ import annotations

#: A bot opponent's move in a game: a player is waiting.
MOVES = "moves"
#: The bot-move service (POST /v1/bot/moves) and hints: one caller is polling.
DECISIONS = "decisions"
#: Replay exports and post-game analyses: nobody waits on a move.
EXPORTS = "exports"
#: Moving ended games to the archive, and the sweep that finds what a lost job missed.
ARCHIVE = "archive"
#: Webhook deliveries to client apps' backends, one app's turn at a time
#: (``service.jobs.webhook_outbox``): after every other queue.
WEBHOOKS = "webhooks"
#: Every queue, in priority order: what a general worker listens to, and /readyz checks.
QUEUES = (MOVES, DECISIONS, EXPORTS, ARCHIVE, WEBHOOKS)
#: The one queue before the split: workers still drain it (last), so a bot move queued
#: there before an upgrade is not stuck (its job id blocks a new enqueue).
LEGACY_QUEUES = ("bots",)

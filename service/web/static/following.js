// What the pages that follow an app's games share (/live/ and /tournament/): a page read
// again every few seconds until the reader starts another, a problem shown above it, and
// a game in play as one line linking to its live board (/watch/).

import { el, problemText } from "./cards.js";
import { W } from "./words.js";
import { $, showProblem } from "./table.js";

const REFRESH_MS = 5000;

/** The problem of a failed read above the page; null clears it. */
export function showError(error) {
  showProblem(error ? problemText(error) : null);
}

/**
 * A function that runs `step(current)` now and every few seconds, until it is called again
 * (the new call takes over) or a read fails with one of `finalStatuses` (401: the key is
 * wrong; reading again would not help). `current()` tells a step that it still owns the
 * page, so a slow answer of an earlier call draws nothing.
 */
export function refresher(finalStatuses) {
  let generation = 0;
  return async function follow(step) {
    const mine = ++generation;
    const current = () => mine === generation;
    while (current()) {
      try {
        await step(current);
        if (current()) showError(null);
      } catch (error) {
        if (!current()) return;
        showError(error);
        if (finalStatuses.includes(error.status)) return;
      }
      await new Promise((resolve) => setTimeout(resolve, REFRESH_MS));
    }
  };
}

/** "Anna (1688)", "Bot (random) (1000)", "Player 2": a seat as a listing names it. */
export function seatName(seat) {
  const who = seat.name || (seat.type === "bot" ? W.bot(seat.level) : W.player(seat.seat + 1));
  return seat.rating === null ? who : `${who} (${seat.rating})`;
}

/** A game in play as a line of a list: its seats and `what` (a few facts), linked to its board. */
export function gameLine(game, what) {
  const [a, b] = game.players;
  return el(
    "li",
    { dataset: { game: game.game_id } },
    el(
      "a",
      { href: game.links.board },
      el("span", { class: "who" }, `${seatName(a)} \u2013 ${seatName(b)}`),
      el("span", { class: "what" }, what),
    ),
  );
}

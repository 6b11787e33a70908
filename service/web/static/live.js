// The games in play: an app's live games, highest rated first, and its featured game,
// read with the app's client key or a player's token (kept in this tab only). Each
// game links to its live board (/watch/). The list is read again every few seconds.

import { api, el, problemText } from "./cards.js";
import { W } from "./words.js";
import { $ } from "./table.js";

/** Where the key typed in is kept (this tab only); the tournament page shares it. */
export const LIVE_KEY = "schnapsen:live-key";
const KEY = LIVE_KEY;
const POOLS = [
  "head-blitz", "head-rapid", "head-classical", "head-untimed",
  "tracked-blitz", "tracked-rapid", "tracked-classical", "tracked-untimed",
];
const REFRESH_MS = 5000;

let generation = 0;
let next = null; // the next page's cursor

function query(cursor) {
  const params = new URLSearchParams({ limit: "20" });
  if ($("live-pool").value) params.set("pool", $("live-pool").value);
  if ($("live-min").value) params.set("min_rating", $("live-min").value);
  if (cursor) params.set("cursor", cursor);
  return `/v1/games/live?${params}`;
}

function showProblem(error) {
  $("problem").hidden = !error;
  $("problem").textContent = error ? problemText(error) : "";
}

/** "Anna (1688)", "Bot (random) (1000)", "Player 2": a seat as the list names it. */
export function seatName(seat) {
  const who = seat.name || (seat.type === "bot" ? W.bot(seat.level) : W.player(seat.seat + 1));
  return seat.rating === null ? who : `${who} (${seat.rating})`;
}

function entry(game) {
  const [a, b] = game.players;
  const facts = [game.pool, game.rated ? W.liveRated : W.liveCasual];
  if (game.rating !== null) facts.push(W.liveRating(game.rating));
  facts.push(W.liveVersion(game.version));
  return el(
    "li",
    { dataset: { game: game.game_id } },
    el(
      "a",
      { href: game.links.board },
      el("span", { class: "who" }, `${seatName(a)} \u2013 ${seatName(b)}`),
      el("span", { class: "what" }, facts.join(" \u00b7 ")),
    ),
  );
}

async function showFeatured(token) {
  const box = $("featured");
  try {
    const game = await api("GET", "/v1/games/featured", { token });
    const [a, b] = game.players;
    box.replaceChildren(
      `${W.featured}: `,
      el("a", { href: game.links.board, id: "featured-link" }, `${seatName(a)} \u2013 ${seatName(b)}`),
    );
    box.hidden = false;
  } catch (error) {
    if (error.status !== 404) throw error;
    box.hidden = true; // none in play
  }
}

async function show(token, mine) {
  const page = await api("GET", query(null), { token });
  if (mine !== generation) return;
  await showFeatured(token);
  $("live-list").replaceChildren(...page.games.map(entry));
  $("live-empty").hidden = page.games.length > 0;
  next = page.next_cursor;
  $("live-more").hidden = !next;
  document.body.dataset.state = "listed";
}

async function more() {
  const token = sessionStorage.getItem(KEY);
  if (!token || !next) return;
  const page = await api("GET", query(next), { token });
  $("live-list").append(...page.games.map(entry));
  next = page.next_cursor;
  $("live-more").hidden = !next;
}

async function follow(token) {
  const mine = ++generation;
  while (mine === generation) {
    try {
      await show(token, mine);
      showProblem(null);
    } catch (error) {
      showProblem(error);
      if (error.status === 401) return;
    }
    await new Promise((resolve) => setTimeout(resolve, REFRESH_MS));
  }
}

export function startLive() {
  $("live-pool").append(...POOLS.map((pool) => el("option", { value: pool }, pool)));
  const stored = sessionStorage.getItem(KEY);
  if (stored) $("live-key").value = stored;
  $("live-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const token = $("live-key").value.trim();
    sessionStorage.setItem(KEY, token);
    follow(token);
  });
  $("live-more").addEventListener("click", () => more().catch(showProblem));
  document.body.dataset.state = "setup";
  if (stored) follow(stored);
}

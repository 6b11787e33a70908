// The games in play: an app's live games, highest rated first, and its featured game,
// read with the app's client key or a player's token (kept in this tab only). Each
// game links to its live board (/watch/). The list is read again every few seconds.

import { api, el } from "./cards.js";
import { W } from "./words.js";
import { $ } from "./table.js";
import { gameLine, refresher, seatName, showError } from "./following.js";

/** Where the key typed in is kept (this tab only); the tournament page shares it. */
export const LIVE_KEY = "schnapsen:live-key";
const KEY = LIVE_KEY;
const POOLS = [
  "head-blitz", "head-rapid", "head-classical", "head-untimed",
  "tracked-blitz", "tracked-rapid", "tracked-classical", "tracked-untimed",
];
const follow = refresher([401]);

let next = null; // the next page's cursor

function query(cursor) {
  const params = new URLSearchParams({ limit: "20" });
  if ($("live-pool").value) params.set("pool", $("live-pool").value);
  if ($("live-min").value) params.set("min_rating", $("live-min").value);
  if (cursor) params.set("cursor", cursor);
  return `/v1/games/live?${params}`;
}

function entry(game) {
  const facts = [game.pool, game.rated ? W.liveRated : W.liveCasual];
  if (game.rating !== null) facts.push(W.liveRating(game.rating));
  facts.push(W.liveVersion(game.version));
  return gameLine(game, facts.join(" \u00b7 "));
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

async function show(token, current) {
  const page = await api("GET", query(null), { token });
  if (!current()) return;
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

export function startLive() {
  $("live-pool").append(...POOLS.map((pool) => el("option", { value: pool }, pool)));
  const stored = sessionStorage.getItem(KEY);
  if (stored) $("live-key").value = stored;
  $("live-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const token = $("live-key").value.trim();
    sessionStorage.setItem(KEY, token);
    follow((current) => show(token, current));
  });
  $("live-more").addEventListener("click", () => more().catch(showError));
  document.body.dataset.state = "setup";
  if (stored) follow((current) => show(stored, current));
}

// A tournament's page (/tournament/?id=<tournament_id>): its standings, a page at a time,
// and its boards being played, each a link to its live board (/watch/?game=). Read with
// the app's client key or a player's token (kept in this tab, shared with /live/), and
// read again every few seconds. The page decides nothing: it draws the API's answers.

import { api, el } from "./cards.js";
import { W } from "./words.js";
import { $ } from "./table.js";
import { gameLine, refresher } from "./following.js";
import { LIVE_KEY } from "./live.js";

const PAGE_SIZE = 20;
const follow = refresher([401, 404, 422]);

let offset = 0; // the first line of the standings shown
const names = new Map(); // player id -> display name (null: none to show)

/** The display names of the players not yet known, read once each. */
async function learnNames(ids, token) {
  const unknown = ids.filter((id) => !names.has(id));
  await Promise.all(
    unknown.map(async (id) => {
      try {
        const player = await api("GET", `/v1/players/${encodeURIComponent(id)}`, { token });
        names.set(id, player.name || null);
      } catch (error) {
        if (error.status !== 404) throw error;
        names.set(id, null); // erased, or no player of this app: its id is shown
      }
    }),
  );
}

function showTournament(tournament) {
  $("tournament-name").textContent = tournament.name;
  $("tournament-facts").textContent = W.tournamentFacts(tournament);
  document.title = `Schnapsen: ${tournament.name}`;
}

/** A line of the table; an arena's has no tiebreaks (Buchholz, Sonneborn-Berger). */
function standingRow(line, arena) {
  const who = names.get(line.player_id) || line.player_id;
  const tiebreaks = arena
    ? []
    : [el("td", {}, String(line.buchholz)), el("td", {}, String(line.sonneborn_berger))];
  return el(
    "tr",
    { dataset: { player: line.player_id } },
    el("td", {}, String(line.rank)),
    el("td", { class: "who" }, who),
    el("td", {}, String(line.points)),
    ...tiebreaks,
    el("td", {}, String(line.games)),
  );
}

function showStandings(table, arena) {
  for (const head of document.querySelectorAll("th.tiebreak")) head.hidden = arena;
  $("standings").replaceChildren(...table.standings.map((line) => standingRow(line, arena)));
  $("standings-empty").hidden = table.total > 0;
  const last = Math.min(offset + table.standings.length, table.total);
  $("standings-where").textContent = table.total ? W.standingsWhere(offset + 1, last, table.total) : "";
  $("standings-prev").disabled = offset === 0;
  $("standings-next").disabled = last >= table.total;
  $("standings-pager").hidden = table.total <= PAGE_SIZE;
}

function board(game) {
  return gameLine(game, W.liveVersion(game.version));
}

/** Every board of the tournament in play: the live listing, page after page. */
async function boardsInPlay(id, token) {
  const games = [];
  let cursor = null;
  for (let page = 0; page < 10; page++) {
    const params = new URLSearchParams({ tournament: id, limit: "50" });
    if (cursor) params.set("cursor", cursor);
    const found = await api("GET", `/v1/games/live?${params}`, { token });
    games.push(...found.games);
    cursor = found.next_cursor;
    if (!cursor) break;
  }
  return games;
}

async function show(id, token, current) {
  const path = `/v1/tournaments/${encodeURIComponent(id)}`;
  const [tournament, table, games] = await Promise.all([
    api("GET", path, { token }),
    api("GET", `${path}/standings?offset=${offset}&limit=${PAGE_SIZE}`, { token }),
    boardsInPlay(id, token),
  ]);
  await learnNames(table.standings.map((line) => line.player_id), token);
  if (!current()) return;
  showTournament(tournament);
  showStandings(table, tournament.kind === "arena");
  $("tournament-boards").replaceChildren(...games.map(board));
  $("tournament-no-boards").hidden = games.length > 0;
  document.body.dataset.state = "shown";
  document.body.dataset.tournament = tournament.status;
}

function start() {
  const id = $("tournament-id").value.trim();
  const token = $("tournament-key").value.trim();
  if (!id || !token) return;
  sessionStorage.setItem(LIVE_KEY, token);
  const url = new URL(location.href);
  url.searchParams.set("id", id);
  history.replaceState(null, "", url);
  follow((current) => show(id, token, current));
}

function turn(by) {
  offset = Math.max(0, offset + by * PAGE_SIZE);
  start();
}

export function startTournament() {
  const id = new URLSearchParams(location.search).get("id") || "";
  $("tournament-id").value = id;
  const stored = sessionStorage.getItem(LIVE_KEY);
  if (stored) $("tournament-key").value = stored;
  $("tournament-form").addEventListener("submit", (event) => {
    event.preventDefault();
    offset = 0;
    start();
  });
  $("standings-prev").addEventListener("click", () => turn(-1));
  $("standings-next").addEventListener("click", () => turn(1));
  document.body.dataset.state = "setup";
  if (id && stored) start();
}

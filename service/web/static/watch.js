// The live board: a spectator's view of one game (/watch/?game=<id>), following the
// game's event stream (Server-Sent Events). Each burst of events carries the
// spectator's view (include=view), and the board is drawn from it: both hands face
// down but for the cards both players have seen, the talon, the trick, the scores.
// Nothing here knows a rule; the server decides what a spectator may see.

import { cardBack, cardFace, cardLabel, el, problemText, seatNames } from "./cards.js";
import { W } from "./words.js";
import { $, clearTable, dealResultText, emptySlot, playedCard, renderScores, renderStock, renderTrump, showTable } from "./table.js";

let names = [W.player(1), W.player(2)];
let shown = 0; // the version on the board

function showProblem(error) {
  $("problem").hidden = !error;
  $("problem").textContent = error ? (typeof error === "string" ? error : problemText(error)) : "";
}

function hand(deal, seat) {
  const open = deal ? deal.revealed_cards[seat] : [];
  const backs = deal ? deal.hand_sizes[seat] - open.length : 0;
  return [
    ...open.map((code) => {
      const card = cardFace(code, { title: W.seenByBoth });
      card.classList.add("public");
      return card;
    }),
    ...Array.from({ length: Math.max(0, backs) }, () => cardBack()),
  ];
}

function stat(deal, seat) {
  if (!deal) return "";
  const tricks = W.tricks(deal.tricks_won[seat]);
  return deal.card_points ? W.seatPoints(tricks, deal.card_points[seat]) : tricks;
}

function renderTrick(view) {
  const deal = view.deal;
  const trick = $("trick");
  trick.classList.remove("last");
  const last = view.deals[view.deals.length - 1];
  $("banner").hidden = !(last && deal && deal.tricks.length === 0 && view.status !== "finished");
  if (last) $("banner").textContent = dealResultText(last, names);
  if (view.status === "finished" || !deal) {
    trick.replaceChildren();
    $("caption").textContent = "";
    return;
  }
  if (deal.current_trick.length) {
    const lead = deal.current_trick[0];
    trick.replaceChildren(playedCard(lead, { bottom: 0, names }), emptySlot());
    $("caption").textContent = W.led(names[lead.seat], cardLabel(lead.card));
  } else if (deal.tricks.length) {
    const done = deal.tricks[deal.tricks.length - 1];
    trick.classList.add("last");
    trick.replaceChildren(...done.cards.map((c) => playedCard(c, { winner: c.seat === done.winner, bottom: 0, names })));
    $("caption").textContent = W.lastTrick(names[done.winner]);
  } else {
    trick.replaceChildren(emptySlot(), emptySlot());
    $("caption").textContent = "";
  }
}

function render(view) {
  if (view.version < shown) return; // an older view than the one on the board
  shown = view.version;
  names = seatNames(view.players, null);
  document.body.dataset.version = view.version;
  const deal = view.deal;
  $("top-name").textContent = names[1];
  $("bottom-name").textContent = names[0];
  $("top-hand").replaceChildren(...hand(deal, 1));
  $("bottom-hand").replaceChildren(...hand(deal, 0));
  $("top-stat").textContent = stat(deal, 1);
  $("bottom-stat").textContent = stat(deal, 0);
  $("top").classList.toggle("to-move", view.status === "active" && view.to_move === 1);
  $("bottom").classList.toggle("to-move", view.status === "active" && view.to_move === 0);
  if (deal) {
    renderStock({ trumpCard: deal.trump_card, talonSize: deal.talon_size, closedBy: deal.closed_by }, names);
    const exchange = deal.exchange ? [W.exchangedJack(names[deal.exchange.seat])] : [];
    renderTrump(deal.trump_suit, deal.marriages, names, ...exchange);
  } else {
    clearTable();
  }
  renderTrick(view);
  renderScores([0, 1], view.game_points, view.deals, names);
  const turn = $("watch-turn");
  if (view.status === "finished") {
    turn.className = "turn over";
    turn.textContent = view.winner === null ? W.watchOver : W.wonGame(names[view.winner]);
  } else if (view.status === "waiting") {
    turn.className = "turn theirs";
    turn.textContent = W.watchWaiting;
  } else {
    turn.className = "turn theirs";
    turn.textContent = W.watchToMove(names[view.to_move]);
  }
  document.body.dataset.state = view.status === "finished" ? "finished" : "watching";
}

async function readView(gameId) {
  const response = await fetch(`/v1/games/${encodeURIComponent(gameId)}`, {
    headers: { Accept: "application/json" },
    cache: "no-store",
  });
  const body = await response.json();
  if (!response.ok) throw Object.assign(new Error(body.detail || body.title), { status: response.status, problem: body });
  return body;
}

export function startWatch() {
  const gameId = new URLSearchParams(location.search).get("game");
  if (!gameId) {
    showProblem(W.watchNoGame);
    return;
  }
  $("game-id").textContent = W.gameId(gameId);
  $("top-hand").classList.add("backs");
  showTable(["scores-panel"], "watch-panel");
  const refresh = () =>
    readView(gameId)
      .then((view) => {
        showProblem(null);
        render(view);
      })
      .catch((error) => showProblem(error.problem ? `${error.problem.title} (${error.status}): ${error.problem.detail}` : String(error)));
  refresh();
  // The stream sends the events after the board's version; the last of each burst
  // carries the spectator's view. EventSource reconnects by itself (Last-Event-ID).
  const stream = new EventSource(`/v1/games/${encodeURIComponent(gameId)}/stream?include=view`);
  const onEvent = (message) => {
    const data = JSON.parse(message.data);
    if (data.view) render(data.view);
    else if (data.version > shown) refresh();
  };
  stream.onmessage = onEvent;
  for (const type of ["game_created", "seat_taken", "deal_started", "action_taken", "clock_moved", "resigned", "aborted", "timeout_claimed"]) {
    stream.addEventListener(type, onEvent);
  }
  stream.addEventListener("end", () => {
    stream.close();
    refresh();
  });
}

// The card table drawn the same way by the play page and the replay viewer:
// the stock, the trick, trumps, game points and the deals so far. Each page
// passes what the API sent it; nothing here knows a rule.

import { REASONS, SUITS, cardBack, cardFace, el, isYou, suitLabel, verb } from "./cards.js";
import { W } from "./words.js";

export const $ = (id) => document.getElementById(id);

/** The talon, the trump card under it and its label; `closedBy` is a seat or null. */
export function renderStock({ trumpCard, talonSize, closedBy }, names) {
  const stock = $("stock");
  const parts = [];
  if (trumpCard) {
    const trump = cardFace(trumpCard, { title: W.trumpCardTitle });
    trump.classList.add("trump-card");
    parts.push(trump);
  }
  if (talonSize > 0) {
    const pile = el("div", { class: "talon", dataset: { size: talonSize } });
    for (let i = 0; i < Math.min(talonSize, 4); i++) {
      const back = cardBack();
      back.style.transform = `translate(${-i * 2}px, ${-i * 2}px)`;
      pile.append(back);
    }
    parts.push(pile);
  }
  let label;
  if (closedBy !== null) label = W.talonClosedBy(names[closedBy]);
  else if (talonSize > 0) label = W.talonCards(talonSize);
  else label = W.talonExhausted;
  if (closedBy !== null) parts.push(el("div", { class: "closed-mark" }, W.closedMark));
  parts.push(el("div", { class: "label", id: "talon-label" }, label));
  stock.classList.toggle("closed", closedBy !== null);
  stock.replaceChildren(...parts);
}

export function clearTable() {
  for (const id of ["stock", "trick", "trump-info"]) $(id).replaceChildren();
  $("caption").textContent = "";
}

/** A card on the table with its player's name; the bottom seat's card sits lower. */
export function playedCard(entry, { winner = false, bottom, names }) {
  return el(
    "div",
    { class: `played ${entry.seat === bottom ? "down" : "up"}${winner ? " winner" : ""}` },
    cardFace(entry.card),
    names[entry.seat],
  );
}

export function emptySlot() {
  return el("div", { class: "slot" });
}

/** Trumps, the marriages declared, and any further lines. */
export function renderTrump(trumpSuit, marriages, names, ...more) {
  const suit = SUITS[trumpSuit];
  $("trump-info").replaceChildren(
    el("span", { class: "small" }, W.trumps),
    el("span", { class: `big ${suit.red ? "red" : "black"}`, id: "trump-suit", dataset: { suit: trumpSuit } }, suit.symbol),
    el("span", { class: "small" }, suit.name),
    ...marriages.map((m) => el("div", { class: "small" }, `${names[m.seat]}: ${m.points} in ${suitLabel(m.suit)}`)),
    ...more.map((line) => el("div", { class: "small" }, line)),
  );
}

/** Game points, in the order of `seats`, and one row per finished deal. */
export function renderScores(seats, gamePoints, results, names) {
  $("scores").replaceChildren(
    ...seats.flatMap((seat) => [
      el("span", {}, names[seat]),
      el("span", { class: "gp", dataset: { seat } }, gamePoints[seat]),
    ]),
  );
  $("deals").replaceChildren(
    ...results.map((d) =>
      el(
        "tr",
        {},
        el("td", {}, d.number),
        el("td", {}, names[d.winner]),
        el("td", {}, d.game_points),
        el("td", { title: W.cardPoints(d.card_points[0], d.card_points[1]) }, REASONS[d.reason] || d.reason),
      ),
    ),
  );
}

/** "You win deal 2: 3 game points, ..." from a deal's result. */
export function dealResultText(result, names) {
  const winner = names[result.winner];
  const reason = REASONS[result.reason] || result.reason;
  return W.dealResult(winner, verb("win", isYou(winner)), result, reason, W.gamePoints(result.game_points));
}

/** Show the table and the side panels named, and move the starting panel last. */
export function showTable(panels, startPanel) {
  $("layout").classList.remove("single");
  $("table").hidden = false;
  for (const id of panels) $(id).hidden = false;
  $(startPanel).style.order = 5;
}

export function showProblem(text) {
  $("problem").hidden = !text;
  $("problem").textContent = text || "";
}
